//! Text output to an [`std::io::Write`] through [`core::fmt::Write`]: the
//! printers ([`crate::text::write_graph`], [`crate::dot::write_graph`]) are
//! written once against `fmt::Write`, so they fill a `String` or stream to
//! a file or a pipe without building the whole text first.
//!
//! Invariant: the first I/O error is kept and returned; after it nothing
//! more is written (every later write fails at once), so a printer stops
//! at its next write.

use core::fmt;
use std::io;

/// A `fmt::Write` over an `io::Write`, keeping the first I/O error.
pub(crate) struct IoSink<'w, W: io::Write + ?Sized> {
    inner: &'w mut W,
    error: Option<io::Error>,
}

impl<'w, W: io::Write + ?Sized> IoSink<'w, W> {
    /// A sink writing to `inner`.
    pub(crate) fn new(inner: &'w mut W) -> Self {
        IoSink { inner, error: None }
    }

    /// The outcome of a printer that wrote here: its I/O error if one
    /// stopped it, else `Ok` (a formatting error that no I/O error caused
    /// cannot happen with the printers' `Display` impls, and is reported
    /// as [`io::ErrorKind::Other`] if it does).
    pub(crate) fn finish(self, printed: fmt::Result) -> io::Result<()> {
        match (self.error, printed) {
            (Some(e), _) => Err(e),
            (None, Ok(())) => Ok(()),
            (None, Err(fmt::Error)) => Err(io::Error::other("a formatter failed")),
        }
    }
}

impl<W: io::Write + ?Sized> fmt::Write for IoSink<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.error.is_some() {
            return Err(fmt::Error);
        }
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}
