//! Typed literals: parsing a literal to the canonical bits of a type, and
//! printing bits back as the literal that parses to them.
//!
//! The rules are Keel IR's (`docs/ir.md` §2): integers accept the signed
//! and the unsigned range of their width and print as signed decimal (`i1`
//! takes 0 and 1); floats are rounded once, directly to the target type,
//! finite values too large for it are errors, `inf`, `nan`, `-nan` and
//! `nan:0xPAYLOAD` spell the special values, and finite values print as the
//! shortest decimal that round-trips (Rust's `{:?}`).
//!
//! Invariant: for every type `T` and bit pattern `b` canonical for `T`,
//! `parse(print(T, b), T) == b`, NaN payloads included. A literal that
//! does not parse is a [`LiteralError`] holding its text and type.

use crate::types::Ty;
use core::fmt;

/// Why a literal does not parse: each variant holds the literal's text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LiteralError {
    /// Not an integer token (decimal or `0x` hex).
    NotInteger {
        /// The token.
        text: String,
    },
    /// An integer outside both the signed and the unsigned range of `ty`.
    OutOfRange {
        /// Whether a `-` preceded it.
        negative: bool,
        /// The token.
        text: String,
        /// The type.
        ty: Ty,
    },
    /// `nan:0x` followed by something that is not hexadecimal.
    BadNanPayload {
        /// The text after `nan:0x`.
        hex: String,
    },
    /// A NaN payload that is zero or wider than the fraction.
    NanPayloadRange {
        /// The text after `nan:0x`.
        hex: String,
        /// The type's fraction bits.
        frac_bits: u32,
    },
    /// Not a number.
    NotNumber {
        /// The token.
        text: String,
    },
    /// A finite value too large for the float type.
    FloatTooLarge {
        /// Whether a `-` preceded it.
        negative: bool,
        /// The token.
        text: String,
        /// The type.
        ty: Ty,
    },
}

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minus = |negative: bool| if negative { "-" } else { "" };
        match self {
            LiteralError::NotInteger { text } => write!(f, "`{text}` is not an integer literal"),
            LiteralError::OutOfRange { negative, text, ty } => {
                write!(f, "{}{text} does not fit {ty}", minus(*negative))
            }
            LiteralError::BadNanPayload { hex } => write!(f, "bad NaN payload `{hex}`"),
            LiteralError::NanPayloadRange { hex, frac_bits } => {
                write!(f, "NaN payload 0x{hex} must be nonzero and fit {frac_bits} bits")
            }
            LiteralError::NotNumber { text } => write!(f, "`{text}` is not a number"),
            LiteralError::FloatTooLarge { negative, text, ty } => {
                write!(f, "{}{text} is too large for {ty} (write inf)", minus(*negative))
            }
        }
    }
}

impl std::error::Error for LiteralError {}

/// Parses a literal of type `ty`: `neg` is a leading `-`, `text` the
/// literal token (an integer, a float, `inf`, `nan` or `nan:0x..`).
pub fn parse_literal(neg: bool, text: &str, ty: Ty) -> Result<u64, LiteralError> {
    if ty.is_float() { parse_float(neg, text, ty) } else { parse_int(neg, text, ty) }
}

/// Parses an unsigned integer token (decimal or `0x` hex).
pub fn parse_unsigned(text: &str) -> Option<u128> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u128::from_str_radix(hex, 16).ok(),
        None => text.parse::<u128>().ok(),
    }
}

fn parse_int(neg: bool, text: &str, ty: Ty) -> Result<u64, LiteralError> {
    let Some(mag) = parse_unsigned(text) else {
        return Err(LiteralError::NotInteger { text: text.to_string() });
    };
    let w = ty.bits();
    let out_of_range = || LiteralError::OutOfRange { negative: neg, text: text.to_string(), ty };
    if ty == Ty::I1 {
        return match (neg, mag) {
            (false, 0 | 1) | (true, 0) => Ok(mag as u64),
            _ => Err(out_of_range()),
        };
    }
    let max_unsigned: u128 = (1u128 << w) - 1;
    let max_neg: u128 = 1u128 << (w - 1);
    let bits = if neg {
        if mag > max_neg {
            return Err(out_of_range());
        }
        (mag as u64).wrapping_neg()
    } else {
        if mag > max_unsigned {
            return Err(out_of_range());
        }
        mag as u64
    };
    Ok(ty.canonical(bits))
}

fn parse_float(neg: bool, text: &str, ty: Ty) -> Result<u64, LiteralError> {
    let (width, frac_bits) = if ty == Ty::F32 { (32, 23) } else { (64, 52) };
    let sign: u64 = if neg { 1 << (width - 1) } else { 0 };
    let exp_mask: u64 = ((1u64 << (width - 1 - frac_bits)) - 1) << frac_bits;
    if text == "inf" {
        return Ok(sign | exp_mask);
    }
    if text == "nan" {
        return Ok(sign | exp_mask | (1 << (frac_bits - 1)));
    }
    if let Some(hex) = text.strip_prefix("nan:0x") {
        let payload = u64::from_str_radix(hex, 16).map_err(|_| LiteralError::BadNanPayload { hex: hex.to_string() })?;
        if payload == 0 || payload >> frac_bits != 0 {
            return Err(LiteralError::NanPayloadRange { hex: hex.to_string(), frac_bits });
        }
        return Ok(sign | exp_mask | payload);
    }
    let is_hex = text.starts_with("0x") || text.starts_with("0X");
    let signed = if neg { format!("-{text}") } else { text.to_string() };
    let not_number = || LiteralError::NotNumber { text: text.to_string() };
    // A finite value rounded once to `$t` (hex: the integer, rounded once).
    macro_rules! finite {
        ($t:ty) => {{
            let v: $t = if is_hex {
                let m = parse_unsigned(text).ok_or_else(not_number)?;
                let v = m as $t;
                if neg { -v } else { v }
            } else {
                signed.parse::<$t>().map_err(|_| not_number())?
            };
            if v.is_infinite() {
                return Err(LiteralError::FloatTooLarge { negative: neg, text: text.to_string(), ty });
            }
            v
        }};
    }
    let bits = if ty == Ty::F32 { u64::from(finite!(f32).to_bits()) } else { finite!(f64).to_bits() };
    Ok(bits)
}

/// Writes `bits` as a literal of type `ty` (see the module doc).
pub fn format_literal(bits: u64, ty: Ty) -> String {
    match ty {
        Ty::F32 => {
            let v = f32::from_bits(bits as u32);
            if v.is_nan() {
                nan_text(bits & 0xffff_ffff, 32, 23)
            } else {
                special_or_debug(v.is_infinite(), v < 0.0, format!("{v:?}"))
            }
        }
        Ty::F64 => {
            let v = f64::from_bits(bits);
            if v.is_nan() {
                nan_text(bits, 64, 52)
            } else {
                special_or_debug(v.is_infinite(), v < 0.0, format!("{v:?}"))
            }
        }
        Ty::I1 => (ty.canonical(bits)).to_string(),
        _ => (ty.canonical(bits) as i64).to_string(),
    }
}

fn special_or_debug(inf: bool, negative: bool, debug: String) -> String {
    match (inf, negative) {
        (true, true) => "-inf".into(),
        (true, false) => "inf".into(),
        _ => debug,
    }
}

fn nan_text(bits: u64, width: u32, frac_bits: u32) -> String {
    let sign = if bits >> (width - 1) & 1 == 1 { "-" } else { "" };
    let payload = bits & ((1u64 << frac_bits) - 1);
    if payload == 1 << (frac_bits - 1) { format!("{sign}nan") } else { format!("{sign}nan:0x{payload:x}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_literal(false, "255", Ty::I8), Ok(u64::MAX));
        assert_eq!(parse_literal(true, "128", Ty::I8), Ok(Ty::I8.canonical(0x80)));
        assert!(parse_literal(false, "256", Ty::I8).is_err());
        assert!(parse_literal(true, "129", Ty::I8).is_err());
        assert_eq!(
            parse_literal(false, "2", Ty::I1),
            Err(LiteralError::OutOfRange { negative: false, text: "2".into(), ty: Ty::I1 })
        );
        assert_eq!(parse_literal(true, "129", Ty::I8).unwrap_err().to_string(), "-129 does not fit i8");
        assert_eq!(parse_literal(false, "x1", Ty::I8).unwrap_err().to_string(), "`x1` is not an integer literal");
        assert_eq!(parse_literal(false, "0xffffffffffffffff", Ty::I64), Ok(u64::MAX));
        assert_eq!(format_literal(u64::MAX, Ty::I8), "-1");
        assert_eq!(format_literal(1, Ty::I1), "1");
    }

    #[test]
    fn floats() {
        assert_eq!(parse_literal(false, "16777217", Ty::F32), Ok(u64::from(16777216f32.to_bits())));
        assert_eq!(parse_literal(false, "1e-400", Ty::F64), Ok(0));
        assert!(parse_literal(false, "1e400", Ty::F64).is_err());
        assert_eq!(parse_literal(true, "0.0", Ty::F32), Ok(0x8000_0000));
        assert_eq!(parse_literal(false, "nan:0x1", Ty::F32), Ok(0x7f80_0001));
        assert_eq!(
            parse_literal(false, "nan:0x800000", Ty::F32),
            Err(LiteralError::NanPayloadRange { hex: "800000".into(), frac_bits: 23 })
        );
        assert_eq!(parse_literal(false, "nan:0xzz", Ty::F32).unwrap_err().to_string(), "bad NaN payload `zz`");
        assert_eq!(
            parse_literal(true, "1e400", Ty::F64).unwrap_err().to_string(),
            "-1e400 is too large for f64 (write inf)"
        );
        assert_eq!(parse_literal(false, "1.2.3", Ty::F32).unwrap_err().to_string(), "`1.2.3` is not a number");
        assert_eq!(format_literal(0x7fc0_0000, Ty::F32), "nan");
        assert_eq!(format_literal(0xffc0_0000, Ty::F32), "-nan");
        assert_eq!(format_literal(0x7f80_0001, Ty::F32), "nan:0x1");
        assert_eq!(format_literal(f64::NEG_INFINITY.to_bits(), Ty::F64), "-inf");
        assert_eq!(format_literal(1e16f64.to_bits(), Ty::F64), "1e16");
    }

    #[test]
    fn every_printed_literal_parses_back() {
        let samples: [u64; 12] = [
            0,
            1,
            0x8000_0000,
            0x7fc0_0000,
            0xffa0_0001,
            0x7f7f_ffff,
            0x0000_0001,
            u64::MAX,
            0x7ff8_0000_0000_0001,
            0x3ff0_0000_0000_0000,
            0x0010_0000_0000_0000,
            0xfff0_0000_0000_0000,
        ];
        for ty in Ty::ALL {
            for &raw in &samples {
                let b = ty.canonical(raw);
                let text = format_literal(b, ty);
                let (neg, body) = match text.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, text.as_str()),
                };
                assert_eq!(parse_literal(neg, body, ty), Ok(b), "{ty} {text}");
            }
        }
    }
}
