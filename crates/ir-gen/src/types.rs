//! Types and constants: the per-type tables every part of the generator
//! shares (the pool's types, the types comparisons work on, a dense index
//! per type) and random immediates of each type.
//!
//! Invariants: every menu here lists its zero answer (the simplest choice)
//! first, and [`ty_index`] numbers types in the order of `Type::ALL`, so
//! per-type tables built from `Type::ALL` are indexed by it.

use crate::source::{Choices, Source};
use ir_core::{Imm, Type};

/// The first seven pool vars, one of every type, so every type is present.
pub(crate) const BASE_TYPES: [Type; 7] = [Type::I32, Type::I64, Type::F64, Type::I1, Type::F32, Type::I8, Type::I16];

/// Types of further pool vars and of params, weighted: mostly `i32`, `i64`
/// and `f64`, some predicates, a few `f32`, `i8`, `i16`. The first entry is
/// the answer to a zero choice.
pub(crate) const POOL_TYPES: [Type; 16] = [
    Type::I32,
    Type::I32,
    Type::I32,
    Type::I32,
    Type::I64,
    Type::I64,
    Type::I64,
    Type::I64,
    Type::F64,
    Type::F64,
    Type::F64,
    Type::I1,
    Type::I1,
    Type::F32,
    Type::I8,
    Type::I16,
];

/// Integer types a comparison may work on (the zero answer first).
pub(crate) const COMPARE_TYPES: [Type; 5] = [Type::I32, Type::I64, Type::I8, Type::I16, Type::I1];

/// Dense index of a type, for per-type tables.
pub(crate) fn ty_index(t: Type) -> usize {
    match t {
        Type::I1 => 0,
        Type::I8 => 1,
        Type::I16 => 2,
        Type::I32 => 3,
        Type::I64 => 4,
        Type::F32 => 5,
        Type::F64 => 6,
    }
}

/// A random immediate of type `t`. The zero answer is 0 (or 0.0); other
/// answers give small values, edge values (MIN, MAX, -1, -0.0, infinities,
/// NaN, subnormals) or arbitrary bits.
pub(crate) fn imm<S: Source + ?Sized>(src: &mut S, t: Type) -> Imm {
    match t {
        Type::I1 => Imm::bool(src.below(2) == 1),
        Type::F32 | Type::F64 => {
            let v = match src.below(4) {
                0 => src.below(8) as f64,
                1 => src.pick(&[0.5, -1.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-3, 1e300, 5e-324]),
                2 => {
                    // Arbitrary bits, NaN payloads included.
                    return if t == Type::F32 {
                        Imm::from_bits(t, src.choose(1 << 32))
                    } else {
                        Imm::from_bits(t, src.choose(u64::MAX))
                    };
                }
                _ => (src.below(64) as f64 - 32.0) / 4.0,
            };
            if t == Type::F32 { Imm::f32(v as f32) } else { Imm::f64(v) }
        }
        _ => {
            let bits = t.bits();
            let max = if bits == 64 { i64::MAX } else { (1i64 << (bits - 1)) - 1 };
            let v = match src.below(4) {
                0 => src.below(8) as i64,
                1 => src.below(33) as i64 - 16,
                2 => src.pick(&[-1, 1, max, -max - 1]),
                _ => src.choose(u64::MAX) as i64,
            };
            Imm::int(t, v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ty_index_follows_type_all() {
        assert!(Type::ALL.iter().enumerate().all(|(i, &t)| ty_index(t) == i));
    }
}
