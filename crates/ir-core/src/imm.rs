//! Typed immediates.
//!
//! Invariant: an [`Imm`]'s bits are canonical for its type, so equal values
//! compare equal and hash alike (the constant pool deduplicates on that):
//! `i1` holds 0 or 1, `i8`..`i64` hold the value sign-extended to 64 bits,
//! `f32` holds its IEEE bits in the low 32 bits, `f64` its 64 IEEE bits.
//! NaN payloads are kept bit-exact; the text form of a float round-trips
//! exactly (shortest decimal for finite values, `inf`, `nan`, `nan:0x…`).

use crate::types::Type;
use core::fmt;

/// A typed immediate value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Imm {
    ty: Type,
    bits: u64,
}

impl Imm {
    /// Builds an immediate from raw bits, canonicalising them for `ty`.
    pub fn from_bits(ty: Type, bits: u64) -> Imm {
        let bits = match ty {
            Type::I1 => bits & 1,
            Type::I8 => bits as u8 as i8 as i64 as u64,
            Type::I16 => bits as u16 as i16 as i64 as u64,
            Type::I32 => bits as u32 as i32 as i64 as u64,
            Type::F32 => bits & 0xffff_ffff,
            Type::I64 | Type::F64 => bits,
        };
        Imm { ty, bits }
    }

    /// An integer immediate; the value is truncated to the type's width.
    /// A float `ty` reinterprets the low bits.
    pub fn int(ty: Type, value: i64) -> Imm {
        Imm::from_bits(ty, value as u64)
    }

    /// An `f32` immediate.
    pub fn f32(value: f32) -> Imm {
        Imm::from_bits(Type::F32, u64::from(value.to_bits()))
    }

    /// An `f64` immediate.
    pub fn f64(value: f64) -> Imm {
        Imm::from_bits(Type::F64, value.to_bits())
    }

    /// An `i1` immediate.
    pub fn bool(value: bool) -> Imm {
        Imm::from_bits(Type::I1, u64::from(value))
    }

    /// The immediate's type.
    pub fn ty(self) -> Type {
        self.ty
    }

    /// The canonical bits (see the module invariant).
    pub fn bits(self) -> u64 {
        self.bits
    }

    /// The value as a signed integer (`i1` gives 0 or 1).
    pub fn as_i64(self) -> i64 {
        self.bits as i64
    }

    /// The value zero-extended from its width.
    pub fn as_u64(self) -> u64 {
        match self.ty.bits() {
            64 => self.bits,
            w => self.bits & ((1u64 << w) - 1),
        }
    }

    /// The value as an `f32` (meaningful when the type is `f32`).
    pub fn as_f32(self) -> f32 {
        f32::from_bits(self.bits as u32)
    }

    /// The value as an `f64` (meaningful when the type is `f64`).
    pub fn as_f64(self) -> f64 {
        f64::from_bits(self.bits)
    }

    /// The same bits reinterpreted (and re-canonicalised) as `ty`.
    pub fn with_type(self, ty: Type) -> Imm {
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
        Imm::int(Type::I8, v.into())
    }
}
impl From<i16> for Imm {
    fn from(v: i16) -> Imm {
        Imm::int(Type::I16, v.into())
    }
}
impl From<i32> for Imm {
    fn from(v: i32) -> Imm {
        Imm::int(Type::I32, v.into())
    }
}
impl From<i64> for Imm {
    fn from(v: i64) -> Imm {
        Imm::int(Type::I64, v)
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

/// Prints the value without its type, exactly as the text format does.
impl fmt::Display for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            Type::F32 => fmt_float(f, u64::from(self.bits as u32), 23, 8),
            Type::F64 => fmt_float(f, self.bits, 52, 11),
            _ => write!(f, "{}", self.as_i64()),
        }
    }
}

impl fmt::Debug for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.ty, self)
    }
}

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
        let quiet = 1u64 << (mant_bits - 1);
        if mant == quiet {
            return write!(f, "{minus}nan");
        }
        return write!(f, "{minus}nan:0x{mant:x}");
    }
    if width == 32 { write!(f, "{:?}", f32::from_bits(bits as u32)) } else { write!(f, "{:?}", f64::from_bits(bits)) }
}

/// Why a literal does not denote a value of the wanted type. Each variant
/// carries the literal's text as written.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LiteralError {
    /// Not an integer literal at all (no digits, or a non-digit).
    NotAnInteger(String),
    /// An integer literal outside both the signed and the unsigned range
    /// of the type (or beyond 64 bits).
    IntegerOutOfRange {
        /// The literal.
        text: String,
        /// The wanted type.
        ty: Type,
    },
    /// Not a float literal.
    NotAFloat(String),
    /// A hexadecimal float literal (an integer value) wider than 64 bits.
    HexTooWide(String),
    /// A `nan:0x…` payload that is zero or wider than the mantissa.
    BadNanPayload {
        /// The literal.
        text: String,
        /// The mantissa's width.
        bits: u32,
    },
    /// A finite decimal too large for the type.
    FloatOutOfRange {
        /// The literal.
        text: String,
        /// The wanted type.
        ty: Type,
    },
}

impl LiteralError {
    /// The literal's text.
    pub fn text(&self) -> &str {
        match self {
            LiteralError::NotAnInteger(t) | LiteralError::NotAFloat(t) | LiteralError::HexTooWide(t) => t,
            LiteralError::IntegerOutOfRange { text, .. }
            | LiteralError::BadNanPayload { text, .. }
            | LiteralError::FloatOutOfRange { text, .. } => text,
        }
    }
}

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiteralError::NotAnInteger(t) => write!(f, "`{t}` is not an integer literal"),
            LiteralError::IntegerOutOfRange { text, ty } => write!(f, "integer literal `{text}` does not fit in {ty}"),
            LiteralError::NotAFloat(t) => write!(f, "`{t}` is not a float literal"),
            LiteralError::HexTooWide(t) => write!(f, "`{t}` does not fit in 64 bits"),
            LiteralError::BadNanPayload { text, bits } => {
                write!(f, "NaN payload in `{text}` must be nonzero and fit in {bits} bits")
            }
            LiteralError::FloatOutOfRange { text, ty } => {
                write!(f, "float literal `{text}` is out of range for {ty}; write `inf` for infinity")
            }
        }
    }
}

impl std::error::Error for LiteralError {}

/// Parses an integer literal (`-12`, `0xff`, `-0x10`) as a value of integer
/// type `ty`. Both the signed and the unsigned range of the width are
/// accepted (`255` and `-1` are the same `i8`); `i1` accepts 0 and 1.
pub fn parse_int(text: &str, ty: Type) -> Result<Imm, LiteralError> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (radix, digits) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(LiteralError::NotAnInteger(text.to_string()));
    }
    let range = || LiteralError::IntegerOutOfRange { text: text.to_string(), ty };
    let magnitude =
        u128::from_str_radix(digits, radix).ok().filter(|m| *m <= u128::from(u64::MAX)).ok_or_else(range)?;
    let value: i128 = if neg { -(magnitude as i128) } else { magnitude as i128 };
    let w = ty.bits();
    let (lo, hi) = if ty == Type::I1 { (0, 1) } else { (-(1i128 << (w - 1)), (1i128 << w) - 1) };
    if value < lo || value > hi {
        return Err(range());
    }
    Ok(Imm::from_bits(ty, value as u64))
}

/// Parses a float literal (`1.5`, `-2e-3`, `7`, `inf`, `-nan`, `nan:0x1`) as a
/// value of float type `ty`, rounding once, directly to `ty`.
pub fn parse_float(text: &str, ty: Type) -> Result<Imm, LiteralError> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mant_bits, width) = if ty == Type::F32 { (23u32, 32u32) } else { (52, 64) };
    let sign_bit = if neg { 1u64 << (width - 1) } else { 0 };
    let exp_all = ((1u64 << (width - 1 - mant_bits)) - 1) << mant_bits;
    let special = if body == "inf" {
        Some(exp_all)
    } else if body == "nan" {
        Some(exp_all | 1 << (mant_bits - 1))
    } else if let Some(hex) = body.strip_prefix("nan:0x") {
        let payload = u64::from_str_radix(hex, 16)
            .ok()
            .filter(|p| *p != 0 && *p < (1 << mant_bits))
            .ok_or_else(|| LiteralError::BadNanPayload { text: text.to_string(), bits: mant_bits })?;
        Some(exp_all | payload)
    } else {
        None
    };
    if let Some(bits) = special {
        return Ok(Imm::from_bits(ty, bits | sign_bit));
    }
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        // An integer literal in hex: its value, rounded once to the type.
        let m = u64::from_str_radix(hex, 16).map_err(|_| {
            if hex.is_empty() {
                LiteralError::NotAFloat(text.to_string())
            } else {
                LiteralError::HexTooWide(text.to_string())
            }
        })?;
        return Ok(match (ty, neg) {
            (Type::F32, false) => Imm::f32(m as f32),
            (Type::F32, true) => Imm::f32(-(m as f32)),
            (_, false) => Imm::f64(m as f64),
            (_, true) => Imm::f64(-(m as f64)),
        });
    }
    let valid = !body.is_empty()
        && body.starts_with(|c: char| c.is_ascii_digit())
        && body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    let bad = || LiteralError::NotAFloat(text.to_string());
    if !valid {
        return Err(bad());
    }
    let (imm, infinite) = if ty == Type::F32 {
        let v = text.parse::<f32>().map_err(|_| bad())?;
        (Imm::f32(v), v.is_infinite())
    } else {
        let v = text.parse::<f64>().map_err(|_| bad())?;
        (Imm::f64(v), v.is_infinite())
    };
    // Underflow rounds to zero as IEEE says; overflow is almost surely a
    // mistake, and `inf` says so when meant.
    if infinite {
        return Err(LiteralError::FloatOutOfRange { text: text.to_string(), ty });
    }
    Ok(imm)
}

/// Parses a literal as a value of `ty`, integer or float.
pub fn parse_literal(text: &str, ty: Type) -> Result<Imm, LiteralError> {
    if ty.is_float() { parse_float(text, ty) } else { parse_int(text, ty) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_are_canonical() {
        assert_eq!(Imm::int(Type::I8, 255), Imm::int(Type::I8, -1));
        assert_eq!(Imm::int(Type::I8, 255).as_u64(), 255);
        assert_eq!(Imm::int(Type::I1, 3).as_i64(), 1);
        assert_eq!(parse_int("0xff", Type::I8).unwrap().to_string(), "-1");
        assert_eq!(
            parse_int("256", Type::I8),
            Err(LiteralError::IntegerOutOfRange { text: "256".into(), ty: Type::I8 })
        );
        assert_eq!(parse_int("1x", Type::I32), Err(LiteralError::NotAnInteger("1x".into())));
        assert_eq!(parse_int("1x", Type::I32).unwrap_err().to_string(), "`1x` is not an integer literal");
        assert!(parse_int("-129", Type::I8).is_err());
        assert!(parse_int("2", Type::I1).is_err());
        assert_eq!(parse_int("18446744073709551615", Type::I64).unwrap().as_i64(), -1);
        assert!(parse_int("18446744073709551616", Type::I64).is_err());
    }

    #[test]
    fn floats_round_trip_exactly() {
        for v in [0.1f64, -0.0, 1e300, 5e-324, f64::MAX, 1.0, f64::INFINITY, f64::NEG_INFINITY] {
            let s = Imm::f64(v).to_string();
            assert_eq!(parse_float(&s, Type::F64).unwrap(), Imm::f64(v), "{s}");
        }
        for v in [0.1f32, 3.4028235e38, 1e-45, -2.5] {
            let s = Imm::f32(v).to_string();
            assert_eq!(parse_float(&s, Type::F32).unwrap(), Imm::f32(v), "{s}");
        }
        for bits in [0x7ff8_0000_0000_0000u64, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0x7ff4_0000_dead_beef] {
            let s = Imm::from_bits(Type::F64, bits).to_string();
            assert_eq!(parse_float(&s, Type::F64).unwrap().bits(), bits, "{s}");
        }
        let s = Imm::from_bits(Type::F32, 0x7fa0_0001).to_string();
        assert_eq!(s, "nan:0x200001");
        assert_eq!(parse_float(&s, Type::F32).unwrap().bits(), 0x7fa0_0001);
    }

    #[test]
    fn f32_literals_round_once() {
        // 16777217 is not representable in f32; it must round to even (16777216).
        assert_eq!(parse_float("16777217", Type::F32).unwrap().as_f32(), 16777216.0);
        assert_eq!(parse_float("1.5.5", Type::F64), Err(LiteralError::NotAFloat("1.5.5".into())));
        assert_eq!(
            parse_float("nan:0x0", Type::F64),
            Err(LiteralError::BadNanPayload { text: "nan:0x0".into(), bits: 52 })
        );
        assert_eq!(parse_float("abc", Type::F64), Err(LiteralError::NotAFloat("abc".into())));
        assert!(matches!(parse_float("1e400", Type::F64), Err(LiteralError::FloatOutOfRange { ty: Type::F64, .. })));
        let e = parse_float("3.5e38", Type::F32).unwrap_err();
        assert_eq!(e.text(), "3.5e38");
        assert_eq!(e.to_string(), "float literal `3.5e38` is out of range for f32; write `inf` for infinity");
        assert_eq!(parse_float("0x", Type::F64), Err(LiteralError::NotAFloat("0x".into())));
        assert_eq!(
            parse_float("0x1ffffffffffffffff", Type::F64),
            Err(LiteralError::HexTooWide("0x1ffffffffffffffff".into()))
        );
        assert_eq!(parse_float("1e-400", Type::F64).unwrap().as_f64(), 0.0);
        assert_eq!(parse_float("0x10", Type::F32).unwrap().as_f32(), 16.0);
        assert_eq!(parse_float("-0x1", Type::F64).unwrap().as_f64(), -1.0);
        // 2^64 - 1 rounds to 2^64 in one step, in f32 as in f64.
        assert_eq!(parse_float("0xffffffffffffffff", Type::F32).unwrap().as_f32(), 18446744073709551616.0);
    }
}
