//! Scalar values ([`Imm`]): a [`ScalarTy`] and its bits, and their text
//! form (parsed by [`Imm::parse`], in `literal.rs`).
//!
//! Invariant: an [`Imm`]'s bits are canonical for its type, so equal values
//! compare equal and hash alike (the vectorizer's constant sharing and the
//! evaluator's bit-exact comparisons rely on it): `i1` holds 0 or 1,
//! `i8`..`i64` hold the value sign-extended to 64 bits, `f32` holds its IEEE
//! bits in the low 32 bits, `f64` its 64 IEEE bits. NaN payloads are kept
//! bit-exact; the text form of a float round-trips exactly (shortest
//! decimal for finite values, `inf`, `nan`, `nan:0x…`). This is Keel IR's
//! encoding, so the `keel` feature converts an [`Imm`] to Keel's and back
//! without touching the bits.

use super::ty::ScalarTy;
use core::fmt;

/// A typed scalar value: a constant in the text format, a scalar at run
/// time.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Imm {
    ty: ScalarTy,
    bits: u64,
}

impl Imm {
    /// A value from raw bits, canonicalised for `ty`.
    pub const fn from_bits(ty: ScalarTy, bits: u64) -> Imm {
        let bits = match ty {
            ScalarTy::I1 => bits & 1,
            ScalarTy::I8 => bits as u8 as i8 as i64 as u64,
            ScalarTy::I16 => bits as u16 as i16 as i64 as u64,
            ScalarTy::I32 => bits as u32 as i32 as i64 as u64,
            ScalarTy::F32 => bits & 0xffff_ffff,
            ScalarTy::I64 | ScalarTy::F64 => bits,
        };
        Imm { ty, bits }
    }

    /// An integer value, truncated to the type's width (a float `ty`
    /// reinterprets the low bits).
    pub const fn int(ty: ScalarTy, value: i64) -> Imm {
        Imm::from_bits(ty, value as u64)
    }

    /// An `f32` value.
    pub const fn f32(value: f32) -> Imm {
        Imm::from_bits(ScalarTy::F32, value.to_bits() as u64)
    }

    /// An `f64` value.
    pub const fn f64(value: f64) -> Imm {
        Imm::from_bits(ScalarTy::F64, value.to_bits())
    }

    /// An `i1` value.
    pub const fn bool(value: bool) -> Imm {
        Imm::from_bits(ScalarTy::I1, value as u64)
    }

    /// The value's type.
    pub const fn ty(self) -> ScalarTy {
        self.ty
    }

    /// The canonical bits (see the module invariant).
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// The value as a signed integer (`i1` gives 0 or 1).
    pub const fn as_i64(self) -> i64 {
        self.bits as i64
    }

    /// The value zero-extended from its width.
    pub const fn as_u64(self) -> u64 {
        match self.ty.bits() {
            64 => self.bits,
            w => self.bits & ((1u64 << w) - 1),
        }
    }

    /// The value as an `f32` (meaningful when the type is `f32`).
    pub const fn as_f32(self) -> f32 {
        f32::from_bits(self.bits as u32)
    }

    /// The value as an `f64` (meaningful when the type is `f64`).
    pub const fn as_f64(self) -> f64 {
        f64::from_bits(self.bits)
    }

    /// The same bits reinterpreted (and re-canonicalised) as `ty`.
    pub const fn with_type(self, ty: ScalarTy) -> Imm {
        Imm::from_bits(ty, self.bits)
    }
}

impl From<bool> for Imm {
    fn from(v: bool) -> Imm {
        Imm::bool(v)
    }
}
impl From<i8> for Imm {
    fn from(v: i8) -> Imm {
        Imm::int(ScalarTy::I8, v.into())
    }
}
impl From<i16> for Imm {
    fn from(v: i16) -> Imm {
        Imm::int(ScalarTy::I16, v.into())
    }
}
impl From<i32> for Imm {
    fn from(v: i32) -> Imm {
        Imm::int(ScalarTy::I32, v.into())
    }
}
impl From<i64> for Imm {
    fn from(v: i64) -> Imm {
        Imm::int(ScalarTy::I64, v)
    }
}
impl From<f32> for Imm {
    fn from(v: f32) -> Imm {
        Imm::f32(v)
    }
}
impl From<f64> for Imm {
    fn from(v: f64) -> Imm {
        Imm::f64(v)
    }
}

/// The value without its type, as the text format writes it.
impl fmt::Display for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            ScalarTy::F32 => fmt_float(f, u64::from(self.bits as u32), 23, 8),
            ScalarTy::F64 => fmt_float(f, self.bits, 52, 11),
            _ => write!(f, "{}", self.as_i64()),
        }
    }
}

impl fmt::Debug for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.ty, self)
    }
}

/// `inf`, `nan`, `nan:0x…` by the bits; finite values as Rust's shortest
/// round-tripping decimal.
fn fmt_float(f: &mut fmt::Formatter<'_>, bits: u64, mant_bits: u32, exp_bits: u32) -> fmt::Result {
    let width = mant_bits + exp_bits + 1;
    let sign = bits >> (width - 1) & 1 == 1;
    let exp = (bits >> mant_bits) & ((1 << exp_bits) - 1);
    let mant = bits & ((1 << mant_bits) - 1);
    let minus = if sign { "-" } else { "" };
    if exp == (1 << exp_bits) - 1 {
        if mant == 0 {
            return write!(f, "{minus}inf");
        }
        if mant == 1u64 << (mant_bits - 1) {
            return write!(f, "{minus}nan");
        }
        return write!(f, "{minus}nan:0x{mant:x}");
    }
    if width == 32 { write!(f, "{:?}", f32::from_bits(bits as u32)) } else { write!(f, "{:?}", f64::from_bits(bits)) }
}
