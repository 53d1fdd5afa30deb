//! Positions in an assembly text, the errors found there, and their
//! rendering.
//!
//! Rendering is drawn by `annotate-snippets` (rustc's renderer), configured
//! as ir-core configures it, so an assembler error reads exactly like a
//! Keel IR parser error: `error: message`, `--> file:line:col`, the source
//! line and a caret under the span.
//!
//! Invariants: spans are byte offsets into the text they were made from;
//! [`line_col`] and [`render_error`] clamp any span to that text and to
//! character boundaries, so no span panics; only the line holding the
//! span's start is handed to the renderer.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use core::fmt;

/// A byte range in a source text.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets (saturating at `u32::MAX`).
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

impl Diagnostic {
    /// A diagnostic at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span }
    }

    /// Renders the diagnostic against the text it came from (see
    /// [`render_error`]).
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

/// A 1-based line and column (the column counts characters).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

/// Line and column of byte `offset` in `src`, clamped to the text and to
/// the start of its character (the `\n` of a `\r\n` is at its `\r`).
pub fn line_col(src: &str, offset: u32) -> LineCol {
    let mut offset = floor_boundary(src, offset as usize);
    if src[..offset].ends_with('\r') && src[offset..].starts_with('\n') {
        offset -= 1;
    }
    let before = &src[..offset];
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    LineCol { line: before.matches('\n').count() + 1, col: src[line_start..offset].chars().count() + 1 }
}

/// Renders `error: message`, `--> file:line:col`, the line of `span`'s
/// start and a caret under the span (at least one caret).
pub fn render_error(file: &str, src: &str, span: Span, message: &str) -> String {
    let start = floor_boundary(src, span.start as usize);
    let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    let raw = &src[line_start..line_end];
    let line = raw.strip_suffix('\r').unwrap_or(raw);
    let line_stop = line_start + line.len();
    let start = start.min(line_stop);
    let end = ceil_boundary(src, (span.end as usize).clamp(start, line_stop));
    let number = src.as_bytes()[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
    let snippet = Snippet::source(line)
        .line_start(number)
        .path(file)
        .annotation(AnnotationKind::Primary.span(start - line_start..end - line_start));
    let mut out = Renderer::plain().render(&[Level::ERROR.primary_title(message).element(snippet)]);
    out.push('\n');
    out
}

/// Renders an error with no position: `error: message` and `--> file`.
pub fn render_file_error(file: &str, message: &str) -> String {
    let group = Group::with_title(Level::ERROR.primary_title(message)).element(Origin::path(file));
    let mut out = Renderer::plain().render(&[group]);
    out.push('\n');
    out
}

fn floor_boundary(s: &str, i: usize) -> usize {
    (0..=i.min(s.len())).rev().find(|&o| s.is_char_boundary(o)).unwrap_or(0)
}

fn ceil_boundary(s: &str, i: usize) -> usize {
    (i.min(s.len())..=s.len()).find(|&o| s.is_char_boundary(o)).unwrap_or(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_ir_core() {
        let src = "a\n\tbc def\n";
        assert_eq!(
            render_error("f.mlu", src, Span::new(6, 9), "oops"),
            "error: oops\n --> f.mlu:2:5\n  |\n2 |     bc def\n  |        ^^^\n"
        );
        assert_eq!(line_col(src, 6), LineCol { line: 2, col: 5 });
        assert_eq!(render_file_error("m.mlu", "bad"), "error: bad\n--> m.mlu\n");
    }

    #[test]
    fn clamps_spans() {
        let shown = "error: m\n --> f:1:2\n  |\n1 | ab\n  |  ^\n";
        assert_eq!(render_error("f", "ab\ncd\n", Span::new(1, 5), "m"), shown);
        assert_eq!(render_error("f", "ab", Span::new(1, 99), "m"), shown);
        assert_eq!(render_error("f", "aéb\n", Span::new(2, 2), "m"), "error: m\n --> f:1:2\n  |\n1 | aéb\n  |  ^\n");
        assert_eq!(line_col("ab\r\ncd", 3), LineCol { line: 1, col: 3 });
    }
}
