//! `keel run`: interpret a function and print its results (and counts).

use crate::input::{Input, Loaded};
use crate::mem_file::MemSpec;
use crate::select::select_one;
use ir_core::interp::{Config, Interpreter, Stats};
use ir_core::text::DisplayInst;
use ir_core::{Global, Imm, Module, parse_literal};
use std::io::Write;
use std::process::ExitCode;

/// What `keel run` was asked to do.
pub(crate) struct RunArgs {
    pub(crate) file: String,
    pub(crate) func: Option<String>,
    pub(crate) args: Vec<String>,
    pub(crate) mems: Vec<MemSpec>,
    pub(crate) fuel: u64,
    pub(crate) stats: bool,
    pub(crate) show_mem: Vec<String>,
    pub(crate) max_memory: u64,
}

/// Exit code for a trap: distinct from bad input (1) and bad usage (2).
const TRAP: u8 = 3;

pub(crate) fn run(a: &RunArgs, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(&a.file) else { return Ok(ExitCode::FAILURE) };
    let Some(Loaded { module, .. }) = input.load("; not running it") else { return Ok(ExitCode::FAILURE) };
    match setup_and_run(&module, a, out) {
        Ok(code) => Ok(code),
        Err(Failed::Write(e)) => Err(e),
        Err(Failed::Input(msg)) => {
            crate::out::say(msg);
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Why a run stopped early: bad input (a message), or a failed write.
enum Failed {
    Input(String),
    Write(std::io::Error),
}

impl From<String> for Failed {
    fn from(msg: String) -> Failed {
        Failed::Input(msg)
    }
}

impl From<&str> for Failed {
    fn from(msg: &str) -> Failed {
        Failed::Input(msg.to_string())
    }
}

impl From<std::io::Error> for Failed {
    fn from(e: std::io::Error) -> Failed {
        Failed::Write(e)
    }
}

fn setup_and_run(module: &Module, a: &RunArgs, out: &mut dyn Write) -> Result<ExitCode, Failed> {
    let func = select_one(module, a.func.as_deref()).map_err(|e| e.to_string())?;
    let f = module.function(func).ok_or("no such function")?;
    let params = &f.signature().params;
    if a.args.len() != params.len() {
        let want: Vec<String> = params.iter().map(|t| t.to_string()).collect();
        return Err(format!(
            "{} takes {} argument(s) ({}), {} given; give each with --arg, e.g. `keel run {}{}{}`",
            crate::out::global(f.name()),
            params.len(),
            want.join(", "),
            a.args.len(),
            a.file,
            a.func.as_ref().map_or(String::new(), |n| format!(" --func {n}")),
            example_args(params)
        )
        .into());
    }
    let args: Vec<Imm> = a
        .args
        .iter()
        .zip(params)
        .enumerate()
        .map(|(i, (text, &ty))| parse_literal(text, ty).map_err(|e| format!("argument {i}: {e}")))
        .collect::<Result<_, _>>()?;
    let config = Config { fuel: a.fuel, max_memory_bytes: a.max_memory, ..Config::default() };
    let mut interp = match Interpreter::new(module, config) {
        Ok(interp) => interp,
        Err(trap) => {
            crate::out::say(format_args!("trap: {}", trap.describe(module)));
            return Ok(ExitCode::from(TRAP));
        }
    };
    crate::mem_file::check_distinct(&a.mems)?;
    for spec in &a.mems {
        load_mem(module, &mut interp, spec)?;
    }
    let outcome = interp.call(func, &args);
    let code = match &outcome {
        Ok(results) => {
            for r in results {
                writeln!(out, "{} {r}", r.ty())?;
            }
            ExitCode::SUCCESS
        }
        Err(trap) => {
            crate::out::say(format_args!("trap: {}", trap.describe(module)));
            ExitCode::from(TRAP)
        }
    };
    for name in &a.show_mem {
        let mem = mem_by_name(module, name)?;
        let values: Vec<String> = interp.memory().elements(mem).iter().map(|v| v.to_string()).collect();
        writeln!(out, "{} = [{}]", crate::out::global(&crate::out::name_arg(name)), values.join(", "))?;
    }
    if a.stats {
        print_stats(module, interp.stats(), out)?;
    }
    Ok(code)
}

/// ` --arg V` for each parameter type: a zero of that type, a command
/// line that works.
pub(crate) fn example_args(params: &[ir_core::Type]) -> String {
    params.iter().map(|t| if t.is_float() { " --arg 0.0" } else { " --arg 0" }).collect()
}

fn mem_by_name(module: &Module, name: &str) -> Result<ir_core::Mem, String> {
    let name = &crate::out::name_arg(name);
    match module.lookup(name) {
        Some(Global::Mem(m)) => Ok(m),
        _ => Err(format!("no memory object {}", crate::out::global(name))),
    }
}

/// `--mem NAME=FILE`: the values of FILE ([`crate::mem_file`]), literals
/// of the object's element type, fill the object from element 0.
fn load_mem(module: &Module, interp: &mut Interpreter<'_>, spec: &MemSpec) -> Result<(), String> {
    let (name, path) = (&spec.name, &spec.path);
    let mem = mem_by_name(module, name)?;
    let elem = module.mem(mem).map(|m| m.elem).ok_or("no such memory object")?;
    let len = interp.memory().len(mem);
    let words = crate::mem_file::read_words(path)?;
    if let Some(w) = words.get(len) {
        return Err(format!("{path}:{}: more values than the {len} elements of {}", w.line, crate::out::global(name)));
    }
    let values = words
        .iter()
        .map(|w| parse_literal(&w.text, elem).map_err(|e| format!("{path}:{}: {e}", w.line)))
        .collect::<Result<Vec<_>, _>>()?;
    interp.memory_mut().write(mem, &values).map_err(|e| format!("{path}: {e}"))
}

fn print_stats(module: &Module, stats: &Stats, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "; executed {} instructions ({} guarded off), {} tensor elements, {} calls, fuel used {}",
        stats.executed, stats.guard_skipped, stats.elements, stats.calls, stats.fuel_used
    )?;
    let mut by_op = stats.opcode_counts();
    by_op.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (op, n) in by_op {
        writeln!(out, ";   {n:>12}  {op}")?;
    }
    let mut hot = stats.inst_counts();
    hot.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    writeln!(out, "; hottest instructions:")?;
    for (f, inst, n) in hot.into_iter().take(10) {
        if let Some(func) = module.function(f) {
            let block = func.layout().inst_block(inst).map_or("?".to_string(), |b| b.to_string());
            writeln!(
                out,
                ";   {n:>12}  {} {block}: {}",
                crate::out::global(func.name()),
                DisplayInst { module, func, inst }
            )?;
        }
    }
    Ok(())
}
