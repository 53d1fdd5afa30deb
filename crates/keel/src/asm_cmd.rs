//! `keel asm FILE.mlu`: parse and verify MLU assembly for a machine
//! configuration, and print it in canonical form. Shared with `keel sim`:
//! reading the input, choosing the configuration, rendering diagnostics
//! (through `mlu_isa::text` with its `render` feature, drawn by the
//! `diagnostics` crate like every other Keel diagnostic).

use mlu_isa::text::{self, SourceMap, render_file_error};
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

/// A parsed and verified input.
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub(crate) program: Program,
    pub(crate) config: MachineConfig,
    pub(crate) src: String,
}

/// Reads `file` (`-`: stdin) and `config`, parses and verifies; on failure
/// writes the diagnostics to `err` and returns `None`.
pub(crate) fn load(file: &str, config: &str, err: &mut dyn Write) -> io::Result<Option<Loaded>> {
    let Some(config) = load_config(config, err)? else { return Ok(None) };
    let name = if file == "-" { "<stdin>".to_string() } else { file.to_string() };
    let bytes = crate::input::read_path(file);
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            write!(err, "{}", render_file_error(&name, &format!("cannot read: {e}")))?;
            return Ok(None);
        }
    };
    let src = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let span = text::Span::new(valid, valid + 1);
            write!(err, "{}", text::render_error(&name, &prefix, span, "the file is not UTF-8"))?;
            return Ok(None);
        }
    };
    let (program, smap) = match text::parse(&src) {
        Ok(ok) => ok,
        Err(diags) => {
            crate::input::write_limited(err, &name, &diags, |d| d.render(&name, &src))?;
            writeln!(err, "{name}: {} error{}", diags.len(), if diags.len() == 1 { "" } else { "s" })?;
            return Ok(None);
        }
    };
    if !verified(&name, &src, &program, &smap, &config, err)? {
        return Ok(None);
    }
    Ok(Some(Loaded { name, program, config, src }))
}

fn verified(
    name: &str,
    src: &str,
    p: &Program,
    smap: &SourceMap,
    config: &MachineConfig,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let Err(errors) = verify(p, config) else { return Ok(true) };
    crate::input::write_limited(err, name, &errors, |e| e.render(name, src, smap))?;
    writeln!(err, "{name}: {} error{} (for {})", errors.len(), if errors.len() == 1 { "" } else { "s" }, config.name)?;
    Ok(false)
}

/// A preset name, or a configuration file.
pub(crate) fn load_config(spec: &str, err: &mut dyn Write) -> io::Result<Option<MachineConfig>> {
    if let Some(c) = MachineConfig::preset(spec) {
        return Ok(Some(c));
    }
    let text = match crate::input::read_text(spec) {
        Ok(t) => t,
        Err(e) => {
            let presets = MachineConfig::PRESETS.join(", ");
            let msg = format!("`{spec}` is neither a preset ({presets}) nor a readable configuration file: {e}");
            write!(err, "{}", render_file_error(spec, &msg))?;
            return Ok(None);
        }
    };
    match MachineConfig::parse(&text) {
        Ok(c) => Ok(Some(c)),
        Err(d) => {
            write!(err, "{}", d.render(spec, &text))?;
            Ok(None)
        }
    }
}

/// `keel asm`: output through `out` (write errors go up to `main`), diagnostics to `err`.
pub(crate) fn asm(a: &AsmArgs, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(l) = load(&a.file, &a.config, err)? else { return Ok(ExitCode::FAILURE) };
    let printed = text::print_program(&l.program);
    if a.check {
        if printed != l.src {
            writeln!(err, "{}: not in canonical form (run `keel asm {}`)", l.name, l.name)?;
            return Ok(ExitCode::FAILURE);
        }
        return Ok(ExitCode::SUCCESS);
    }
    out.write_all(printed.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
