//! Vectorizing another compiler's programs: a toy expression language
//! (its own AST, nothing of Keel's) builds graph-IR functions through
//! `vectorize::Builder`, which types each node as it is added; the
//! vectorizer then maps them over arrays, and the reference evaluator runs
//! them. The graph IR is the exchange format, as Keel IR is for the other
//! passes: a front end only has to emit nodes.
//!
//! Run with `cargo run -p vectorize --example foreign_frontend`.

use ir_core::{FloatCC, Imm, Opcode, Type};
use vectorize::eval::{EvalConfig, eval};
use vectorize::{Builder, Graph, Sym, ValTy, Value, Vectorizer};

/// The foreign language: float expressions over named inputs.
#[derive(Debug)]
pub enum Expr {
    Input(usize),
    Num(f64),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    /// `if a < b then c else d`
    IfLess(Box<Expr>, Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Emits `e` into the body of `b`'s lambda (post-order, with an explicit
/// stack: the front end's own trees may be deep).
pub fn emit(b: &mut Builder<'_>, inputs: &[Sym], e: &Expr) -> Sym {
    enum Task<'e> {
        Visit(&'e Expr),
        Build(&'e Expr),
    }
    let mut tasks = vec![Task::Visit(e)];
    let mut values: Vec<Sym> = Vec::new();
    while let Some(t) = tasks.pop() {
        match t {
            Task::Visit(e) => {
                tasks.push(Task::Build(e));
                match e {
                    Expr::Add(x, y) | Expr::Mul(x, y) => tasks.extend([Task::Visit(y), Task::Visit(x)]),
                    Expr::IfLess(a, c, t, f) => {
                        tasks.extend([Task::Visit(f), Task::Visit(t), Task::Visit(c), Task::Visit(a)])
                    }
                    Expr::Input(_) | Expr::Num(_) => {}
                }
            }
            Task::Build(e) => {
                let v = match e {
                    Expr::Input(i) => inputs[*i],
                    Expr::Num(x) => b.constant(Imm::f64(*x)),
                    Expr::Add(..) | Expr::Mul(..) => {
                        let (y, x) = (values.pop().unwrap(), values.pop().unwrap());
                        let op = if matches!(e, Expr::Add(..)) { Opcode::Fadd } else { Opcode::Fmul };
                        b.binary(op, x, y).expect("floats")
                    }
                    Expr::IfLess(..) => {
                        let (f, t, c, a) = (
                            values.pop().unwrap(),
                            values.pop().unwrap(),
                            values.pop().unwrap(),
                            values.pop().unwrap(),
                        );
                        let less = b.fsetp(FloatCC::Lt, a, c).expect("floats");
                        b.select(less, t, f).expect("floats")
                    }
                };
                values.push(v);
            }
        }
    }
    values.pop().expect("one value")
}

/// The graph function `f` of `e` over `inputs` parameters of type `f64`,
/// verified.
pub fn function(e: &Expr, inputs: usize) -> (Graph, Sym) {
    let mut g = Graph::new();
    let params = vec![ValTy::scalar(Type::F64); inputs];
    let f = g.add_function("f", &params).expect("a fresh name");
    let inputs = g.lambda(f).expect("a lambda").params.clone();
    let mut b = Builder::new(&mut g, f);
    let r = emit(&mut b, &inputs, e);
    b.ret(&[r]);
    vectorize::verify(&g).expect("the builder typed every node");
    (g, f)
}

fn main() {
    // f(x, y) = if x < y then x * y + 1 else y
    use Expr::*;
    let e = IfLess(
        Box::new(Input(0)),
        Box::new(Input(1)),
        Box::new(Add(Box::new(Mul(Box::new(Input(0)), Box::new(Input(1)))), Box::new(Num(1.0)))),
        Box::new(Input(1)),
    );
    let (g, f) = function(&e, 2);
    let f64t = ValTy::scalar(Type::F64);

    // Map it over x, with y the same in every lane.
    let v = Vectorizer::default().vectorize(&g, f, &[true, false]).expect("vectorizes");
    println!("{}", vectorize::text::print_graph(&v.graph));
    let xs: Vec<Value> = [1.0, 5.0, -2.0].iter().map(|&x| Value::Scalar(Imm::f64(x))).collect();
    let batch = Value::array_of(f64t, &xs).expect("floats");
    let out = eval(&v.graph, v.func, &[batch, Value::Scalar(Imm::f64(3.0))], EvalConfig::default()).expect("runs");
    println!("f([1, 5, -2], 3) = {}", out[0]);
    assert_eq!(out[0].to_string(), "[4.0, 3.0, -5.0]");
}
