//! `keel vectorize`: vectorize a graph-IR function (`FILE.vg`) or a scalar
//! Keel function (any other file, imported first), and print the
//! vectorized graph or, with `--emit kir`, the Keel function it lowers to.
//! Also the hook that lets `keel dot` draw graph-IR files.
//!
//! Output goes to the writer `main.rs` hands in (write errors are passed
//! up); diagnostics (rendered by the `diagnostics` crate, Keel's one
//! renderer) go to stderr. Exit status: 0 on success, 1 on bad input (a parse, verifier,
//! import, rule, vectorization or lowering error, including a memory object
//! the length options make longer than Keel IR allows), 2 on bad usage (an
//! unknown `--same` parameter, a length option out of its range).
//!
//! The graph and its Graphviz drawing are streamed to the output as they
//! are printed (`vectorize::text::write_graph`, `vectorize::dot::write_graph`),
//! with indentation bounded at 32 levels, so their size is linear in the
//! graph's whatever its nesting.

use crate::input::{Input, Loaded};
use crate::out::global;
use crate::select::{Functions, select_one};
use ir_core::text::{render_error, render_file_error};
use std::io::{self, Write};
use std::process::ExitCode;
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::{Graph, RuleSet, VectorizeConfig, Vectorizer};

/// What to print.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Emit {
    /// The vectorized graph, in the graph IR's text format.
    Graph,
    /// The vectorized graph lowered to a Keel function over memory objects.
    Kir,
}

/// The arguments of `keel vectorize`.
#[derive(clap::Args, Debug)]
pub(crate) struct VectorizeArgs {
    /// The input file (`-` reads standard input).
    pub(crate) file: String,
    /// The function (default: the only one, or `@main`).
    #[arg(long)]
    pub(crate) func: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Emit::Graph)]
    pub(crate) emit: Emit,
    /// A rule file to use instead of the default rules.
    #[arg(long, value_name = "FILE")]
    pub(crate) rules: Option<String>,
    /// A parameter that is the same in every lane (not mapped); repeatable.
    #[arg(long, value_name = "PARAM")]
    pub(crate) same: Vec<String>,
    /// Read FILE as graph IR whatever its extension.
    #[arg(long)]
    pub(crate) graph: bool,
    /// With `--emit kir`: exactly this many lanes (exact descriptors;
    /// 1..=2^40, the longest memory object; the offsets of a per-lane array
    /// parameter take one more, so with one at most 2^40 - 1).
    #[arg(long, value_parser = crate::limits::ir_length())]
    pub(crate) lanes: Option<u64>,
    /// With `--emit kir` and no `--lanes`: the most lanes (a `%lanes`
    /// parameter; the same bounds as `--lanes`).
    #[arg(long, default_value_t = 1024, value_parser = crate::limits::ir_length())]
    pub(crate) capacity: u64,
    /// With `--emit kir`: room for the elements of per-lane array parameters.
    #[arg(long, default_value_t = 65536, value_parser = crate::limits::ir_length())]
    pub(crate) elements: u64,
    /// Print what vectorization did, on stderr.
    #[arg(long)]
    pub(crate) stats: bool,
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
    input.utf8_text("a graph-IR file").ok_or(ExitCode::FAILURE)?;
    let (g, map) = match vectorize::text::parse(input.text()) {
        Ok(p) => p,
        Err(diags) => {
            for d in &diags {
                eprint!("{}", d.render(&input.name, input.text()));
            }
            return Err(fail(format!("{}: {} error{}\n", input.name, diags.len(), crate::plural(diags.len()))));
        }
    };
    if let Err(errors) = vectorize::verify(&g) {
        let _ = crate::input::write_limited(&mut std::io::stderr().lock(), &input.name, &errors, |e| {
            e.render(&input.name, input.text(), &map)
        });
        return Err(fail(format!("{}: the graph does not verify\n", input.name)));
    }
    Ok((g, map))
}

/// The function `--func` selects, or a diagnostic on the file.
fn pick<M: Functions>(module: &M, func: Option<&str>, file: &str) -> Result<M::Id, ExitCode> {
    select_one(module, func).map_err(|e| fail(render_file_error(file, &e.to_string())))
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
        let Some(Loaded { module, smap, .. }) = input.load("; not vectorizing it") else {
            return Ok(ExitCode::FAILURE);
        };
        let fid = match pick(&module, args.func.as_deref(), &input.name) {
            Ok(f) => f,
            Err(code) => return Ok(code),
        };
        match vectorize::import::import_function(&module, fid) {
            Ok(imp) => (imp.graph, imp.func, None),
            Err(e) => {
                let span = e.inst.and_then(|i| smap.locate(fid, Some(i), None, None));
                let fname = module.function(fid).map_or_else(|| "@?".to_string(), |f| global(f.name()));
                let message = format!("cannot vectorize {fname}: {}", e.kind);
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
            if rin.utf8_text("a rule file").is_none() {
                return Ok(ExitCode::FAILURE);
            }
            match RuleSet::parse(rin.text()) {
                Ok(r) => r,
                Err(diags) => {
                    for d in &diags {
                        eprint!("{}", d.render(&rin.name, rin.text()));
                    }
                    return Ok(fail(format!("{}: {} error{}\n", rin.name, diags.len(), crate::plural(diags.len()))));
                }
            }
        }
    };
    let params = g.lambda(func).map_or_else(Vec::new, |l| l.params.clone());
    let same: Vec<String> = args.same.iter().map(|s| crate::out::name_arg(s)).collect();
    for s in &same {
        if !params.iter().any(|&p| g.name(p) == Some(s.as_str())) {
            crate::out::say(format_args!(
                "--same {s}: {} has no parameter %{s}",
                global(g.function_name(func).unwrap_or("?"))
            ));
            return Ok(ExitCode::from(2));
        }
    }
    let in_axes: Vec<bool> = params.iter().map(|&p| !same.iter().any(|s| g.name(p) == Some(s.as_str()))).collect();
    let v = match Vectorizer::with_config(rules, VectorizeConfig::default()).vectorize(&g, func, &in_axes) {
        Ok(v) => v,
        Err(e) => {
            let span = map.as_ref().and_then(|m| e.sym.and_then(|s| m.span(s)));
            let message = format!("cannot vectorize: {}", e.kind);
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
        Emit::Graph => vectorize::text::write_graph(&v.graph, out)?,
        Emit::Kir => {
            let lanes = match args.lanes {
                Some(n) => Lanes::Fixed(n),
                None => Lanes::Dynamic { capacity: args.capacity },
            };
            match lower(
                &v.graph,
                v.func,
                LowerOptions { lanes, elements: args.elements, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
            ) {
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
    Ok(ExitCode::SUCCESS)
}

/// `keel dot` on a graph-IR file: the graph, as Graphviz.
pub(crate) fn dot_graph(file: &str, out: &mut dyn Write) -> io::Result<ExitCode> {
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    match read_graph(&input) {
        Ok((g, _)) => {
            vectorize::dot::write_graph(&g, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(code) => Ok(code),
    }
}
