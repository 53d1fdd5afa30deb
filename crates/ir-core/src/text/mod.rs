//! The text format: parser, printer, diagnostics. Grammar and semantics are
//! in `docs/ir.md`.
//!
//! Invariants:
//! - `parse(print(m))` rebuilds `m` exactly, ill-typed or not, for every
//!   module whose instructions are well-formed (no verifier `Arity` or
//!   `UnknownEntity` errors: a malformed instruction prints as far as its
//!   data allows) and whose block numbers are not absurdly sparse (see
//!   [`ParseLimits`]); and printing is canonical:
//!   `print(parse(print(m))) == print(m)` byte for byte.
//! - The parser never panics, never recurses on input structure (the grammar
//!   is flat: one construct per line), and allocates in proportion to its
//!   input: block numbers are preserved, so gaps are charged against a
//!   module-wide budget.
//! - Diagnostics carry byte spans; [`Diagnostic::render`] turns them into
//!   `error: message`, `--> file:line:col`, the source line and a caret.
//!   Spans, diagnostics and the renderer are the `diagnostics` crate's,
//!   re-exported here: the one rendering path for every Keel text format
//!   (this parser and verifier, the WebAssembly importer, the graph IR,
//!   MLU assembly and the `keel` tool).

mod comments;
mod context;
mod lexer;
mod parser;
mod printer;
mod span;

pub use comments::Comments;
pub use diagnostics::{
    Diagnostic, LineCol, LineIndex, MAX_SHOWN, Span, line_col, render_error, render_error_indexed, render_file_error,
    shown,
};
pub use parser::{ParseLimits, parse, parse_bytes, parse_with};
pub use printer::{
    DisplayInst, print_function, print_module, print_module_with_comments, write_function, write_module,
    write_module_with,
};
pub use span::{FuncSpans, SourceMap};

use core::fmt;

/// Reads a name as the text format writes it after its sigil: a plain
/// name (`main`) or a quoted one with escapes (`"a\nb"`). `None` when
/// `text` is not exactly one name. The inverse of [`write_global_name`]
/// and [`write_var_name`] without their sigil.
pub fn read_name(text: &str) -> Option<String> {
    lexer::read_name(text)
}

/// Writes `%name`, quoting the name when it is not a plain name.
pub fn write_var_name(out: &mut impl fmt::Write, name: &str) -> fmt::Result {
    lexer::write_name(out, '%', name)
}

/// Writes `@name`, quoting the name when it is not a plain name.
pub fn write_global_name(out: &mut impl fmt::Write, name: &str) -> fmt::Result {
    lexer::write_name(out, '@', name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_and_clamps() {
        let src = "a\n\tbé def\n";
        assert_eq!(line_col(src, 7), LineCol { line: 2, col: 5 });
        // Inside `é` (bytes 4..6): the character's own column.
        assert_eq!(line_col(src, 5), LineCol { line: 2, col: 3 });
        assert_eq!(line_col(src, 100), LineCol { line: 3, col: 1 });
        // The `\n` of a `\r\n` is where the `\r` is.
        assert_eq!(line_col("ab\r\ncd", 3), LineCol { line: 1, col: 3 });
        assert_eq!(line_col("ab\r\ncd", 2), LineCol { line: 1, col: 3 });
    }
}
