//! `keel pre`: partial redundancy elimination of each function (or one):
//! the function is put in SSA form, then transformed by semantic PRE on the
//! sparse value flow graph (`svfg`, the default), lazy code motion (`lcm`)
//! or plain GVN (`gvn`), and the module is printed. `--stats` adds, per
//! function, the computations removed and inserted, the phis placed,
//! created and deleted, and phase times (as `;` comments in text, an object
//! in JSON). Also `svfg_dot`, the `keel dot --what svfg` view.
//!
//! FILE is IR text or a WebAssembly module. Functions are transformed one
//! after the other (the module is shared), with a progress bar on a
//! terminal. Exit codes: 0 ok, 1 bad input or an unwritable output, 2 bad
//! usage.

use crate::input::Input;
use crate::per_function::progress;
use crate::select::{Scope, select};
use ir_core::{Function, Module, text};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use svfg_pre::{Method, Source};

/// Which transform.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PreMethod {
    /// Semantic PRE on the sparse value flow graph (with the extension
    /// step: phi translation).
    Svfg,
    /// Semantic PRE on the semi-SVFG alone (no extension step): fewer
    /// insertions, less time.
    Semi,
    /// Lazy code motion over lexically equal expressions (the baseline).
    Lcm,
    /// Plain GVN: dominated recomputations become copies, no insertion.
    Gvn,
}

/// Output format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The transformed IR (statistics as `;` comments).
    Text,
    /// `{"ir": TEXT, "functions": [{"name", "removed", ...}]}`.
    Json,
}

/// How the command transforms and prints.
#[derive(Clone, Copy)]
pub(crate) struct PreOptions {
    /// The transform.
    pub(crate) method: PreMethod,
    /// Take the result out of SSA form.
    pub(crate) destruct: bool,
    /// Rotate top-tested loops before SSA construction.
    pub(crate) rotate: bool,
    /// Forward copies and delete what is unused after the transform.
    pub(crate) cleanup: bool,
    /// Add statistics.
    pub(crate) stats: bool,
    /// Output format.
    pub(crate) format: Format,
}

/// The module of `file` and the functions `func` selects (all when
/// `None`); `None` after saying why on standard error.
fn load_selected(file: &str, func: Option<&str>) -> Option<(Module, Vec<ir_core::FuncId>)> {
    let loaded = Input::read(file)?.load("")?;
    match select(&loaded.module, func, Scope::All) {
        Ok(ids) => Some((loaded.module, ids)),
        Err(e) => {
            crate::out::say(e);
            None
        }
    }
}

/// Runs the command.
pub(crate) fn pre(file: &str, func: Option<&str>, opts: &PreOptions, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let PreOptions { method, destruct, rotate, cleanup, stats, format } = *opts;
    let Some((mut module, ids)) = load_selected(file, func) else { return Ok(ExitCode::FAILURE) };
    let mut rows = Vec::new();
    let bar = progress(ids.len());
    for &f in &ids {
        bar.inc(1);
        let Some(body) = module.function_mut(f) else { continue };
        let name = crate::out::global(body.name());
        let rotated = rotate.then(|| svfg_pre::rotate_loops(body).rotated);
        if let Err(e) = ssa::construct(body, &ssa::Options::default()) {
            crate::out::say(format_args!("SSA construction of {name} failed: {e}"));
            return Ok(ExitCode::FAILURE);
        }
        let row = match method {
            PreMethod::Lcm => {
                let s = match svfg_pre::lcm(body, crate::budget::get()) {
                    Ok(s) => s,
                    Err(e) => {
                        crate::budget::refused(&name, e);
                        return Ok(ExitCode::FAILURE);
                    }
                };
                // LCM's output is not SSA (its temporaries are plain
                // vars): the clean-up takes it out of SSA and back in.
                let cleaned = if cleanup {
                    ssa::destruct(body);
                    if let Err(e) = ssa::construct(body, &ssa::Options::default()) {
                        crate::out::say(format_args!("SSA construction of {name} after LCM failed: {e}"));
                        return Ok(ExitCode::FAILURE);
                    }
                    let Some(c) = clean_up(body, &name) else { return Ok(ExitCode::FAILURE) };
                    Some(c)
                } else {
                    None
                };
                if destruct {
                    ssa::destruct(body);
                }
                let mut row = json!({"name": name, "method": "lcm", "expressions": s.expressions, "removed": s.removed,
                       "inserted": s.inserted, "edges_split": s.edges_split});
                add_cleanup(&mut row, cleaned);
                row
            }
            PreMethod::Svfg | PreMethod::Semi | PreMethod::Gvn => {
                let m = match method {
                    PreMethod::Svfg => Method::Svfg,
                    PreMethod::Semi => Method::SemiSvfg,
                    _ => Method::Gvn,
                };
                // Loads are numbered through the memory walks, memdep when
                // one is unsure.
                let result = svfg_pre::run_in_counted(&mut module, f, m);
                let Some(body) = module.function_mut(f) else { continue };
                let cleaned = match (&result, cleanup) {
                    (Ok(_), true) => {
                        let Some(c) = clean_up(body, &name) else { return Ok(ExitCode::FAILURE) };
                        Some(c)
                    }
                    _ => None,
                };
                if destruct {
                    ssa::destruct(body);
                }
                match result {
                    Ok((s, asked)) => {
                        let mut row = json!({"name": name, "method": match m { Method::Svfg => "svfg", Method::SemiSvfg => "semi", _ => "gvn" },
                        "removed": s.removed, "inserted": s.inserted, "phis_placed": s.phis_placed,
                        "phis_created": s.phis_created, "phis_deleted": s.phis_deleted, "edges_split": s.edges_split,
                        "extended": s.extended, "extension_rounds": s.extension_rounds,
                        "time_vn_us": s.time_vn.as_micros() as u64, "time_svfg_us": s.time_svfg.as_micros() as u64,
                        "time_rewrite_us": s.time_rewrite.as_micros() as u64});
                        add_cleanup(&mut row, cleaned);
                        if asked.questions > 0 {
                            row["loads_same_by_walk"] = json!(asked.walked);
                            row["loads_apart_by_walk"] = json!(asked.clobbered);
                            row["loads_asked_memdep"] = json!(asked.from_memdep);
                        }
                        row
                    }
                    Err(e) => {
                        crate::out::say(format_args!("{name}: {e}"));
                        return Ok(ExitCode::FAILURE);
                    }
                }
            }
        };
        let mut row = row;
        if let Some(r) = rotated {
            row["loops_rotated"] = json!(r);
        }
        rows.push(row);
    }
    bar.finish_and_clear();
    let ir = text::print_module(&module);
    match format {
        Format::Text => {
            out.write_all(ir.as_bytes())?;
            if stats {
                for r in &rows {
                    let fields: Vec<String> = r
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| k.as_str() != "name" && k.as_str() != "method")
                        .map(|(k, v)| format!("{k} {v}"))
                        .collect();
                    writeln!(
                        out,
                        "; {} ({}): {}",
                        r["name"].as_str().unwrap_or("?"),
                        r["method"].as_str().unwrap_or("?"),
                        fields.join(", ")
                    )?;
                }
            }
        }
        Format::Json => {
            let mut v = json!({ "ir": ir });
            if stats {
                v["functions"] = serde_json::Value::Array(rows);
            }
            writeln!(out, "{v}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `keel rotate`: loop rotation of each function (or one), the module
/// printed; `--stats` adds per function the loops rotated and those left
/// alone with the reason.
pub(crate) fn rotate(file: &str, func: Option<&str>, stats: bool, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let Some((mut module, ids)) = load_selected(file, func) else { return Ok(ExitCode::FAILURE) };
    let mut lines = Vec::new();
    for &f in &ids {
        let Some(body) = module.function_mut(f) else { continue };
        let name = crate::out::global(body.name());
        let s = svfg_pre::rotate_loops(body);
        let skipped: Vec<String> = s.skipped.iter().map(|(b, why)| format!("{b} {why:?}")).collect();
        lines.push(format!(
            "; {name}: {} rotated; left alone: {}",
            s.rotated,
            if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") }
        ));
    }
    out.write_all(text::print_module(&module).as_bytes())?;
    if stats {
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The clean-up of `body` (function `name`), or `None` after saying why
/// it was refused.
fn clean_up(body: &mut Function, name: &str) -> Option<svfg_pre::CleanupStats> {
    svfg_pre::cleanup_function(body).map_err(|e| crate::out::say(format_args!("{name}: {e}"))).ok()
}

/// The clean-up's counts as statistics fields (nothing without a
/// clean-up).
fn add_cleanup(row: &mut serde_json::Value, cleaned: Option<svfg_pre::CleanupStats>) {
    if let Some(c) = cleaned {
        row["copies_forwarded"] = json!(c.copies_forwarded);
        row["trivial_phis"] = json!(c.trivial_phis);
        row["dead_phis"] = json!(c.phis_deleted);
        row["dead_copies"] = json!(c.copies_deleted);
        row["dead_computations"] = json!(c.computations_deleted);
    }
}

/// `keel dot --what svfg`: the function in SSA form as a CFG of blocks
/// (with their instructions), plus one node per phi of a value number
/// (`φ vN`, its expression, down-safe `ds` / can-be-available `cba` /
/// `used` marks) and edges from each operand's source (the block of a real
/// computation, another phi, or ⊥ = ζ) labelled with the predecessor index,
/// and the ε pseudo-phis (`ε vN`, dotted red) at the frontier of `dn`. A
/// phi of the extension step (at `dn` itself) is drawn bold, with the
/// translated value each operand carries (`ext v3, v9`).
pub(crate) fn svfg_dot(module: &Module, func: &Function) -> Result<String, String> {
    let mut f = func.clone();
    let name = crate::out::global(func.name());
    let fail = |e: &dyn std::fmt::Display| format!("{name}: {e}");
    ssa::construct(&mut f, &ssa::Options::default()).map_err(|e| fail(&e))?;
    // Loads numbered as `keel pre` numbers them: walks, memdep on demand.
    let options = memdep::Options { max_memory: crate::budget::get(), ..svfg_pre::memory_options() };
    let memory = svfg_pre::LazyMemory::with_options(module, &f, options);
    let (g, vns) = svfg_pre::build_svfg_lazy(&f, &memory).map_err(|e| fail(&e))?;
    let mut def_block = vec![None; f.num_vars()];
    let mut s = String::from("digraph svfg {\n  node [shape=box, fontname=monospace];\n");
    for b in f.blocks() {
        let mut label = format!("{b}\\l");
        for i in f.block_insts(b) {
            for &r in f.results(i) {
                def_block[ir_core::entity::EntityRef::index(r)] = Some(b);
            }
            let line = text::DisplayInst { module, func: &f, inst: i }.to_string();
            label.push_str(&line.replace('\\', "\\\\").replace('"', "\\\""));
            label.push_str("\\l");
        }
        s.push_str(&format!("  {b} [label=\"{label}\"];\n"));
        for t in f.block_successors(b) {
            s.push_str(&format!("  {b} -> {t} [color=gray];\n"));
        }
    }
    for (i, p) in g.phis.iter().enumerate() {
        let expr = match vns.kind(p.value) {
            Some(svfg_pre::ValueKind::Expr(k)) => {
                let args: Vec<String> = k.args.iter().map(|a| format!("v{}", a.0)).collect();
                format!("{} {}", k.op.opcode.name(), args.join(", "))
            }
            _ => String::new(),
        };
        let marks = format!(
            "{}{}{}",
            if p.down_safe { " ds" } else { "" },
            if p.can_be_avail { " cba" } else { "" },
            if p.used { " used" } else { "" }
        );
        let (style, ext) = if p.is_extension() {
            let carried: Vec<String> = p.operand_values.iter().map(|v| format!("v{}", v.0)).collect();
            (", style=bold", format!("\\next {}", carried.join(", ")))
        } else {
            ("", String::new())
        };
        s.push_str(&format!(
            "  phi{i} [shape=ellipse, color=blue{style}, label=\"φ v{} = {expr}\\nat bb{}{marks}{ext}\"];\n  phi{i} -> bb{} [style=dotted, color=blue];\n",
            p.value.0, p.node, p.node
        ));
        for (k, src) in p.sources.iter().enumerate() {
            match src {
                Source::Real(v) => {
                    let v = ir_core::Var::from_u32(*v);
                    if let Some(b) = def_block[ir_core::entity::EntityRef::index(v)] {
                        s.push_str(&format!("  {b} -> phi{i} [color=blue, label=\"{k}: %{}\"];\n", f.var_name(v)));
                    }
                }
                Source::Phi(q) => s.push_str(&format!("  phi{q} -> phi{i} [color=blue, label=\"{k}\"];\n")),
                Source::Bottom => {
                    s.push_str(&format!("  zeta{i}_{k} [shape=plaintext, label=\"ζ\"];\n  zeta{i}_{k} -> phi{i} [color=red, label=\"{k}\"];\n"))
                }
                Source::Unreachable => {}
            }
        }
    }
    // ε_t: a pseudo-phi at each node of DF(dn(t)), where t's operands may
    // have changed (a phi of t on top when an edge enters it is not
    // down-safe).
    for (n, values) in g.eps_at.iter().enumerate() {
        for t in values {
            s.push_str(&format!(
                "  eps{n}_{} [shape=plaintext, fontcolor=red, label=\"ε v{}\"];\n  eps{n}_{} -> bb{n} [style=dotted, color=red];\n",
                t.0, t.0, t.0
            ));
        }
    }
    s.push_str("}\n");
    Ok(s)
}
