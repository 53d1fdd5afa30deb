//! `keel du`: def-use and use-def chains, by the SSA method, the iterative
//! baseline, or both (verified against each other), as a table or JSON.
//!
//! Functions are independent, so they are analysed in parallel (`--jobs`,
//! the CLI's [`Workers`]) with a progress
//! bar on a terminal. Tables stream out in function order, so the output
//! is the same for any number of jobs; the JSON format, one object,
//! collects its chains first. Times are summed over
//! functions: each method's time is the time its calls took, whichever
//! thread ran them, and the ratio compares those sums. `wall_seconds` is
//! the elapsed time of the whole analysis. Each worker thread keeps one
//! `ViaSsa` and one `Iterative` context, so both methods reuse their
//! buffers from function to function (the iterative method's bit matrices
//! are the larger saving).

use crate::input::{Input, Loaded};
use crate::per_function::Workers;
use crate::select::{Scope, select};
use defuse::{Chains, Iterative, IterativePhases, SsaPhases, ViaSsa};
use ir_core::{Function, Module};
use serde_json::{Value, json};
use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::Instant;

/// Which method computes the chains.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Method {
    /// Through SSA (the DU-chain document's method).
    Ssa,
    /// Iterative reaching definitions over bit vectors.
    Iterative,
    /// Both, compared.
    Both,
}

/// Output format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// One row per statement, in the document's style.
    Table,
    /// One JSON object, for tools.
    Json,
}

pub(crate) struct DuArgs {
    pub(crate) file: String,
    pub(crate) func: Option<String>,
    pub(crate) method: Method,
    pub(crate) verify: bool,
    pub(crate) format: Format,
    pub(crate) stats: bool,
    pub(crate) jobs: Option<usize>,
    /// Memory the iterative baseline's bit matrices may take at once, in
    /// bytes (over all functions analysed at the same time).
    pub(crate) max_memory: u64,
}

/// Bytes of baseline matrices in use at once, shared by the workers: a
/// function whose estimate fits the budget waits until it fits beside the
/// ones running (none waits forever: each fits alone, and every holder
/// releases when done).
struct Budget {
    limit: u64,
    used: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
}

impl Budget {
    fn reserve(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used > 0 && *used + bytes > self.limit {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += bytes;
    }

    fn release(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        *used -= bytes;
        self.freed.notify_all();
    }
}

/// A context that took more than this for one function drops its buffers
/// afterwards, so idle workers do not hold what the budget no longer
/// counts.
const KEEP_WARM_BYTES: u64 = 64 << 20;

/// Sizes, results and phase times: of one function, or summed over many.
#[derive(Default)]
struct Counts {
    functions: usize,
    instructions: usize,
    vars: usize,
    definitions: usize,
    uses: usize,
    chain_edges: usize,
    mismatches: usize,
    /// Functions the iterative baseline skipped (over the memory budget).
    iterative_skipped: usize,
    ssa: SsaPhases,
    iterative: IterativePhases,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.functions += o.functions;
        self.instructions += o.instructions;
        self.vars += o.vars;
        self.definitions += o.definitions;
        self.uses += o.uses;
        self.chain_edges += o.chain_edges;
        self.mismatches += o.mismatches;
        self.iterative_skipped += o.iterative_skipped;
        self.ssa += o.ssa;
        self.iterative += o.iterative;
    }
}

/// What one function gave.
#[derive(Default)]
struct FuncOutcome {
    counts: Counts,
    mismatch_lines: Vec<String>,
    /// Why the iterative baseline did not run, when it did not.
    skip_line: Option<String>,
    /// The table or JSON of its chains, when the output shows them.
    table: Option<String>,
    json: Option<Value>,
}

pub(crate) fn du(a: &DuArgs, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(&a.file) else { return Ok(ExitCode::FAILURE) };
    let Some(loaded) = input.load("") else { return Ok(ExitCode::FAILURE) };
    let module = &loaded.module;
    let ids = match select(module, a.func.as_deref(), Scope::All) {
        Ok(ids) => ids,
        Err(e) => {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    };
    let workers = Workers::new(a.jobs, ids.len());
    let jobs = workers.jobs();
    let budget = Budget { limit: a.max_memory, used: std::sync::Mutex::new(0), freed: std::sync::Condvar::new() };
    let show_each = match a.format {
        Format::Table => !a.stats || ids.len() == 1,
        Format::Json => !a.stats,
    };
    let start = Instant::now();
    let mut totals = Counts::default();
    let mut mismatch_lines = Vec::new();
    let mut skip_lines = Vec::new();
    let mut chains_json = Vec::new();
    // One pair of method contexts per worker thread: buffers are reused
    // from one function to the next, for both methods alike. Tables stream
    // out in function order as they are ready.
    // `emit` never breaks: every function is analysed.
    let _ = workers.run(
        &ids,
        || (ViaSsa::new(), Iterative::new()),
        |ctx, &f| module.function(f).map(|func| analyse(module, func, a, show_each, &budget, ctx)).unwrap_or_default(),
        |o| {
            totals.add(&o.counts);
            mismatch_lines.extend(o.mismatch_lines);
            skip_lines.extend(o.skip_line);
            chains_json.extend(o.json);
            if let Some(t) = &o.table {
                out.write_all(t.as_bytes())?;
            }
            Ok(ControlFlow::Continue(()))
        },
    )?;
    let wall = start.elapsed().as_secs_f64();

    let run_ssa = a.method != Method::Iterative || a.verify || a.stats;
    let run_iterative = a.method != Method::Ssa || a.verify || a.stats;
    let ssa_s = totals.ssa.total().as_secs_f64();
    let it_s = totals.iterative.total().as_secs_f64();
    let both_ran = run_ssa && run_iterative && totals.iterative_skipped == 0;
    let speedup = if both_ran && ssa_s > 0.0 { Some(it_s / ssa_s) } else { None };
    match a.format {
        Format::Table => {
            if a.stats {
                print_stats(&loaded, &totals, ssa_s, it_s, speedup, wall, jobs, out)?;
            }
        }
        Format::Json => {
            let mut obj = json!({
                "file": input.name,
                "functions": totals.functions,
                "imported": loaded.imported,
                "failed": loaded.failures.len(),
                "instructions": totals.instructions,
                "variables": totals.vars,
                "definitions": totals.definitions,
                "uses": totals.uses,
                "chain_edges": totals.chain_edges,
                "mismatches": totals.mismatches,
                "iterative_skipped": totals.iterative_skipped,
            });
            if !loaded.failures.is_empty() {
                obj["failures"] = loaded
                    .failures
                    .iter()
                    .map(|f| json!({"index": f.index, "name": f.name, "reason": f.reason}))
                    .collect();
            }
            if a.stats {
                let p = &totals.ssa;
                let q = &totals.iterative;
                obj["ssa_seconds"] = json!(ssa_s);
                obj["iterative_seconds"] = json!(it_s);
                obj["speedup"] = speedup.map_or(Value::Null, |r| json!(r));
                obj["wall_seconds"] = json!(wall);
                obj["jobs"] = json!(jobs);
                obj["phases"] = json!({
                    "dominators": p.dominators.as_secs_f64(),
                    "walk": p.walk.as_secs_f64(),
                    "frontiers": p.frontiers.as_secs_f64(),
                    "placement": p.placement.as_secs_f64(),
                    "renaming": p.renaming.as_secs_f64(),
                    "folding": p.folding.as_secs_f64(),
                    "iterative_setup": q.setup.as_secs_f64(),
                    "iterative_solve": q.solve.as_secs_f64(),
                    "iterative_extract": q.extract.as_secs_f64(),
                });
            } else {
                obj["chains"] = Value::Array(chains_json);
            }
            writeln!(out, "{obj}")?;
        }
    }
    for line in &mismatch_lines {
        crate::out::say(format_args!("mismatch: {line}"));
    }
    for line in &skip_lines {
        crate::out::say(line);
    }
    if totals.iterative_skipped > 0 {
        eprintln!(
            "keel: the iterative baseline skipped {} function(s) over --max-memory {}; raise it to run them",
            totals.iterative_skipped,
            crate::size::show_size(a.max_memory)
        );
        if a.method == Method::Iterative {
            return Ok(ExitCode::FAILURE);
        }
        if a.verify {
            eprintln!("keel: not verified: the methods were compared only where both ran");
            return Ok(ExitCode::FAILURE);
        }
    }
    if a.verify && totals.mismatches > 0 {
        eprintln!("keel: the methods disagree on {} use(s)", totals.mismatches);
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Chains of one function by the methods asked for, compared when both ran.
fn analyse(
    module: &Module,
    func: &Function,
    a: &DuArgs,
    show: bool,
    budget: &Budget,
    (via, baseline): &mut (ViaSsa, Iterative),
) -> FuncOutcome {
    let run_ssa = a.method != Method::Iterative || a.verify || a.stats;
    let mut run_iterative = a.method != Method::Ssa || a.verify || a.stats;
    // The baseline's bit matrices are blocks x definitions: estimate them
    // before allocating, refuse what exceeds the budget.
    let matrix_bytes = if run_iterative { defuse::iterative_matrix_bytes(func) } else { 0 };
    let mut skip_line = None;
    if run_iterative && matrix_bytes > budget.limit {
        run_iterative = false;
        skip_line = Some(format!(
            "{}: iterative baseline skipped: its bit matrices need {} ({} blocks x definitions), over --max-memory {}",
            crate::out::global(func.name()),
            crate::size::show_size(matrix_bytes),
            func.layout().num_blocks(),
            crate::size::show_size(budget.limit)
        ));
        if a.method == Method::Iterative {
            let mut o = FuncOutcome::default();
            o.counts.functions = 1;
            o.counts.iterative_skipped = 1;
            o.skip_line = skip_line;
            return o;
        }
    }
    let iterative = |baseline: &mut Iterative| {
        budget.reserve(matrix_bytes);
        let r = baseline.compute_function_timed(func);
        budget.release(matrix_bytes);
        if matrix_bytes > KEEP_WARM_BYTES {
            *baseline = Iterative::new();
        }
        r
    };
    // The input is verified first, so neither method should reject it; if
    // one does, the function counts as a mismatch with the reason.
    let (ssa, it) = match (
        run_ssa.then(|| via.compute_function_timed(func)).transpose(),
        run_iterative.then(|| iterative(baseline)).transpose(),
    ) {
        (Ok(ssa), Ok(it)) => (ssa, it),
        (Err(e), _) | (_, Err(e)) => {
            let mut o = FuncOutcome::default();
            o.counts.functions = 1;
            o.counts.mismatches = 1;
            o.mismatch_lines.push(format!("{}: rejected as input: {e}", crate::out::global(func.name())));
            return o;
        }
    };
    let mut o = FuncOutcome {
        counts: Counts {
            functions: 1,
            instructions: func.num_insts(),
            vars: func.num_vars(),
            ssa: ssa.as_ref().map(|(_, p)| *p).unwrap_or_default(),
            iterative: it.as_ref().map(|(_, p)| *p).unwrap_or_default(),
            iterative_skipped: usize::from(skip_line.is_some()),
            ..Counts::default()
        },
        skip_line,
        ..FuncOutcome::default()
    };
    if let (Some((cs, _)), Some((ci, _))) = (&ssa, &it) {
        let diffs = cs.differences(ci);
        o.counts.mismatches = diffs.len();
        for (u, ds, di) in diffs.iter().take(5) {
            let Some(at) = cs.sites().use_at(*u) else { continue };
            let inst = ir_core::Inst::from_u32(at.inst);
            let var = cs.sites().use_var(*u).map_or("?", |v| func.var_name(ir_core::Var::from_u32(v)));
            o.mismatch_lines.push(format!(
                "{}: use of %{var} at {inst} ({:?}): ssa {:?}, iterative {:?}",
                crate::out::global(func.name()),
                func.use_site(inst, at.index),
                ds,
                di
            ));
        }
    }
    let chains: &Chains = match (a.method, &ssa, &it) {
        (Method::Iterative, _, Some((c, _))) => c,
        (_, Some((c, _)), _) | (_, _, Some((c, _))) => c,
        _ => return o,
    };
    o.counts.definitions = chains.sites().num_defs();
    o.counts.uses = chains.sites().num_uses();
    o.counts.chain_edges = chains.num_edges();
    if show {
        match a.format {
            Format::Table => {
                let mut t = format!("function {}\n", crate::out::global(func.name()));
                let _ = defuse::write_table(module, func, chains, &mut t);
                t.push('\n');
                o.table = Some(t);
            }
            Format::Json => o.json = Some(function_json(func, chains)),
        }
    }
    o
}

#[allow(clippy::too_many_arguments)]
fn print_stats(
    loaded: &Loaded,
    t: &Counts,
    ssa_s: f64,
    it_s: f64,
    speedup: Option<f64>,
    wall: f64,
    jobs: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if loaded.imported.is_some() || !loaded.failures.is_empty() {
        writeln!(
            out,
            "; imported {} function(s), {} failed",
            loaded.imported.unwrap_or(t.functions),
            loaded.failures.len()
        )?;
    }
    writeln!(
        out,
        "; {} function(s), {} instructions, {} variables, {} definitions, {} uses, {} chain edges, {} mismatches",
        t.functions, t.instructions, t.vars, t.definitions, t.uses, t.chain_edges, t.mismatches
    )?;
    let p = &t.ssa;
    writeln!(
        out,
        "; via SSA {:.6} s: dominators {:.6}, walk {:.6}, frontiers {:.6}, placement {:.6}, renaming {:.6}, folding {:.6}",
        ssa_s,
        p.dominators.as_secs_f64(),
        p.walk.as_secs_f64(),
        p.frontiers.as_secs_f64(),
        p.placement.as_secs_f64(),
        p.renaming.as_secs_f64(),
        p.folding.as_secs_f64()
    )?;
    let q = &t.iterative;
    writeln!(
        out,
        "; iterative {:.6} s: setup {:.6}, solve {:.6}, extract {:.6}",
        it_s,
        q.setup.as_secs_f64(),
        q.solve.as_secs_f64(),
        q.extract.as_secs_f64()
    )?;
    if let Some(r) = speedup {
        let verdict = if r >= 1.0 { "the SSA method was faster" } else { "the iterative baseline was faster" };
        writeln!(
            out,
            "; speedup (iterative time / SSA time): {r:.2}x: {verdict}; above 1x the SSA method wins. The tuned \
             baseline wins on small functions (under about 1,000 blocks), the SSA method on large ones \
             (docs/benchmarks-defuse.md)"
        )?;
    }
    writeln!(out, "; wall time {wall:.3} s on {jobs} job(s)")
}

/// One function's chains: each definition with its uses, by statement name.
fn function_json(func: &Function, chains: &Chains) -> Value {
    let names = defuse::StatementNames::of(func);
    let s = chains.sites();
    let defs: Vec<Value> = (0..s.num_defs() as u32)
        .filter_map(|d| Some((s.def(d)?, s.def_var(d)?, d)))
        .map(|(def, var, d)| {
            let uses: Vec<String> =
                chains.uses_of(d).iter().filter_map(|&u| s.use_at(u)).map(|at| names.name_of(at.inst)).collect();
            json!({"def": names.def(def), "var": func.var_name(ir_core::Var::from_u32(var)), "uses": uses})
        })
        .collect();
    json!({"function": func.name(), "definitions": defs})
}
