//! The verifier: each class of error, on graphs built through the API (the
//! parser rejects most of these first), collected, never a panic.

use vectorize::{Arg, Graph, NewNode, NodeTy, Op, Sym, ValTy, verify};
use vectorize::{BinaryOp, Imm, ScalarTy, UnaryOp};

fn f32t() -> ValTy {
    ValTy::scalar(ScalarTy::F32)
}

fn node(g: &mut Graph, scope: Sym, op: Op, ty: NodeTy, args: &[Arg]) -> Sym {
    g.add_node(scope, NewNode { op, ty, depth: 0, args, mask: None })
}

fn messages(g: &Graph) -> Vec<String> {
    verify(g).err().unwrap_or_default().into_iter().map(|e| e.kind.to_string()).collect()
}

fn has(g: &Graph, what: &str) {
    let m = messages(g);
    assert!(m.iter().any(|x| x.contains(what)), "wanted `{what}` among {m:?}");
}

#[test]
fn type_errors_name_the_mismatch() {
    let mut g = Graph::new();
    let f = g.add_function("f", &[f32t(), ValTy::scalar(ScalarTy::I32)]).unwrap();
    let ps = g.lambda(f).unwrap().params.clone();
    let r = node(&mut g, f, Op::Binary(BinaryOp::Fadd), NodeTy::Val(f32t()), &[Arg::mapped(ps[0]), Arg::mapped(ps[1])]);
    // Declared i64 where i1 is computed.
    let c = node(
        &mut g,
        f,
        Op::Setp(vectorize::IntCC::Eq),
        NodeTy::Val(ValTy::scalar(ScalarTy::I64)),
        &[Arg::mapped(ps[1]), Arg::mapped(ps[1])],
    );
    // A lifted node without a mapped argument, and a flag at depth 0.
    let l = g.add_node(
        f,
        NewNode {
            op: Op::Unary(UnaryOp::Fneg),
            ty: NodeTy::Val(f32t().array_of()),
            depth: 1,
            args: &[Arg::same(ps[0])],
            mask: None,
        },
    );
    let z = node(&mut g, f, Op::Unary(UnaryOp::Fneg), NodeTy::Val(f32t()), &[Arg::same(ps[0])]);
    // Wrong arity.
    let w = node(&mut g, f, Op::Binary(BinaryOp::Fadd), NodeTy::Val(f32t()), &[Arg::mapped(ps[0])]);
    g.set_results(f, &[r, c, l, z, w]);
    has(&g, "`fadd` of f32 and i32");
    has(&g, "declared i64, but `setp.eq` gives i1");
    has(&g, "needs at least one mapped argument");
    has(&g, "flagged `*` at depth 0");
    has(&g, "takes 2 arguments, not 1");
    assert!(messages(&g).len() >= 5);
}

#[test]
fn scope_errors() {
    let mut g = Graph::new();
    let f = g.add_function("f", &[f32t()]).unwrap();
    let p = g.lambda(f).unwrap().params[0];
    let l = g.add_lambda(f, &[f32t()]);
    // A lambda body reading its parent's param: lambdas are closed.
    let bad = node(&mut g, l, Op::Unary(UnaryOp::Fneg), NodeTy::Val(f32t()), &[Arg::mapped(p)]);
    g.set_results(l, &[bad]);
    // A value where a lambda is expected, a lambda where a value is.
    let m = node(&mut g, f, Op::Map, NodeTy::Val(f32t().array_of()), &[Arg::mapped(p), Arg::mapped(p)]);
    let n = node(&mut g, f, Op::Unary(UnaryOp::Fneg), NodeTy::Val(f32t()), &[Arg::mapped(l)]);
    g.set_results(f, &[m, n]);
    has(&g, "is not in this lambda's body");
    has(&g, "a value where a lambda is expected");
    has(&g, "a lambda where a value is expected");
}

#[test]
fn cycles_results_and_names() {
    let mut g = Graph::new();
    let f = g.add_function("f", &[f32t()]).unwrap();
    let p = g.lambda(f).unwrap().params[0];
    let a = node(&mut g, f, Op::Binary(BinaryOp::Fadd), NodeTy::Val(f32t()), &[Arg::mapped(p), Arg::mapped(p)]);
    let b = node(&mut g, f, Op::Binary(BinaryOp::Fadd), NodeTy::Val(f32t()), &[Arg::mapped(a), Arg::mapped(p)]);
    g.set_name(a, "x").unwrap();
    g.set_name(b, "x").unwrap();
    // Make a read b: a cycle (through the parser's test hook: rebuild).
    let mut h = Graph::new();
    let f2 = h.add_function("g", &[f32t()]).unwrap();
    let q = h.lambda(f2).unwrap().params[0];
    let x = node(&mut h, f2, Op::Unary(UnaryOp::Fneg), NodeTy::Val(f32t()), &[Arg::mapped(Sym::from_index(3))]);
    let y = node(&mut h, f2, Op::Unary(UnaryOp::Fneg), NodeTy::Val(f32t()), &[Arg::mapped(x)]);
    let _ = (q, y);
    h.set_results(f2, &[y]);
    has(&h, "depends on itself");
    g.set_results(f, &[b, Sym::from_index(999)]);
    has(&g, "used twice in one body");
    has(&g, "does not exist");
    assert!(g.set_name(a, "12").is_err() && g.set_name(a, "a b").is_err());
}

#[test]
fn higher_order_signatures() {
    let mut g = Graph::new();
    let f = g.add_function("f", &[f32t(), ValTy::scalar(ScalarTy::I1)]).unwrap();
    let ps = g.lambda(f).unwrap().params.clone();
    let l1 = g.add_lambda(f, &[f32t()]);
    let p1 = g.lambda(l1).unwrap().params[0];
    g.set_results(l1, &[p1]);
    let l2 = g.add_lambda(f, &[ValTy::scalar(ScalarTy::I32)]);
    let p2 = g.lambda(l2).unwrap().params[0];
    g.set_results(l2, &[p2]);
    let i = node(
        &mut g,
        f,
        Op::If,
        NodeTy::Val(f32t()),
        &[Arg::mapped(ps[1]), Arg::mapped(l1), Arg::mapped(l2), Arg::mapped(ps[0])],
    );
    let m = node(&mut g, f, Op::Map, NodeTy::Val(f32t().array_of()), &[Arg::mapped(l1), Arg::same(ps[0])]);
    let c = g.add_node(
        f,
        NewNode { op: Op::Const(Imm::f32(1.0)), ty: NodeTy::Val(f32t()), depth: 0, args: &[], mask: None },
    );
    let w = node(&mut g, f, Op::While, NodeTy::Val(f32t()), &[Arg::mapped(l1), Arg::mapped(l1), Arg::mapped(c)]);
    g.set_results(f, &[i, m, w]);
    has(&g, "the two lambdas of `if` must have the same signature");
    has(&g, "`map` needs at least one mapped argument");
    has(&g, "the condition of `while` must return one i1 scalar");
}

#[test]
fn verifying_never_panics_on_garbage() {
    let mut rng = vectorize::generate::SplitMix64::new(3);
    for _ in 0..3000 {
        let mut g = Graph::new();
        let f = g.add_function("f", &[f32t()]).unwrap();
        let mut syms = vec![f, g.lambda(f).unwrap().params[0]];
        for _ in 0..(rng.next_u64() % 12) {
            let pick = |r: &mut vectorize::generate::SplitMix64, s: &[Sym]| {
                Sym::from_index((r.next_u64() % (s.len() as u64 + 3)) as usize)
            };
            let ops = [
                Op::Binary(BinaryOp::Fadd),
                Op::Map,
                Op::If,
                Op::While,
                Op::Get(3),
                Op::Index,
                Op::Lambda(7),
                Op::Param(2),
                Op::Apply,
                Op::Concat,
            ];
            let op = ops[(rng.next_u64() % ops.len() as u64) as usize];
            let args: Vec<Arg> = (0..rng.next_u64() % 4)
                .map(|_| Arg { sym: pick(&mut rng, &syms), bcast: rng.next_u64().is_multiple_of(3) })
                .collect();
            let depth = (rng.next_u64() % 3) as u32;
            let scope = syms[(rng.next_u64() % syms.len() as u64) as usize];
            let mask = rng.next_u64().is_multiple_of(4).then(|| pick(&mut rng, &syms));
            let s = g.add_node(scope, NewNode { op, ty: NodeTy::Val(f32t()), depth, args: &args, mask });
            syms.push(s);
            if rng.next_u64().is_multiple_of(5) {
                let l = g.add_lambda(scope, &[f32t()]);
                syms.push(l);
            }
        }
        let r = syms[(rng.next_u64() % syms.len() as u64) as usize];
        g.set_results(f, &[r]);
        let _ = verify(&g);
        let _ = vectorize::text::print_graph(&g);
        let _ = vectorize::vectorize(&g, f, &[true]);
        let _ = vectorize::eval::eval(&g, f, &[vectorize::Value::f32(1.0)], Default::default());
    }
}
