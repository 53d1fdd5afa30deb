//! Rendering (feature `render`): located errors drawn by Keel's one
//! renderer, the `diagnostics` crate (`error: message`, `--> file:line:col`,
//! the source line and a caret; rustc's layout, through annotate-snippets).
//!
//! Nothing is drawn here: each function converts the ISA's plain-data
//! [`Span`] to a `diagnostics::Span` (the same two byte offsets) and calls
//! `diagnostics::render_error` or `render_file_error`, so an assembler error
//! reads exactly like a Keel IR error. Invariants: never panics (the
//! renderer clamps any span to its text); output is plain text ending in a
//! newline.

use super::diagnostic::{Diagnostic, Span};

pub use diagnostics::{LineCol, line_col};

impl From<Span> for diagnostics::Span {
    fn from(s: Span) -> diagnostics::Span {
        diagnostics::Span { start: s.start, end: s.end }
    }
}

impl Diagnostic {
    /// Renders the diagnostic against the source it came from (see
    /// [`render_error`]).
    pub fn render(&self, file: &str, src: &str) -> String {
        render_error(file, src, self.span, &self.message)
    }
}

/// Renders `error: message`, `--> file:line:col`, the source line of
/// `span`'s start and a caret under the span.
pub fn render_error(file: &str, src: &str, span: Span, message: &str) -> String {
    diagnostics::render_error(file, src, span.into(), message)
}

/// Renders an error with no position in a text (a whole-file error):
/// `error: message` and `--> file`.
pub fn render_file_error(file: &str, message: &str) -> String {
    diagnostics::render_file_error(file, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_through_the_one_renderer() {
        let src = "    nop\n    frob %r1\n";
        let d = Diagnostic::new("unknown instruction `frob`", Span::new(12, 16));
        let want = diagnostics::render_error("k.mlu", src, diagnostics::Span::new(12, 16), &d.message);
        assert_eq!(d.render("k.mlu", src), want);
        assert!(want.starts_with("error: unknown instruction `frob`\n --> k.mlu:2:5\n"), "{want}");
        assert_eq!(line_col(src, d.span.start), LineCol { line: 2, col: 5 });
    }
}
