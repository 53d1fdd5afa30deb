//! `keel run-mlu FILE.kir`: compile a Keel function for the MLU, run it on
//! the simulator and on the reference interpreter, print both results, the
//! comparison and the simulator's cycle statistics.

use crate::compile_cmd::compile_file;
use ir_core::{Imm, parse_literal};
use std::io::{self, Write};
use std::process::ExitCode;
use target_mlu::compile::CompileOptions;
use target_mlu::differential::{DiffOptions, Verdict};

/// Exit code for a trap in both runs.
const TRAP: u8 = 3;

/// Compile for the MLU, simulate, and compare with the interpreter.
///
/// Exit status: 0 when the simulator agrees with the interpreter (results
/// and every memory object), 1 on bad input, a compile error or a
/// disagreement, 2 on bad usage, 3 when the interpreter traps and the
/// compiled program traps too, or when the interpreter's trap is one the
/// MLU need not reproduce (an undefined value: "not compared").
#[derive(clap::Args, Debug)]
pub(crate) struct RunMluArgs {
    /// The IR file (`-` reads standard input).
    pub(crate) file: String,
    /// Function to run (default: `@main`, or the only function).
    #[arg(long)]
    pub(crate) func: Option<String>,
    /// An argument, in order; a literal of the parameter's type.
    #[arg(long = "arg", value_name = "V", allow_hyphen_values = true)]
    pub(crate) args: Vec<String>,
    /// Machine: a preset (mlu270, mlu370, mlu590) or a `key = value` file.
    #[arg(long, default_value = "mlu370")]
    pub(crate) config: String,
    /// Bytes per NRAM staging buffer (a multiple of 512).
    #[arg(long, value_name = "BYTES", value_parser = crate::limits::tile_bytes)]
    pub(crate) tile_bytes: Option<u64>,
    /// The register allocator (see `keel compile --help`).
    #[arg(long, value_enum, default_value_t = crate::compile_cmd::Alloc::Pebble)]
    pub(crate) allocator: crate::compile_cmd::Alloc,
    /// The naive lowering (see `keel compile --help`).
    #[arg(long)]
    pub(crate) naive: bool,
    /// Split over N cores (see `keel compile --help`); the simulator
    /// launches as many.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::limits::cores())]
    pub(crate) cores: u32,
    /// Fuel for the interpreter and (×10) the simulator.
    #[arg(long, default_value_t = 100_000_000)]
    pub(crate) fuel: u64,
    /// Also print the compile report and the simulator's full statistics.
    #[arg(long)]
    pub(crate) stats: bool,
}

/// `keel run-mlu`: output through `out`, diagnostics to stderr.
pub(crate) fn run_mlu(a: &RunMluArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let chosen = crate::compile_cmd::options(a.tile_bytes, a.allocator, a.naive, a.cores);
    let Some((module, f, config, compiled)) = compile_file(&a.file, a.func.as_deref(), &a.config, &chosen) else {
        return Ok(ExitCode::FAILURE);
    };
    let params = module.function(f).map(|x| x.signature().params.clone()).unwrap_or_default();
    if a.args.len() != params.len() {
        let want: Vec<String> = params.iter().map(|t| t.to_string()).collect();
        eprintln!(
            "keel: the function takes {} argument(s) ({}), {} given; give each with --arg, e.g. `keel run-mlu {}{}`",
            params.len(),
            want.join(", "),
            a.args.len(),
            a.file,
            crate::run::example_args(&params)
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut args: Vec<Imm> = Vec::with_capacity(params.len());
    for (i, (text, &ty)) in a.args.iter().zip(&params).enumerate() {
        match parse_literal(text, ty) {
            Ok(v) => args.push(v),
            Err(e) => {
                crate::out::say(format_args!("argument {i}: {e}"));
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let options = DiffOptions {
        config,
        compile: CompileOptions { tile_bytes: Some(compiled.report.tile_bytes), ..chosen },
        interp_fuel: a.fuel,
        sim_fuel: a.fuel.saturating_mul(10),
        cycles: true,
        max_memory: crate::budget::get(),
    };
    let r = match target_mlu::differential::run(&module, f, &args, &options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {e}", a.file);
            return Ok(ExitCode::FAILURE);
        }
    };
    let show = |v: Result<&Vec<Imm>, String>| match v {
        Ok(vals) if vals.is_empty() => "(no results)".to_string(),
        Ok(vals) => vals.iter().map(|x| format!("{} {x}", x.ty())).collect::<Vec<_>>().join(", "),
        Err(t) => format!("trap: {t}"),
    };
    writeln!(out, "interpreter: {}", show(r.interpreted.as_ref().map_err(|t| t.describe(&module))))?;
    writeln!(out, "simulator:   {}", show(r.simulated.as_ref().map_err(|t| t.to_string())))?;
    if let Some(s) = &r.stats {
        let instructions: u64 = s.cores.iter().map(|c| c.instructions).sum();
        writeln!(
            out,
            "cycles: {} ({} instructions issued, {} syncs compiled in, {} hazards)",
            s.cycles,
            instructions,
            r.compiled.report.syncs.len(),
            s.hazards
        )?;
    }
    if a.stats {
        r.compiled.report.write_text(out)?;
        if let Some(s) = &r.stats {
            s.write_text(out)?;
        }
    }
    Ok(match &r.verdict {
        Verdict::Equal if r.interpreted.is_err() => {
            writeln!(out, "equal: both trap")?;
            ExitCode::from(TRAP)
        }
        Verdict::Equal => {
            writeln!(out, "equal: results and every memory object")?;
            ExitCode::SUCCESS
        }
        Verdict::Skipped(why) => {
            writeln!(out, "not compared: {why}")?;
            ExitCode::from(TRAP)
        }
        Verdict::Differ(d) => {
            writeln!(out, "DIFFER:")?;
            for line in d {
                writeln!(out, "  {line}")?;
            }
            ExitCode::FAILURE
        }
    })
}
