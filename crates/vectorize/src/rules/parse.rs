//! The rule DSL's lexer and parser: tokens, and a cursor reading heads,
//! terms (to postfix code) and patterns (to flat trees), iteratively.

use super::code::{Instr, Pat};
use super::strategy::Strategy;
use crate::ops::Prim;
use diagnostics::{Diagnostic, Span};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tok<'s> {
    Word(&'s str),
    Lit(&'s str),
    Open,
    Close,
    Comma,
    Caret,
    Arrow,
}

pub(super) fn err(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic { message: message.into(), span }
}

pub(super) fn lex(text: &str, offset: usize) -> Result<Vec<(Tok<'_>, Span)>, Diagnostic> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let tok = match b[i] {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b';' => break,
            b'(' => {
                i += 1;
                Tok::Open
            }
            b')' => {
                i += 1;
                Tok::Close
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b'^' => {
                i += 1;
                Tok::Caret
            }
            b'=' if b.get(i + 1) == Some(&b'>') => {
                i += 2;
                Tok::Arrow
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
                Tok::Word(&text[start..i])
            }
            c if c.is_ascii_digit() || c == b'-' => {
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'.' | b'_' | b'+' | b'-' | b':'))
                {
                    i += 1;
                }
                Tok::Lit(&text[start..i])
            }
            _ => {
                let c = text[i..].chars().next().unwrap_or('?');
                return Err(err(
                    format!("unexpected character `{}`", c.escape_debug()),
                    Span::new(offset + i, offset + i + c.len_utf8()),
                ));
            }
        };
        out.push((tok, Span::new(offset + start, offset + i)));
    }
    Ok(out)
}

pub(super) enum TermKind {
    /// A vectorization template for this primitive.
    Template(Prim),
    /// The output of an optimisation rule.
    Opt,
}

pub(super) struct Cursor<'a, 's> {
    pub(super) toks: &'a [(Tok<'s>, Span)],
    pub(super) pos: usize,
    pub(super) end: Span,
}

impl<'s> Cursor<'_, 's> {
    pub(super) fn peek(&self) -> Option<Tok<'s>> {
        self.toks.get(self.pos).map(|t| t.0)
    }

    pub(super) fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }

    pub(super) fn word(&mut self) -> Result<(&'s str, Span), Diagnostic> {
        match self.toks.get(self.pos) {
            Some(&(Tok::Word(w), s)) => {
                self.pos += 1;
                Ok((w, s))
            }
            _ => Err(err("expected a name", self.span())),
        }
    }

    pub(super) fn expect(&mut self, t: Tok<'_>, what: &str) -> Result<(), Diagnostic> {
        if self.peek() == Some(t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(err(format!("expected {what}"), self.span()))
        }
    }

    pub(super) fn arrow(&mut self) -> Result<(), Diagnostic> {
        self.expect(Tok::Arrow, "`=>`")
    }

    pub(super) fn done(&self) -> Result<(), Diagnostic> {
        if self.pos == self.toks.len() { Ok(()) } else { Err(err("unexpected text after the rule", self.span())) }
    }

    /// `(a, b, rest..)`: distinct variables and an optional variadic tail.
    pub(super) fn head_vars(&mut self) -> Result<(Vec<String>, Option<String>), Diagnostic> {
        self.expect(Tok::Open, "`(`")?;
        let mut vars: Vec<String> = Vec::new();
        let mut variadic = None;
        if self.peek() == Some(Tok::Close) {
            self.pos += 1;
            return Ok((vars, variadic));
        }
        loop {
            let (w, s) = self.word()?;
            if variadic.is_some() {
                return Err(err("the `..` tail must come last", s));
            }
            let (name, tail) = match w.strip_suffix("..") {
                Some(n) => (n, true),
                None => (w, false),
            };
            if name.is_empty() || name.contains('.') {
                return Err(err(format!("`{w}` is not a variable"), s));
            }
            if vars.iter().any(|v| v == name) || variadic.as_deref() == Some(name) {
                return Err(err(format!("the variable `{name}` appears twice"), s));
            }
            if tail {
                variadic = Some(name.to_string());
            } else {
                vars.push(name.to_string());
            }
            match self.peek() {
                Some(Tok::Comma) => self.pos += 1,
                Some(Tok::Close) => {
                    self.pos += 1;
                    return Ok((vars, variadic));
                }
                _ => return Err(err("expected `,` or `)`", self.span())),
            }
        }
    }

    /// A term to postfix code, iteratively.
    pub(super) fn term(&mut self, vars: &[String], kind: TermKind) -> Result<Vec<Instr>, Diagnostic> {
        let mut code = Vec::new();
        // Open applications: (prim, lift, args so far, span).
        let mut open: Vec<(Prim, bool, usize, Span)> = Vec::new();
        loop {
            // An operand.
            let (tok, span) = match self.toks.get(self.pos) {
                Some(&t) => t,
                None => return Err(err("expected a term", self.end)),
            };
            self.pos += 1;
            match tok {
                Tok::Lit(t) => {
                    if !t.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                        return Err(err(format!("`{t}` is not a number"), span));
                    }
                    code.push(Instr::Lit(t.to_string()));
                }
                Tok::Word(w) if self.peek() == Some(Tok::Open) || self.peek() == Some(Tok::Caret) => {
                    let prim = Prim::from_name(w).ok_or_else(|| {
                        if Strategy::lookup(w).is_some() {
                            err(format!("the strategy `{w}` can only be a whole rule body"), span)
                        } else {
                            err(format!("unknown primitive `{w}`"), span)
                        }
                    })?;
                    let lift = self.peek() == Some(Tok::Caret);
                    if lift {
                        self.pos += 1;
                    }
                    if !prim.liftable() {
                        return Err(err(format!("`{w}` cannot appear in a term (only lifted primitives can)"), span));
                    }
                    if let TermKind::Template(head) = kind {
                        if !lift {
                            return Err(err(format!("write `{w}^`: a vectorization rule builds lifted values"), span));
                        }
                        if matches!(prim, Prim::Convert(_)) && prim != head {
                            return Err(err("a conversion's target type is known only in its own rule", span));
                        }
                    } else if matches!(prim, Prim::Convert(_)) {
                        return Err(err("an optimisation rule cannot build a conversion", span));
                    }
                    self.expect(Tok::Open, "`(`")?;
                    if self.peek() == Some(Tok::Close) {
                        return Err(err(format!("`{w}` needs arguments"), span));
                    }
                    open.push((prim, lift, 0, span));
                    continue;
                }
                Tok::Word(w) => match vars.iter().position(|v| v == w) {
                    Some(i) => code.push(Instr::Var(i)),
                    None => return Err(err(format!("`{w}` is not a variable of this rule"), span)),
                },
                _ => return Err(err("expected a variable, a literal or an application", span)),
            }
            // After an operand: `,` or `)`s.
            loop {
                let Some(top) = open.last_mut() else { return Ok(code) };
                top.2 += 1;
                match self.peek() {
                    Some(Tok::Comma) => {
                        self.pos += 1;
                        break;
                    }
                    Some(Tok::Close) => {
                        self.pos += 1;
                        let (prim, lift, argc, span) = open.pop().expect("an open application");
                        if prim.arity() != Some(argc) {
                            return Err(err(
                                format!(
                                    "`{}` takes {:?} argument(s), not {argc}",
                                    prim.name(),
                                    prim.arity().unwrap_or(0)
                                ),
                                span,
                            ));
                        }
                        code.push(Instr::App { prim, lift, argc });
                        // The application is itself an operand of the enclosing one.
                        if open.is_empty() {
                            return Ok(code);
                        }
                        continue;
                    }
                    _ => return Err(err("expected `,` or `)`", self.span())),
                }
            }
        }
    }

    /// A pattern: a flat tree (children before parents, the root last) and
    /// its variables in order of first appearance.
    pub(super) fn pattern(&mut self) -> Result<(Vec<Pat>, Vec<String>), Diagnostic> {
        let mut pats: Vec<Pat> = Vec::new();
        let mut vars: Vec<String> = Vec::new();
        let mut open: Vec<(Prim, bool, Vec<usize>, Span)> = Vec::new();
        loop {
            let (tok, span) = match self.toks.get(self.pos) {
                Some(&t) => t,
                None => return Err(err("expected a pattern", self.end)),
            };
            self.pos += 1;
            match tok {
                Tok::Word(w) if self.peek() == Some(Tok::Open) || self.peek() == Some(Tok::Caret) => {
                    let prim = Prim::from_name(w).ok_or_else(|| err(format!("unknown primitive `{w}`"), span))?;
                    if !prim.liftable() {
                        return Err(err(format!("`{w}` cannot appear in a pattern"), span));
                    }
                    let lift = self.peek() == Some(Tok::Caret);
                    if lift {
                        self.pos += 1;
                    }
                    self.expect(Tok::Open, "`(`")?;
                    open.push((prim, lift, Vec::new(), span));
                    continue;
                }
                Tok::Word(w) if !open.is_empty() => {
                    let i = match vars.iter().position(|v| v == w) {
                        Some(i) => i,
                        None => {
                            vars.push(w.to_string());
                            vars.len() - 1
                        }
                    };
                    pats.push(Pat::Var(i));
                }
                _ => return Err(err("a pattern is an application of a primitive to patterns", span)),
            }
            loop {
                let Some(top) = open.last_mut() else { return Ok((pats, vars)) };
                top.2.push(pats.len() - 1);
                match self.peek() {
                    Some(Tok::Comma) => {
                        self.pos += 1;
                        break;
                    }
                    Some(Tok::Close) => {
                        self.pos += 1;
                        let (prim, lift, args, span) = open.pop().expect("an open application");
                        if prim.arity() != Some(args.len()) {
                            return Err(err(
                                format!("`{}` takes {} argument(s)", prim.name(), prim.arity().unwrap_or(0)),
                                span,
                            ));
                        }
                        pats.push(Pat::App { prim, lift, args });
                        if open.is_empty() {
                            return Ok((pats, vars));
                        }
                        continue;
                    }
                    _ => return Err(err("expected `,` or `)`", self.span())),
                }
            }
        }
    }
}
