//! Tokens of the assembly text.
//!
//! Invariants: the lexer never panics and never recurses; each token
//! carries its byte span; newlines are tokens (the format is
//! line-oriented); `;` starts a comment to the end of the line; spaces,
//! tabs and `\r` separate tokens. An error stops the line: the parser
//! reports it and goes on with the next line.

use super::diagnostic::{Diagnostic, Span};
use crate::types::{Reg, Sreg};

/// A token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Tok<'a> {
    /// A word: mnemonics, types, spaces, label names, `at`, `inf`, `nan`,
    /// and the `.mem` directive.
    Word(&'a str),
    /// `%rN`.
    Reg(Reg),
    /// `%coreid` and the other special registers.
    Sreg(Sreg),
    /// `@name` (the name only).
    Global(&'a str),
    /// An unsigned integer literal as written (decimal or `0x` hex).
    Int(&'a str),
    /// A float literal as written (`1.5`, `2e-3`, `nan:0x1`).
    Float(&'a str),
    /// `[`.
    LBracket,
    /// `]`.
    RBracket,
    /// `,`.
    Comma,
    /// `:`.
    Colon,
    /// `+`.
    Plus,
    /// `-`.
    Minus,
    /// `=`.
    Equals,
    /// End of a line.
    Newline,
}

impl Tok<'_> {
    /// How a diagnostic names the token.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Reg(r) => format!("`{r}`"),
            Tok::Sreg(s) => format!("`{s}`"),
            Tok::Global(g) => format!("`@{g}`"),
            Tok::Int(t) | Tok::Float(t) => format!("`{t}`"),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Equals => "`=`".into(),
            Tok::Newline => "the end of the line".into(),
        }
    }
}

fn word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'.'
}

fn word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

/// Splits `src` into lines of tokens. A line with a lexical error yields
/// the error instead (its tokens are dropped).
pub(crate) fn lex(src: &str) -> Vec<Result<Vec<(Tok<'_>, Span)>, Diagnostic>> {
    let bytes = src.as_bytes();
    let mut lines = Vec::new();
    let mut line: Result<Vec<(Tok<'_>, Span)>, Diagnostic> = Ok(Vec::new());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            let mut done = std::mem::replace(&mut line, Ok(Vec::new()));
            if let Ok(toks) = &mut done {
                toks.push((Tok::Newline, Span::new(i, i + 1)));
            }
            lines.push(done);
            i += 1;
            continue;
        }
        if line.is_err() || b == b';' {
            // Skip to the end of the line (an error already reported, or a comment).
            i = bytes[i..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |p| i + p);
            continue;
        }
        if b == b' ' || b == b'\t' || b == b'\r' {
            i += 1;
            continue;
        }
        match next_token(src, i) {
            Ok((tok, end)) => {
                if let Ok(toks) = &mut line {
                    toks.push((tok, Span::new(i, end)));
                }
                i = end;
            }
            Err(d) => line = Err(d),
        }
    }
    if let Ok(toks) = &mut line {
        toks.push((Tok::Newline, Span::new(bytes.len(), bytes.len())));
    }
    lines.push(line);
    lines
}

fn next_token(src: &str, i: usize) -> Result<(Tok<'_>, usize), Diagnostic> {
    let bytes = src.as_bytes();
    let b = bytes[i];
    let run = |from: usize, pred: fn(u8) -> bool| {
        bytes[from..].iter().position(|&c| !pred(c)).map_or(bytes.len(), |p| from + p)
    };
    let single = |t| Ok((t, i + 1));
    match b {
        b'[' => single(Tok::LBracket),
        b']' => single(Tok::RBracket),
        b',' => single(Tok::Comma),
        b':' => single(Tok::Colon),
        b'+' => single(Tok::Plus),
        b'-' => single(Tok::Minus),
        b'=' => single(Tok::Equals),
        b'%' => {
            let end = run(i + 1, word_char);
            let name = &src[i + 1..end];
            if name.is_empty() {
                return Err(Diagnostic::new("expected a register name after `%`", Span::new(i, i + 1)));
            }
            if let Some(digits) = name.strip_prefix('r')
                && !digits.is_empty()
                && digits.bytes().all(|c| c.is_ascii_digit())
            {
                if digits.len() > 1 && digits.starts_with('0') {
                    return Err(Diagnostic::new(format!("register `%{name}` has a leading zero"), Span::new(i, end)));
                }
                return match digits.parse::<u16>() {
                    Ok(n) => Ok((Tok::Reg(Reg(n)), end)),
                    Err(_) => {
                        Err(Diagnostic::new(format!("register number in `%{name}` is too large"), Span::new(i, end)))
                    }
                };
            }
            match Sreg::from_name(name) {
                Some(s) => Ok((Tok::Sreg(s), end)),
                None => Err(Diagnostic::new(
                    format!("unknown register `%{name}` (expected %rN or a special register)"),
                    Span::new(i, end),
                )),
            }
        }
        b'@' => {
            let end = run(i + 1, word_char);
            if end == i + 1 {
                return Err(Diagnostic::new("expected a name after `@`", Span::new(i, i + 1)));
            }
            Ok((Tok::Global(&src[i + 1..end]), end))
        }
        b'0'..=b'9' => number(src, i),
        _ if word_start(b) => {
            let end = run(i, word_char);
            let word = &src[i..end];
            if word == "nan" && src[end..].starts_with(":0x") {
                let hex_end = run(end + 3, |c| c.is_ascii_hexdigit());
                if hex_end == end + 3 {
                    return Err(Diagnostic::new("expected hex digits after `nan:0x`", Span::new(i, hex_end)));
                }
                if hex_end < bytes.len() && word_char(bytes[hex_end]) {
                    return Err(Diagnostic::new("malformed NaN literal", Span::new(i, run(hex_end, word_char))));
                }
                return Ok((Tok::Float(&src[i..hex_end]), hex_end));
            }
            Ok((Tok::Word(word), end))
        }
        _ => {
            let c = src[i..].chars().next().unwrap_or('?');
            Err(Diagnostic::new(format!("unexpected character `{}`", c.escape_debug()), Span::new(i, i + c.len_utf8())))
        }
    }
}

fn number(src: &str, i: usize) -> Result<(Tok<'_>, usize), Diagnostic> {
    let bytes = src.as_bytes();
    let digits = |from: usize, hex: bool| {
        bytes[from..]
            .iter()
            .position(|&c| !(if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() }))
            .map_or(bytes.len(), |p| from + p)
    };
    let mut end;
    let mut float = false;
    if bytes[i] == b'0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
        end = digits(i + 2, true);
        if end == i + 2 {
            return Err(Diagnostic::new("expected hex digits after `0x`", Span::new(i, end)));
        }
    } else {
        end = digits(i, false);
        if bytes.get(end) == Some(&b'.') {
            let frac = digits(end + 1, false);
            if frac == end + 1 {
                return Err(Diagnostic::new("expected a digit after `.`", Span::new(i, end + 1)));
            }
            end = frac;
            float = true;
        }
        if matches!(bytes.get(end), Some(b'e' | b'E')) {
            let mut e = end + 1;
            if matches!(bytes.get(e), Some(b'+' | b'-')) {
                e += 1;
            }
            let exp = digits(e, false);
            if exp == e {
                return Err(Diagnostic::new("expected exponent digits", Span::new(i, e)));
            }
            end = exp;
            float = true;
        }
    }
    if end < bytes.len() && word_char(bytes[end]) {
        let stop = bytes[end..].iter().position(|&c| !word_char(c)).map_or(bytes.len(), |p| end + p);
        return Err(Diagnostic::new(format!("malformed number `{}`", &src[i..stop]), Span::new(i, stop)));
    }
    let text = &src[i..end];
    Ok((if float { Tok::Float(text) } else { Tok::Int(text) }, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        lex(src).into_iter().flat_map(|l| l.unwrap()).map(|(t, _)| t).collect()
    }

    #[test]
    fn tokens() {
        assert_eq!(
            toks("vadd.f32 nram[@a + %r3 - 0x10], 1.5e-3 ; c\n"),
            vec![
                Tok::Word("vadd.f32"),
                Tok::Word("nram"),
                Tok::LBracket,
                Tok::Global("a"),
                Tok::Plus,
                Tok::Reg(Reg(3)),
                Tok::Minus,
                Tok::Int("0x10"),
                Tok::RBracket,
                Tok::Comma,
                Tok::Float("1.5e-3"),
                Tok::Newline,
                Tok::Newline,
            ]
        );
        assert_eq!(toks("nan:0x7f %coreid"), vec![Tok::Float("nan:0x7f"), Tok::Sreg(Sreg::CoreId), Tok::Newline]);
    }

    #[test]
    fn errors_stop_the_line_only() {
        let lines = lex("mov %r01, 1\nnop\n12ab\n%bogus\n$\n1.\n");
        assert!(lines[0].as_ref().unwrap_err().message.contains("leading zero"));
        assert!(lines[1].is_ok());
        assert!(lines[2].as_ref().unwrap_err().message.contains("malformed number `12ab`"));
        assert!(lines[3].as_ref().unwrap_err().message.contains("unknown register `%bogus`"));
        assert!(lines[4].as_ref().unwrap_err().message.contains("unexpected character `$`"));
        assert!(lines[5].as_ref().unwrap_err().message.contains("digit after `.`"));
    }
}
