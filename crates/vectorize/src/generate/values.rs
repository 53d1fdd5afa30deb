//! Random values for generated graphs: scalars biased towards the edge
//! cases (NaN, signed zero, infinities, huge floats, `i64::MIN`/`MAX`, -1,
//! small integers), arrays of 0 to 4 elements (ragged when nested), and
//! one argument per parameter of a function.
//!
//! A module of the `generate` tree that depends only on the choice source
//! (`source.rs`) and the crate's values and types: the node generator
//! (`nodes.rs`) draws its constants here, the entry point re-exports the
//! public functions (so their paths stay `vectorize::generate::random_value`
//! and `vectorize::generate::random_args`), and nothing here imports the
//! generator back.
//!
//! Invariants: a value is a pure function of the choices (deterministic);
//! [`random_value`] returns a value of exactly the type asked for, built
//! iteratively (a stack of builders, one per open array level), never by
//! recursion; a float constant of `f32` is rounded once from `f64`.

use super::source::{Source, below, chance};
use crate::graph::{Graph, Sym};
use crate::scalar::{Imm, ScalarTy};
use crate::types::ValTy;
use crate::value::{ArrayBuilder, Value};

/// The scalar types the generator picks from.
pub(crate) const SCALARS: [ScalarTy; 5] = [ScalarTy::I32, ScalarTy::F32, ScalarTy::I64, ScalarTy::F64, ScalarTy::I1];

/// A random value of `ty` (arrays of 0 to 4 elements, ragged when nested).
pub fn random_value(ty: ValTy, s: &mut dyn Source) -> Value {
    if ty.depth == 0 {
        return Value::Scalar(random_scalar(ty.scalar, s));
    }
    // Iterative: a stack of builders, one per open level.
    let mut stack: Vec<(ArrayBuilder, usize)> = Vec::new();
    let len = |s: &mut dyn Source| if chance(s, 15) { 0 } else { 1 + below(s, 4) };
    stack.push((ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - 1)), len(s)));
    loop {
        let level = stack.len() as u32;
        let (b, left) = stack.last_mut().expect("a level");
        if *left == 0 {
            let (b, _) = stack.pop().expect("a level");
            let v = Value::from(b.finish());
            match stack.last_mut() {
                Some((parent, _)) => {
                    parent.push(&v);
                }
                None => return v,
            }
            continue;
        }
        *left -= 1;
        if level == ty.depth {
            let x = random_scalar(ty.scalar, s);
            b.push_scalar(x);
        } else {
            let n = len(s);
            stack.push((ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - level - 1)), n));
        }
    }
}

/// A random scalar of type `t`, often an edge case (see the module doc).
pub(crate) fn random_scalar(t: ScalarTy, s: &mut dyn Source) -> Imm {
    match t {
        ScalarTy::I1 => Imm::bool(below(s, 2) == 1),
        ScalarTy::F32 | ScalarTy::F64 => {
            let v = match below(s, 12) {
                0 => f64::NAN,
                1 => -0.0,
                2 => f64::INFINITY,
                3 => 1e30,
                n => (n as f64 - 7.0) * 0.75 + below(s, 3) as f64,
            };
            if t == ScalarTy::F32 { Imm::f32(v as f32) } else { Imm::f64(v) }
        }
        _ => {
            let v = match below(s, 14) {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => -1,
                n => n as i64 - 6,
            };
            Imm::int(t, v)
        }
    }
}

/// Arguments for `func` of `g`: one random value per parameter.
pub fn random_args(g: &Graph, func: Sym, s: &mut dyn Source) -> Vec<Value> {
    g.param_types(func).into_iter().map(|t| random_value(t, s)).collect()
}
