//! Scalar semantics: what each operation computes on [`Imm`] values.
//!
//! Invariants: every result is canonical for its type (built through
//! [`Imm::from_bits`] or the typed constructors); integer arithmetic wraps;
//! `i1` is a one-bit integer whose signed value is 0 or −1 (`docs/ir.md`
//! §6, "run-time semantics"); floats follow IEEE 754 through Rust's `f32`
//! and `f64`. Operations that can trap return a [`TrapKind`] and a reason.

use super::trap::TrapKind;
use crate::imm::Imm;
use crate::opcode::{FloatCC, IntCC, Opcode};
use crate::types::Type;

/// A trap raised by an operation, before the executor adds its location.
pub(crate) type OpResult = Result<Imm, (TrapKind, String)>;

/// The signed value of an integer (`i1` true is −1).
pub(crate) fn sval(x: Imm) -> i64 {
    if x.ty() == Type::I1 { -(x.bits() as i64) } else { x.as_i64() }
}

/// The unsigned value of an integer.
pub(crate) fn uval(x: Imm) -> u64 {
    x.as_u64()
}

/// True for an `i1` (or any integer) that is nonzero.
pub(crate) fn truthy(x: Imm) -> bool {
    x.as_u64() != 0
}

fn int(ty: Type, v: u64) -> Imm {
    Imm::from_bits(ty, v)
}

fn signed_min(w: u32) -> i64 {
    if w == 64 { i64::MIN } else { -(1i64 << (w - 1)) }
}

/// `add`..`umax` on integers.
pub(crate) fn int_binary(op: Opcode, a: Imm, b: Imm) -> OpResult {
    let ty = a.ty();
    let w = ty.bits();
    let (ua, ub) = (uval(a), uval(b));
    let (sa, sb) = (sval(a), sval(b));
    let amount = (ub % u64::from(w)) as u32;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = match op {
        Opcode::Add => ua.wrapping_add(ub),
        Opcode::Sub => ua.wrapping_sub(ub),
        Opcode::Mul => ua.wrapping_mul(ub),
        Opcode::Sdiv | Opcode::Srem => {
            if sb == 0 {
                return Err((TrapKind::DivisionByZero, format!("`{op}` by zero")));
            }
            if op == Opcode::Sdiv && sa == signed_min(w) && sb == -1 {
                return Err((TrapKind::IntegerOverflow, format!("`sdiv` of {sa} by -1 overflows {ty}")));
            }
            if op == Opcode::Sdiv { sa.wrapping_div(sb) as u64 } else { sa.wrapping_rem(sb) as u64 }
        }
        Opcode::Udiv | Opcode::Urem => {
            if ub == 0 {
                return Err((TrapKind::DivisionByZero, format!("`{op}` by zero")));
            }
            if op == Opcode::Udiv { ua / ub } else { ua % ub }
        }
        Opcode::And => ua & ub,
        Opcode::Or => ua | ub,
        Opcode::Xor => ua ^ ub,
        Opcode::Shl => ua << amount,
        Opcode::Lshr => ua >> amount,
        Opcode::Ashr => (sa >> amount) as u64,
        Opcode::Rotl | Opcode::Rotr => {
            let r = if op == Opcode::Rotl { amount } else { (w - amount) % w };
            if r == 0 { ua } else { ((ua << r) | (ua >> (w - r))) & mask }
        }
        Opcode::Smin => sa.min(sb) as u64,
        Opcode::Smax => sa.max(sb) as u64,
        Opcode::Umin => ua.min(ub),
        Opcode::Umax => ua.max(ub),
        _ => return Err((TrapKind::Malformed, format!("`{op}` is not an integer binary operation"))),
    };
    Ok(int(ty, v))
}

/// `neg`, `not`, `clz`, `ctz`, `popcnt`.
pub(crate) fn int_unary(op: Opcode, a: Imm) -> OpResult {
    let ty = a.ty();
    let w = ty.bits();
    let u = uval(a);
    let v = match op {
        Opcode::Neg => 0u64.wrapping_sub(u),
        Opcode::Not => !u,
        Opcode::Clz => u64::from(u.leading_zeros() - (64 - w)),
        Opcode::Ctz => u64::from(if u == 0 { w } else { u.trailing_zeros() }),
        Opcode::Popcnt => u64::from(u.count_ones()),
        _ => return Err((TrapKind::Malformed, format!("`{op}` is not an integer unary operation"))),
    };
    Ok(int(ty, v))
}

/// A float value widened to `f64` exactly, and its type.
fn fv(x: Imm) -> f64 {
    if x.ty() == Type::F32 { f64::from(x.as_f32()) } else { x.as_f64() }
}

/// Builds a float of `ty` from an `f64` computed exactly (or, for `f32`,
/// from an operation done in `f32`: see `float_binary`).
fn fimm(ty: Type, v: f64) -> Imm {
    if ty == Type::F32 { Imm::f32(v as f32) } else { Imm::f64(v) }
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

/// `fadd`..`fcopysign`; `f32` operations are done in `f32` (one rounding).
pub(crate) fn float_binary(op: Opcode, a: Imm, b: Imm) -> OpResult {
    let ty = a.ty();
    if ty == Type::F32 {
        let (x, y) = (a.as_f32(), b.as_f32());
        let v = match op {
            Opcode::Fadd => x + y,
            Opcode::Fsub => x - y,
            Opcode::Fmul => x * y,
            Opcode::Fdiv => x / y,
            Opcode::Fmin | Opcode::Fmax => {
                fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), op == Opcode::Fmin)
            }
            Opcode::Fcopysign => x.copysign(y),
            _ => return Err((TrapKind::Malformed, format!("`{op}` is not a float binary operation"))),
        };
        return Ok(Imm::f32(v));
    }
    let (x, y) = (a.as_f64(), b.as_f64());
    let v = match op {
        Opcode::Fadd => x + y,
        Opcode::Fsub => x - y,
        Opcode::Fmul => x * y,
        Opcode::Fdiv => x / y,
        Opcode::Fmin | Opcode::Fmax => fmin_max(x, y, x.is_nan(), y.is_nan(), x.is_sign_negative(), op == Opcode::Fmin),
        Opcode::Fcopysign => x.copysign(y),
        _ => return Err((TrapKind::Malformed, format!("`{op}` is not a float binary operation"))),
    };
    Ok(Imm::f64(v))
}

/// `fneg`..`fnearest`; sign operations work on bits so NaNs keep payloads.
pub(crate) fn float_unary(op: Opcode, a: Imm) -> OpResult {
    let ty = a.ty();
    let sign = if ty == Type::F32 { 1u64 << 31 } else { 1u64 << 63 };
    match op {
        Opcode::Fneg => return Ok(Imm::from_bits(ty, a.bits() ^ sign)),
        Opcode::Fabs => return Ok(Imm::from_bits(ty, a.bits() & !sign)),
        _ => {}
    }
    if ty == Type::F32 {
        let x = a.as_f32();
        let v = match op {
            Opcode::Fsqrt => x.sqrt(),
            Opcode::Fceil => x.ceil(),
            Opcode::Ffloor => x.floor(),
            Opcode::Ftrunc => x.trunc(),
            Opcode::Fnearest => x.round_ties_even(),
            _ => return Err((TrapKind::Malformed, format!("`{op}` is not a float unary operation"))),
        };
        return Ok(Imm::f32(v));
    }
    let x = a.as_f64();
    let v = match op {
        Opcode::Fsqrt => x.sqrt(),
        Opcode::Fceil => x.ceil(),
        Opcode::Ffloor => x.floor(),
        Opcode::Ftrunc => x.trunc(),
        Opcode::Fnearest => x.round_ties_even(),
        _ => return Err((TrapKind::Malformed, format!("`{op}` is not a float unary operation"))),
    };
    Ok(Imm::f64(v))
}

/// Any unary operation by type (integer or float); `copy` passes through.
pub(crate) fn unary(op: Opcode, a: Imm) -> OpResult {
    match op {
        Opcode::Copy => Ok(a),
        _ if a.ty().is_float() => float_unary(op, a),
        _ => int_unary(op, a),
    }
}

/// Any binary operation by type.
pub(crate) fn binary(op: Opcode, a: Imm, b: Imm) -> OpResult {
    if a.ty() != b.ty() {
        return Err((TrapKind::Malformed, format!("`{op}` on {} and {}", a.ty(), b.ty())));
    }
    if a.ty().is_float() { float_binary(op, a, b) } else { int_binary(op, a, b) }
}

/// `setp.cc`.
pub(crate) fn int_compare(cc: IntCC, a: Imm, b: Imm) -> Imm {
    let (sa, sb, ua, ub) = (sval(a), sval(b), uval(a), uval(b));
    Imm::bool(match cc {
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
    })
}

/// `fsetp.cc`, C's semantics: only `ne` and `uno` are true on NaN.
pub(crate) fn float_compare(cc: FloatCC, a: Imm, b: Imm) -> Imm {
    // Widening f32 to f64 is exact, so comparing in f64 is comparing in f32.
    let (x, y) = (fv(a), fv(b));
    Imm::bool(match cc {
        FloatCC::Eq => x == y,
        FloatCC::Ne => x != y,
        FloatCC::Lt => x < y,
        FloatCC::Le => x <= y,
        FloatCC::Gt => x > y,
        FloatCC::Ge => x >= y,
        FloatCC::Ord => !x.is_nan() && !y.is_nan(),
        FloatCC::Uno => x.is_nan() || y.is_nan(),
    })
}

/// Float to integer toward zero: `Ok(v)` in range, else why not.
fn float_to_int(x: f64, dst: Type, signed: bool) -> Result<u64, &'static str> {
    if x.is_nan() {
        return Err("NaN");
    }
    let t = x.trunc();
    let w = dst.bits();
    // Bounds as exact f64 values: [lo, hi) with hi a power of two.
    let (lo, hi) =
        if signed { (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1)) } else { (0.0, 2f64.powi(w as i32)) };
    if t < lo || t >= hi {
        return Err("out of range");
    }
    Ok(if signed { t as i64 as u64 } else { t as u64 })
}

/// Conversions; `dst` is the result var's type.
pub(crate) fn convert(op: Opcode, a: Imm, dst: Type) -> OpResult {
    let src = a.ty();
    let v = match op {
        Opcode::Sext => Imm::int(dst, sval(a)),
        Opcode::Zext => int(dst, uval(a)),
        Opcode::Trunc => int(dst, a.bits()),
        Opcode::Fpext => Imm::f64(f64::from(a.as_f32())),
        Opcode::Fptrunc => Imm::f32(a.as_f64() as f32),
        Opcode::Fptosi | Opcode::Fptoui => {
            let signed = op == Opcode::Fptosi;
            match float_to_int(fv(a), dst, signed) {
                Ok(v) => int(dst, v),
                Err(why) => {
                    return Err((TrapKind::InvalidConversion, format!("`{op}` of {} to {dst}: {why}", a)));
                }
            }
        }
        Opcode::FptosiSat | Opcode::FptouiSat => {
            let x = fv(a);
            let w = dst.bits();
            if x.is_nan() {
                int(dst, 0)
            } else if op == Opcode::FptosiSat {
                let (lo, hi) = (signed_min(w), if w == 64 { i64::MAX } else { (1i64 << (w - 1)) - 1 });
                // `as` from f64 saturates at i64's range; clamp to the width.
                Imm::int(dst, (x as i64).clamp(lo, hi))
            } else {
                let hi = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                int(dst, (x as u64).min(hi))
            }
        }
        Opcode::Sitofp => fimm_int(dst, sval(a) as f64, sval(a) as f32),
        Opcode::Uitofp => fimm_int(dst, uval(a) as f64, uval(a) as f32),
        Opcode::Bitcast => {
            let bits = if src.is_float() { a.bits() } else { uval(a) };
            Imm::from_bits(dst, bits)
        }
        _ => return Err((TrapKind::Malformed, format!("`{op}` is not a conversion"))),
    };
    Ok(v)
}

/// An integer converted to a float of `ty`, each width rounded once from
/// the integer (Rust's `as` rounds integer-to-float to nearest even).
fn fimm_int(ty: Type, as_f64: f64, as_f32: f32) -> Imm {
    if ty == Type::F32 { Imm::f32(as_f32) } else { Imm::f64(as_f64) }
}

/// The additive identity of a type (`+0.0` for floats).
pub(crate) fn zero(ty: Type) -> Imm {
    Imm::from_bits(ty, 0)
}

/// The smallest value of a type: signed `MIN`, or `-inf`.
pub(crate) fn lowest(ty: Type) -> Imm {
    match ty {
        Type::F32 => Imm::f32(f32::NEG_INFINITY),
        Type::F64 => Imm::f64(f64::NEG_INFINITY),
        Type::I1 => Imm::bool(true),
        _ => Imm::int(ty, signed_min(ty.bits())),
    }
}

/// Element-wise tensor semantics for one element: maps `t*` opcodes onto
/// the scalar operations of the element type.
pub(crate) fn tensor_elem(op: Opcode, a: Imm, b: Imm, c: Imm) -> OpResult {
    let float = a.ty().is_float();
    let pick = |i: Opcode, f: Opcode| if float { f } else { i };
    match op {
        Opcode::Tadd => binary(pick(Opcode::Add, Opcode::Fadd), a, b),
        Opcode::Tsub => binary(pick(Opcode::Sub, Opcode::Fsub), a, b),
        Opcode::Tmul => binary(pick(Opcode::Mul, Opcode::Fmul), a, b),
        Opcode::Tdiv => binary(pick(Opcode::Sdiv, Opcode::Fdiv), a, b),
        Opcode::Tmin => binary(pick(Opcode::Smin, Opcode::Fmin), a, b),
        Opcode::Tmax => binary(pick(Opcode::Smax, Opcode::Fmax), a, b),
        Opcode::Tfma => {
            let p = binary(pick(Opcode::Mul, Opcode::Fmul), a, b)?;
            binary(pick(Opcode::Add, Opcode::Fadd), p, c)
        }
        Opcode::Tneg => unary(pick(Opcode::Neg, Opcode::Fneg), a),
        Opcode::Tabs if float => float_unary(Opcode::Fabs, a),
        Opcode::Tabs => Ok(Imm::int(a.ty(), sval(a).wrapping_abs())),
        Opcode::Trelu => binary(pick(Opcode::Smax, Opcode::Fmax), a, zero(a.ty())),
        Opcode::Tsqrt => float_unary(Opcode::Fsqrt, a),
        Opcode::Texp | Opcode::Tlog | Opcode::Ttanh | Opcode::Tsigmoid => Ok(transcendental(op, a)),
        _ => Err((TrapKind::Malformed, format!("`{op}` is not an element-wise tensor operation"))),
    }
}

fn transcendental(op: Opcode, a: Imm) -> Imm {
    let ty = a.ty();
    if ty == Type::F32 {
        let x = a.as_f32();
        return Imm::f32(match op {
            Opcode::Texp => x.exp(),
            Opcode::Tlog => x.ln(),
            Opcode::Ttanh => x.tanh(),
            _ => 1.0 / (1.0 + (-x).exp()),
        });
    }
    let x = fv(a);
    fimm(
        ty,
        match op {
            Opcode::Texp => x.exp(),
            Opcode::Tlog => x.ln(),
            Opcode::Ttanh => x.tanh(),
            _ => 1.0 / (1.0 + (-x).exp()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(ty: Type, v: i64) -> Imm {
        Imm::int(ty, v)
    }

    #[test]
    fn integer_edges() {
        use Opcode::*;
        assert_eq!(int_binary(Add, i(Type::I8, 127), i(Type::I8, 1)).unwrap(), i(Type::I8, -128));
        assert_eq!(int_binary(Sdiv, i(Type::I32, -7), i(Type::I32, 2)).unwrap(), i(Type::I32, -3));
        assert_eq!(int_binary(Srem, i(Type::I32, -7), i(Type::I32, 2)).unwrap(), i(Type::I32, -1));
        assert_eq!(int_binary(Srem, i(Type::I8, -128), i(Type::I8, -1)).unwrap(), i(Type::I8, 0));
        assert_eq!(int_binary(Sdiv, i(Type::I8, -128), i(Type::I8, -1)).unwrap_err().0, TrapKind::IntegerOverflow);
        assert_eq!(int_binary(Udiv, i(Type::I8, -1), i(Type::I8, 0)).unwrap_err().0, TrapKind::DivisionByZero);
        assert_eq!(int_binary(Udiv, i(Type::I8, -1), i(Type::I8, 2)).unwrap(), i(Type::I8, 127));
        assert_eq!(int_binary(Shl, i(Type::I8, 1), i(Type::I8, 9)).unwrap(), i(Type::I8, 2));
        assert_eq!(int_binary(Ashr, i(Type::I16, -8), i(Type::I16, 2)).unwrap(), i(Type::I16, -2));
        assert_eq!(int_binary(Lshr, i(Type::I16, -8), i(Type::I16, 2)).unwrap(), i(Type::I16, 0x3ffe));
        assert_eq!(int_binary(Rotl, i(Type::I8, 0x81u8 as i8 as i64), i(Type::I8, 1)).unwrap(), i(Type::I8, 3));
        assert_eq!(int_binary(Rotr, i(Type::I8, 3), i(Type::I8, 1)).unwrap(), i(Type::I8, 0x81u8 as i8 as i64));
        assert_eq!(int_binary(Umin, i(Type::I8, -1), i(Type::I8, 1)).unwrap(), i(Type::I8, 1));
        assert_eq!(int_binary(Smin, i(Type::I8, -1), i(Type::I8, 1)).unwrap(), i(Type::I8, -1));
        assert_eq!(int_unary(Clz, i(Type::I16, 1)).unwrap(), i(Type::I16, 15));
        assert_eq!(int_unary(Ctz, i(Type::I16, 0)).unwrap(), i(Type::I16, 16));
        assert_eq!(int_unary(Popcnt, i(Type::I8, -1)).unwrap(), i(Type::I8, 8));
        // i1: true is -1 when signed.
        let t = Imm::bool(true);
        assert_eq!(convert(Sext, t, Type::I8).unwrap(), i(Type::I8, -1));
        assert_eq!(convert(Zext, t, Type::I8).unwrap(), i(Type::I8, 1));
        assert_eq!(int_compare(IntCC::Slt, t, Imm::bool(false)), Imm::bool(true));
        assert_eq!(convert(Sitofp, t, Type::F64).unwrap(), Imm::f64(-1.0));
    }

    #[test]
    fn float_edges() {
        use Opcode::*;
        let (nz, pz) = (Imm::f64(-0.0), Imm::f64(0.0));
        assert_eq!(float_binary(Fmin, pz, nz).unwrap().bits(), nz.bits());
        assert_eq!(float_binary(Fmax, nz, pz).unwrap().bits(), pz.bits());
        assert!(float_binary(Fmin, Imm::f64(1.0), Imm::f64(f64::NAN)).unwrap().as_f64().is_nan());
        assert_eq!(float_unary(Fnearest, Imm::f32(2.5)).unwrap(), Imm::f32(2.0));
        let nan = Imm::from_bits(Type::F32, 0x7fa0_0001);
        assert_eq!(float_unary(Fneg, nan).unwrap().bits(), 0xffa0_0001);
        assert_eq!(float_compare(FloatCC::Ne, nan, nan), Imm::bool(true));
        assert_eq!(float_compare(FloatCC::Eq, nz, pz), Imm::bool(true));
        assert_eq!(convert(Fptosi, Imm::f64(-2.9), Type::I8).unwrap(), i(Type::I8, -2));
        assert_eq!(convert(Fptosi, Imm::f64(128.0), Type::I8).unwrap_err().0, TrapKind::InvalidConversion);
        assert_eq!(convert(Fptosi, Imm::f64(-128.9), Type::I8).unwrap(), i(Type::I8, -128));
        assert_eq!(convert(Fptoui, Imm::f64(-0.9), Type::I8).unwrap(), i(Type::I8, 0));
        assert_eq!(convert(Fptoui, Imm::f64(9.3e18), Type::I64).unwrap().as_u64(), 9_300_000_000_000_000_000);
        assert!(convert(Fptosi, Imm::f64(9.3e18), Type::I64).is_err());
        assert_eq!(convert(FptosiSat, Imm::f64(1e10), Type::I16).unwrap(), i(Type::I16, i64::from(i16::MAX)));
        assert_eq!(convert(FptouiSat, Imm::f64(-5.0), Type::I16).unwrap(), i(Type::I16, 0));
        assert_eq!(convert(FptosiSat, Imm::f32(f32::NAN), Type::I32).unwrap(), i(Type::I32, 0));
        assert_eq!(convert(Uitofp, i(Type::I8, -1), Type::F32).unwrap(), Imm::f32(255.0));
        assert_eq!(convert(Bitcast, Imm::f32(1.0), Type::I32).unwrap(), i(Type::I32, 0x3f80_0000));
        assert_eq!(convert(Bitcast, i(Type::I32, -1), Type::F32).unwrap().bits(), 0xffff_ffff);
        // 2^63 + 1 as u64 to f32 rounds once to 2^63.
        assert_eq!(convert(Uitofp, Imm::int(Type::I64, i64::MIN + 1), Type::F32).unwrap(), Imm::f32(9.223372e18));
    }

    #[test]
    fn tensor_elements() {
        use Opcode::*;
        assert_eq!(tensor_elem(Tabs, i(Type::I8, -128), i(Type::I8, 0), i(Type::I8, 0)).unwrap(), i(Type::I8, -128));
        assert_eq!(tensor_elem(Trelu, Imm::f32(-0.0), Imm::f32(0.0), Imm::f32(0.0)).unwrap().bits(), 0);
        assert_eq!(tensor_elem(Tfma, i(Type::I32, 3), i(Type::I32, 4), i(Type::I32, 5)).unwrap(), i(Type::I32, 17));
        assert_eq!(
            tensor_elem(Tdiv, i(Type::I32, 1), i(Type::I32, 0), i(Type::I32, 0)).unwrap_err().0,
            TrapKind::DivisionByZero
        );
        assert_eq!(lowest(Type::I16), i(Type::I16, -32768));
    }
}
