//! `keel memdep`: memory dependences of each function (or one), in the
//! compact form by default (`memdep_compact`: each read names its interned
//! set of writes, each distinct set printed once), or expanded
//! (`--expand`) as the digest's table (per memory instruction, per read:
//! the instructions it depends on and why; loop-carried ones with their
//! iteration distance); as text, JSON (flow, output and anti dependences,
//! edge counts) or Graphviz (the dependences over the CFG, always per
//! pair of instructions).
//!
//! FILE is IR text or a WebAssembly module. Calls use the module's call
//! summaries. Functions are analysed in parallel (one worker per core, the
//! CLI's [`Workers`]) with a progress bar on a terminal, and their output
//! streams in function order: the same bytes for any number of workers. Output goes to the writer `main` hands over; write errors
//! are returned to `main` (which ends quietly on a closed pipe).

use crate::input::Input;
use crate::memdep_view::{View, counts_json, header};
use crate::per_function::Workers;
use crate::select::{Scope, select};
use ir_core::{FuncId, Function, Module};
use memdep::{ANY, Answer, Distance, MemDep, MemQueries, Options, Site, Summaries};
use serde_json::{Value, json};
use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

/// Output format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The digest's table: per memory instruction, what each read depends on.
    Text,
    /// One JSON object per function, in an array, for tools.
    Json,
    /// Graphviz: memory instructions in their blocks, the CFG, and the
    /// dependences.
    Dot,
}

/// Runs the command: 0 on success, 1 on bad input; write errors go back
/// to `main`.
pub(crate) fn run(
    file: &str,
    func: Option<&str>,
    format: Format,
    expand: bool,
    explain: Option<&str>,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    // `irN`, N ≥ 1: checked before the input is read (a usage error).
    let explain = match explain.map(|l| l.strip_prefix("ir").and_then(|n| n.parse::<usize>().ok()).filter(|&n| n > 0)) {
        None => None,
        Some(Some(n)) => Some(n),
        Some(None) => {
            crate::out::say("--explain takes a memory instruction's label, irN with N >= 1 (e.g. ir4)");
            return Ok(ExitCode::from(2));
        }
    };
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    let Some(loaded) = input.load("") else { return Ok(ExitCode::FAILURE) };
    let module = &loaded.module;
    let ids = match select(module, func, Scope::All) {
        Ok(ids) => ids,
        Err(e) => {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    };
    match explain {
        Some(n) => explain_one(module, &ids, n, out),
        None => write_all(module, &ids, format, expand, out),
    }
}

/// `--explain irN` on the one selected function.
fn explain_one(module: &Module, ids: &[FuncId], n: usize, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let [f] = ids else {
        crate::out::say(format!("--explain needs one function, and the module has {}: name it with --func", ids.len()));
        return Ok(ExitCode::from(2));
    };
    let Some(func) = module.function(*f) else { return Ok(ExitCode::FAILURE) };
    let summaries = Summaries::of(module);
    let fail = |e: &dyn std::fmt::Display| {
        crate::out::say(format!("{}: {e}", crate::out::global(func.name())));
        Ok(ExitCode::FAILURE)
    };
    let mut ctx = MemDep::with_options(Options { max_memory: crate::budget::get(), ..Options::default() });
    let deps = match ctx.compute_function(module, func, Some(&summaries)) {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let q = match MemQueries::of_function(module, func, Some(&summaries)) {
        Ok(q) => q,
        Err(e) => return fail(&e),
    };
    let v = View::new(module, func, deps, q);
    let Some(&inst) = v.mem.get(n - 1) else {
        crate::out::say(format!(
            "{}: no memory instruction ir{n} (it has {})",
            crate::out::global(func.name()),
            v.mem.len()
        ));
        return Ok(ExitCode::FAILURE);
    };
    match ctx.explain_function(module, func, Some(&summaries), inst) {
        Ok((_, Some(e))) => crate::memdep_explain::write(&v, &e, out)?,
        Ok((_, None)) => {
            writeln!(out, "{} at ir{n}: in a block the entry does not reach", crate::out::global(func.name()))?
        }
        Err(e) => return fail(&e),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

impl View<'_> {
    /// The definitions reaching use `u`, in layout order of their
    /// instructions (then access order).
    fn reaching(&self, u: u32) -> Vec<u32> {
        let sites = self.deps.sites();
        let pos = |d: &u32| {
            let s = sites.def_site(*d).expect("a site of this function");
            (self.position(s.inst).unwrap_or(usize::MAX), s.access)
        };
        let mut ds: Vec<u32> = self.deps.defs_of_iter(u).collect();
        ds.sort_by_key(pos);
        ds
    }

    /// Why definition `d` may reach use `u`, and its loop-carried answer.
    fn why(&self, d: Site, u: Site) -> (String, Option<(u32, Answer)>) {
        let mut why = match self.q.may_overlap(d, u) {
            Answer::Must(_) => "overlaps".to_string(),
            Answer::NoDep => "overlapped before its offset changed".to_string(),
            Answer::May(r) => r.describe().to_string(),
        };
        if self.q.accesses(d.inst).get(d.access as usize).is_some_and(|a| a.may) {
            why.push_str(", may write");
        }
        if self.func.guard(ir_core::Inst::from_u32(d.inst)).is_some() {
            why.push_str(", guarded");
        }
        (why, self.carried(d, u))
    }

    /// The innermost loop around whose back edge definition `d` reaches
    /// use `u` (a loop-carried flow dependence), with the loop's answer for
    /// the two descriptors (its distances).
    fn carried(&self, d: Site, u: Site) -> Option<(u32, Answer)> {
        let sites = self.deps.sites();
        let (dd, uu) = (sites.def_id(d.inst, d.access)?, sites.use_id(u.inst, u.access)?);
        let forest = self.q.loops();
        let mut l = forest.innermost_loop(self.q.block_of(u.inst)?);
        while let Some(x) = l {
            let h = forest.header(x);
            if memdep_contains(self.deps.carried_defs(h, uu), dd) {
                // The descriptors' answer gives the distances; a relation
                // lost on the way (or anything) leaves them unknown.
                let a = match self.q.loop_carried(x, d, u) {
                    Answer::NoDep => Answer::May(memdep::Reason::VariesInLoop),
                    a => a,
                };
                return Some((h, a));
            }
            l = forest.parent(x);
        }
        None
    }
}

fn memdep_contains(ranges: &[(u32, u32)], x: u32) -> bool {
    ranges.iter().any(|&(lo, hi)| lo <= x && x < hi)
}

fn distance(d: Distance) -> String {
    match d {
        Distance::Exactly(x) => format!("distance {x}"),
        Distance::Range(a, b) => format!("distance {a}..{b}"),
        Distance::AtLeast(a) => format!("distance >= {a}"),
    }
}

fn carried_text(c: Option<(u32, Answer)>) -> String {
    match c {
        None => String::new(),
        Some((h, Answer::Must(d))) => format!(", loop-carried (bb{h}) at {}", distance(d)),
        Some((h, Answer::May(r))) => format!(", loop-carried (bb{h}), distance unknown: {}", r.describe()),
        Some((_, Answer::NoDep)) => String::new(),
    }
}

/// One function's output, rendered by a worker.
type Rendered = Result<String, String>;

fn write_all(
    module: &Module,
    ids: &[FuncId],
    format: Format,
    expand: bool,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let summaries = Summaries::of(module);
    let workers = Workers::new(None, ids.len());
    let mut first = true;
    if format == Format::Json {
        out.write_all(b"[")?;
    }
    // The budget is shared by the workers: each context gets its part.
    let max_memory = crate::budget::get() / workers.jobs().max(1) as u64;
    let flow = workers.run(
        ids,
        || MemDep::with_options(Options { loop_carried: true, max_memory, ..Options::default() }),
        |ctx, &f| match module.function(f) {
            Some(func) => render(module, func, &summaries, ctx, format, expand),
            None => Ok(String::new()),
        },
        |rendered: Rendered| match rendered {
            Ok(text) => {
                if format == Format::Json {
                    out.write_all(if first { b"\n" } else { b",\n" })?;
                }
                first = false;
                out.write_all(text.as_bytes())?;
                Ok(ControlFlow::Continue(()))
            }
            Err(message) => {
                crate::out::say(message);
                Ok(ControlFlow::Break(()))
            }
        },
    )?;
    if flow.is_break() {
        return Ok(ExitCode::FAILURE);
    }
    if format == Format::Json {
        out.write_all(if first { b"]\n" } else { b"\n]\n" })?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One function's analysis in `format` (a JSON element: expanded, indented
/// as an element of the pretty-printed array it joins; compact, on one
/// line), or the error message.
fn render(
    module: &Module,
    func: &Function,
    summaries: &Summaries,
    ctx: &mut MemDep,
    format: Format,
    expand: bool,
) -> Rendered {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", crate::out::global(func.name()));
    let deps = ctx.compute_function(module, func, Some(summaries)).map_err(|e| match e {
        memdep::InputError::TooLarge { .. } => format!("{}{}", fail(&e), crate::budget::note()),
        e => fail(&e),
    })?;
    let q = MemQueries::of_function(module, func, Some(summaries)).map_err(|e| fail(&e))?;
    let v = View::new(module, func, deps, q);
    let mut buf = Vec::new();
    match format {
        Format::Text if expand => text(&v, &mut buf).map_err(|e| fail(&e))?,
        Format::Text => crate::memdep_compact::text(&v, &mut buf).map_err(|e| fail(&e))?,
        Format::Dot => dot(&v, &mut buf).map_err(|e| fail(&e))?,
        Format::Json if !expand => crate::memdep_compact::json(&v, &mut buf).map_err(|e| fail(&e))?,
        Format::Json => {
            let pretty = serde_json::to_string_pretty(&json_of(&v)).map_err(|e| fail(&e))?;
            let indented: Vec<String> = pretty.lines().map(|l| format!("  {l}")).collect();
            return Ok(indented.join("\n"));
        }
    }
    String::from_utf8(buf).map_err(|e| fail(&e))
}

/// The expanded text: the digest's table.
fn text(v: &View<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    header(v, out)?;
    let sites = v.deps.sites();
    for &i in &v.mem {
        writeln!(out, "  {:<5} {}", v.label(i), v.inst_text(i))?;
        for &d in sites.defs_of_inst(i) {
            let s = sites.def_site(d).expect("a site of this function");
            writeln!(out, "        writes {}", v.descriptor(s))?;
        }
        for &u in sites.uses_of_inst(i) {
            let s = sites.use_site(u).expect("a site of this function");
            let deps: Vec<String> = v
                .reaching(u)
                .into_iter()
                .map(|d| {
                    let ds = sites.def_site(d).expect("a site of this function");
                    let (why, carried) = v.why(ds, s);
                    format!("{} ({why}{})", v.label(ds.inst), carried_text(carried))
                })
                .collect();
            let list = if deps.is_empty() { "nothing in the function".to_string() } else { deps.join(", ") };
            writeln!(out, "        reads  {} <- {list}", v.descriptor(s))?;
        }
    }
    Ok(())
}

fn json_of(v: &View<'_>) -> Value {
    let sites = v.deps.sites();
    let site = |s: Site, id: u32| {
        json!({
            "id": id,
            "inst": s.inst,
            "label": v.label(s.inst),
            "access": if s.access == ANY { Value::Null } else { json!(s.access) },
            "descriptor": v.descriptor(s),
        })
    };
    let carried = |c: Option<(u32, Answer)>| match c {
        None => Value::Null,
        Some((h, Answer::Must(d))) => json!({"loop_header": h, "answer": "must", "distance": distance(d)}),
        Some((h, Answer::May(r))) => json!({"loop_header": h, "answer": "unknown distance", "reason": r.describe()}),
        Some((h, Answer::NoDep)) => json!({"loop_header": h, "answer": "none"}),
    };
    let insts: Vec<Value> = v
        .mem
        .iter()
        .map(|&i| {
            let reads: Vec<Value> = sites
                .uses_of_inst(i)
                .iter()
                .map(|&u| {
                    let s = sites.use_site(u).expect("own site");
                    let deps: Vec<Value> = v
                        .reaching(u)
                        .into_iter()
                        .map(|d| {
                            let ds = sites.def_site(d).expect("own site");
                            let (why, c) = v.why(ds, s);
                            let mut o = site(ds, d);
                            o["why"] = json!(why);
                            o["carried"] = carried(c);
                            o
                        })
                        .collect();
                    let mut o = site(s, u);
                    o["depends_on"] = Value::Array(deps);
                    o
                })
                .collect();
            let writes: Vec<Value> = sites
                .defs_of_inst(i)
                .iter()
                .map(|&d| {
                    let s = sites.def_site(d).expect("own site");
                    let mut o = site(s, d);
                    let defs = |list: &[(u32, u32)]| -> Vec<Value> {
                        list.iter().flat_map(|&(a, b)| a..b).map(|x| site(sites.def_site(x).expect("own"), x)).collect()
                    };
                    o["output"] = Value::Array(defs(v.deps.output_of(d)));
                    let anti: Vec<Value> = v
                        .deps
                        .anti_of(d)
                        .iter()
                        .flat_map(|&(a, b)| a..b)
                        .map(|x| site(sites.use_site(x).expect("own"), x))
                        .collect();
                    o["anti"] = Value::Array(anti);
                    o
                })
                .collect();
            json!({"label": v.label(i), "inst": i, "text": v.inst_text(i), "reads": reads, "writes": writes})
        })
        .collect();
    json!({
        "function": v.func.name(),
        "instructions": insts,
        "counts": counts_json(&v.deps),
    })
}

fn dot(v: &View<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    let name = cfg_dom::dot::escape(v.func.name());
    writeln!(out, "digraph \"{name}\" {{")?;
    writeln!(out, "  compound=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];")?;
    let graph = v.q.graph();
    // Each block a cluster of its memory instructions (a point if none).
    let anchor = |b: u32| -> String {
        match v.q.block_insts(b).iter().find(|&&i| v.position(i).is_some()) {
            Some(&i) => format!("i{i}"),
            None => format!("b{b}"),
        }
    };
    for b in v.func.blocks() {
        let n = b.as_u32();
        writeln!(out, "  subgraph cluster_bb{n} {{\n    label=\"bb{n}\"; style=rounded; color=gray;")?;
        let mut any = false;
        for &i in v.q.block_insts(n) {
            if v.position(i).is_some() {
                let label = cfg_dom::dot::escape(&format!("{}: {}", v.label(i), v.inst_text(i)));
                writeln!(out, "    i{i} [label=\"{label}\"];")?;
                any = true;
            }
        }
        if !any {
            writeln!(out, "    b{n} [shape=point];")?;
        }
        writeln!(out, "  }}")?;
    }
    use cfg_dom::Graph;
    for a in 0..graph.num_nodes() as u32 {
        for s in graph.successors(a) {
            writeln!(
                out,
                "  {} -> {} [ltail=cluster_bb{a}, lhead=cluster_bb{s}, color=gray, style=bold, arrowhead=empty];",
                anchor(a),
                anchor(s)
            )?;
        }
    }
    // One edge per (writer, reader, label), in a fixed order.
    let sites = v.deps.sites();
    let mut edges = std::collections::BTreeSet::new();
    for u in 0..sites.num_uses() as u32 {
        let s = sites.use_site(u).expect("own site");
        for d in v.deps.defs_of_iter(u) {
            let ds = sites.def_site(d).expect("own site");
            let (_, carried) = v.why(ds, s);
            let label = match carried {
                Some((_, Answer::Must(x))) => format!(" label=\"{}\"", distance(x)),
                Some((_, Answer::May(_))) => " label=\"carried\"".to_string(),
                _ => String::new(),
            };
            edges.insert((ds.inst, s.inst, label));
        }
    }
    for (a, b, label) in edges {
        writeln!(out, "  i{a} -> i{b} [color=blue, constraint=false{label}];")?;
    }
    writeln!(out, "}}")
}
