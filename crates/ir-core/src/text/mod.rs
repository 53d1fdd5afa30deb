//! The text format: parser, printer, diagnostics. Grammar and semantics are
//! in `docs/ir.md`.
//!
//! Invariants:
//! - `parse(print(m))` rebuilds `m` exactly, ill-typed or not, for every
//!   module whose instructions are well-formed (no verifier `Arity` or
//!   `UnknownEntity` errors: a malformed instruction prints as far as its
//!   data allows) and whose block numbers are not absurdly sparse (see
//!   [`ParseLimits`]); and printing is canonical:
//!   `print(parse(print(m))) == print(m)` byte for byte.
//! - The parser never panics, never recurses on input structure (the grammar
//!   is flat: one construct per line), and allocates in proportion to its
//!   input: block numbers are preserved, so gaps are charged against a
//!   module-wide budget.
//! - Diagnostics carry byte spans; [`Diagnostic::render`] turns them into
//!   `file:line:col: error: message`, the source line and a caret.

mod context;
mod lexer;
mod parser;
mod printer;

pub use parser::{ParseLimits, parse, parse_bytes, parse_with};
pub use printer::{DisplayInst, print_function, print_module, write_function, write_module};

use crate::entities::{Block, FuncId, Inst, Mem, Var};

/// Writes `%name`, quoting the name when it is not a plain name.
pub fn write_var_name(out: &mut impl fmt::Write, name: &str) -> fmt::Result {
    lexer::write_name(out, '%', name)
}

/// Writes `@name`, quoting the name when it is not a plain name.
pub fn write_global_name(out: &mut impl fmt::Write, name: &str) -> fmt::Result {
    lexer::write_name(out, '@', name)
}
use core::fmt;
use cranelift_entity::SecondaryMap;

/// A byte range in a source text.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets (saturating at `u32::MAX`; the parser rejects
    /// larger inputs first).
    pub fn new(start: usize, end: usize) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span { start: clamp(start), end: clamp(end.max(start)) }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// An error found in a source text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// What went wrong, in one line.
    pub message: String,
    /// Where.
    pub span: Span,
}

/// A 1-based line and column (the column counts characters).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

/// Line and column of byte `offset` in `src`.
pub fn line_col(src: &str, offset: u32) -> LineCol {
    let offset = (offset as usize).min(src.len());
    let offset = (0..=offset).rev().find(|&o| src.is_char_boundary(o)).unwrap_or(0);
    let before = &src[..offset];
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    LineCol { line: before.matches('\n').count() + 1, col: src[line_start..offset].chars().count() + 1 }
}

impl Diagnostic {
    pub(crate) fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span }
    }

    /// `file:line:col: error: message`, then the source line and a caret
    /// under the span.
    pub fn render(&self, file: &str, src: &str) -> String {
        render_at(file, src, self.span, "error", &self.message)
    }
}

/// Renders a message at a span of `src`, rustc-style.
pub fn render_at(file: &str, src: &str, span: Span, severity: &str, message: &str) -> String {
    let LineCol { line, col } = line_col(src, span.start);
    let start = (span.start as usize).min(src.len());
    let start = (0..=start).rev().find(|&o| src.is_char_boundary(o)).unwrap_or(0);
    let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    let text = src[line_start..line_end].trim_end_matches('\r');
    let end = (span.end as usize).clamp(start, line_end);
    let end = (end..=line_end).find(|&o| src.is_char_boundary(o)).unwrap_or(line_end);
    let width = src[start..end].chars().count().max(1);
    // Keep tabs in the caret line so the caret stays under the span.
    let pad: String = src[line_start..start].chars().map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let gutter = line.to_string();
    let blank = " ".repeat(gutter.len());
    format!(
        "{file}:{line}:{col}: {severity}: {message}\n{blank} |\n{gutter} | {text}\n{blank} | {pad}{}\n",
        "^".repeat(width)
    )
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (bytes {}..{})", self.message, self.span.start, self.span.end)
    }
}

impl std::error::Error for Diagnostic {}

/// Where each entity of a parsed module came from, so that later errors
/// (the verifier's) can point into the source.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    funcs: SecondaryMap<FuncId, FuncSpans>,
    pub(crate) mems: SecondaryMap<Mem, Span>,
}

/// Spans of one function's entities.
#[derive(Clone, Debug, Default)]
pub struct FuncSpans {
    /// The `func` header line.
    pub header: Span,
    /// Each instruction's line.
    pub insts: SecondaryMap<Inst, Span>,
    /// Each block's label.
    pub blocks: SecondaryMap<Block, Span>,
    /// Each var's declaration.
    pub vars: SecondaryMap<Var, Span>,
}

impl SourceMap {
    /// The name of memory object `m` in its declaration.
    pub fn mem(&self, m: Mem) -> Option<Span> {
        self.mems.get(m).copied().filter(|s| s.end > s.start)
    }

    /// Spans of function `f`.
    pub fn function(&self, f: FuncId) -> Option<&FuncSpans> {
        self.funcs.get(f)
    }

    pub(crate) fn function_mut(&mut self, f: FuncId) -> &mut FuncSpans {
        &mut self.funcs[f]
    }

    /// The best span for an entity: the instruction, else the block label,
    /// else the var declaration, else the function header.
    pub fn locate(&self, f: FuncId, inst: Option<Inst>, block: Option<Block>, var: Option<Var>) -> Option<Span> {
        let spans = self.funcs.get(f)?;
        let nonempty = |s: Option<&Span>| s.copied().filter(|s| s.end > s.start);
        inst.and_then(|i| nonempty(spans.insts.get(i)))
            .or_else(|| block.and_then(|b| nonempty(spans.blocks.get(b))))
            .or_else(|| var.and_then(|v| nonempty(spans.vars.get(v))))
            .or(Some(spans.header))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_col_and_caret() {
        let src = "a\n\tbc def\n";
        let r = render_at("f.kir", src, Span::new(6, 9), "error", "oops");
        assert_eq!(r, "f.kir:2:5: error: oops\n  |\n2 | \tbc def\n  | \t   ^^^\n");
        assert_eq!(line_col(src, 100), LineCol { line: 3, col: 1 });
    }
}
