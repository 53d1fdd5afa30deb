//! `keel du`: def-use and use-def chains, by the SSA method, the iterative
//! baseline, or both (verified against each other), as a table or JSON.

use crate::input::Input;
use defuse::{Chains, IterativePhases, SsaPhases, iterative_timed, via_ssa_timed};
use ir_core::{FuncId, Module};
use serde_json::{Value, json};
use std::process::ExitCode;

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
}

/// Totals over the functions analysed.
#[derive(Default)]
struct Totals {
    functions: usize,
    definitions: usize,
    uses: usize,
    chain_edges: usize,
    mismatches: usize,
    ssa: SsaPhases,
    iterative: IterativePhases,
}

pub(crate) fn du(a: &DuArgs) -> ExitCode {
    let Some(input) = Input::read(&a.file) else { return ExitCode::FAILURE };
    let Some((module, smap)) = input.parse() else { return ExitCode::FAILURE };
    if let Err(errors) = ir_core::verify_module(&module, &Default::default()) {
        for e in &errors.0 {
            eprint!("{}", e.render(&module, &input.name, input.text(), &smap));
        }
        eprintln!("{}: the module does not verify", input.name);
        return ExitCode::FAILURE;
    }
    let ids: Vec<FuncId> = match &a.func {
        Some(name) => match module.function_by_name(name.strip_prefix('@').unwrap_or(name)) {
            Some(f) => vec![f],
            None => {
                eprintln!("keel: no function @{name}");
                return ExitCode::FAILURE;
            }
        },
        None => module.function_ids().collect(),
    };
    let run_ssa = a.method != Method::Iterative || a.verify || a.stats;
    let run_iterative = a.method != Method::Ssa || a.verify || a.stats;
    let mut totals = Totals::default();
    let mut tables = String::new();
    let mut json_functions = Vec::new();
    let mut mismatch_report = Vec::new();
    for &f in &ids {
        let Some(func) = module.function(f) else { continue };
        let ssa = run_ssa.then(|| via_ssa_timed(func));
        let it = run_iterative.then(|| iterative_timed(func));
        if let Some((_, p)) = &ssa {
            add_ssa(&mut totals.ssa, p);
        }
        if let Some((_, p)) = &it {
            totals.iterative.setup += p.setup;
            totals.iterative.solve += p.solve;
            totals.iterative.extract += p.extract;
        }
        if let (Some((cs, _)), Some((ci, _))) = (&ssa, &it) {
            let diffs = cs.differences(ci);
            totals.mismatches += diffs.len();
            for (u, ds, di) in diffs.iter().take(5) {
                let at = cs.sites().use_at(*u);
                mismatch_report.push(format!(
                    "@{}: use of %{} at {} ({:?}): ssa {:?}, iterative {:?}",
                    func.name(),
                    func.var_name(cs.sites().use_var(*u)),
                    at.inst,
                    at.site,
                    ds,
                    di
                ));
            }
        }
        let chains: &Chains = match (a.method, &ssa, &it) {
            (Method::Iterative, _, Some((c, _))) => c,
            (_, Some((c, _)), _) => c,
            (_, _, Some((c, _))) => c,
            _ => continue,
        };
        totals.functions += 1;
        totals.definitions += chains.sites().num_defs();
        totals.uses += chains.sites().num_uses();
        totals.chain_edges += chains.num_edges();
        match a.format {
            Format::Table if !a.stats || ids.len() == 1 => {
                tables.push_str(&format!("function @{}\n", func.name()));
                let _ = defuse::write_table(&module, func, chains, &mut tables);
                tables.push('\n');
            }
            Format::Json if !a.stats => json_functions.push(function_json(&module, func, chains)),
            _ => {}
        }
    }
    let ssa_s = totals.ssa.total().as_secs_f64();
    let it_s = (totals.iterative.setup + totals.iterative.solve + totals.iterative.extract).as_secs_f64();
    let speedup = if run_ssa && run_iterative && ssa_s > 0.0 { Some(it_s / ssa_s) } else { None };
    match a.format {
        Format::Table => {
            print!("{tables}");
            if a.stats {
                println!(
                    "; {} function(s), {} definitions, {} uses, {} chain edges, {} mismatches",
                    totals.functions, totals.definitions, totals.uses, totals.chain_edges, totals.mismatches
                );
                let p = &totals.ssa;
                println!(
                    "; via SSA {:.6} s: dominators {:.6}, placement {:.6}, renaming {:.6}, folding {:.6}",
                    ssa_s,
                    p.dominators.as_secs_f64(),
                    p.placement.as_secs_f64(),
                    p.renaming.as_secs_f64(),
                    p.folding.as_secs_f64()
                );
                let q = &totals.iterative;
                println!(
                    "; iterative {:.6} s: setup {:.6}, solve {:.6}, extract {:.6}",
                    it_s,
                    q.setup.as_secs_f64(),
                    q.solve.as_secs_f64(),
                    q.extract.as_secs_f64()
                );
                if let Some(r) = speedup {
                    println!("; speedup (iterative / ssa): {r:.2}x");
                }
            }
        }
        Format::Json => {
            let mut obj = json!({
                "file": input.name,
                "functions": totals.functions,
                "definitions": totals.definitions,
                "uses": totals.uses,
                "chain_edges": totals.chain_edges,
                "mismatches": totals.mismatches,
            });
            if a.stats {
                let p = &totals.ssa;
                let q = &totals.iterative;
                obj["ssa_seconds"] = json!(ssa_s);
                obj["iterative_seconds"] = json!(it_s);
                obj["speedup"] = speedup.map_or(Value::Null, |r| json!(r));
                obj["phases"] = json!({
                    "dominators": p.dominators.as_secs_f64(),
                    "placement": p.placement.as_secs_f64(),
                    "renaming": p.renaming.as_secs_f64(),
                    "folding": p.folding.as_secs_f64(),
                    "iterative_setup": q.setup.as_secs_f64(),
                    "iterative_solve": q.solve.as_secs_f64(),
                    "iterative_extract": q.extract.as_secs_f64(),
                });
            } else {
                obj["chains"] = Value::Array(json_functions);
            }
            println!("{obj}");
        }
    }
    for line in &mismatch_report {
        eprintln!("keel: mismatch: {line}");
    }
    if a.verify && totals.mismatches > 0 {
        eprintln!("keel: the methods disagree on {} use(s)", totals.mismatches);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn add_ssa(t: &mut SsaPhases, p: &SsaPhases) {
    t.dominators += p.dominators;
    t.placement += p.placement;
    t.renaming += p.renaming;
    t.folding += p.folding;
}

/// One function's chains: each definition with its uses, by statement name.
fn function_json(m: &Module, func: &ir_core::Function, chains: &Chains) -> Value {
    let names = defuse::StatementNames::of(func);
    let s = chains.sites();
    let def_name = |d| match s.def(d) {
        defuse::Def::Param(i) => format!("param{i}"),
        defuse::Def::Result { inst, .. } => names.name(inst),
    };
    let defs: Vec<Value> = (0..s.num_defs() as u32)
        .map(|d| {
            let uses: Vec<String> = chains.uses_of(d).iter().map(|&u| names.name(s.use_at(u).inst)).collect();
            json!({"def": def_name(d), "var": func.var_name(s.def_var(d)), "uses": uses})
        })
        .collect();
    let _ = m;
    json!({"function": func.name(), "definitions": defs})
}
