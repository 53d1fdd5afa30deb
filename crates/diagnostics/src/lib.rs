//! `diagnostics`: the one place Keel turns an error in a text into text.
//!
//! Keel IR, the vectorizer's graph IR and its rule files report their
//! errors as this crate's byte [`Span`]s and [`Diagnostic`]s; MLU assembly
//! keeps plain-data spans and diagnostics of its own (so `mlu-isa` needs
//! no workspace crate in its default build) and converts them to these
//! with its `render` feature. Every one of these text formats renders
//! through [`render_error`] or [`render_file_error`], so an error reads the
//! same whichever parser found it:
//!
//! ```text
//! error: unknown opcode `frobnicate`
//!  --> t.kir:3:5
//!   |
//! 3 |     frobnicate
//!   |     ^^^^^^^^^^
//! ```
//!
//! The layout is drawn by [`annotate_snippets`], the renderer rustc uses,
//! so no caret drawing of our own has to be kept right (tabs, wide and
//! combining characters, control bytes, long lines).
//!
//! Invariants:
//! - Spans are byte offsets into the text they were made from; [`line_col`]
//!   clamps any offset to that text, so no span panics.
//! - Output is plain text (no colour), ends in a newline, and is the same
//!   on a terminal or not, so tests can compare it.
//! - Rendering never panics: a span past the end of the source or inside a
//!   character is clamped to it, and a span that runs over a line end is cut
//!   at that line's end, so the caret line is always under the one source
//!   line shown (the line of the span's start). Only that line is handed to
//!   the renderer, so the cost is the line's, not the file's.
//! - The location in `--> file:line:col` agrees with [`line_col`]: lines
//!   from 1, columns in characters from 1.
//! - Messages and file names are shown through [`shown`]: control
//!   characters escaped, and past [`MAX_SHOWN`] characters the middle cut.
//!
//! # Example
//!
//! ```
//! use diagnostics::{Diagnostic, Span};
//!
//! let src = "a\n\tbc def\n";
//! let d = Diagnostic::new("oops", Span::new(6, 9));
//! assert_eq!(d.render("f.kir", src), "error: oops\n --> f.kir:2:5\n  |\n2 |     bc def\n  |        ^^^\n");
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

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
    /// A diagnostic at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic { message: message.into(), span }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (bytes {}..{})", self.message, self.span.start, self.span.end)
    }
}

impl std::error::Error for Diagnostic {}

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

/// The one renderer configuration: plain text, rustc's ASCII layout.
const RENDERER: Renderer = Renderer::plain();

/// Renders `error: message`, then `--> file:line:col`, the source line of
/// `span`'s start and a caret under the span (at least one caret, so an
/// empty span or one at the end of the input is still marked).
pub fn render_error(file: &str, src: &str, span: Span, message: &str) -> String {
    render_error_indexed(file, src, None, span, message)
}

/// [`render_error`], finding the line number in `lines` (an index of
/// `src`) when given: many errors in one large file then cost a binary
/// search each instead of a scan of the file up to the error.
pub fn render_error_indexed(file: &str, src: &str, lines: Option<&LineIndex>, span: Span, message: &str) -> String {
    let (line_no, line, range) = line_of(src, lines, span);
    let (message, file) = (shown(message), shown(file));
    let snippet = Snippet::source(line).line_start(line_no).path(&file).annotation(AnnotationKind::Primary.span(range));
    finish(RENDERER.render(&[Level::ERROR.primary_title(&message).element(snippet)]))
}

/// Longest message or file name shown whole; a longer one keeps its start
/// and end around a note of what was cut (a 10 MB literal quoted in a
/// message must not become 10 MB of diagnostics).
pub const MAX_SHOWN: usize = 240;

/// `text` as a diagnostic shows it: control characters escaped (`\n`,
/// `\u{1b}`, so none reaches the terminal raw) and, past [`MAX_SHOWN`]
/// characters, the middle cut out.
pub fn shown(text: &str) -> String {
    let escaped: String = if text.chars().any(char::is_control) {
        text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
    } else {
        text.to_string()
    };
    let n = escaped.chars().count();
    if n <= MAX_SHOWN {
        return escaped;
    }
    let head: String = escaped.chars().take(MAX_SHOWN * 2 / 3).collect();
    let tail: String = escaped.chars().skip(n - MAX_SHOWN / 4).collect();
    format!("{head}...[{} characters cut]...{tail}", n - head.chars().count() - tail.chars().count())
}

/// Renders an error that has no position in a text (a whole-file error, a
/// binary input, or a module built without a source map): `error: message`
/// and `--> file`.
pub fn render_file_error(file: &str, message: &str) -> String {
    let (message, file) = (shown(message), shown(file));
    let group = Group::with_title(Level::ERROR.primary_title(&message)).element(Origin::path(&file));
    finish(RENDERER.render(&[group]))
}

fn finish(mut rendered: String) -> String {
    rendered.push('\n');
    rendered
}

/// The 1-based number and the text (without its line break) of the line
/// holding `span.start`, and the span within that line, clamped to it and to
/// character boundaries.
fn line_of<'s>(src: &'s str, lines: Option<&LineIndex>, span: Span) -> (usize, &'s str, core::ops::Range<usize>) {
    let start = floor_char_boundary(src, span.start as usize);
    let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    let text = &src[line_start..line_end];
    let text = text.strip_suffix('\r').unwrap_or(text);
    let text_end = line_start + text.len();
    let start = start.min(text_end);
    let end = ceil_char_boundary(src, (span.end as usize).clamp(start, text_end));
    let line_no = lines
        .and_then(|l| l.line_number(src, line_start))
        .unwrap_or_else(|| src.as_bytes()[..line_start].iter().filter(|&&b| b == b'\n').count() + 1);
    (line_no, text, start - line_start..end - line_start)
}

/// The largest char boundary at or below `i` (and at most `s.len()`).
fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary at or above `i` (and at most `s.len()`).
fn ceil_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Diagnostic {
    /// Renders the diagnostic against the source it came from (see
    /// [`render_error`]): `error: message`, `--> file:line:col`, the source
    /// line and a caret under the span.
    pub fn render(&self, file: &str, src: &str) -> String {
        render_error(file, src, self.span, &self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let src = "a\n\tbc def\n";
        assert_eq!(
            render_error("f.kir", src, Span::new(6, 9), "oops"),
            "error: oops\n --> f.kir:2:5\n  |\n2 |     bc def\n  |        ^^^\n"
        );
    }

    #[test]
    fn cuts_a_span_at_its_line_end_and_the_input_end() {
        let src = "ab\ncd\n";
        let shown = "error: m\n --> f:1:2\n  |\n1 | ab\n  |  ^\n";
        assert_eq!(render_error("f", src, Span::new(1, 5), "m"), shown);
        assert_eq!(render_error("f", "ab", Span::new(1, 99), "m"), shown);
        // A span past the end marks the end of the last line.
        assert_eq!(render_error("f", src, Span::new(50, 60), "m"), "error: m\n --> f:3:1\n  |\n3 |\n  | ^\n");
    }

    #[test]
    fn clamps_a_span_inside_a_character() {
        // `é` is bytes 1..3; a span starting at byte 2 marks it.
        let src = "aéb\n";
        assert_eq!(render_error("f", src, Span::new(2, 2), "m"), "error: m\n --> f:1:2\n  |\n1 | aéb\n  |  ^\n");
    }

    #[test]
    fn line_col_counts_characters_and_treats_crlf_as_one_break() {
        assert_eq!(line_col("a\n\tbc def\n", 6), LineCol { line: 2, col: 5 });
        assert_eq!(line_col("ab\r\ncd", 3), LineCol { line: 1, col: 3 });
        assert_eq!(line_col("aéb", 2), LineCol { line: 1, col: 2 });
        assert_eq!(line_col("ab", 99), LineCol { line: 1, col: 3 });
    }

    #[test]
    fn file_errors_name_the_file() {
        assert_eq!(render_file_error("m.wasm", "bad"), "error: bad\n--> m.wasm\n");
    }
}
