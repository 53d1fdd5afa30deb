//! The scalar semantics: what one unary, binary, compare or conversion
//! operation computes on [`Imm`] values, and the steps of the `sum` and
//! `max` folds. The reference evaluator (`eval/prims.rs`) calls nothing
//! else for scalars.
//!
//! The definitions (`docs/design/vectorize.md`, "scalar semantics"):
//! integer arithmetic wraps; integers carry no sign, and `i1` is a one-bit
//! integer whose signed value is 0 or −1; shift and rotate amounts are
//! taken modulo the width; `sdiv`/`udiv`/`srem`/`urem` trap on a zero
//! divisor and `sdiv` on `MIN / -1` (`srem` gives 0 there); floats follow
//! IEEE 754 through Rust's `f32` and `f64` (an `f32` operation is done in
//! `f32`, rounded once); `fmin`/`fmax` are IEEE 754-2019's NaN-propagating
//! `minimum`/`maximum` with `-0 < +0`; `fneg`/`fabs` work on the sign bit,
//! keeping NaN payloads; float compares are C's (only `ne` and `uno` are
//! true on NaN); `fptosi`/`fptoui` truncate toward zero and trap on NaN
//! and out-of-range values, the `_sat` forms saturate (NaN gives 0);
//! integer-to-float conversions round once, to nearest even. These are
//! exactly Keel IR's (`docs/ir.md` §6), so a graph, the Keel function it
//! was imported from and the one it lowers to compute the same bits: with
//! the `keel` feature a test compares every operation here with Keel's
//! interpreter on edge-case and random operands, bit for bit.
//!
//! Invariants: every result is canonical for its type (built through
//! [`Imm::from_bits`] or the typed constructors); a trap is a
//! [`ScalarError`] naming the operation and its operands (its
//! [`TrapKind`] by [`ScalarError::trap`]), and operands of the wrong
//! types are a `Malformed` one, never a panic.

use super::imm::Imm;
use super::ops::{BinaryOp, ConvertOp, FloatCC, IntCC, UnaryOp};
use super::ty::ScalarTy;
use crate::trap::TrapKind;
use core::fmt;

/// Why a scalar operation has no result: a trap of the semantics (a
/// division by zero, an overflow, an invalid conversion) or operands of
/// types the operation does not take; each names the operation and the
/// operands' types or value. [`ScalarError::trap`] is its [`TrapKind`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ScalarError {
    /// An integer division or remainder by zero.
    DivisionByZero(BinaryOp),
    /// `sdiv` of the type's `MIN` by −1.
    Overflow {
        /// The dividend.
        dividend: i64,
        /// The type.
        ty: ScalarTy,
    },
    /// `fptosi`/`fptoui` of NaN or of a value out of the target's range.
    InvalidConversion {
        /// The conversion.
        op: ConvertOp,
        /// The value converted.
        value: Imm,
        /// The target type.
        to: ScalarTy,
    },
    /// A unary operation on a type outside its class.
    UnaryOperand {
        /// The operation.
        op: UnaryOp,
        /// The operand's type.
        ty: ScalarTy,
    },
    /// A binary operation on a type outside its class.
    BinaryOperand {
        /// The operation.
        op: BinaryOp,
        /// The operands' type.
        ty: ScalarTy,
    },
    /// A binary operation on operands of two types.
    BinaryMismatch {
        /// The operation.
        op: BinaryOp,
        /// The first operand's type.
        left: ScalarTy,
        /// The second operand's type.
        right: ScalarTy,
    },
    /// `setp` on operands that are not integers of one type.
    IntCompareOperands {
        /// The condition.
        cc: IntCC,
        /// The first operand's type.
        left: ScalarTy,
        /// The second operand's type.
        right: ScalarTy,
    },
    /// `fsetp` on operands that are not floats of one type.
    FloatCompareOperands {
        /// The condition.
        cc: FloatCC,
        /// The first operand's type.
        left: ScalarTy,
        /// The second operand's type.
        right: ScalarTy,
    },
    /// A conversion between types it does not convert.
    ConversionTypes {
        /// The conversion.
        op: ConvertOp,
        /// The operand's type.
        from: ScalarTy,
        /// The target type.
        to: ScalarTy,
    },
}

impl ScalarError {
    /// The trap's kind: the semantics' traps by name, ill-typed operands
    /// [`TrapKind::Malformed`].
    pub fn trap(&self) -> TrapKind {
        match self {
            ScalarError::DivisionByZero(_) => TrapKind::DivisionByZero,
            ScalarError::Overflow { .. } => TrapKind::IntegerOverflow,
            ScalarError::InvalidConversion { .. } => TrapKind::InvalidConversion,
            _ => TrapKind::Malformed,
        }
    }
}

impl fmt::Display for ScalarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarError::DivisionByZero(op) => write!(f, "`{op}` by zero"),
            ScalarError::Overflow { dividend, ty } => write!(f, "`sdiv` of {dividend} by -1 overflows {ty}"),
            ScalarError::InvalidConversion { op, value, to } => {
                let why = if widened(*value).is_nan() { "NaN" } else { "out of range" };
                write!(f, "`{op}` of {value} to {to}: {why}")
            }
            ScalarError::UnaryOperand { op, ty } => write!(f, "`{op}` on {ty}"),
            ScalarError::BinaryOperand { op, ty } => write!(f, "`{op}` on {ty}"),
            ScalarError::BinaryMismatch { op, left, right } => write!(f, "`{op}` on {left} and {right}"),
            ScalarError::IntCompareOperands { cc, left, right } => write!(f, "`setp.{cc}` on {left} and {right}"),
            ScalarError::FloatCompareOperands { cc, left, right } => {
                write!(f, "`fsetp.{cc}` on {left} and {right}")
            }
            ScalarError::ConversionTypes { op, from, to } => write!(f, "`{op}` cannot convert {from} to {to}"),
        }
    }
}

impl std::error::Error for ScalarError {}

/// A trap raised by an operation, before the evaluator names the node.
pub(crate) type OpResult = Result<Imm, ScalarError>;

/// The signed value of an integer (`i1` true is −1), as indices, counts
/// and lengths are read.
pub(crate) fn signed(x: Imm) -> i64 {
    if x.ty() == ScalarTy::I1 { -(x.bits() as i64) } else { x.as_i64() }
}

fn int(ty: ScalarTy, v: u64) -> Imm {
    Imm::from_bits(ty, v)
}

fn signed_min(w: u32) -> i64 {
    if w == 64 { i64::MIN } else { -(1i64 << (w - 1)) }
}

fn int_binary(op: BinaryOp, a: Imm, b: Imm) -> OpResult {
    let ty = a.ty();
    let w = ty.bits();
    let (ua, ub) = (a.as_u64(), b.as_u64());
    let (sa, sb) = (signed(a), signed(b));
    let amount = (ub % u64::from(w)) as u32;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = match op {
        BinaryOp::Add => ua.wrapping_add(ub),
        BinaryOp::Sub => ua.wrapping_sub(ub),
        BinaryOp::Mul => ua.wrapping_mul(ub),
        BinaryOp::Sdiv | BinaryOp::Srem => {
            if sb == 0 {
                return Err(ScalarError::DivisionByZero(op));
            }
            if op == BinaryOp::Sdiv && sa == signed_min(w) && sb == -1 {
                return Err(ScalarError::Overflow { dividend: sa, ty });
            }
            if op == BinaryOp::Sdiv { sa.wrapping_div(sb) as u64 } else { sa.wrapping_rem(sb) as u64 }
        }
        BinaryOp::Udiv | BinaryOp::Urem => {
            if ub == 0 {
                return Err(ScalarError::DivisionByZero(op));
            }
            if op == BinaryOp::Udiv { ua / ub } else { ua % ub }
        }
        BinaryOp::And => ua & ub,
        BinaryOp::Or => ua | ub,
        BinaryOp::Xor => ua ^ ub,
        BinaryOp::Shl => ua << amount,
        BinaryOp::Lshr => ua >> amount,
        BinaryOp::Ashr => (sa >> amount) as u64,
        BinaryOp::Rotl | BinaryOp::Rotr => {
            let r = if op == BinaryOp::Rotl { amount } else { (w - amount) % w };
            if r == 0 { ua } else { ((ua << r) | (ua >> (w - r))) & mask }
        }
        BinaryOp::Smin => sa.min(sb) as u64,
        BinaryOp::Smax => sa.max(sb) as u64,
        BinaryOp::Umin => ua.min(ub),
        BinaryOp::Umax => ua.max(ub),
        _ => return Err(ScalarError::BinaryOperand { op, ty }),
    };
    Ok(int(ty, v))
}

fn int_unary(op: UnaryOp, a: Imm) -> OpResult {
    let ty = a.ty();
    let w = ty.bits();
    let u = a.as_u64();
    let v = match op {
        UnaryOp::Neg => 0u64.wrapping_sub(u),
        UnaryOp::Not => !u,
        UnaryOp::Clz => u64::from(u.leading_zeros() - (64 - w)),
        UnaryOp::Ctz => u64::from(if u == 0 { w } else { u.trailing_zeros() }),
        UnaryOp::Popcnt => u64::from(u.count_ones()),
        _ => return Err(ScalarError::UnaryOperand { op, ty }),
    };
    Ok(int(ty, v))
}

/// A float widened to `f64` (exact).
fn widened(x: Imm) -> f64 {
    if x.ty() == ScalarTy::F32 { f64::from(x.as_f32()) } else { x.as_f64() }
}

/// IEEE 754-2019 `minimum`/`maximum`: NaN-propagating, `-0 < +0`.
fn fmin_max<T: Copy + PartialOrd>(a: T, b: T, a_nan: bool, b_nan: bool, a_neg: bool, want_min: bool) -> T {
    if a_nan {
        return a;
    }
    if b_nan {
        return b;
    }
    if a == b {
        // Equal: only ±0 differ; pick by sign.
        return if a_neg == want_min { a } else { b };
    }
    if (a < b) == want_min { a } else { b }
}

fn float_binary(op: BinaryOp, a: Imm, b: Imm) -> OpResult {
    if a.ty() == ScalarTy::F32 {
        let (x, y) = (a.as_f32(), b.as_f32());
        let v = match op {
            BinaryOp::Fadd => x + y,
            BinaryOp::Fsub => x - y,
            BinaryOp::Fmul => x * y,
            BinaryOp::Fdiv => x / y,
            BinaryOp::Fmin | BinaryOp::Fmax => {
                fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), op == BinaryOp::Fmin)
            }
            BinaryOp::Fcopysign => x.copysign(y),
            _ => return Err(ScalarError::BinaryOperand { op, ty: ScalarTy::F32 }),
        };
        return Ok(Imm::f32(v));
    }
    let (x, y) = (a.as_f64(), b.as_f64());
    let v = match op {
        BinaryOp::Fadd => x + y,
        BinaryOp::Fsub => x - y,
        BinaryOp::Fmul => x * y,
        BinaryOp::Fdiv => x / y,
        BinaryOp::Fmin | BinaryOp::Fmax => {
            fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), op == BinaryOp::Fmin)
        }
        BinaryOp::Fcopysign => x.copysign(y),
        _ => return Err(ScalarError::BinaryOperand { op, ty: ScalarTy::F64 }),
    };
    Ok(Imm::f64(v))
}

fn float_unary(op: UnaryOp, a: Imm) -> OpResult {
    let ty = a.ty();
    let sign = if ty == ScalarTy::F32 { 1u64 << 31 } else { 1u64 << 63 };
    match op {
        UnaryOp::Fneg => return Ok(Imm::from_bits(ty, a.bits() ^ sign)),
        UnaryOp::Fabs => return Ok(Imm::from_bits(ty, a.bits() & !sign)),
        _ => {}
    }
    if ty == ScalarTy::F32 {
        let x = a.as_f32();
        let v = match op {
            UnaryOp::Fsqrt => x.sqrt(),
            UnaryOp::Fceil => x.ceil(),
            UnaryOp::Ffloor => x.floor(),
            UnaryOp::Ftrunc => x.trunc(),
            UnaryOp::Fnearest => x.round_ties_even(),
            _ => return Err(ScalarError::UnaryOperand { op, ty: ScalarTy::F32 }),
        };
        return Ok(Imm::f32(v));
    }
    let x = a.as_f64();
    let v = match op {
        UnaryOp::Fsqrt => x.sqrt(),
        UnaryOp::Fceil => x.ceil(),
        UnaryOp::Ffloor => x.floor(),
        UnaryOp::Ftrunc => x.trunc(),
        UnaryOp::Fnearest => x.round_ties_even(),
        _ => return Err(ScalarError::UnaryOperand { op, ty: ScalarTy::F64 }),
    };
    Ok(Imm::f64(v))
}

/// A unary operation on `a` (`copy` passes it through).
pub(crate) fn unary(op: UnaryOp, a: Imm) -> OpResult {
    match op {
        UnaryOp::Copy => Ok(a),
        _ if a.ty().is_float() => float_unary(op, a),
        _ => int_unary(op, a),
    }
}

/// A binary operation on `a` and `b` (which must have the same type).
pub(crate) fn binary(op: BinaryOp, a: Imm, b: Imm) -> OpResult {
    if a.ty() != b.ty() {
        return Err(ScalarError::BinaryMismatch { op, left: a.ty(), right: b.ty() });
    }
    if a.ty().is_float() { float_binary(op, a, b) } else { int_binary(op, a, b) }
}

/// `setp.cc a, b` on integers of one type.
pub(crate) fn int_compare(cc: IntCC, a: Imm, b: Imm) -> OpResult {
    if a.ty() != b.ty() || !a.ty().is_int() {
        return Err(ScalarError::IntCompareOperands { cc, left: a.ty(), right: b.ty() });
    }
    let (sa, sb, ua, ub) = (signed(a), signed(b), a.as_u64(), b.as_u64());
    Ok(Imm::bool(match cc {
        IntCC::Eq => ua == ub,
        IntCC::Ne => ua != ub,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => ua < ub,
        IntCC::Ule => ua <= ub,
        IntCC::Ugt => ua > ub,
        IntCC::Uge => ua >= ub,
    }))
}

/// `fsetp.cc a, b` on floats of one type (C's semantics).
pub(crate) fn float_compare(cc: FloatCC, a: Imm, b: Imm) -> OpResult {
    if a.ty() != b.ty() || !a.ty().is_float() {
        return Err(ScalarError::FloatCompareOperands { cc, left: a.ty(), right: b.ty() });
    }
    // Widening f32 to f64 is exact, so comparing in f64 is comparing in f32.
    let (x, y) = (widened(a), widened(b));
    Ok(Imm::bool(match cc {
        FloatCC::Eq => x == y,
        FloatCC::Ne => x != y,
        FloatCC::Lt => x < y,
        FloatCC::Le => x <= y,
        FloatCC::Gt => x > y,
        FloatCC::Ge => x >= y,
        FloatCC::Ord => !x.is_nan() && !y.is_nan(),
        FloatCC::Uno => x.is_nan() || y.is_nan(),
    }))
}

/// Float to integer toward zero: `Some(v)` in range (never for NaN).
fn float_to_int(x: f64, dst: ScalarTy, signed: bool) -> Option<u64> {
    if x.is_nan() {
        return None;
    }
    let t = x.trunc();
    let w = dst.bits();
    // Bounds as exact f64 values: [lo, hi) with hi a power of two.
    let (lo, hi) =
        if signed { (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1)) } else { (0.0, 2f64.powi(w as i32)) };
    if t < lo || t >= hi {
        return None;
    }
    Some(if signed { t as i64 as u64 } else { t as u64 })
}

/// A conversion of `a` to type `dst`.
pub(crate) fn convert(op: ConvertOp, a: Imm, dst: ScalarTy) -> OpResult {
    let src = a.ty();
    if !op.converts(src, dst) {
        return Err(ScalarError::ConversionTypes { op, from: src, to: dst });
    }
    Ok(match op {
        ConvertOp::Sext => Imm::int(dst, signed(a)),
        ConvertOp::Zext => int(dst, a.as_u64()),
        ConvertOp::Trunc => int(dst, a.bits()),
        ConvertOp::Fpext => Imm::f64(f64::from(a.as_f32())),
        ConvertOp::Fptrunc => Imm::f32(a.as_f64() as f32),
        ConvertOp::Fptosi | ConvertOp::Fptoui => match float_to_int(widened(a), dst, op == ConvertOp::Fptosi) {
            Some(v) => int(dst, v),
            None => return Err(ScalarError::InvalidConversion { op, value: a, to: dst }),
        },
        ConvertOp::FptosiSat | ConvertOp::FptouiSat => {
            let x = widened(a);
            let w = dst.bits();
            if x.is_nan() {
                int(dst, 0)
            } else if op == ConvertOp::FptosiSat {
                let (lo, hi) = (signed_min(w), if w == 64 { i64::MAX } else { (1i64 << (w - 1)) - 1 });
                // `as` from f64 saturates at i64's range; clamp to the width.
                Imm::int(dst, (x as i64).clamp(lo, hi))
            } else {
                let hi = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                int(dst, (x as u64).min(hi))
            }
        }
        // Rust's integer-to-float `as` rounds once, to nearest even.
        ConvertOp::Sitofp if dst == ScalarTy::F32 => Imm::f32(signed(a) as f32),
        ConvertOp::Sitofp => Imm::f64(signed(a) as f64),
        ConvertOp::Uitofp if dst == ScalarTy::F32 => Imm::f32(a.as_u64() as f32),
        ConvertOp::Uitofp => Imm::f64(a.as_u64() as f64),
        ConvertOp::Bitcast => Imm::from_bits(dst, if src.is_float() { a.bits() } else { a.as_u64() }),
    })
}

/// The additive identity of a type (`+0.0` for floats): an empty `sum`.
pub(crate) fn zero(ty: ScalarTy) -> Imm {
    Imm::from_bits(ty, 0)
}

/// The smallest value of a type (signed `MIN`, or `-inf`): an empty `max`.
pub(crate) fn lowest(ty: ScalarTy) -> Imm {
    match ty {
        ScalarTy::F32 => Imm::f32(f32::NEG_INFINITY),
        ScalarTy::F64 => Imm::f64(f64::NEG_INFINITY),
        ScalarTy::I1 => Imm::bool(true),
        _ => Imm::int(ty, signed_min(ty.bits())),
    }
}

/// One step of `sum`: `acc + x` in the element type (`add` or `fadd`).
pub(crate) fn sum_step(acc: Imm, x: Imm) -> OpResult {
    binary(if acc.ty().is_float() { BinaryOp::Fadd } else { BinaryOp::Add }, acc, x)
}

/// One step of `max`: the NaN-propagating maximum (`smax` or `fmax`).
pub(crate) fn max_step(acc: Imm, x: Imm) -> OpResult {
    binary(if acc.ty().is_float() { BinaryOp::Fmax } else { BinaryOp::Smax }, acc, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(ty: ScalarTy, v: i64) -> Imm {
        Imm::int(ty, v)
    }

    #[test]
    fn integer_edges() {
        use BinaryOp::*;
        use ScalarTy::{I8, I16, I32};
        assert_eq!(binary(Add, i(I8, 127), i(I8, 1)).unwrap(), i(I8, -128));
        assert_eq!(binary(Sdiv, i(I32, -7), i(I32, 2)).unwrap(), i(I32, -3));
        assert_eq!(binary(Srem, i(I32, -7), i(I32, 2)).unwrap(), i(I32, -1));
        assert_eq!(binary(Srem, i(I8, -128), i(I8, -1)).unwrap(), i(I8, 0));
        let e = binary(Sdiv, i(I8, -128), i(I8, -1)).unwrap_err();
        assert_eq!((e.trap(), e.to_string()), (TrapKind::IntegerOverflow, "`sdiv` of -128 by -1 overflows i8".into()));
        assert_eq!(binary(Udiv, i(I8, -1), i(I8, 0)).unwrap_err().trap(), TrapKind::DivisionByZero);
        assert_eq!(binary(Udiv, i(I8, -1), i(I8, 2)).unwrap(), i(I8, 127));
        assert_eq!(binary(Shl, i(I8, 1), i(I8, 9)).unwrap(), i(I8, 2));
        assert_eq!(binary(Ashr, i(I16, -8), i(I16, 2)).unwrap(), i(I16, -2));
        assert_eq!(binary(Lshr, i(I16, -8), i(I16, 2)).unwrap(), i(I16, 0x3ffe));
        assert_eq!(binary(Rotl, i(I8, 0x81u8 as i8 as i64), i(I8, 1)).unwrap(), i(I8, 3));
        assert_eq!(binary(Rotr, i(I8, 3), i(I8, 1)).unwrap(), i(I8, 0x81u8 as i8 as i64));
        assert_eq!(binary(Umin, i(I8, -1), i(I8, 1)).unwrap(), i(I8, 1));
        assert_eq!(binary(Smin, i(I8, -1), i(I8, 1)).unwrap(), i(I8, -1));
        assert_eq!(unary(UnaryOp::Clz, i(I16, 1)).unwrap(), i(I16, 15));
        assert_eq!(unary(UnaryOp::Ctz, i(I16, 0)).unwrap(), i(I16, 16));
        assert_eq!(unary(UnaryOp::Popcnt, i(I8, -1)).unwrap(), i(I8, 8));
        // i1: true is -1 when signed.
        let (t, f) = (Imm::bool(true), Imm::bool(false));
        assert_eq!(int_compare(IntCC::Slt, t, f).unwrap(), Imm::bool(true));
        assert_eq!(int_compare(IntCC::Ult, t, f).unwrap(), Imm::bool(false));
        assert_eq!(convert(ConvertOp::Sext, t, I32).unwrap(), i(I32, -1));
        assert_eq!(convert(ConvertOp::Zext, t, I32).unwrap(), i(I32, 1));
    }

    #[test]
    fn float_edges() {
        let (nz, pz) = (Imm::f64(-0.0), Imm::f64(0.0));
        assert_eq!(binary(BinaryOp::Fmin, pz, nz).unwrap(), nz);
        assert_eq!(binary(BinaryOp::Fmax, nz, pz).unwrap(), pz);
        let nan = Imm::from_bits(ScalarTy::F32, 0x7fa0_0001);
        assert_eq!(binary(BinaryOp::Fmax, nan, Imm::f32(1.0)).unwrap(), nan);
        assert_eq!(unary(UnaryOp::Fneg, nan).unwrap().bits(), 0xffa0_0001);
        assert_eq!(float_compare(FloatCC::Ne, nan, nan).unwrap(), Imm::bool(true));
        assert_eq!(float_compare(FloatCC::Eq, nan, nan).unwrap(), Imm::bool(false));
        assert_eq!(unary(UnaryOp::Fnearest, Imm::f32(2.5)).unwrap(), Imm::f32(2.0));
        let e = convert(ConvertOp::Fptosi, Imm::f64(f64::NAN), ScalarTy::I32).unwrap_err();
        assert_eq!(e.trap(), TrapKind::InvalidConversion);
        assert_eq!(e.to_string(), "`fptosi` of nan to i32: NaN");
        assert_eq!(convert(ConvertOp::Fptoui, Imm::f64(-0.5), ScalarTy::I8).unwrap(), i(ScalarTy::I8, 0));
        let e = convert(ConvertOp::Fptoui, Imm::f64(256.0), ScalarTy::I8).unwrap_err();
        assert_eq!(
            e,
            ScalarError::InvalidConversion { op: ConvertOp::Fptoui, value: Imm::f64(256.0), to: ScalarTy::I8 }
        );
        assert_eq!(e.to_string(), "`fptoui` of 256.0 to i8: out of range");
        assert_eq!(convert(ConvertOp::FptosiSat, Imm::f32(1e10), ScalarTy::I16).unwrap(), i(ScalarTy::I16, 32767));
        assert_eq!(convert(ConvertOp::FptouiSat, Imm::f32(-3.0), ScalarTy::I16).unwrap(), i(ScalarTy::I16, 0));
        // 2^53 + 1 rounds to even in f64, 2^24 + 1 in f32.
        assert_eq!(
            convert(ConvertOp::Sitofp, i(ScalarTy::I64, (1 << 53) + 1), ScalarTy::F64).unwrap().as_f64(),
            9007199254740992.0
        );
        assert_eq!(convert(ConvertOp::Uitofp, i(ScalarTy::I32, -1), ScalarTy::F32).unwrap().as_f32(), 4294967296.0);
        assert_eq!(lowest(ScalarTy::I8), i(ScalarTy::I8, -128));
        assert_eq!(zero(ScalarTy::F32).bits(), 0);
    }

    #[test]
    fn ill_typed_operands_are_malformed_not_panics() {
        let bad = binary(BinaryOp::Add, Imm::f32(1.0), Imm::f32(2.0)).unwrap_err();
        assert_eq!(bad.trap(), TrapKind::Malformed);
        assert_eq!(
            binary(BinaryOp::Fadd, i(ScalarTy::I8, 1), i(ScalarTy::I16, 1)).unwrap_err().trap(),
            TrapKind::Malformed
        );
        assert_eq!(unary(UnaryOp::Fsqrt, i(ScalarTy::I8, 1)).unwrap_err().trap(), TrapKind::Malformed);
        assert_eq!(unary(UnaryOp::Neg, Imm::f64(1.0)).unwrap_err().trap(), TrapKind::Malformed);
        assert_eq!(convert(ConvertOp::Fpext, Imm::f64(1.0), ScalarTy::F64).unwrap_err().trap(), TrapKind::Malformed);
        assert_eq!(int_compare(IntCC::Eq, Imm::f32(0.0), Imm::f32(0.0)).unwrap_err().trap(), TrapKind::Malformed);
        assert_eq!(
            float_compare(FloatCC::Eq, i(ScalarTy::I1, 0), i(ScalarTy::I1, 0)).unwrap_err().trap(),
            TrapKind::Malformed
        );
    }
}
