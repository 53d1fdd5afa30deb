//! `keel compile --target mlu FILE.kir`: compile a Keel function to MLU
//! assembly (which `keel asm` and `keel sim` read), with an optional
//! compile report as `;` comments (so the output still assembles).

use crate::input::{Input, Loaded};
use crate::select::select_one;
use std::io::{self, Write};
use std::process::ExitCode;
use target_mlu::compile::{AllocatorChoice, CompileOptions, Compiled, compile};

/// Compile a Keel IR function to MLU assembly: registers from
/// regalloc-pebble, syncs and barriers from memdep's dependences, double
/// buffering, fused map runs, and with `--cores N` a multi-core split
/// (`--naive`: the baseline lowering).
///
/// Parameters are read from `@keel.args` and results written to
/// `@keel.ret` (DRAM `i64` objects, canonical bits). Exit status: 0 on
/// success, 1 on bad input or a construct the MLU cannot express (the
/// message names it), 2 on bad usage.
#[derive(clap::Args, Debug)]
pub(crate) struct CompileArgs {
    /// The IR file (`-` reads standard input).
    pub(crate) file: String,
    /// The target (only `mlu`).
    #[arg(long, value_parser = ["mlu"], default_value = "mlu")]
    pub(crate) target: String,
    /// Function to compile (default: `@main`, or the only function).
    #[arg(long)]
    pub(crate) func: Option<String>,
    /// Machine: a preset (mlu270, mlu370, mlu590) or a `key = value` file.
    #[arg(long, default_value = "mlu370")]
    pub(crate) config: String,
    /// Write the assembly to this file instead of stdout.
    #[arg(short, long, value_name = "OUT.mlu")]
    pub(crate) output: Option<String>,
    /// Print the compile report (placement, buffers, syncs and reasons,
    /// registers, static cycles) as `;` comments before the code.
    #[arg(long)]
    pub(crate) report: bool,
    /// Bytes per NRAM staging buffer (a multiple of 512; default: the
    /// largest of 64 KiB .. 512 B that fits).
    #[arg(long, value_name = "BYTES", value_parser = crate::limits::tile_bytes)]
    pub(crate) tile_bytes: Option<u64>,
    /// The register allocator: `pebble` (regalloc-pebble, the default) or
    /// `home` (one home per virtual register, slice 1's baseline).
    #[arg(long, value_enum, default_value_t = Alloc::Pebble)]
    pub(crate) allocator: Alloc,
    /// The naive lowering (the performance baseline): a sync after every
    /// copy and compute instruction and one buffer per tensor slot, instead
    /// of memdep-placed syncs and double buffering.
    #[arg(long)]
    pub(crate) naive: bool,
    /// Split the kernel's tile loops over N cores (SPMD by %taskid; up to
    /// 4 per cluster, more in whole clusters). A kernel that cannot be
    /// split stays single-core and the report says why. Run the output
    /// with `keel sim --cores N` (and `--clusters N/4` past 4).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::limits::cores())]
    pub(crate) cores: u32,
}

/// `--allocator`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Alloc {
    /// regalloc-pebble (red-blue pebbling).
    Pebble,
    /// One home per virtual register.
    Home,
}

/// The compile options the command-line flags select.
pub(crate) fn options(tile_bytes: Option<u64>, allocator: Alloc, naive: bool, cores: u32) -> CompileOptions {
    let base = if naive { CompileOptions::naive() } else { CompileOptions::default() };
    CompileOptions { tile_bytes, allocator: allocator.choice(), cores, max_memory: Some(crate::budget::get()), ..base }
}

impl Alloc {
    pub(crate) fn choice(self) -> AllocatorChoice {
        match self {
            Alloc::Pebble => AllocatorChoice::Pebble,
            Alloc::Home => AllocatorChoice::Home,
        }
    }
}

/// Parses, verifies and compiles; `None` after reporting an error.
pub(crate) fn compile_file(
    file: &str,
    func: Option<&str>,
    config: &str,
    options: &CompileOptions,
) -> Option<(ir_core::Module, ir_core::FuncId, mlu_isa::MachineConfig, Compiled)> {
    let input = Input::read(file)?;
    let Loaded { module, .. } = input.load("; not compiling it")?;
    let config = crate::asm_cmd::load_config(config)?;
    let f = select_one(&module, func).map_err(crate::out::say).ok()?;
    match compile(&module, f, &config, options) {
        Ok(c) => Some((module, f, config, c)),
        Err(e @ target_mlu::compile::CompileError::SyncsTooLarge { .. }) => {
            crate::budget::refused(format_args!("{file}: compile error"), format_args!("{e} (`--naive`)"));
            None
        }
        Err(e) => {
            eprintln!("{file}: compile error: {e}");
            None
        }
    }
}

/// `keel compile`: output through `out`, diagnostics to stderr.
pub(crate) fn compile_cmd(a: &CompileArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let options = options(a.tile_bytes, a.allocator, a.naive, a.cores);
    let Some((_, _, _, c)) = compile_file(&a.file, a.func.as_deref(), &a.config, &options) else {
        return Ok(ExitCode::FAILURE);
    };
    let mut text = Vec::new();
    if a.report {
        c.report.write_text(&mut text)?;
    }
    text.extend_from_slice(mlu_isa::text::print_program(&c.program).as_bytes());
    match &a.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                crate::out::say(format_args!("cannot write {path}: {e}"));
                return Ok(ExitCode::FAILURE);
            }
        }
        None => out.write_all(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
