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
