//! Comments of a parsed text, attached to the entities they describe, so
//! that the printer can keep them (`keel fmt`).
//!
//! The rule, as rustfmt's for Rust:
//! - a comment on a line of its own (a *leading* comment) belongs to the
//!   next entity in the source: a memory object, an extern, a function
//!   header, a `var` line, a block label, an instruction, or the closing
//!   `}` of a function; after the last entity it stays at the end of the
//!   file;
//! - a comment after code on the same line (a *trailing* comment) belongs
//!   to the last entity that starts on that line, and is printed after it,
//!   from column 33 (or two spaces after a longer line);
//! - one blank line before a leading comment, and one between a group of
//!   leading comments and its entity, are kept; longer runs become one.
//!
//! Leading comments are indented like their entity. The comment text is
//! kept byte for byte, from `;` to the end of its line (trailing blanks
//! trimmed).
//!
//! Invariants: every comment of the source is attached exactly once, so
//! printing with [`Comments`] loses none; attachment is linear in the
//! number of comments and entities (one sort of the entity positions).

use super::lexer::comment_spans;
use super::span::SourceMap;
use crate::entities::{Block, ExtFuncId, FuncId, Inst, Mem, Var};
use crate::module::Module;
use diagnostics::Span;
use rustc_hash::FxHashMap;

/// An entity a comment can belong to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Anchor {
    Mem(Mem),
    Ext(ExtFuncId),
    Func(FuncId),
    Var(FuncId, Var),
    Block(FuncId, Block),
    Inst(FuncId, Inst),
    /// The closing `}` of a function.
    End(FuncId),
}

/// One leading comment line.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// A blank line came before it in the source.
    pub blank_before: bool,
    pub text: String,
}

/// The leading comments of one entity.
#[derive(Clone, Debug, Default)]
pub(crate) struct Group {
    pub lines: Vec<Line>,
    /// A blank line separated the last comment from the entity.
    pub blank_after: bool,
}

/// The comments of a parsed text, attached to entities (see the module
/// doc). Build with [`Comments::collect`]; print with
/// [`super::print_module_with_comments`].
#[derive(Clone, Debug, Default)]
pub struct Comments {
    pub(crate) leading: FxHashMap<Anchor, Group>,
    pub(crate) trailing: FxHashMap<Anchor, String>,
    /// Comments after the last entity.
    pub(crate) tail: Group,
}

impl Comments {
    /// The comments of `src`, attached to the entities of `module` that
    /// `smap` locates (`module` and `smap` as the parser returned them for
    /// `src`).
    pub fn collect(src: &str, module: &Module, smap: &SourceMap) -> Comments {
        let mut comments = Comments::default();
        let spans = comment_spans(src);
        if spans.is_empty() {
            return comments;
        }
        let anchors = anchors(module, smap);
        // `next` is the first anchor after the current comment.
        let mut next = 0;
        let mut open: Option<Group> = None;
        for span in spans {
            let start = span.start as usize;
            while next < anchors.len() && anchors[next].0 < start {
                next += 1;
            }
            let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
            let own_line = src[line_start..start].trim().is_empty();
            let text = src[start..span.end as usize].trim_end().to_string();
            if !own_line {
                // The last anchor that starts on this line, if any.
                if let Some(&(pos, anchor)) = next.checked_sub(1).map(|i| &anchors[i])
                    && pos >= line_start
                {
                    comments.trailing.insert(anchor, text);
                    continue;
                }
            }
            let blank_before = previous_line_is_blank(src, line_start);
            let group = open.get_or_insert_with(Group::default);
            group.lines.push(Line { blank_before, text });
            // The group closes at the next anchor: attach it when the next
            // comment (if any) comes after that anchor.
            let line_end = src[span.end as usize..].find('\n').map_or(src.len(), |p| span.end as usize + p);
            group.blank_after = next_line_is_blank(src, line_end);
            let closes = match anchors.get(next) {
                Some(&(pos, _)) => !src[line_end..pos].contains(';'),
                None => false,
            };
            if closes && let Some(g) = open.take() {
                comments.leading.insert(anchors[next].1, g);
            }
        }
        if let Some(g) = open {
            comments.tail = g;
        }
        comments
    }

    /// True when the source had no comment.
    pub fn is_empty(&self) -> bool {
        self.leading.is_empty() && self.trailing.is_empty() && self.tail.lines.is_empty()
    }
}

/// Every entity with its source position, sorted by position.
fn anchors(module: &Module, smap: &SourceMap) -> Vec<(usize, Anchor)> {
    let mut out = Vec::new();
    let mut push = |span: Span, anchor: Anchor| {
        if span != Span::default() || matches!(anchor, Anchor::Mem(_) | Anchor::Ext(_) | Anchor::Func(_)) {
            out.push((span.start as usize, anchor));
        }
    };
    for (m, _) in module.mems() {
        if let Some(span) = smap.mem(m) {
            push(span, Anchor::Mem(m));
        }
    }
    for (e, _) in module.externs() {
        push(smap.externs[e], Anchor::Ext(e));
    }
    for (f, func) in module.functions() {
        let Some(spans) = smap.function(f) else { continue };
        push(spans.header, Anchor::Func(f));
        let params = func.params().len();
        for v in func.vars().skip(params) {
            push(spans.vars[v], Anchor::Var(f, v));
        }
        for b in func.blocks() {
            push(spans.blocks[b], Anchor::Block(f, b));
            for i in func.block_insts(b) {
                push(spans.insts[i], Anchor::Inst(f, i));
            }
        }
        push(spans.end, Anchor::End(f));
    }
    out.sort_by_key(|&(pos, _)| pos);
    out
}

/// Whether the line before the one starting at `line_start` is blank (and
/// exists).
fn previous_line_is_blank(src: &str, line_start: usize) -> bool {
    if line_start == 0 {
        return false;
    }
    let prev_end = line_start - 1;
    let prev_start = src[..prev_end].rfind('\n').map_or(0, |p| p + 1);
    src[prev_start..prev_end].trim().is_empty()
}

/// Whether the line after the one ending at `line_end` (its `\n` or the end
/// of the text) is blank.
fn next_line_is_blank(src: &str, line_end: usize) -> bool {
    if line_end >= src.len() {
        return false;
    }
    let next_start = line_end + 1;
    let next_end = src[next_start..].find('\n').map_or(src.len(), |p| next_start + p);
    next_end < src.len() && src[next_start..next_end].trim().is_empty()
}
