//! The assembly text format: lexer, parser, printer, literals and
//! diagnostics. The grammar is in `docs/mlu-isa.md` §3.
//!
//! Invariants:
//! - For every well-formed program `p`, `parse(print(p)) == p`, and
//!   printing is canonical: `print(parse(print(p))) == print(p)` byte for
//!   byte.
//! - The parser never panics, never recurses, and keeps going after an
//!   error (one per line, at most [`MAX_ERRORS`]); every error carries a
//!   byte span that [`Diagnostic::render`] turns into `file:line:col`, the
//!   line and a caret, drawn by the `diagnostics` crate, Keel's one
//!   renderer for every text format.

mod lexer;
mod literal;
mod parser;
mod printer;

pub use diagnostics::{Diagnostic, LineCol, Span, line_col, render_error, render_file_error};
pub use literal::{format_literal, parse_literal};
pub use parser::{MAX_ERRORS, SourceMap, parse};
pub use printer::{inst_text, print_program, write_program};
