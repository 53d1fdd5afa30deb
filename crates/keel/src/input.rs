//! Reading an input file and parsing it, with diagnostics on stderr.

use ir_core::Module;
use ir_core::text::{self, Diagnostic, SourceMap};
use std::io::{Read, Write};

/// A file (or standard input) read into memory.
pub(crate) struct Input {
    /// How diagnostics name the input.
    pub(crate) name: String,
    bytes: Vec<u8>,
    /// The text, or its valid UTF-8 prefix when the file is not UTF-8 (so
    /// that the diagnostic's line and column are still right).
    text: String,
}

impl Input {
    /// Reads `path` (`-` for stdin); prints an error and returns `None` on failure.
    pub(crate) fn read(path: &str) -> Option<Input> {
        let (name, result) = if path == "-" {
            let mut buf = Vec::new();
            ("<stdin>".to_string(), std::io::stdin().read_to_end(&mut buf).map(|_| buf))
        } else {
            (path.to_string(), std::fs::read(path))
        };
        match result {
            Ok(bytes) => {
                let text = match std::str::from_utf8(&bytes) {
                    Ok(s) => s.to_owned(),
                    Err(e) => String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned(),
                };
                Some(Input { name, bytes, text })
            }
            Err(e) => {
                eprintln!("keel: cannot read {name}: {e}");
                None
            }
        }
    }

    /// The input as text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Parses the input; prints diagnostics and returns `None` on failure.
    pub(crate) fn parse(&self) -> Option<(Module, SourceMap)> {
        match text::parse_bytes(&self.bytes) {
            Ok(parsed) => Some(parsed),
            Err(diags) => {
                self.report(&diags);
                None
            }
        }
    }

    fn report(&self, diags: &[Diagnostic]) {
        let mut err = std::io::stderr().lock();
        for d in diags {
            let _ = write!(err, "{}", d.render(&self.name, &self.text));
        }
        let n = diags.len();
        let _ = writeln!(err, "{}: {n} error{}", self.name, if n == 1 { "" } else { "s" });
    }
}
