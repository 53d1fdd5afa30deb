//! The assembly text format: lexer, parser, printer, literals and
//! located diagnostics. The grammar is in `docs/mlu-isa.md` §3.
//!
//! Invariants:
//! - For every well-formed program `p`, `parse(print(p)) == p`, and
//!   printing is canonical: `print(parse(print(p))) == print(p)` byte for
//!   byte.
//! - The parser never panics, never recurses, and keeps going after an
//!   error (one per line, at most [`MAX_ERRORS`]); every error is a
//!   [`Diagnostic`] carrying a byte [`Span`] (plain data, this crate's
//!   own). With the `render` feature, `Diagnostic::render` turns it into
//!   `file:line:col`, the line and a caret, drawn by the `diagnostics`
//!   crate, Keel's one renderer for every text format.

mod diagnostic;
mod lexer;
mod literal;
mod parser;
mod printer;
#[cfg(feature = "render")]
mod render;

pub use diagnostic::{Diagnostic, Span};
pub use literal::{LiteralError, format_literal, parse_literal};
pub use parser::{MAX_ERRORS, SourceMap, parse};
pub use printer::{inst_text, print_program, write_program};
#[cfg(feature = "render")]
pub use render::{LineCol, line_col, render_error, render_file_error};
