//! Positions in a source text and the errors found there: byte [`Span`]s,
//! [`Diagnostic`]s, 1-based [`LineCol`]s, and the [`SourceMap`] from a
//! parsed module's entities back to their spans (rendering is `render.rs`).
//!
//! Invariant: spans are byte offsets into the text they were made from;
//! `line_col` clamps any offset to that text, so no span panics.

use crate::entities::{Block, ExtFuncId, FuncId, Inst, Mem, Var};
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
    pub(crate) externs: SecondaryMap<ExtFuncId, Span>,
    /// The source's line starts, so that rendering many errors costs a
    /// binary search each, not a scan of the file.
    pub(crate) lines: LineIndex,
}

/// The byte offset of every line start of one text, for line numbers in
/// logarithmic time.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Offsets of the line starts (the first is 0).
    starts: Vec<usize>,
    /// Length of the text indexed, to tell it from another text.
    len: usize,
}

impl LineIndex {
    /// Indexes `src` in one pass.
    pub fn new(src: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(src.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts, len: src.len() }
    }

    /// The 1-based number of the line holding byte `offset` of `src`;
    /// `None` when this index is not of a text of `src`'s length.
    pub fn line_number(&self, src: &str, offset: usize) -> Option<usize> {
        (self.len == src.len() && !self.starts.is_empty())
            .then(|| self.starts.partition_point(|&s| s <= offset.min(src.len())))
    }
}

/// Spans of one function's entities.
#[derive(Clone, Debug, Default)]
pub struct FuncSpans {
    /// The `func` header line.
    pub header: Span,
    /// The closing `}` of the body.
    pub end: Span,
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
