//! `keel gen`: print a generated module.
//!
//! The output starts with comments giving the generator settings and the
//! fuel bound for `@main`, so `keel run` can be given exactly that fuel.

use ir_gen::{GenConfig, generate};
use std::io::Write;
use std::process::ExitCode;

/// Adapts an `io::Write` to `fmt::Write` so a huge module streams out
/// instead of being built as one string.
struct IoFmt<W: Write> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W: Write> core::fmt::Write for IoFmt<W> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            core::fmt::Error
        })
    }
}

pub(crate) fn print_generated(config: &GenConfig, seed: u64, command_line: &str) -> ExitCode {
    let g = generate(config, seed);
    let stdout = std::io::stdout().lock();
    let mut w = IoFmt { out: std::io::BufWriter::with_capacity(1 << 20, stdout), error: None };
    let header = format!(
        "; {command_line}\n; fuel bound for @main (any arguments): {}; run with `keel run FILE --fuel {}`\n\n",
        g.fuel, g.fuel
    );
    let result = core::fmt::Write::write_str(&mut w, &header)
        .and_then(|()| ir_core::text::write_module(&g.module, &mut w))
        .ok()
        .and_then(|()| w.out.flush().ok());
    match (result, w.error) {
        (Some(()), _) => ExitCode::SUCCESS,
        (None, Some(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (None, e) => {
            eprintln!("keel: cannot write output: {}", e.map_or("formatting failed".to_string(), |e| e.to_string()));
            ExitCode::FAILURE
        }
    }
}
