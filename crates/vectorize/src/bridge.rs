//! The one place where the graph IR's scalar vocabulary meets Keel IR's
//! (feature `keel`): conversions between [`ScalarTy`] and
//! [`ir_core::Type`], [`Imm`] and [`ir_core::Imm`], the scalar operations
//! and Keel's opcodes, and the condition codes. [`crate::import`] and
//! [`crate::lower`] translate through these and nothing else.
//!
//! Invariants: types, values and condition codes convert one to one (an
//! [`Imm`] keeps its canonical bits, so a round trip is the identity);
//! every graph scalar operation is a Keel opcode of the same name and
//! semantics ([`UnaryOp`], [`BinaryOp`], [`ConvertOp`] into
//! [`ir_core::Opcode`]), and an opcode that is none of them is refused by
//! `TryFrom` (the error is the opcode); a test checks that every Keel
//! opcode of a scalar format is one of them. The tests compare the two scalar
//! semantics on every operation, bit for bit.

use crate::scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, ScalarTy, UnaryOp};
use ir_core::{FloatCC as KeelFloatCC, IntCC as KeelIntCC, Opcode};

impl From<ScalarTy> for ir_core::Type {
    fn from(t: ScalarTy) -> ir_core::Type {
        match t {
            ScalarTy::I1 => ir_core::Type::I1,
            ScalarTy::I8 => ir_core::Type::I8,
            ScalarTy::I16 => ir_core::Type::I16,
            ScalarTy::I32 => ir_core::Type::I32,
            ScalarTy::I64 => ir_core::Type::I64,
            ScalarTy::F32 => ir_core::Type::F32,
            ScalarTy::F64 => ir_core::Type::F64,
        }
    }
}

impl From<ir_core::Type> for ScalarTy {
    fn from(t: ir_core::Type) -> ScalarTy {
        match t {
            ir_core::Type::I1 => ScalarTy::I1,
            ir_core::Type::I8 => ScalarTy::I8,
            ir_core::Type::I16 => ScalarTy::I16,
            ir_core::Type::I32 => ScalarTy::I32,
            ir_core::Type::I64 => ScalarTy::I64,
            ir_core::Type::F32 => ScalarTy::F32,
            ir_core::Type::F64 => ScalarTy::F64,
        }
    }
}

impl From<Imm> for ir_core::Imm {
    fn from(x: Imm) -> ir_core::Imm {
        ir_core::Imm::from_bits(x.ty().into(), x.bits())
    }
}

impl From<ir_core::Imm> for Imm {
    fn from(x: ir_core::Imm) -> Imm {
        Imm::from_bits(x.ty().into(), x.bits())
    }
}

/// `From` a graph enum to Keel's, variant for variant (same names).
macro_rules! into_keel {
    ($graph:ident => $keel:ident { $($variant:ident),* $(,)? }) => {
        impl From<$graph> for $keel {
            fn from(x: $graph) -> $keel {
                match x { $($graph::$variant => $keel::$variant,)* }
            }
        }
    };
}

/// [`into_keel!`], and `TryFrom` back: the Keel opcodes that are not graph
/// operations of this kind are refused (the error is the opcode).
macro_rules! opcodes {
    ($graph:ident { $($variant:ident),* $(,)? }) => {
        into_keel!($graph => Opcode { $($variant),* });

        impl TryFrom<Opcode> for $graph {
            /// The opcode, which is not one of these operations.
            type Error = Opcode;

            fn try_from(x: Opcode) -> Result<$graph, Opcode> {
                match x {
                    $(Opcode::$variant => Ok($graph::$variant),)*
                    other => Err(other),
                }
            }
        }
    };
}

/// [`into_keel!`], and `From` back (the two sets are equal).
macro_rules! condition_codes {
    ($graph:ident <=> $keel:ident { $($variant:ident),* $(,)? }) => {
        into_keel!($graph => $keel { $($variant),* });

        impl From<$keel> for $graph {
            fn from(x: $keel) -> $graph {
                match x { $($keel::$variant => $graph::$variant,)* }
            }
        }
    };
}

opcodes!(UnaryOp { Copy, Neg, Not, Clz, Ctz, Popcnt, Fneg, Fabs, Fsqrt, Fceil, Ffloor, Ftrunc, Fnearest });
opcodes!(BinaryOp {
    Add,
    Sub,
    Mul,
    Sdiv,
    Udiv,
    Srem,
    Urem,
    And,
    Or,
    Xor,
    Shl,
    Lshr,
    Ashr,
    Rotl,
    Rotr,
    Smin,
    Smax,
    Umin,
    Umax,
    Fadd,
    Fsub,
    Fmul,
    Fdiv,
    Fmin,
    Fmax,
    Fcopysign,
});
opcodes!(ConvertOp {
    Sext,
    Zext,
    Trunc,
    Fpext,
    Fptrunc,
    Fptosi,
    Fptoui,
    FptosiSat,
    FptouiSat,
    Sitofp,
    Uitofp,
    Bitcast
});
condition_codes!(IntCC <=> KeelIntCC { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge });
condition_codes!(FloatCC <=> KeelFloatCC { Eq, Ne, Lt, Le, Gt, Ge, Ord, Uno });

#[cfg(test)]
mod tests {
    //! The graph IR's scalar semantics against Keel's interpreter
    //! (`ir_core::interp::scalar`), operation by operation, on every pair
    //! of edge-case values of every type and on seeded random ones: equal
    //! bits, or a trap of the same kind on both sides.

    use super::*;
    use crate::generate::SplitMix64;
    use crate::scalar::ScalarError;
    use crate::scalar::semantics as ours;
    use ir_core::interp::scalar as keel;

    /// Values of `t` worth comparing: zeros, ones, extremes, NaNs with
    /// payloads, infinities, halves (rounding), and `extra` random ones.
    fn values(t: ScalarTy, rng: &mut SplitMix64, extra: usize) -> Vec<Imm> {
        let mut v: Vec<Imm> = match t {
            ScalarTy::F32 => [0.0f32, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 1e30, -1e-45, f32::MAX, f32::MIN]
                .into_iter()
                .map(Imm::f32)
                .chain(
                    [0x7f80_0000u64, 0xff80_0000, 0x7fc0_0000, 0x7fa0_0001, 0xffc0_0123, 0x4f00_0000, 0x5f00_0000]
                        .map(|b| Imm::from_bits(t, b)),
                )
                .collect(),
            ScalarTy::F64 => [0.0f64, -0.0, 1.0, -1.0, 0.5, 2.5, -3.5, 1e300, 5e-324, f64::MAX, 2147483648.0, -9.3e18]
                .into_iter()
                .map(Imm::f64)
                .chain(
                    [0x7ff0_0000_0000_0000u64, 0xfff8_0000_0000_0000, 0x7ff4_0000_dead_beef, 0x43e0_0000_0000_0000]
                        .map(|b| Imm::from_bits(t, b)),
                )
                .collect(),
            _ => [0i64, 1, -1, 2, 7, -8, 63, 64, i64::MAX, i64::MIN, 0x80, 0x7fff, 0x8000_0000, 0xff]
                .into_iter()
                .map(|x| Imm::int(t, x))
                .collect(),
        };
        v.extend((0..extra).map(|_| match t {
            // Random floats from random bits, and small integers as floats.
            ScalarTy::F32 | ScalarTy::F64 if rng.next_u64().is_multiple_of(2) => {
                let x = (rng.next_u64() % 2001) as f64 / 8.0 - 125.0;
                if t == ScalarTy::F32 { Imm::f32(x as f32) } else { Imm::f64(x) }
            }
            _ => Imm::from_bits(t, rng.next_u64()),
        }));
        v
    }

    fn same(what: &str, a: &[Imm], ours: Result<Imm, ScalarError>, keel: Result<ir_core::Imm, ir_core::interp::Trap>) {
        let ours = ours.map(ir_core::Imm::from).map_err(|e| e.trap().describe());
        let keel = keel.map_err(|t| t.kind.describe());
        assert_eq!(ours, keel, "{what} of {a:?}");
    }

    #[test]
    fn types_values_and_names_convert_one_to_one() {
        for t in ScalarTy::ALL {
            let k: ir_core::Type = t.into();
            assert_eq!((k.name(), ScalarTy::from(k)), (t.name(), t));
        }
        for o in UnaryOp::ALL.iter().copied() {
            let k = Opcode::from(o);
            assert_eq!((k.name(), UnaryOp::try_from(k)), (o.name(), Ok(o)));
        }
        for o in BinaryOp::ALL.iter().copied() {
            let k = Opcode::from(o);
            assert_eq!((k.name(), BinaryOp::try_from(k)), (o.name(), Ok(o)));
        }
        for o in ConvertOp::ALL.iter().copied() {
            let k = Opcode::from(o);
            assert_eq!((k.name(), ConvertOp::try_from(k)), (o.name(), Ok(o)));
        }
        for c in IntCC::ALL.iter().copied() {
            assert_eq!((KeelIntCC::from(c).name(), IntCC::from(KeelIntCC::from(c))), (c.name(), c));
        }
        for c in FloatCC::ALL.iter().copied() {
            assert_eq!((KeelFloatCC::from(c).name(), FloatCC::from(KeelFloatCC::from(c))), (c.name(), c));
        }
        // Every Keel opcode of a scalar format is a graph operation.
        use ir_core::Format;
        for &k in Opcode::ALL {
            let graph = match k.format() {
                Format::Unary => UnaryOp::try_from(k).is_ok(),
                Format::Binary => BinaryOp::try_from(k).is_ok(),
                Format::Convert => ConvertOp::try_from(k).is_ok(),
                _ => continue,
            };
            assert!(graph, "`{k}` has no graph operation");
        }
        assert_eq!(UnaryOp::try_from(Opcode::Tadd), Err(Opcode::Tadd));
        let nan = Imm::from_bits(ScalarTy::F32, 0x7fa0_0001);
        assert_eq!(Imm::from(ir_core::Imm::from(nan)), nan);
        assert_eq!(ir_core::Imm::from(nan).to_string(), nan.to_string());
    }

    #[test]
    fn the_scalar_semantics_are_keels_bit_for_bit() {
        let mut rng = SplitMix64::new(28);
        let mut compared = 0usize;
        for t in ScalarTy::ALL {
            let vals = values(t, &mut rng, 40);
            for &a in &vals {
                for &o in UnaryOp::ALL {
                    if o.class().admits(t) {
                        same(o.name(), &[a], ours::unary(o, a), keel::unary(o.into(), a.into()));
                        compared += 1;
                    }
                }
                for &o in ConvertOp::ALL {
                    for d in ScalarTy::ALL.into_iter().filter(|&d| o.converts(t, d)) {
                        same(o.name(), &[a], ours::convert(o, a, d), keel::convert(o.into(), a.into(), d.into()));
                        compared += 1;
                    }
                }
                for &b in &vals {
                    for &o in BinaryOp::ALL.iter().filter(|o| o.class().admits(t)) {
                        same(o.name(), &[a, b], ours::binary(o, a, b), keel::binary(o.into(), a.into(), b.into()));
                    }
                    if t.is_int() {
                        for &c in IntCC::ALL {
                            same(
                                c.name(),
                                &[a, b],
                                ours::int_compare(c, a, b),
                                keel::int_compare(c.into(), a.into(), b.into()),
                            );
                        }
                    } else {
                        for &c in FloatCC::ALL {
                            same(
                                c.name(),
                                &[a, b],
                                ours::float_compare(c, a, b),
                                keel::float_compare(c.into(), a.into(), b.into()),
                            );
                        }
                    }
                    same("sum", &[a, b], ours::sum_step(a, b), keel::sum_step(a.into(), b.into()));
                    same("max", &[a, b], ours::max_step(a, b), keel::max_step(a.into(), b.into()));
                    compared += 1;
                }
            }
            assert_eq!(ir_core::Imm::from(ours::zero(t)), keel::zero(t.into()));
            assert_eq!(ir_core::Imm::from(ours::lowest(t)), keel::lowest(t.into()));
            assert_eq!(ours::signed(vals[2]), keel::signed(vals[2].into()));
        }
        assert!(compared > 20_000, "{compared}");
    }

    #[test]
    fn every_i8_pair_agrees() {
        // Exhaustive on one width: 65,536 pairs per binary operation.
        let all: Vec<Imm> = (0..256).map(|x| Imm::int(ScalarTy::I8, x)).collect();
        for &a in &all {
            for &b in &all {
                for &o in BinaryOp::ALL.iter().filter(|o| o.class() == crate::scalar::TypeClass::Int) {
                    same(o.name(), &[a, b], ours::binary(o, a, b), keel::binary(o.into(), a.into(), b.into()));
                }
            }
        }
    }
}
