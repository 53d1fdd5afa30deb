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

impl Expr {
    /// The operands, in order.
    fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Add(x, y) | Expr::Mul(x, y) => vec![x, y],
            Expr::IfLess(a, c, t, f) => vec![a, c, t, f],
            Expr::Input(_) | Expr::Num(_) => Vec::new(),
        }
    }
}

/// Folds `e` bottom up: `node(e, operands)` gets the folded values of
/// `e`'s operands in order. Post-order with an explicit stack: the front
/// end's own trees may be deep.
pub fn fold<T: Copy>(e: &Expr, mut node: impl FnMut(&Expr, &[T]) -> T) -> T {
    let mut tasks = vec![(e, false)];
    let mut values: Vec<T> = Vec::new();
    while let Some((e, operands_done)) = tasks.pop() {
        let children = e.children();
        if operands_done {
            let at = values.len() - children.len();
            let v = node(e, &values[at..]);
            values.truncate(at);
            values.push(v);
        } else {
            tasks.push((e, true));
            tasks.extend(children.into_iter().rev().map(|c| (c, false)));
        }
    }
    values.pop().expect("one value")
}

/// Emits `e` into the body of `b`'s lambda.
pub fn emit(b: &mut Builder<'_>, inputs: &[Sym], e: &Expr) -> Sym {
    fold(e, |e, v| match e {
        Expr::Input(i) => inputs[*i],
        Expr::Num(x) => b.constant(Imm::f64(*x)),
        Expr::Add(..) => b.binary(Opcode::Fadd, v[0], v[1]).expect("floats"),
        Expr::Mul(..) => b.binary(Opcode::Fmul, v[0], v[1]).expect("floats"),
        Expr::IfLess(..) => {
            let less = b.fsetp(FloatCC::Lt, v[0], v[1]).expect("floats");
            b.select(less, v[2], v[3]).expect("floats")
        }
    })
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
