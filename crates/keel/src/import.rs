//! `keel import`: a WebAssembly module to IR text (`wasm-import`).
//!
//! The text goes to stdout or `-o FILE`; a summary (functions imported and
//! failed, blocks, instructions, intrinsics by name, notes on what the IR
//! does not carry) goes to stderr, so the output can be piped into the
//! other subcommands. A function that cannot be imported is listed and
//! becomes an `extern`; only an invalid module is an error (exit 1).

use crate::input::Input;
use crate::input::import_wasm;
use std::io::Write;
use std::process::ExitCode;
use wasm_import::ImportOptions;

pub(crate) fn import(
    file: &str,
    output: Option<&str>,
    only: Option<u32>,
    names: bool,
    quiet: bool,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    if !input.is_wasm() {
        let message = "not a WebAssembly binary (it does not start with `\\0asm`)";
        eprint!("{}", ir_core::text::render_file_error(&input.name, message));
        return Ok(ExitCode::FAILURE);
    }
    let options = ImportOptions { only, use_names: names, ..ImportOptions::default() };
    let Some(imported) = import_wasm(&input, &options) else { return Ok(ExitCode::FAILURE) };
    let text = ir_core::text::print_module(&imported.module);
    match output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("keel: cannot write {path}: {e}");
                return Ok(ExitCode::FAILURE);
            }
        }
        None => out.write_all(text.as_bytes())?,
    }
    if quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let c = &imported.counts;
    let skipped = if c.skipped > 0 { format!(", {} not selected", c.skipped) } else { String::new() };
    eprintln!(
        "{}: imported {} of {} functions ({:.2}%), {} failed{skipped}; {} imports as externs; {} blocks, {} instructions, {} intrinsics",
        input.name,
        c.imported,
        c.functions - c.skipped,
        imported.rate() * 100.0,
        c.failed,
        c.externs,
        c.blocks,
        c.instructions,
        c.intrinsics
    );
    for f in imported.functions.iter().filter(|f| f.selected) {
        if let Err(e) = &f.result {
            let line = format!("  function {} ({}) not imported: {e}", f.index, f.name);
            eprintln!("{}", crate::out::escape_controls(line));
        }
    }
    if !imported.intrinsics.is_empty() {
        let list: Vec<String> = imported.intrinsics.iter().map(|(name, n)| format!("{name} x{n}")).collect();
        eprintln!("{}", crate::out::escape_controls(format!("  intrinsics: {}", list.join(", "))));
    }
    for note in &imported.notes {
        eprintln!("{}", crate::out::escape_controls(format!("  note: {note}")));
    }
    Ok(ExitCode::SUCCESS)
}
