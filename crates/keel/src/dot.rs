//! `keel dot`: Graphviz views of a function's CFG, dominator tree,
//! post-dominator tree or loop nesting forest.

use crate::input::Input;
use cfg_dom::{DomTree, LoopForest, PostDomTree, dot};
use ir_core::block;
use ir_core::text::DisplayInst;
use ir_core::{Function, Module};
use std::io::Write;
use std::process::ExitCode;

/// Which view to draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum What {
    /// The control-flow graph.
    Cfg,
    /// The dominator tree.
    Domtree,
    /// The post-dominator tree (rooted at a virtual exit).
    Postdomtree,
    /// The CFG with loops drawn as nested clusters.
    Loops,
}

pub(crate) fn dot(
    file: &str,
    func: Option<&str>,
    what: What,
    insts: bool,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    // A graph-IR file (`.vg`) is drawn as its graph.
    if crate::vectorize_cmd::is_graph_file(file) {
        return crate::vectorize_cmd::dot_graph(file, out);
    }
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    let Some((module, _)) = input.parse() else { return Ok(ExitCode::FAILURE) };
    let f = match pick(&module, func) {
        Ok(f) => f,
        Err(msg) => {
            crate::out::say(msg);
            return Ok(ExitCode::FAILURE);
        }
    };
    let graph = f.cfg();
    let label = |n: u32| {
        let b = block(n);
        let mut s = format!("{b}");
        if insts && f.layout().is_block_inserted(b) {
            for i in f.block_insts(b) {
                s.push_str(&format!("\n{}", DisplayInst { module: &module, func: f, inst: i }));
            }
            s.push('\n');
        }
        s
    };
    let text = match what {
        What::Cfg => dot::cfg(&graph, label),
        What::Domtree => dot::dom_tree(&DomTree::of(&graph), label),
        What::Postdomtree => dot::post_dom_tree(&PostDomTree::of(&graph), label),
        What::Loops => dot::loops(&graph, &LoopForest::of(&graph), label).expect("the forest of this graph"),
    };
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn pick<'m>(module: &'m Module, name: Option<&str>) -> Result<&'m Function, String> {
    let id = match name {
        Some(n) => {
            let n = &crate::out::name_arg(n);
            module.function_by_name(n).ok_or_else(|| format!("no function {}", crate::out::global(n)))?
        }
        None => {
            let ids: Vec<_> = module.function_ids().collect();
            match ids[..] {
                [only] => only,
                [] => return Err("the module has no functions".into()),
                _ => module.function_by_name("main").ok_or_else(|| {
                    format!(
                        "several functions and no @main; choose one with --func ({})",
                        crate::out::function_names(module)
                    )
                })?,
            }
        }
    };
    module.function(id).ok_or_else(|| "no such function".into())
}
