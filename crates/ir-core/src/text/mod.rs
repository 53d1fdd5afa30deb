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
//!   `error: message`, `--> file:line:col`, the source line and a caret.
//!   The drawing is `annotate-snippets`' (rustc's renderer), behind
//!   [`render_error`] and [`render_file_error`] in the `render` module:
//!   the one rendering path for the parser, the verifier, the WebAssembly
//!   importer and the `keel` tool, so there is no caret code of our own to
//!   keep right.

mod context;
mod lexer;
mod parser;
mod printer;
mod render;

pub use parser::{ParseLimits, parse, parse_bytes, parse_with};
pub use printer::{DisplayInst, print_function, print_module, write_function, write_module};
pub use render::{render_error, render_file_error};

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

/// Line and column of byte `offset` in `src` (clamped to the text and to
/// the start of its character). A `\r\n` is one line break: its `\n` is at
/// the column of its `\r`. Rendered diagnostics show the same position.
pub fn line_col(src: &str, offset: u32) -> LineCol {
    let offset = (offset as usize).min(src.len());
    let mut offset = (0..=offset).rev().find(|&o| src.is_char_boundary(o)).unwrap_or(0);
    if src[..offset].ends_with('\r') && src[offset..].starts_with('\n') {
        offset -= 1;
    }
    let before = &src[..offset];
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    LineCol { line: before.matches('\n').count() + 1, col: src[line_start..offset].chars().count() + 1 }
}

impl Diagnostic {
    pub(crate) fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span }
    }

    /// Renders the diagnostic against the source it came from (see
    /// [`render_error`]): `error: message`, `--> file:line:col`, the source
    /// line and a caret under the span.
    pub fn render(&self, file: &str, src: &str) -> String {
        render_error(file, src, self.span, &self.message)
    }
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
    fn line_col_counts_characters_and_clamps() {
        let src = "a\n\tbé def\n";
        assert_eq!(line_col(src, 7), LineCol { line: 2, col: 5 });
        // Inside `é` (bytes 4..6): the character's own column.
        assert_eq!(line_col(src, 5), LineCol { line: 2, col: 3 });
        assert_eq!(line_col(src, 100), LineCol { line: 3, col: 1 });
        // The `\n` of a `\r\n` is where the `\r` is.
        assert_eq!(line_col("ab\r\ncd", 3), LineCol { line: 1, col: 3 });
        assert_eq!(line_col("ab\r\ncd", 2), LineCol { line: 1, col: 3 });
    }
}
