//! The [`SourceMap`] from a parsed module's entities back to their spans.
//! Spans, diagnostics and their rendering are the `diagnostics` crate's
//! (re-exported by [`crate::text`]), shared by every Keel text format.
//!
//! Invariant: spans are byte offsets into the text they were made from.

use crate::entities::{Block, ExtFuncId, FuncId, Inst, Mem, Var};
use cranelift_entity::SecondaryMap;
use diagnostics::{LineIndex, Span};

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
