//! Vectorizing another compiler's programs: a toy expression language
//! (its own AST, nothing of Keel's) builds a per-element graph-IR function
//! through `vectorize::Builder`, which types each node as it is added; the
//! vectorizer maps it over arrays, and the reference evaluator runs both:
//! `vmap(f)(xs)` must equal `[f(x) for x in xs]`, lane for lane, bit for
//! bit. The graph IR is the exchange format, as Keel IR is for the other
//! passes: a front end only has to emit nodes, and needs nothing of Keel's
//! IR (the example builds without the `keel` feature).
//!
//! Run with
//! `cargo run -p keel-vectorize --no-default-features --example foreign_frontend`.

use vectorize::eval::{EvalConfig, eval};
use vectorize::{BinaryOp, Builder, FloatCC, Graph, Imm, ScalarTy, Sym, ValTy, Value, Vectorizer};

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
        Expr::Add(..) => b.binary(BinaryOp::Fadd, v[0], v[1]).expect("floats"),
        Expr::Mul(..) => b.binary(BinaryOp::Fmul, v[0], v[1]).expect("floats"),
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
    let params = vec![ValTy::scalar(ScalarTy::F64); inputs];
    let f = g.add_function("f", &params).expect("a fresh name");
    let inputs = g.lambda(f).expect("a lambda").params.clone();
    let mut b = Builder::new(&mut g, f);
    let r = emit(&mut b, &inputs, e);
    b.ret(&[r]);
    vectorize::verify(&g).expect("the builder typed every node");
    (g, f)
}

/// `vmap(f)` under `in_axes` on a batch, checked lane by lane against `f`
/// called on each lane's arguments; returns the batched results.
pub fn check_vmap(g: &Graph, f: Sym, in_axes: &[bool], lanes: &[Vec<f64>], shared: &[f64]) -> Vec<Value> {
    let f64t = ValTy::scalar(ScalarTy::F64);
    let v = Vectorizer::default().vectorize(g, f, in_axes).expect("vectorizes");
    // The batched arguments: one array per mapped input, a scalar otherwise.
    let args: Vec<Value> = (0..in_axes.len())
        .map(|i| {
            if in_axes[i] {
                let column: Vec<Value> = lanes.iter().map(|l| Value::Scalar(Imm::f64(l[i]))).collect();
                Value::array_of(f64t, &column).expect("floats")
            } else {
                Value::Scalar(Imm::f64(shared[i]))
            }
        })
        .collect();
    let batched = eval(&v.graph, v.func, &args, EvalConfig::default()).expect("the batch runs");
    for (l, lane) in lanes.iter().enumerate() {
        let one: Vec<Value> =
            (0..in_axes.len()).map(|i| Value::Scalar(Imm::f64(if in_axes[i] { lane[i] } else { shared[i] }))).collect();
        let want = eval(g, f, &one, EvalConfig::default()).expect("one lane runs");
        let got = batched[0].array().expect("a batched result").item(1, l);
        assert_eq!(got, want[0], "lane {l}: vmap(f)(xs)[{l}] differs from f(xs[{l}])");
    }
    batched
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
    println!("{}", vectorize::text::print_graph(&g));

    // Map it over x, with y the same in every lane.
    let v = Vectorizer::default().vectorize(&g, f, &[true, false]).expect("vectorizes");
    println!("{}", vectorize::text::print_graph(&v.graph));
    let xs = [1.0, 5.0, -2.0, f64::NAN, -0.0];
    let lanes: Vec<Vec<f64>> = xs.iter().map(|&x| vec![x, 0.0]).collect();
    let out = check_vmap(&g, f, &[true, false], &lanes, &[0.0, 3.0]);
    println!("f([1, 5, -2, nan, -0], 3) = {}", out[0]);
    assert_eq!(out[0].to_string(), "[4.0, 3.0, -5.0, 3.0, 1.0]");

    // Both inputs mapped.
    let pairs = vec![vec![2.0, 3.0], vec![3.0, 2.0], vec![f64::INFINITY, f64::INFINITY], vec![-1.5, 0.5]];
    let out = check_vmap(&g, f, &[true, true], &pairs, &[0.0, 0.0]);
    println!("f over (x, y) pairs = {}", out[0]);
    println!("vmap(f)(xs) == [f(x) for x in xs] on every lane");
}
