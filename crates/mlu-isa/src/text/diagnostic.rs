//! Located errors as plain data: a byte [`Span`] into the assembly text and
//! a [`Diagnostic`] (a message at a span).
//!
//! The ISA crate keeps its own two small structs so that it depends on no
//! other workspace crate; drawing them (`file:line:col`, the line, a caret)
//! is the optional `render` feature, which hands them to the `diagnostics`
//! crate, Keel's one renderer (see `text/render.rs`).
//!
//! Invariants: a span's `start <= end` when made by [`Span::new`] or
//! [`Span::to`]; offsets are bytes into the text the span was made from
//! (the parser refuses inputs of 4 GiB or more, so every offset fits `u32`).

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
    /// A span from byte offsets (saturating at `u32::MAX`; the parser
    /// rejects larger inputs first). An `end` before `start` is `start`.
    pub fn new(start: usize, end: usize) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span { start: clamp(start), end: clamp(end.max(start)) }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// An error found in a source text: what went wrong, and where.
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
}

impl fmt::Display for Diagnostic {
    /// The message and the byte range; with the `render` feature,
    /// `Diagnostic::render` draws it against its source instead.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (bytes {}..{})", self.message, self.span.start, self.span.end)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_clamp_and_join() {
        assert_eq!(Span::new(5, 2), Span { start: 5, end: 5 });
        assert_eq!(Span::new(usize::MAX, usize::MAX), Span { start: u32::MAX, end: u32::MAX });
        assert_eq!(Span::new(4, 6).to(Span::new(1, 2)), Span { start: 1, end: 6 });
    }

    #[test]
    fn display_names_the_bytes() {
        assert_eq!(Diagnostic::new("oops", Span::new(3, 7)).to_string(), "oops (bytes 3..7)");
    }
}
