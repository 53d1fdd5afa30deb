//! Literals: the text of an [`Imm`] of a given type ([`Imm::parse`]), the
//! inverse of its `Display`.
//!
//! Integers are decimal or hexadecimal (`-12`, `0xff`, `-0x10`); both the
//! signed and the unsigned range of the width are accepted (`255` and `-1`
//! are the same `i8`), and `i1` takes 0 and 1. Floats are decimal (`1.5`,
//! `-2e-3`, `7`), hexadecimal integers (`0x10`, rounded once), or `inf`,
//! `nan` and `nan:0xPAYLOAD` with either sign; a decimal is rounded once,
//! directly to the type (never through `f64` for an `f32`). Underflow
//! rounds to zero as IEEE 754 says; overflow is an error (write `inf`).
//!
//! Invariants: `Imm::parse(&x.to_string(), x.ty()) == Ok(x)` for every
//! value `x`, NaN payloads included; never panics, whatever the text.

use super::imm::Imm;
use super::ty::ScalarTy;
use core::fmt;

/// Why a literal does not denote a value of the wanted type; each names
/// the literal's text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LiteralError {
    /// Not an integer literal at all.
    NotAnInteger(String),
    /// An integer literal out of the type's range (signed or unsigned).
    IntegerOutOfRange {
        /// The literal.
        text: String,
        /// The wanted type.
        ty: ScalarTy,
    },
    /// Not a float literal at all.
    NotAFloat(String),
    /// A hexadecimal float literal wider than 64 bits.
    HexTooWide(String),
    /// A NaN payload that is zero or does not fit the mantissa.
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
        ty: ScalarTy,
    },
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

impl Imm {
    /// Parses a literal as a value of `ty`, integer or float (see the
    /// module doc for the syntax).
    pub fn parse(text: &str, ty: ScalarTy) -> Result<Imm, LiteralError> {
        if ty.is_float() { parse_float(text, ty) } else { parse_int(text, ty) }
    }
}

fn parse_int(text: &str, ty: ScalarTy) -> Result<Imm, LiteralError> {
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
    let (lo, hi) = if ty == ScalarTy::I1 { (0, 1) } else { (-(1i128 << (w - 1)), (1i128 << w) - 1) };
    if value < lo || value > hi {
        return Err(range());
    }
    Ok(Imm::from_bits(ty, value as u64))
}

fn parse_float(text: &str, ty: ScalarTy) -> Result<Imm, LiteralError> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mant_bits, width) = if ty == ScalarTy::F32 { (23u32, 32u32) } else { (52, 64) };
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
    let bad = || LiteralError::NotAFloat(text.to_string());
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        // An integer literal in hex: its value, rounded once to the type.
        let m = u64::from_str_radix(hex, 16)
            .map_err(|_| if hex.is_empty() { bad() } else { LiteralError::HexTooWide(text.to_string()) })?;
        return Ok(match (ty, neg) {
            (ScalarTy::F32, false) => Imm::f32(m as f32),
            (ScalarTy::F32, true) => Imm::f32(-(m as f32)),
            (_, false) => Imm::f64(m as f64),
            (_, true) => Imm::f64(-(m as f64)),
        });
    }
    let valid = !body.is_empty()
        && body.starts_with(|c: char| c.is_ascii_digit())
        && body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !valid {
        return Err(bad());
    }
    let (imm, infinite) = if ty == ScalarTy::F32 {
        let v = text.parse::<f32>().map_err(|_| bad())?;
        (Imm::f32(v), v.is_infinite())
    } else {
        let v = text.parse::<f64>().map_err(|_| bad())?;
        (Imm::f64(v), v.is_infinite())
    };
    if infinite {
        return Err(LiteralError::FloatOutOfRange { text: text.to_string(), ty });
    }
    Ok(imm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_are_canonical_and_ranges_checked() {
        let i8t = ScalarTy::I8;
        assert_eq!(Imm::int(i8t, 255), Imm::int(i8t, -1));
        assert_eq!(Imm::int(i8t, 255).as_u64(), 255);
        assert_eq!(Imm::int(ScalarTy::I1, 3).as_i64(), 1);
        assert_eq!(Imm::parse("0xff", i8t).unwrap().to_string(), "-1");
        assert!(matches!(Imm::parse("256", i8t), Err(LiteralError::IntegerOutOfRange { .. })));
        assert!(Imm::parse("-129", i8t).is_err());
        assert!(Imm::parse("2", ScalarTy::I1).is_err());
        assert_eq!(Imm::parse("18446744073709551615", ScalarTy::I64).unwrap().as_i64(), -1);
        assert!(Imm::parse("18446744073709551616", ScalarTy::I64).is_err());
        assert_eq!(Imm::parse("1x", ScalarTy::I32), Err(LiteralError::NotAnInteger("1x".into())));
        assert_eq!(Imm::parse("1x", ScalarTy::I32).unwrap_err().to_string(), "`1x` is not an integer literal");
    }

    #[test]
    fn floats_round_trip_exactly() {
        for v in [0.1f64, -0.0, 1e300, 5e-324, f64::MAX, 1.0, f64::INFINITY, f64::NEG_INFINITY] {
            let s = Imm::f64(v).to_string();
            assert_eq!(Imm::parse(&s, ScalarTy::F64).unwrap(), Imm::f64(v), "{s}");
        }
        for v in [0.1f32, 3.4028235e38, 1e-45, -2.5] {
            let s = Imm::f32(v).to_string();
            assert_eq!(Imm::parse(&s, ScalarTy::F32).unwrap(), Imm::f32(v), "{s}");
        }
        for bits in [0x7ff8_0000_0000_0000u64, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0x7ff4_0000_dead_beef] {
            let s = Imm::from_bits(ScalarTy::F64, bits).to_string();
            assert_eq!(Imm::parse(&s, ScalarTy::F64).unwrap().bits(), bits, "{s}");
        }
        let s = Imm::from_bits(ScalarTy::F32, 0x7fa0_0001).to_string();
        assert_eq!(s, "nan:0x200001");
        assert_eq!(Imm::parse(&s, ScalarTy::F32).unwrap().bits(), 0x7fa0_0001);
    }

    #[test]
    fn float_literals_round_once_and_refuse_overflow() {
        let (f32t, f64t) = (ScalarTy::F32, ScalarTy::F64);
        // 16777217 is not representable in f32: it rounds to even (16777216).
        assert_eq!(Imm::parse("16777217", f32t).unwrap().as_f32(), 16777216.0);
        assert_eq!(Imm::parse("1.5.5", f64t), Err(LiteralError::NotAFloat("1.5.5".into())));
        assert!(matches!(Imm::parse("nan:0x0", f64t), Err(LiteralError::BadNanPayload { bits: 52, .. })));
        assert!(Imm::parse("abc", f64t).is_err());
        assert!(matches!(Imm::parse("1e400", f64t), Err(LiteralError::FloatOutOfRange { .. })));
        assert!(Imm::parse("3.5e38", f32t).is_err());
        assert_eq!(Imm::parse("1e-400", f64t).unwrap().as_f64(), 0.0);
        assert_eq!(Imm::parse("0x10", f32t).unwrap().as_f32(), 16.0);
        assert_eq!(Imm::parse("-0x1", f64t).unwrap().as_f64(), -1.0);
        assert!(matches!(Imm::parse("0x1ffffffffffffffff", f64t), Err(LiteralError::HexTooWide(_))));
        // 2^64 - 1 rounds to 2^64 in one step, in f32 as in f64.
        assert_eq!(Imm::parse("0xffffffffffffffff", f32t).unwrap().as_f32(), 18446744073709551616.0);
    }
}
