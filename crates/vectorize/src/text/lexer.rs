//! Tokens of the graph IR's text format.
//!
//! Invariants: the lexer never panics and never recurses; every token
//! carries its byte span; newlines are tokens (the format is
//! line-oriented, like Keel's); `;` starts a comment to the end of the
//! line; anything it does not know is an [`Tok::Error`] token covering one
//! character, which the parser reports.

use diagnostics::Span;

/// A token.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Tok<'s> {
    /// A word: `[A-Za-z_][A-Za-z0-9_.]*` (opcodes, keywords, types).
    Word(&'s str),
    /// `%name`.
    Var(&'s str),
    /// `@name` (a function).
    Global(&'s str),
    /// `@%name`: a mask prefix.
    Mask(&'s str),
    /// A literal: starts with a digit or `-`.
    Lit(&'s str),
    /// One of `( ) [ ] { } , : = < > *`.
    Punct(char),
    /// `->`.
    Arrow,
    /// A line break.
    Newline,
    /// A character that starts no token.
    Error(char),
}

fn name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

fn lit_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'+' | b'-')
}

/// Splits `src` into tokens with their spans (no end token).
pub(crate) fn lex(src: &str) -> Vec<(Tok<'_>, Span)> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let run = |mut j: usize, ok: fn(u8) -> bool| {
        while j < bytes.len() && ok(bytes[j]) {
            j += 1;
        }
        j
    };
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let tok = match b {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\n' => {
                i += 1;
                Tok::Newline
            }
            b'%' => {
                i = run(i + 1, name_char);
                Tok::Var(&src[start + 1..i])
            }
            b'@' if bytes.get(i + 1) == Some(&b'%') => {
                i = run(i + 2, name_char);
                Tok::Mask(&src[start + 2..i])
            }
            b'@' => {
                i = run(i + 1, name_char);
                Tok::Global(&src[start + 1..i])
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                i += 2;
                Tok::Arrow
            }
            b'-' | b'0'..=b'9' => {
                i = run(i + 1, lit_char);
                Tok::Lit(&src[start..i])
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                i = run(i + 1, name_char);
                // `nan:0xPAYLOAD` is one literal.
                if &src[start..i] == "nan" && bytes.get(i) == Some(&b':') {
                    i = run(i + 1, lit_char);
                    Tok::Lit(&src[start..i])
                } else {
                    Tok::Word(&src[start..i])
                }
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':' | b'=' | b'<' | b'>' | b'*' => {
                i += 1;
                Tok::Punct(b as char)
            }
            _ => {
                let c = src[i..].chars().next().unwrap_or('\u{fffd}');
                i += c.len_utf8().max(1);
                Tok::Error(c)
            }
        };
        out.push((tok, Span::new(start, i)));
    }
    out
}
