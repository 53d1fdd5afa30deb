//! Tokens of the text format.
//!
//! Invariants: the lexer works on bytes (all syntax is ASCII; quoted names
//! and comments may hold any UTF-8), never allocates except to unescape a
//! quoted name, and never fails to advance, so a malformed input always ends
//! in a finite stream of tokens and errors. Newlines are tokens: the format
//! is line-oriented.

use diagnostics::Span;
use std::borrow::Cow;

/// A token.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Tok<'a> {
    /// A bare word: keyword, opcode, type, block label (`bb3`).
    Ident(&'a str),
    /// `%name` or `%"quoted name"` (the name, unescaped).
    Var(Cow<'a, str>),
    /// `@name` or `@"quoted name"`.
    Global(Cow<'a, str>),
    /// `@` starting a guard (`@%p`, `@!%p`).
    GuardAt,
    /// `!`.
    Bang,
    /// An integer literal, sign included.
    Int(&'a str),
    /// A float literal (`1.5`, `1e3`, `-inf`, `nan:0x1`), sign included.
    Float(&'a str),
    /// A string literal (unescaped).
    Str(Cow<'a, str>),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Equals,
    Arrow,
    Newline,
    Eof,
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Var(s) => format!("`%{s}`"),
            Tok::Global(s) => format!("`@{s}`"),
            Tok::GuardAt => "`@`".into(),
            Tok::Bang => "`!`".into(),
            Tok::Int(s) | Tok::Float(s) => format!("`{s}`"),
            Tok::Str(_) => "a string".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Equals => "`=`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A lexical error.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct LexError {
    pub(crate) message: String,
    pub(crate) span: Span,
}

/// A token stream over a source text, starting at any byte offset.
#[derive(Clone, Debug)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

/// A name as written after its sigil (`x`, or `"a\nb"` with escapes), as
/// the name itself; `None` when it is not one whole name.
pub(crate) fn read_name(text: &str) -> Option<String> {
    let mut lx = Lexer::new(text, 0);
    let name = lx.name(0, "").ok()?;
    (lx.pos == text.len()).then(|| name.into_owned())
}

/// The spans of every comment of `src` (from `;` to the end of its line,
/// the line break excluded), in order. Lexical errors skip their line, as
/// the parser's recovery does.
pub(crate) fn comment_spans(src: &str) -> Vec<Span> {
    let mut lx = Lexer::new(src, 0);
    let mut out = Vec::new();
    loop {
        loop {
            match lx.bytes.get(lx.pos) {
                Some(b' ' | b'\t' | b'\r') => lx.pos += 1,
                Some(b';') => {
                    let start = lx.pos;
                    lx.skip_line();
                    out.push(Span::new(start, lx.pos));
                }
                _ => break,
            }
        }
        match lx.next_token() {
            Ok((Tok::Eof, _)) => break,
            Ok(_) => {}
            Err(_) => lx.skip_line(),
        }
    }
    out
}

pub(crate) fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str, pos: usize) -> Lexer<'a> {
        Lexer { src, bytes: src.as_bytes(), pos }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    fn span(&self, start: usize) -> Span {
        Span::new(start, self.pos)
    }

    fn err(&self, start: usize, message: impl Into<String>) -> LexError {
        LexError {
            message: message.into(),
            span: Span::new(start, self.pos.max(start + 1).min(self.bytes.len().max(start))),
        }
    }

    /// Skips the rest of the current line (not its newline).
    pub(crate) fn skip_line(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    /// The next token and its span.
    pub(crate) fn next_token(&mut self) -> Result<(Tok<'a>, Span), LexError> {
        // Skip blanks and comments, but not newlines.
        loop {
            match self.bytes.get(self.pos) {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b';') => self.skip_line(),
                _ => break,
            }
        }
        let start = self.pos;
        let Some(&c) = self.bytes.get(self.pos) else {
            return Ok((Tok::Eof, self.span(start)));
        };
        self.pos += 1;
        let tok = match c {
            b'\n' => Tok::Newline,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b',' => Tok::Comma,
            b':' => Tok::Colon,
            b'=' => Tok::Equals,
            b'!' => Tok::Bang,
            b'"' => Tok::Str(self.quoted(start)?),
            b'%' => Tok::Var(self.name(start, "var")?),
            b'@' => match self.bytes.get(self.pos) {
                Some(b'%' | b'!') => Tok::GuardAt,
                _ => Tok::Global(self.name(start, "global")?),
            },
            b'-' if self.bytes.get(self.pos) == Some(&b'>') => {
                self.pos += 1;
                Tok::Arrow
            }
            b'-' | b'0'..=b'9' => self.number(start)?,
            c if is_ident_start(c) => {
                while self.bytes.get(self.pos).is_some_and(|&c| is_name_byte(c)) {
                    self.pos += 1;
                }
                let word = &self.src[start..self.pos];
                match word {
                    "inf" => Tok::Float(word),
                    "nan" => Tok::Float(self.nan_payload(start)),
                    _ => Tok::Ident(word),
                }
            }
            _ => {
                // Step over the whole character so spans stay on char boundaries.
                let ch = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                self.pos = start + ch.len_utf8();
                return Err(self.err(start, format!("unexpected character {ch:?}")));
            }
        };
        Ok((tok, self.span(start)))
    }

    fn nan_payload(&mut self, start: usize) -> &'a str {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(b":0x") && rest.get(3).is_some_and(u8::is_ascii_hexdigit) {
            self.pos += 3;
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_hexdigit) {
                self.pos += 1;
            }
        }
        &self.src[start..self.pos]
    }

    fn number(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        if self.bytes[start] == b'-' {
            let rest = &self.bytes[self.pos..];
            let word_end = |n: usize| !rest.get(n).is_some_and(|&c| is_name_byte(c));
            if rest.starts_with(b"inf") && word_end(3) {
                self.pos += 3;
                return Ok(Tok::Float(&self.src[start..self.pos]));
            }
            if rest.starts_with(b"nan") && (word_end(3) || rest.get(3) == Some(&b':')) {
                self.pos += 3;
                return Ok(Tok::Float(self.nan_payload(start)));
            }
            if !rest.first().is_some_and(u8::is_ascii_digit) {
                return Err(self.err(start, "expected a number after `-`"));
            }
        }
        let digits_from = self.pos - usize::from(self.bytes[start] != b'-');
        self.pos = digits_from;
        let mut float = false;
        if self.bytes[self.pos..].starts_with(b"0x") || self.bytes[self.pos..].starts_with(b"0X") {
            self.pos += 2;
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_hexdigit) {
                self.pos += 1;
            }
        } else {
            self.eat_digits();
            if self.bytes.get(self.pos) == Some(&b'.') && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) {
                float = true;
                self.pos += 1;
                self.eat_digits();
            }
            if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
                let mut p = self.pos + 1;
                if matches!(self.bytes.get(p), Some(b'+' | b'-')) {
                    p += 1;
                }
                if self.bytes.get(p).is_some_and(u8::is_ascii_digit) {
                    float = true;
                    self.pos = p;
                    self.eat_digits();
                }
            }
        }
        if self.bytes.get(self.pos).is_some_and(|&c| is_name_byte(c)) {
            while self.bytes.get(self.pos).is_some_and(|&c| is_name_byte(c)) {
                self.pos += 1;
            }
            return Err(self.err(start, format!("invalid number `{}`", &self.src[start..self.pos])));
        }
        let text = &self.src[start..self.pos];
        Ok(if float { Tok::Float(text) } else { Tok::Int(text) })
    }

    fn eat_digits(&mut self) {
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
    }

    fn name(&mut self, start: usize, what: &str) -> Result<Cow<'a, str>, LexError> {
        if self.bytes.get(self.pos) == Some(&b'"') {
            self.pos += 1;
            let name = self.quoted(start)?;
            if name.is_empty() {
                return Err(self.err(start, format!("empty {what} name")));
            }
            return Ok(name);
        }
        let from = self.pos;
        while self.bytes.get(self.pos).is_some_and(|&c| is_name_byte(c)) {
            self.pos += 1;
        }
        if from == self.pos {
            return Err(self.err(start, format!("expected a {what} name after `{}`", &self.src[start..from])));
        }
        Ok(Cow::Borrowed(&self.src[from..self.pos]))
    }

    /// A string body after its opening quote; escapes `\"`, `\\`, `\n`,
    /// `\t` and `\u{HEX}`. A bad escape is reported after scanning on to the
    /// closing quote, so what follows the string still lexes normally.
    fn quoted(&mut self, start: usize) -> Result<Cow<'a, str>, LexError> {
        let from = self.pos;
        let mut owned: Option<String> = None;
        let mut bad_escape: Option<LexError> = None;
        loop {
            let Some(&c) = self.bytes.get(self.pos) else {
                return Err(self.err(start, "unterminated string"));
            };
            match c {
                b'"' => {
                    let text = &self.src[from..self.pos];
                    self.pos += 1;
                    if let Some(e) = bad_escape {
                        return Err(e);
                    }
                    return Ok(match owned {
                        Some(s) => Cow::Owned(s),
                        None => Cow::Borrowed(text),
                    });
                }
                b'\n' => return Err(self.err(start, "unterminated string")),
                b'\\' => {
                    let s = owned.get_or_insert_with(|| self.src[from..self.pos].to_owned());
                    let esc_start = self.pos;
                    self.pos += 1;
                    let ch = match self.bytes.get(self.pos) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'n') => '\n',
                        Some(b't') => '\t',
                        Some(b'u') if self.bytes.get(self.pos + 1) == Some(&b'{') => {
                            let hex_from = self.pos + 2;
                            let close = self.bytes[hex_from..].iter().take(7).position(|&b| b == b'}');
                            let ch = close
                                .and_then(|n| u32::from_str_radix(&self.src[hex_from..hex_from + n], 16).ok())
                                .and_then(char::from_u32);
                            match (ch, close) {
                                (Some(ch), Some(n)) => {
                                    self.pos = hex_from + n;
                                    ch
                                }
                                _ => {
                                    self.pos = esc_start + 2;
                                    let e = self.err(esc_start, "invalid `\\u{...}` escape");
                                    bad_escape.get_or_insert(e);
                                    continue;
                                }
                            }
                        }
                        _ => {
                            // Step over the escaped character whole, whatever its width.
                            let next =
                                self.src[self.pos.min(self.src.len())..].chars().next().map_or(0, char::len_utf8);
                            self.pos = (self.pos + next).min(self.bytes.len());
                            let e = self.err(esc_start, "invalid escape; use \\\", \\\\, \\n, \\t or \\u{HEX}");
                            bad_escape.get_or_insert(e);
                            continue;
                        }
                    };
                    s.push(ch);
                    self.pos += 1;
                }
                _ => {
                    let ch_len = self.src[self.pos..].chars().next().map_or(1, char::len_utf8);
                    if let Some(s) = owned.as_mut() {
                        s.push_str(&self.src[self.pos..self.pos + ch_len]);
                    }
                    self.pos += ch_len;
                }
            }
        }
    }
}

/// Writes `name` after a sigil, quoting it when it is not a plain name.
pub(crate) fn write_name(out: &mut (impl core::fmt::Write + ?Sized), sigil: char, name: &str) -> core::fmt::Result {
    out.write_char(sigil)?;
    if !name.is_empty() && name.bytes().all(is_name_byte) {
        return out.write_str(name);
    }
    write_quoted(out, name)
}

/// Writes `text` as a quoted string with the lexer's escapes.
pub(crate) fn write_quoted(out: &mut (impl core::fmt::Write + ?Sized), text: &str) -> core::fmt::Result {
    let name = text;
    out.write_char('"')?;
    for ch in name.chars() {
        match ch {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\t' => out.write_str("\\t")?,
            c if c.is_control() => write!(out, "\\u{{{:x}}}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        let mut lx = Lexer::new(s, 0);
        let mut out = Vec::new();
        loop {
            match lx.next_token() {
                Ok((Tok::Eof, _)) => return out,
                Ok((t, _)) => out.push(t),
                Err(e) => panic!("{e:?}"),
            }
        }
    }

    #[test]
    fn lexes_the_digest_style() {
        assert_eq!(
            toks("@%p %x = add %a, -5 ; hi\n"),
            vec![
                Tok::GuardAt,
                Tok::Var("p".into()),
                Tok::Var("x".into()),
                Tok::Equals,
                Tok::Ident("add"),
                Tok::Var("a".into()),
                Tok::Comma,
                Tok::Int("-5"),
                Tok::Newline
            ]
        );
        assert_eq!(
            toks("-inf nan:0x1f 1e3 1.5 0x10 -nan"),
            vec![
                Tok::Float("-inf"),
                Tok::Float("nan:0x1f"),
                Tok::Float("1e3"),
                Tok::Float("1.5"),
                Tok::Int("0x10"),
                Tok::Float("-nan")
            ]
        );
        assert_eq!(toks(r#"%"a b\"c" @"\u{41}""#), vec![Tok::Var("a b\"c".into()), Tok::Global("A".into())]);
        assert_eq!(toks("-> setp.slt"), vec![Tok::Arrow, Tok::Ident("setp.slt")]);
    }

    #[test]
    fn reports_errors_and_advances() {
        for bad in ["12abc", "\"open", "%", "$", "-x", "\"\\q\"", "é"] {
            let mut lx = Lexer::new(bad, 0);
            assert!(lx.next_token().is_err(), "{bad}");
            assert!(lx.pos() > 0, "{bad}");
        }
    }

    #[test]
    fn quoted_names_round_trip() {
        let mut s = String::new();
        write_name(&mut s, '%', "a \"b\"\n\u{1}é").unwrap();
        assert_eq!(toks(&s), vec![Tok::Var("a \"b\"\n\u{1}é".into())]);
    }
}
