//! Graphs for the `vectorize` benchmark and its instruction-count example:
//! straight-line scalar code of a given size over random earlier values,
//! optionally with batched `if`s and `map`s every few nodes.

use vectorize::generate::SplitMix64;
use vectorize::{Arg, BinaryOp, Builder, ConvertOp, FloatCC, Graph, ScalarTy, Sym, UnaryOp, ValTy};

/// The parameters' batching for [`big_graph`]'s function: three of the
/// four scalars and the array batched, one scalar the same in every lane.
pub const IN_AXES: [bool; 5] = [true, true, false, true, true];

/// A straight-line (or structured) graph of about `n` nodes.
pub fn big_graph(n: usize, structured: bool) -> (Graph, Sym) {
    let f32t = ValTy::scalar(ScalarTy::F32);
    let mut g = Graph::new();
    let f = g.add_function("big", &[f32t, f32t, f32t, f32t, f32t.array_of()]).expect("a name");
    let params = g.lambda(f).expect("a lambda").params.clone();
    let mut rng = SplitMix64::new(1);
    let mut pool: Vec<Sym> = params[..4].to_vec();
    let mut b = Builder::new(&mut g, f);
    let pick = |rng: &mut SplitMix64, pool: &[Sym]| pool[(rng.next_u64() % pool.len() as u64) as usize];
    // The lambdas the structured shape reuses.
    let (pure_t, pure_e, trap_t, body) = if structured {
        let (lt, pt) = b.lambda(&[f32t, f32t]);
        let r = b.at(lt).binary(BinaryOp::Fadd, pt[0], pt[1]).expect("fadd");
        b.at(lt).ret(&[r]);
        let (le, pe) = b.lambda(&[f32t, f32t]);
        let r = b.at(le).binary(BinaryOp::Fmul, pe[0], pe[1]).expect("fmul");
        b.at(le).ret(&[r]);
        let (ltr, ptr) = b.lambda(&[f32t, f32t]);
        let i = b.at(ltr).convert(ConvertOp::Fptosi, ptr[0], ScalarTy::I32).expect("fptosi");
        let back = b.at(ltr).convert(ConvertOp::Sitofp, i, ScalarTy::F32).expect("sitofp");
        b.at(ltr).ret(&[back]);
        let (lm, pm) = b.lambda(&[f32t, f32t]);
        let r = b.at(lm).binary(BinaryOp::Fsub, pm[0], pm[1]).expect("fsub");
        b.at(lm).ret(&[r]);
        (Some(lt), Some(le), Some(ltr), Some(lm))
    } else {
        (None, None, None, None)
    };
    while b.graph.len() < n {
        let (x, y) = (pick(&mut rng, &pool), pick(&mut rng, &pool));
        let len = b.graph.len();
        let r = if structured && len.is_multiple_of(50) {
            let c = b.fsetp(FloatCC::Lt, x, y).expect("fsetp");
            let (t, e) = if len.is_multiple_of(100) { (pure_t, pure_e) } else { (trap_t, pure_e) };
            b.if_(c, t.expect("lambda"), e.expect("lambda"), &[x, y]).expect("if")
        } else if structured && len % 200 == 1 {
            let m = b.map(body.expect("lambda"), &[Arg::mapped(params[4]), Arg::same(x)]).expect("map");
            b.sum(m).expect("sum")
        } else {
            match rng.next_u64() % 7 {
                0 => b.binary(BinaryOp::Fadd, x, y),
                1 => b.binary(BinaryOp::Fmul, x, y),
                2 => b.binary(BinaryOp::Fsub, x, y),
                3 => b.binary(BinaryOp::Fmin, x, y),
                4 => b.unary(UnaryOp::Fneg, x),
                _ => {
                    let c = b.fsetp(FloatCC::Lt, x, y).expect("fsetp");
                    b.select(c, x, y)
                }
            }
            .expect("a typed node")
        };
        pool.push(r);
    }
    let last = *pool.last().expect("a value");
    b.ret(&[last]);
    (g, f)
}
