//! Rendering diagnostics: the one place Keel turns an error into text.
//!
//! The layout is drawn by [`annotate_snippets`], the renderer rustc uses, so
//! Keel's errors read like rustc's and no caret drawing of our own has to
//! be kept right (tabs, wide and combining characters, control bytes, long
//! lines). It is used from here only: the parser's [`Diagnostic`], the
//! verifier's [`VerifierError`], and the errors of the WebAssembly importer
//! and the `keel` tool all come through [`render_error`] or
//! [`render_file_error`].
//!
//! ```text
//! error: unknown opcode `frobnicate`
//!  --> t.kir:3:5
//!   |
//! 3 |     frobnicate
//!   |     ^^^^^^^^^^
//! ```
//!
//! Invariants:
//! - Output is plain text (no colour), ends in a newline, and is the same
//!   on a terminal or not, so tests can compare it.
//! - Rendering never panics: a span past the end of the source or inside a
//!   character is clamped to it, and a span that runs over a line end is cut
//!   at that line's end, so the caret line is always under the one source
//!   line shown (the line of the span's start). Only that line is handed to
//!   the renderer, so the cost is the line's, not the file's.
//! - The location in `--> file:line:col` agrees with [`line_col`]: lines
//!   from 1, columns in characters from 1.
//!
//! [`Diagnostic`]: super::Diagnostic
//! [`VerifierError`]: crate::VerifierError
//! [`line_col`]: super::line_col

use super::span::{Diagnostic, LineIndex, Span};
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

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
pub(crate) fn render_error_indexed(
    file: &str,
    src: &str,
    lines: Option<&LineIndex>,
    span: Span,
    message: &str,
) -> String {
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
    fn file_errors_name_the_file() {
        assert_eq!(render_file_error("m.wasm", "bad"), "error: bad\n--> m.wasm\n");
    }
}
