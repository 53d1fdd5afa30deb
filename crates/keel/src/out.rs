//! Standard output, written through one buffered handle, and what a write
//! failure means.
//!
//! Every subcommand writes its output to the `&mut dyn Write` it is given
//! and passes write errors up with `?`; [`finish`] decides what they mean:
//! - a closed pipe (`keel du big.wasm | head -1`) ends the run quietly
//!   with exit 0, as standard tools do;
//! - any other write error (a full disk, `> /dev/full`) is one line,
//!   `keel: cannot write output: REASON`, and exit 1.
//!
//! Nothing is printed with `println!`, which panics on a write error.

use std::io::{BufWriter, ErrorKind, Write};
use std::process::ExitCode;

/// Runs `body` with a buffered standard output, flushes it, and turns a
/// write error into the exit described in the module doc.
pub(crate) fn finish(body: impl FnOnce(&mut dyn Write) -> std::io::Result<ExitCode>) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = body(&mut out).and_then(|code| out.flush().map(|()| code));
    match result {
        Ok(code) => code,
        Err(e) => {
            // The buffer still holds what could not be written; drop it
            // unwritten so that dropping `out` does not try again.
            let _ = out.into_parts();
            write_failure(&e)
        }
    }
}

/// The exit for a failed write of the output (see the module doc).
pub(crate) fn write_failure(e: &std::io::Error) -> ExitCode {
    if e.kind() == ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    eprintln!("keel: cannot write output: {e}");
    ExitCode::FAILURE
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`), for
/// names from the input that reach the terminal.
pub(crate) fn escape_controls(text: String) -> String {
    if text.chars().any(char::is_control) {
        text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
    } else {
        text
    }
}

/// Longest message line [`say`] prints whole.
const MAX_MESSAGE: usize = 4000;

/// Prints `keel: MESSAGE` on stderr as one line: control characters
/// escaped (a name holding a newline or an escape sequence never reaches
/// the terminal raw) and an overlong message cut in the middle.
pub(crate) fn say(message: impl std::fmt::Display) {
    let escaped = escape_controls(message.to_string());
    let n = escaped.chars().count();
    if n > MAX_MESSAGE {
        let head: String = escaped.chars().take(MAX_MESSAGE / 2).collect();
        let tail: String = escaped.chars().skip(n - MAX_MESSAGE / 4).collect();
        eprintln!("keel: {head}...[{} characters cut]...{tail}", n - MAX_MESSAGE / 2 - MAX_MESSAGE / 4);
    } else {
        eprintln!("keel: {escaped}");
    }
}

/// `@name` as the IR spells it (quoted when not a plain name).
pub(crate) fn global(name: &str) -> String {
    let mut s = String::new();
    let _ = ir_core::text::write_global_name(&mut s, name);
    s
}

/// A name given on the command line, with or without its sigil, plain or
/// quoted as the IR writes it (`@"a\nb"`): the name itself. Text that is
/// not one IR name is taken literally.
pub(crate) fn name_arg(text: &str) -> String {
    let bare = text.strip_prefix(['@', '%']).unwrap_or(text);
    ir_core::text::read_name(bare).unwrap_or_else(|| bare.to_string())
}
