//! `keel sim FILE.mlu`: run MLU assembly on the simulator and print the
//! results (every DRAM object) and, on request, statistics, a trace and
//! hazards.
//!
//! Objects are printed from their declarations and `--mem` names are
//! found through the simulator's name index, so the command is linear in
//! the number of objects (issue 30: a name scan per printed object made
//! 10^5 objects take over 30 s).

use crate::asm_cmd::load;
use crate::mem_file::MemSpec;
use mlu_isa::text::{format_literal, parse_literal};
use mlu_isa::{MemDecl, Program, Space};
use mlu_sim::{Instance, Mode, Outcome, RaceMode, SimOptions, Simulator, Trap};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit code for a trap (a deadlock, a race in error mode, ...).
const TRAP: u8 = 3;

/// Run MLU assembly on the simulator.
///
/// Every core of the launched grid runs FILE; the DRAM objects are printed
/// at the end. Exit status: 0 ok, 1 bad input, 2 usage, 3 trap (a race in
/// error mode, a deadlock, an out-of-bounds access, ...).
#[derive(clap::Args, Debug)]
pub(crate) struct SimArgs {
    /// The assembly file (`-` reads standard input).
    pub(crate) file: String,
    /// Machine: a preset (mlu270, mlu370, mlu590) or a `key = value` file.
    #[arg(long, default_value = "mlu370")]
    pub(crate) config: String,
    /// Clusters to launch.
    #[arg(long, default_value_t = 1, value_parser = crate::limits::cores())]
    pub(crate) clusters: u32,
    /// Cores per cluster to launch (default: all; 1 is a Block task).
    #[arg(long, value_parser = crate::limits::cores())]
    pub(crate) cores: Option<u32>,
    /// Initial contents of an object: literals of its type in FILE, from element 0.
    #[arg(long = "mem", value_name = "NAME=FILE", value_parser = crate::mem_file::mem_spec)]
    pub(crate) mems: Vec<MemSpec>,
    /// Print statistics: cycles, per-pipe busy/stall/idle, copies, rooflines.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Write a Chrome trace-event file (open it in Perfetto).
    #[arg(long, value_name = "OUT.json", conflicts_with = "functional")]
    pub(crate) trace: Option<String>,
    /// Print the trace as a text picture, WIDTH columns wide: a row per core
    /// and pipe, shaded by busy cycles (cycle model only).
    #[arg(long, value_name = "WIDTH", num_args = 0..=1, default_missing_value = "72", value_parser = crate::limits::timeline_width(), conflicts_with = "functional")]
    pub(crate) timeline: Option<usize>,
    /// Output format.
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    pub(crate) format: String,
    /// Functional simulation only (no cycle model; faster).
    #[arg(long)]
    pub(crate) functional: bool,
    /// Races stop the run (`error`) or are reported and the run goes on (`warn`).
    #[arg(long, value_parser = ["error", "warn", "off"], default_value = "error")]
    pub(crate) races: String,
    /// Fuel: instructions plus elements, multiply-accumulates, copied 64-byte blocks and rows.
    #[arg(long, default_value_t = 100_000_000)]
    pub(crate) fuel: u64,
    /// Print every element of each object (text and JSON show the first 16).
    #[arg(long)]
    pub(crate) full: bool,
}

/// `keel sim`: output through `out` (write errors go up to `main`), diagnostics to stderr.
pub(crate) fn sim(a: &SimArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(l) = load(&a.file, &a.config) else { return Ok(ExitCode::FAILURE) };
    let races = match a.races.as_str() {
        "warn" => RaceMode::Warn,
        "off" => RaceMode::Off,
        _ => RaceMode::Error,
    };
    let options = SimOptions {
        clusters: a.clusters,
        cores: a.cores,
        mode: if a.functional { Mode::Functional } else { Mode::Cycle },
        fuel: a.fuel,
        races,
        trace: (a.trace.is_some() || a.timeline.is_some()).then_some(5_000_000),
        record_races: false,
        max_memory: crate::budget::get(),
    };
    let mut sim = match Simulator::new(&l.program, &l.config, options) {
        Ok(s) => s,
        Err(e) => {
            crate::out::say(format_args!("cannot run {}: {e}", l.name));
            return Ok(ExitCode::from(2));
        }
    };
    if let Err(e) = crate::mem_file::check_distinct(&a.mems) {
        crate::out::say(e);
        return Ok(ExitCode::FAILURE);
    }
    for spec in &a.mems {
        if let Err(e) = load_mem(&mut sim, spec) {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    }
    let result = sim.run();
    if let (Ok(o), Some(path)) = (&result, &a.trace)
        && let Some(trace) = &o.trace
    {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut file = io::BufWriter::new(f);
            trace.write_chrome(&mut file, sim.cores_per_cluster(), l.config.clock_mhz)?;
            file.flush()
        });
        if let Err(e) = written {
            crate::out::say(format_args!("cannot write the trace to {path}: {e}"));
            return Ok(ExitCode::FAILURE);
        }
    }
    if let (Ok(o), Some(width)) = (&result, a.timeline)
        && let Some(trace) = &o.trace
    {
        trace.write_timeline(out, o.stats.cycles, width)?;
    }
    if a.format == "json" {
        let v = json_report(&l.program, &sim, &result, a.stats, a.full);
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    } else {
        if let Ok(o) = &result {
            for h in &o.hazards {
                eprintln!("warning: hazard: {h}");
            }
            write_results(&l.program, &sim, a.full, out)?;
            if a.stats {
                o.stats.write_text(out)?;
            }
        }
    }
    out.flush()?;
    match result {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(t) => {
            crate::out::say(format_args!("trap: {t}"));
            Ok(ExitCode::from(TRAP))
        }
    }
}

/// The DRAM objects, in declaration order.
fn results(p: &Program) -> impl Iterator<Item = &MemDecl> {
    p.mems.iter().filter(|m| m.space == Space::Dram)
}

fn write_results(p: &Program, sim: &Simulator<'_>, full: bool, out: &mut dyn Write) -> io::Result<()> {
    for m in results(p) {
        let values = sim.memory().read_object_range(m, Instance::Global, 0, if full { usize::MAX } else { 16 });
        let words: Vec<String> = values.iter().map(|&v| format_literal(v, m.ty)).collect();
        let rest = m.len.saturating_sub(values.len() as u64);
        let more = if rest > 0 { format!(", ... ({rest} more)") } else { String::new() };
        writeln!(out, "@{}: {}[{}] = [{}{more}]", m.name, m.ty, m.len, words.join(", "))?;
    }
    Ok(())
}

fn trap_json(t: &Trap) -> Value {
    json!({
        "kind": t.kind.name(),
        "core": t.core.map(|c| json!({ "task": c.task, "cluster": c.cluster, "core": c.core })),
        "pc": t.pc,
        "inst": t.inst,
        "cycle": t.cycle,
        "message": t.message,
    })
}

fn json_report(p: &Program, sim: &Simulator<'_>, result: &Result<Outcome, Trap>, stats: bool, full: bool) -> Value {
    let mut objects = serde_json::Map::new();
    for m in results(p) {
        let values: Vec<String> = sim
            .memory()
            .read_object_range(m, Instance::Global, 0, if full { usize::MAX } else { 16 })
            .iter()
            .map(|&v| format_literal(v, m.ty))
            .collect();
        objects.insert(m.name.clone(), json!({ "type": m.ty.name(), "len": m.len, "values": values }));
    }
    let mut v = json!({ "results": objects });
    match result {
        Ok(o) => {
            v["hazards"] = Value::Array(o.hazards.iter().map(|h| json!(h.to_string())).collect());
            if stats {
                v["stats"] = o.stats.to_json();
            }
        }
        Err(t) => v["trap"] = trap_json(t),
    }
    v
}

/// `--mem NAME=FILE`: literals of the object's type, separated by blanks,
/// commas or newlines (`;` starts a comment), from element 0.
fn load_mem(sim: &mut Simulator<'_>, spec: &MemSpec) -> Result<(), String> {
    let (name, path) = (&spec.name, &spec.path);
    let m = sim.object(name).ok_or_else(|| format!("no memory object @{name}"))?;
    let values = crate::mem_file::read_words(path)?
        .iter()
        .map(|w| {
            let (neg, body) = match w.text.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, w.text.as_str()),
            };
            parse_literal(neg, body, m.ty).map_err(|e| format!("{path}:{}: {e}", w.line))
        })
        .collect::<Result<Vec<_>, _>>()?;
    sim.write(name, &values).map_err(|e| format!("{path}: {e}"))
}
