//! `keel dot`: Graphviz views of a function's CFG, dominator tree,
//! post-dominator tree, loop nesting forest, one block's pebble game
//! (`dag`) or its sparse value flow graph (`svfg`); a graph-IR file is
//! drawn as its graph.

use crate::input::{Input, Loaded};
use crate::select::select_one;
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
    /// One block's data-dependence DAG (`--block bbN`) with the pebbling
    /// order and where spills happen (`--regs P`).
    Dag,
    /// The semi-SVFG of `svfg-pre` over the function in SSA form: phis of
    /// value numbers and their operand sources.
    Svfg,
}

pub(crate) fn dot(
    file: &str,
    func: Option<&str>,
    what: What,
    insts: bool,
    block_arg: Option<&str>,
    regs: u32,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    // A graph-IR file (`.vg`) is drawn as its graph.
    if crate::vectorize_cmd::is_graph_file(file) {
        return crate::vectorize_cmd::dot_graph(file, out);
    }
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    let Some(Loaded { module, .. }) = input.parse() else { return Ok(ExitCode::FAILURE) };
    let Some(f) = select_one(&module, func).map_err(crate::out::say).ok().and_then(|id| module.function(id)) else {
        return Ok(ExitCode::FAILURE);
    };
    let graph = f.cfg();
    if what == What::Dag {
        return dag(&module, f, block_arg, regs, out);
    }
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
        What::Dag => unreachable!("drawn above"),
        What::Svfg => match crate::pre_cmd::svfg_dot(&module, f) {
            Ok(t) => t,
            Err(msg) => {
                crate::out::say(msg);
                return Ok(ExitCode::FAILURE);
            }
        },
    };
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `--what dag`: the block's DAG and its pebble game (regalloc-pebble's
/// picture; phis are lowered first, as the allocator does).
fn dag(
    module: &Module,
    f: &Function,
    block_arg: Option<&str>,
    regs: u32,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let Some(name) = block_arg else {
        crate::out::say("--what dag needs --block bbN");
        return Ok(ExitCode::from(2));
    };
    let regs = regalloc_pebble::Regs::new(regs, regs);
    let rule = regalloc_pebble::LocalRule::Document;
    match crate::regalloc_cmd::play_block(f, "--block", name, regs, rule, regalloc_pebble::Results::Read) {
        Ok((lowered, game)) => {
            let text = game.dot(
                |x| format!("%{}", lowered.var_name(ir_core::Var::from_u32(x))),
                |i| DisplayInst { module, func: &lowered, inst: ir_core::Inst::from_u32(i) }.to_string(),
            );
            out.write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err((msg, code)) => {
            crate::out::say(msg);
            Ok(code)
        }
    }
}
