//! `keel gen`: print a generated module.
//!
//! The output starts with comments giving the generator settings and the
//! fuel bound for `@main`, so `keel run` can be given exactly that fuel.

use ir_gen::{GenConfig, generate};
use std::io::Write;
use std::process::ExitCode;

/// Adapts an `io::Write` to `fmt::Write` so a huge module streams out
/// instead of being built as one string.
struct IoFmt<'a> {
    out: &'a mut dyn Write,
    error: Option<std::io::Error>,
}

impl core::fmt::Write for IoFmt<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            core::fmt::Error
        })
    }
}

pub(crate) fn print_generated(
    config: &GenConfig,
    seed: u64,
    command_line: &str,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let g = generate(config, seed);
    let mut w = IoFmt { out, error: None };
    let header = format!(
        "; {command_line}\n; fuel bound for @main (any arguments): {}; run with `keel run FILE --fuel {}`\n\n",
        g.fuel, g.fuel
    );
    let result = core::fmt::Write::write_str(&mut w, &header)
        .and_then(|()| ir_core::text::write_module(&g.module, &mut w));
    match (result, w.error) {
        (Ok(()), _) => Ok(ExitCode::SUCCESS),
        (Err(_), Some(e)) => Err(e),
        (Err(_), None) => Err(std::io::Error::other("formatting failed")),
    }
}
