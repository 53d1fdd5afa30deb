//! Numeric semantics: what each scalar, vector and matrix operation
//! computes on values in canonical register form ([`Ty::canonical`]).
//!
//! These are Keel IR's semantics (`docs/ir.md` §6, `ir_core::interp`),
//! operation by operation, so that code lowered from Keel IR computes
//! exactly what the reference interpreter computes: integer arithmetic
//! wraps; `i1` is a one-bit integer whose signed value is 0 or −1; floats
//! are IEEE 754 in their own width (an `f32` operation is done in `f32`,
//! rounded once); `fmin`/`fmax` are IEEE 754-2019 `minimum`/`maximum`;
//! sign operations work on bits (NaN payloads kept); `vfma` is unfused;
//! integer `vdiv`, `vmin`, `vmax`, `vrelu`, `vredmax` are signed;
//! transcendentals use the platform's libm in the element type.
//!
//! Invariants: every function returns a canonical value of its result
//! type for any input bits (non-canonical inputs are read through their low
//! bits); operations that can trap return an [`ArithError`] and compute
//! nothing else.

use crate::ops::{BinOp, ConvOp, FloatCC, IntCC, RedOp, UnOp, VBinOp, VUnOp};
use crate::types::Ty;

/// Why an operation trapped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ArithError {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// `sdiv` of the type's minimum by −1.
    Overflow,
    /// `fptosi`/`fptoui` of NaN or of a value out of the result's range.
    InvalidConversion,
}

impl core::fmt::Display for ArithError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ArithError::DivisionByZero => "integer division by zero",
            ArithError::Overflow => "integer overflow (MIN / -1)",
            ArithError::InvalidConversion => "float to integer conversion of NaN or an out-of-range value",
        })
    }
}

fn mask(w: u32) -> u64 {
    if w == 64 { u64::MAX } else { (1u64 << w) - 1 }
}

/// The unsigned value of an integer in `ty`.
pub fn uval(ty: Ty, bits: u64) -> u64 {
    bits & mask(ty.bits())
}

/// The signed value of an integer in `ty` (`i1` true is −1).
pub fn sval(ty: Ty, bits: u64) -> i64 {
    let w = ty.bits();
    let u = uval(ty, bits);
    if w == 64 { u as i64 } else { ((u << (64 - w)) as i64) >> (64 - w) }
}

fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn of_f32(v: f32) -> u64 {
    u64::from(v.to_bits())
}

fn signed_min(w: u32) -> i64 {
    if w == 64 { i64::MIN } else { -(1i64 << (w - 1)) }
}

/// IEEE 754-2019 `minimum`/`maximum`: NaN-propagating, `−0 < +0`.
fn fmin_max<T: Copy + PartialOrd>(a: T, b: T, a_nan: bool, b_nan: bool, a_neg: bool, want_min: bool) -> T {
    if a_nan {
        return a;
    }
    if b_nan {
        return b;
    }
    if a == b {
        return if a_neg == want_min { a } else { b };
    }
    if (a < b) == want_min { a } else { b }
}

/// A scalar binary operation.
pub fn binary(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, ArithError> {
    if ty.is_float() {
        return Ok(float_binary(op, ty, a, b));
    }
    let w = ty.bits();
    let (ua, ub) = (uval(ty, a), uval(ty, b));
    let (sa, sb) = (sval(ty, a), sval(ty, b));
    let amount = (ub % u64::from(w)) as u32;
    let v = match op {
        BinOp::Add => ua.wrapping_add(ub),
        BinOp::Sub => ua.wrapping_sub(ub),
        BinOp::Mul => ua.wrapping_mul(ub),
        BinOp::Sdiv | BinOp::Srem => {
            if sb == 0 {
                return Err(ArithError::DivisionByZero);
            }
            if op == BinOp::Sdiv && sa == signed_min(w) && sb == -1 {
                return Err(ArithError::Overflow);
            }
            if op == BinOp::Sdiv { sa.wrapping_div(sb) as u64 } else { sa.wrapping_rem(sb) as u64 }
        }
        BinOp::Udiv | BinOp::Urem => {
            if ub == 0 {
                return Err(ArithError::DivisionByZero);
            }
            if op == BinOp::Udiv { ua / ub } else { ua % ub }
        }
        BinOp::And => ua & ub,
        BinOp::Or => ua | ub,
        BinOp::Xor => ua ^ ub,
        BinOp::Shl => ua << amount,
        BinOp::Lshr => ua >> amount,
        BinOp::Ashr => (sa >> amount) as u64,
        BinOp::Rotl | BinOp::Rotr => {
            let r = if op == BinOp::Rotl { amount } else { (w - amount) % w };
            if r == 0 { ua } else { ((ua << r) | (ua >> (w - r))) & mask(w) }
        }
        BinOp::Smin => sa.min(sb) as u64,
        BinOp::Smax => sa.max(sb) as u64,
        BinOp::Umin => ua.min(ub),
        BinOp::Umax => ua.max(ub),
        // Float operations on an integer type (the verifier rejects them)
        // compute on the bits as a float of the nearest width.
        _ => float_binary(op, if w <= 32 { Ty::F32 } else { Ty::F64 }, a, b),
    };
    Ok(ty.canonical(v))
}

/// A float binary operation on values `x`, `y` of one float type (the
/// integer operations that name the same thing map onto it; the verifier
/// rejects them).
macro_rules! float_binary_in {
    ($op:expr, $x:expr, $y:expr) => {{
        let (x, y) = ($x, $y);
        match $op {
            BinOp::Fsub | BinOp::Sub => x - y,
            BinOp::Fmul | BinOp::Mul => x * y,
            BinOp::Fdiv | BinOp::Sdiv | BinOp::Udiv => x / y,
            BinOp::Fmin | BinOp::Smin | BinOp::Umin => {
                fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), true)
            }
            BinOp::Fmax | BinOp::Smax | BinOp::Umax => {
                fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), false)
            }
            BinOp::Fcopysign => x.copysign(y),
            _ => x + y,
        }
    }};
}

fn float_binary(op: BinOp, ty: Ty, a: u64, b: u64) -> u64 {
    if ty == Ty::F32 {
        of_f32(float_binary_in!(op, f32_of(a), f32_of(b)))
    } else {
        float_binary_in!(op, f64::from_bits(a), f64::from_bits(b)).to_bits()
    }
}

/// A float unary operation other than the sign operations, on `x`.
macro_rules! float_unary_in {
    ($op:expr, $x:expr) => {{
        let x = $x;
        match $op {
            UnOp::Fsqrt => x.sqrt(),
            UnOp::Fceil => x.ceil(),
            UnOp::Ffloor => x.floor(),
            UnOp::Ftrunc => x.trunc(),
            UnOp::Fnearest => x.round_ties_even(),
            UnOp::Fexp => x.exp(),
            UnOp::Flog => x.ln(),
            UnOp::Ftanh => x.tanh(),
            UnOp::Fsigmoid => 1.0 / (1.0 + (-x).exp()),
            _ => x,
        }
    }};
}

/// A scalar unary operation.
pub fn unary(op: UnOp, ty: Ty, a: u64) -> u64 {
    if ty.is_int() {
        let w = ty.bits();
        let u = uval(ty, a);
        let v = match op {
            UnOp::Neg => 0u64.wrapping_sub(u),
            UnOp::Not => !u,
            UnOp::Clz => u64::from(u.leading_zeros() - (64 - w)),
            UnOp::Ctz => u64::from(if u == 0 { w } else { u.trailing_zeros() }),
            UnOp::Popcnt => u64::from(u.count_ones()),
            // Float operations on an integer type (rejected by the verifier)
            // leave the value as it is.
            _ => u,
        };
        return ty.canonical(v);
    }
    let sign = if ty == Ty::F32 { 1u64 << 31 } else { 1u64 << 63 };
    match op {
        UnOp::Fneg | UnOp::Neg => return ty.canonical(a ^ sign),
        UnOp::Fabs => return ty.canonical(a & !sign),
        _ => {}
    }
    if ty == Ty::F32 {
        of_f32(float_unary_in!(op, f32_of(a)))
    } else {
        float_unary_in!(op, f64::from_bits(a)).to_bits()
    }
}

/// `setp.CC`.
pub fn int_compare(cc: IntCC, ty: Ty, a: u64, b: u64) -> bool {
    let (sa, sb, ua, ub) = (sval(ty, a), sval(ty, b), uval(ty, a), uval(ty, b));
    match cc {
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
    }
}

/// `fsetp.CC` (C's semantics: only `ne` and `uno` are true on NaN).
pub fn float_compare(cc: FloatCC, ty: Ty, a: u64, b: u64) -> bool {
    let (x, y) = if ty == Ty::F32 {
        (f64::from(f32_of(a)), f64::from(f32_of(b)))
    } else if ty == Ty::F64 {
        (f64::from_bits(a), f64::from_bits(b))
    } else {
        (sval(ty, a) as f64, sval(ty, b) as f64)
    };
    match cc {
        FloatCC::Eq => x == y,
        FloatCC::Ne => x != y,
        FloatCC::Lt => x < y,
        FloatCC::Le => x <= y,
        FloatCC::Gt => x > y,
        FloatCC::Ge => x >= y,
        FloatCC::Ord => !x.is_nan() && !y.is_nan(),
        FloatCC::Uno => x.is_nan() || y.is_nan(),
    }
}

/// A float value widened exactly to `f64`.
fn fval(ty: Ty, bits: u64) -> f64 {
    if ty == Ty::F32 { f64::from(f32_of(bits)) } else { f64::from_bits(bits) }
}

/// Float to integer toward zero, or `None` on NaN or out of range.
fn float_to_int(x: f64, to: Ty, signed: bool) -> Option<u64> {
    if x.is_nan() {
        return None;
    }
    let t = x.trunc();
    let w = to.bits() as i32;
    let (lo, hi) = if signed { (-(2f64.powi(w - 1)), 2f64.powi(w - 1)) } else { (0.0, 2f64.powi(w)) };
    if t < lo || t >= hi {
        return None;
    }
    Some(if signed { t as i64 as u64 } else { t as u64 })
}

/// A conversion from `from` to `to` (which the verifier checked with
/// [`ConvOp::legal`]; an illegal pair converts the bits as `bitcast`).
pub fn convert(op: ConvOp, to: Ty, from: Ty, a: u64) -> Result<u64, ArithError> {
    let w = to.bits();
    let v = match op {
        ConvOp::Sext if from.is_int() && to.is_int() => to.canonical(sval(from, a) as u64),
        ConvOp::Zext if from.is_int() && to.is_int() => to.canonical(uval(from, a)),
        ConvOp::Trunc if from.is_int() && to.is_int() => to.canonical(a),
        ConvOp::Fpext if from == Ty::F32 && to == Ty::F64 => f64::from(f32_of(a)).to_bits(),
        ConvOp::Fptrunc if from == Ty::F64 && to == Ty::F32 => of_f32(f64::from_bits(a) as f32),
        ConvOp::Fptosi | ConvOp::Fptoui if from.is_float() && to.is_int() => {
            let signed = op == ConvOp::Fptosi;
            let v = float_to_int(fval(from, a), to, signed).ok_or(ArithError::InvalidConversion)?;
            to.canonical(v)
        }
        ConvOp::FptosiSat | ConvOp::FptouiSat if from.is_float() && to.is_int() => {
            let x = fval(from, a);
            if x.is_nan() {
                0
            } else if op == ConvOp::FptosiSat {
                let hi = if w == 64 { i64::MAX } else { (1i64 << (w - 1)) - 1 };
                to.canonical((x as i64).clamp(signed_min(w), hi) as u64)
            } else {
                to.canonical((x as u64).min(mask(w)))
            }
        }
        ConvOp::Sitofp | ConvOp::Uitofp if from.is_int() && to.is_float() => {
            let signed = op == ConvOp::Sitofp;
            match (to, signed) {
                (Ty::F32, true) => of_f32(sval(from, a) as f32),
                (Ty::F32, false) => of_f32(uval(from, a) as f32),
                (_, true) => (sval(from, a) as f64).to_bits(),
                (_, false) => (uval(from, a) as f64).to_bits(),
            }
        }
        _ => {
            let bits = if from.is_float() { a } else { uval(from, a) };
            to.canonical(bits)
        }
    };
    Ok(v)
}

/// The additive identity (`+0.0` for floats).
pub fn zero(_ty: Ty) -> u64 {
    0
}

/// The lowest value of a type: signed `MIN`, or `−inf`.
pub fn lowest(ty: Ty) -> u64 {
    match ty {
        Ty::F32 => of_f32(f32::NEG_INFINITY),
        Ty::F64 => f64::NEG_INFINITY.to_bits(),
        Ty::I1 => 1,
        _ => signed_min(ty.bits()) as u64,
    }
}

/// One element of a vector binary operation.
pub fn vbinary(op: VBinOp, ty: Ty, a: u64, b: u64) -> Result<u64, ArithError> {
    let f = ty.is_float();
    let pick = |i: BinOp, fl: BinOp| if f { fl } else { i };
    binary(
        match op {
            VBinOp::Add => pick(BinOp::Add, BinOp::Fadd),
            VBinOp::Sub => pick(BinOp::Sub, BinOp::Fsub),
            VBinOp::Mul => pick(BinOp::Mul, BinOp::Fmul),
            VBinOp::Div => pick(BinOp::Sdiv, BinOp::Fdiv),
            VBinOp::Min => pick(BinOp::Smin, BinOp::Fmin),
            VBinOp::Max => pick(BinOp::Smax, BinOp::Fmax),
        },
        ty,
        a,
        b,
    )
}

/// One element of `vfma`: `a·b + c`, two roundings.
pub fn vfma(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let f = ty.is_float();
    let p = binary(if f { BinOp::Fmul } else { BinOp::Mul }, ty, a, b).unwrap_or(0);
    binary(if f { BinOp::Fadd } else { BinOp::Add }, ty, p, c).unwrap_or(0)
}

/// One element of a vector unary operation.
pub fn vunary(op: VUnOp, ty: Ty, a: u64) -> u64 {
    let f = ty.is_float();
    match op {
        VUnOp::Neg => unary(if f { UnOp::Fneg } else { UnOp::Neg }, ty, a),
        VUnOp::Abs if f => unary(UnOp::Fabs, ty, a),
        VUnOp::Abs => ty.canonical(sval(ty, a).wrapping_abs() as u64),
        VUnOp::Relu => binary(if f { BinOp::Fmax } else { BinOp::Smax }, ty, a, zero(ty)).unwrap_or(0),
        VUnOp::Exp => unary(UnOp::Fexp, ty, a),
        VUnOp::Log => unary(UnOp::Flog, ty, a),
        VUnOp::Sqrt => unary(UnOp::Fsqrt, ty, a),
        VUnOp::Tanh => unary(UnOp::Ftanh, ty, a),
        VUnOp::Sigmoid => unary(UnOp::Fsigmoid, ty, a),
    }
}

/// A reduction step: `acc ⊕ x` (`Sum`: add; `Max`: signed or IEEE maximum).
pub fn reduce_step(op: RedOp, ty: Ty, acc: u64, x: u64) -> u64 {
    let f = ty.is_float();
    let bop = match op {
        RedOp::Sum => {
            if f {
                BinOp::Fadd
            } else {
                BinOp::Add
            }
        }
        RedOp::Max => {
            if f {
                BinOp::Fmax
            } else {
                BinOp::Smax
            }
        }
    };
    binary(bop, ty, acc, x).unwrap_or(0)
}

/// The result of a reduction over no elements.
pub fn reduce_empty(op: RedOp, ty: Ty) -> u64 {
    match op {
        RedOp::Sum => zero(ty),
        RedOp::Max => lowest(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(ty: Ty, v: i64) -> u64 {
        ty.canonical(v as u64)
    }

    #[test]
    fn integer_edges() {
        use BinOp::*;
        assert_eq!(binary(Add, Ty::I8, i(Ty::I8, 127), 1), Ok(i(Ty::I8, -128)));
        assert_eq!(binary(Sdiv, Ty::I32, i(Ty::I32, -7), 2), Ok(i(Ty::I32, -3)));
        assert_eq!(binary(Srem, Ty::I8, i(Ty::I8, -128), i(Ty::I8, -1)), Ok(0));
        assert_eq!(binary(Sdiv, Ty::I8, i(Ty::I8, -128), i(Ty::I8, -1)), Err(ArithError::Overflow));
        assert_eq!(binary(Udiv, Ty::I8, i(Ty::I8, -1), 0), Err(ArithError::DivisionByZero));
        assert_eq!(binary(Udiv, Ty::I8, i(Ty::I8, -1), 2), Ok(127));
        assert_eq!(binary(Shl, Ty::I8, 1, 9), Ok(2));
        assert_eq!(binary(Rotl, Ty::I8, i(Ty::I8, 0x81), 1), Ok(3));
        assert_eq!(unary(UnOp::Clz, Ty::I16, 1), 15);
        assert_eq!(unary(UnOp::Ctz, Ty::I16, 0), 16);
        assert_eq!(convert(ConvOp::Sext, Ty::I8, Ty::I1, 1), Ok(i(Ty::I8, -1)));
        assert_eq!(convert(ConvOp::Zext, Ty::I8, Ty::I1, 1), Ok(1));
        assert!(int_compare(IntCC::Slt, Ty::I1, 1, 0));
        assert_eq!(convert(ConvOp::Sitofp, Ty::F64, Ty::I1, 1), Ok((-1.0f64).to_bits()));
        assert_eq!(vunary(VUnOp::Abs, Ty::I8, i(Ty::I8, -128)), i(Ty::I8, -128));
    }

    #[test]
    fn float_edges() {
        let (nz, pz) = ((-0.0f64).to_bits(), 0.0f64.to_bits());
        assert_eq!(binary(BinOp::Fmin, Ty::F64, pz, nz), Ok(nz));
        assert_eq!(binary(BinOp::Fmax, Ty::F64, nz, pz), Ok(pz));
        assert_eq!(unary(UnOp::Fnearest, Ty::F32, of_f32(2.5)), of_f32(2.0));
        assert_eq!(unary(UnOp::Fneg, Ty::F32, 0x7fa0_0001), 0xffa0_0001);
        assert!(float_compare(FloatCC::Ne, Ty::F32, 0x7fa0_0001, 0x7fa0_0001));
        assert_eq!(convert(ConvOp::Fptosi, Ty::I8, Ty::F64, 128f64.to_bits()), Err(ArithError::InvalidConversion));
        assert_eq!(convert(ConvOp::Fptosi, Ty::I8, Ty::F64, (-128.9f64).to_bits()), Ok(i(Ty::I8, -128)));
        assert_eq!(convert(ConvOp::FptosiSat, Ty::I16, Ty::F64, 1e10f64.to_bits()), Ok(i16::MAX as u64));
        assert_eq!(convert(ConvOp::Uitofp, Ty::F32, Ty::I8, i(Ty::I8, -1)), Ok(of_f32(255.0)));
        assert_eq!(convert(ConvOp::Bitcast, Ty::I32, Ty::F32, of_f32(1.0)), Ok(0x3f80_0000));
        assert_eq!(convert(ConvOp::Bitcast, Ty::F32, Ty::I32, u64::MAX), Ok(0xffff_ffff));
        assert_eq!(vunary(VUnOp::Relu, Ty::F32, of_f32(-0.0)), 0);
        assert_eq!(reduce_empty(RedOp::Max, Ty::I16), i(Ty::I16, -32768));
    }
}
