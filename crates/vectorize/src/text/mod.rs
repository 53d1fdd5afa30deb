//! The graph IR's text format: a line-oriented syntax in the style of
//! Keel's (`docs/design/vectorize.md` has the grammar), a parser with
//! `file:line:col` diagnostics rendered by Keel's one renderer (the
//! `diagnostics` crate), and its inverse, the printer.
//!
//! ```text
//! func @p(%a: f32, %b: f32, %c: f32) -> f32 {
//!     %t: f32 = fmul %b, %c
//!     %r: f32 = fadd %a, %t
//!     ret %r
//! }
//! ```
//!
//! Invariant: for every graph `g` the verifier accepts,
//! `parse(print(g))` is `g` up to the numbering of unnamed symbols and
//! `print(parse(print(g))) == print(g)` byte for byte, at any nesting
//! depth: past [`MAX_INDENT`] levels the printer stops indenting and ends
//! each line with a `; nesting N` comment, which the parser skips. Both
//! directions are linear in the text's size and never recurse;
//! [`write_graph`] streams to an [`std::io::Write`].

mod lexer;
mod parser;
mod printer;

pub use parser::{MAX_ERRORS, SourceMap, parse};
pub use printer::{MAX_INDENT, print_graph, write_graph};
