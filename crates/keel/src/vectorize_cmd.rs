//! `keel vectorize`: vectorize a graph-IR function (`FILE.vg`) or a scalar
//! Keel function (any other file, imported first), and print the
//! vectorized graph or, with `--emit kir`, the Keel function it lowers to.
//! Also the hook that lets `keel dot` draw graph-IR files.
//!
//! Output goes to the writer `main.rs` hands in; diagnostics (rendered by
//! `ir-core`'s annotate-snippets path) to stderr. Exit status: 0 on
//! success, 1 on bad input (a parse, verifier, import, rule, vectorization
//! or lowering error), 2 on bad usage (an unknown `--same` parameter).

use crate::input::Input;
use ir_core::text::{render_error, render_file_error};
use std::io::{self, Write};
use std::process::ExitCode;
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::{Graph, RuleSet, Sym, VectorizeConfig, Vectorizer};

/// What to print.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Emit {
    /// The vectorized graph, in the graph IR's text format.
    Graph,
    /// The vectorized graph lowered to a Keel function over memory objects.
    Kir,
}

/// The arguments of `keel vectorize`.
#[derive(Debug)]
pub(crate) struct VectorizeArgs {
    pub file: String,
    pub func: Option<String>,
    pub emit: Emit,
    pub rules: Option<String>,
    pub same: Vec<String>,
    pub graph: bool,
    pub lanes: Option<u64>,
    pub capacity: u64,
    pub elements: u64,
    pub stats: bool,
}

/// True for a graph-IR file: a `.vg` extension (or `--graph`).
pub(crate) fn is_graph_file(path: &str) -> bool {
    path.ends_with(".vg")
}

fn fail(message: String) -> ExitCode {
    eprint!("{message}");
    ExitCode::FAILURE
}

/// Reads and verifies a graph-IR input; diagnostics on stderr.
fn read_graph(input: &Input) -> Result<(Graph, vectorize::text::SourceMap), ExitCode> {
    let (g, map) = match vectorize::text::parse(input.text()) {
        Ok(p) => p,
        Err(diags) => {
            for d in &diags {
                eprint!("{}", d.render(&input.name, input.text()));
            }
            return Err(fail(format!(
                "{}: {} error{}\n",
                input.name,
                diags.len(),
                if diags.len() == 1 { "" } else { "s" }
            )));
        }
    };
    if let Err(errors) = vectorize::verify(&g) {
        for e in &errors {
            eprint!("{}", e.render(&input.name, input.text(), &map));
        }
        return Err(fail(format!("{}: the graph does not verify\n", input.name)));
    }
    Ok((g, map))
}

fn pick(g: &Graph, name: Option<&str>, file: &str) -> Result<Sym, ExitCode> {
    match name {
        Some(n) => g
            .function(n)
            .ok_or_else(|| fail(render_file_error(file, &format!("no function @{}", n.trim_start_matches('@'))))),
        None => match g.functions() {
            [only] => Ok(*only),
            [] => Err(fail(render_file_error(file, "the file has no functions"))),
            _ => g
                .function("main")
                .ok_or_else(|| fail(render_file_error(file, "several functions and no @main; choose one with --func"))),
        },
    }
}

/// `keel vectorize` (see the module doc).
pub(crate) fn vectorize(args: &VectorizeArgs, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(input) = Input::read(&args.file) else { return Ok(ExitCode::FAILURE) };
    // The function as a graph, and the source map when it came as one.
    let (g, func, map) = if args.graph || is_graph_file(&args.file) {
        let (g, map) = match read_graph(&input) {
            Ok(p) => p,
            Err(code) => return Ok(code),
        };
        let f = match pick(&g, args.func.as_deref(), &input.name) {
            Ok(f) => f,
            Err(code) => return Ok(code),
        };
        (g, f, Some(map))
    } else {
        let Some((module, smap)) = input.parse_verified("; not vectorizing it") else { return Ok(ExitCode::FAILURE) };
        let fid = match &args.func {
            Some(n) => module.function_by_name(n.trim_start_matches('@')),
            None => match module.function_ids().collect::<Vec<_>>()[..] {
                [only] => Some(only),
                _ => module.function_by_name("main"),
            },
        };
        let Some(fid) = fid else {
            return Ok(fail(render_file_error(&input.name, "no such function (choose one with --func)")));
        };
        match vectorize::import::import_function(&module, fid) {
            Ok(imp) => (imp.graph, imp.func, None),
            Err(e) => {
                let span = e.inst.and_then(|i| smap.locate(fid, Some(i), None, None));
                let message =
                    format!("cannot vectorize @{}: {}", module.function(fid).map_or("?", |f| f.name()), e.message);
                return Ok(fail(match span {
                    Some(s) => render_error(&input.name, input.text(), s, &message),
                    None => render_file_error(&input.name, &message),
                }));
            }
        }
    };
    let rules = match &args.rules {
        None => RuleSet::default(),
        Some(path) => {
            let Some(rin) = Input::read(path) else { return Ok(ExitCode::FAILURE) };
            match RuleSet::parse(rin.text()) {
                Ok(r) => r,
                Err(diags) => {
                    for d in &diags {
                        eprint!("{}", d.render(&rin.name, rin.text()));
                    }
                    return Ok(fail(format!(
                        "{}: {} error{}\n",
                        rin.name,
                        diags.len(),
                        if diags.len() == 1 { "" } else { "s" }
                    )));
                }
            }
        }
    };
    let params = g.lambda(func).map_or_else(Vec::new, |l| l.params.clone());
    for s in &args.same {
        let s = s.trim_start_matches('%');
        if !params.iter().any(|&p| g.name(p) == Some(s)) {
            eprintln!("keel: --same {s}: @{} has no parameter %{s}", g.function_name(func).unwrap_or("?"));
            return Ok(ExitCode::from(2));
        }
    }
    let in_axes: Vec<bool> =
        params.iter().map(|&p| !args.same.iter().any(|s| g.name(p) == Some(s.trim_start_matches('%')))).collect();
    let v = match Vectorizer::with_config(rules, VectorizeConfig::default()).vectorize(&g, func, &in_axes) {
        Ok(v) => v,
        Err(e) => {
            let span = map.as_ref().and_then(|m| e.sym.and_then(|s| m.span(s)));
            let message = format!("cannot vectorize: {}", e.message);
            return Ok(fail(match span {
                Some(s) => render_error(&input.name, input.text(), s, &message),
                None => render_file_error(&input.name, &message),
            }));
        }
    };
    if args.stats {
        let s = &v.stats;
        eprintln!(
            "; {} nodes in, {} out; {} rules applied, {} nodes copied (the same in every lane), {} lambdas, {} rewrites, {} shared{}",
            s.nodes_in,
            s.nodes_out,
            s.rules_applied,
            s.copied,
            s.lambdas,
            s.rewrites,
            s.shared,
            if s.rewrite_limit_hit { "; rewriting stopped at its limit" } else { "" }
        );
    }
    match args.emit {
        Emit::Graph => out.write_all(vectorize::text::print_graph(&v.graph).as_bytes())?,
        Emit::Kir => {
            let lanes = match args.lanes {
                Some(n) => Lanes::Fixed(n),
                None => Lanes::Dynamic { capacity: args.capacity },
            };
            match lower(&v.graph, v.func, LowerOptions { lanes, elements: args.elements }) {
                Ok(l) => out.write_all(ir_core::text::print_module(&l.module).as_bytes())?,
                Err(e) => {
                    return Ok(fail(render_file_error(
                        &input.name,
                        &format!("cannot lower the vectorized graph: {e}"),
                    )));
                }
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `keel dot` on a graph-IR file: the graph, as Graphviz.
pub(crate) fn dot_graph(file: &str, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    match read_graph(&input) {
        Ok((g, _)) => {
            out.write_all(vectorize::dot::graph(&g).as_bytes())?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Err(code) => Ok(code),
    }
}
