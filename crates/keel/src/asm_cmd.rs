//! `keel asm FILE.mlu`: parse and verify MLU assembly for a machine
//! configuration, and print it in canonical form. Shared with `keel sim`:
//! reading the input, choosing the configuration, rendering diagnostics
//! (through `mlu_isa::text` with its `render` feature, drawn by the
//! `diagnostics` crate like every other Keel diagnostic).

use crate::input::Input;
use mlu_isa::text::{self, render_file_error};
use mlu_isa::{MachineConfig, Program, verify};
use std::io::{self, Write};
use std::process::ExitCode;

/// Check MLU assembly and print it in canonical form.
///
/// Parses FILE, verifies it for the configuration (every error, located),
/// and prints the canonical text. Exit status: 0 ok, 1 bad input, 2 usage.
#[derive(clap::Args, Debug)]
pub(crate) struct AsmArgs {
    /// The assembly file (`-` reads standard input).
    pub(crate) file: String,
    /// Machine: a preset (mlu270, mlu370, mlu590) or a `key = value` file.
    #[arg(long, default_value = "mlu370")]
    pub(crate) config: String,
    /// Print nothing; exit 1 if the file is not in canonical form.
    #[arg(long)]
    pub(crate) check: bool,
}

/// A parsed and verified assembly file.
pub(crate) struct Assembly {
    pub(crate) name: String,
    pub(crate) program: Program,
    pub(crate) config: MachineConfig,
    pub(crate) src: String,
}

/// Reads `file` (`-`: stdin) through the CLI's one loader
/// ([`Input::read`]) and `config`, parses and verifies; on failure writes
/// the diagnostics to stderr and returns `None`.
pub(crate) fn load(file: &str, config: &str) -> Option<Assembly> {
    let config = load_config(config)?;
    let input = Input::read(file)?;
    let src = input.utf8_text("MLU assembly")?;
    let name = &input.name;
    let (program, smap) = match text::parse(src) {
        Ok(ok) => ok,
        Err(diags) => {
            let _ = crate::input::write_limited(&mut io::stderr().lock(), name, &diags, |d| d.render(name, src));
            eprintln!("{name}: {} error{}", diags.len(), crate::plural(diags.len()));
            return None;
        }
    };
    if let Err(errors) = verify(&program, &config) {
        let _ = crate::input::write_limited(&mut io::stderr().lock(), name, &errors, |e| e.render(name, src, &smap));
        eprintln!("{name}: {} error{} (for {})", errors.len(), crate::plural(errors.len()), config.name);
        return None;
    }
    Some(Assembly { name: name.clone(), program, config, src: src.to_string() })
}

/// A preset name, or a configuration file.
pub(crate) fn load_config(spec: &str) -> Option<MachineConfig> {
    if let Some(c) = MachineConfig::preset(spec) {
        return Some(c);
    }
    let text = match crate::input::read_text(spec) {
        Ok(t) => t,
        Err(e) => {
            let presets = MachineConfig::PRESETS.join(", ");
            let msg = format!("`{spec}` is neither a preset ({presets}) nor a readable configuration file: {e}");
            eprint!("{}", render_file_error(spec, &msg));
            return None;
        }
    };
    match MachineConfig::parse(&text) {
        Ok(c) => Some(c),
        Err(d) => {
            eprint!("{}", d.render(spec, &text));
            None
        }
    }
}

/// `keel asm`: output through `out` (write errors go up to `main`), diagnostics to stderr.
pub(crate) fn asm(a: &AsmArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(l) = load(&a.file, &a.config) else { return Ok(ExitCode::FAILURE) };
    let printed = text::print_program(&l.program);
    if a.check {
        if printed != l.src {
            eprintln!("{}: not in canonical form (run `keel asm {}`)", l.name, l.name);
            return Ok(ExitCode::FAILURE);
        }
        return Ok(ExitCode::SUCCESS);
    }
    out.write_all(printed.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
