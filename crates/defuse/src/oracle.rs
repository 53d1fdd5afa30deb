//! The slow, obviously-correct oracle: for each use, a backward search
//! along the CFG for the definitions that reach it.
//!
//! From the use (or, for an input phi's operand, from the end of the
//! matching predecessor), walk instructions backward; a definition of the
//! var is recorded; an unguarded one ends that path, a guarded one does
//! not (it may not have executed); at a block's top continue into every
//! reachable predecessor (each block entered from its end at most once per
//! use); at the entry, a param is a definition. Only uses in reachable
//! blocks get chains. O(uses × instructions): for small functions.

use crate::chains::{Chains, UdBuilder};
use crate::sites::{DefId, Sites};
use cfg_dom::{CsrGraph, Dfs, block, node};
use ir_core::{Function, Inst, Opcode, UseSite, Var};

/// Chains of `func` by backward search from every use.
pub fn oracle(func: &Function) -> Chains {
    let graph = CsrGraph::from_function(func);
    let dfs = Dfs::of(&graph);
    let sites = Sites::of(func);
    let mut ud = UdBuilder::with_capacity(sites.num_uses());
    let mut seen = vec![u32::MAX; func.num_blocks()];
    for u in 0..sites.num_uses() as u32 {
        let at = sites.use_at(u);
        let var = sites.use_var(u);
        let block_of = func.layout().inst_block(at.inst).map(node);
        if block_of.is_some_and(|b| dfs.is_reachable(b)) {
            // Where the search starts: just before the use, or at the end of
            // the predecessor an input phi's operand comes from.
            let start = match (func.opcode(at.inst), at.site) {
                (Opcode::Phi, UseSite::Operand(k)) => {
                    func.phi_blocks(at.inst).get(k as usize).map(|&p| (node(p), None))
                }
                _ => block_of.map(|b| (b, Some(at.inst))),
            };
            if let Some((b, before)) = start.filter(|&(b, _)| dfs.is_reachable(b)) {
                search(func, &graph, &dfs, &sites, var, b, before, u, &mut seen, &mut ud.list);
            }
        }
        ud.close();
    }
    Chains::from_ud(sites, ud.start, ud.list, func.epoch())
}

/// Backward search for the definitions of `var` reaching the point just
/// before `before` in block `b` (its end when `before` is `None`).
#[allow(clippy::too_many_arguments)]
fn search(
    func: &Function,
    graph: &CsrGraph,
    dfs: &Dfs,
    sites: &Sites,
    var: Var,
    b: u32,
    before: Option<Inst>,
    stamp: u32,
    seen: &mut [u32],
    out: &mut Vec<DefId>,
) {
    let mut work: Vec<(u32, Option<Inst>)> = vec![(b, before)];
    while let Some((b, before)) = work.pop() {
        let mut cursor = match before {
            Some(i) => func.layout().prev_inst(i),
            None => func.layout().last_inst(block(b)),
        };
        let mut killed = false;
        while let Some(i) = cursor {
            for (k, &r) in func.results(i).iter().enumerate() {
                if r == var
                    && let Some(d) = sites.def_id(i, k as u32)
                {
                    out.push(d);
                    if func.guard(i).is_none() || func.opcode(i) == Opcode::Phi {
                        killed = true;
                    }
                }
            }
            if killed {
                break;
            }
            cursor = func.layout().prev_inst(i);
        }
        if killed {
            continue;
        }
        if func.entry_block().map(node) == Some(b)
            && let Some(p) = func.params().iter().position(|&p| p == var)
        {
            out.push(sites.param_def(p as u32).expect("every param has a definition"));
        }
        for &p in graph.pred_slice(b) {
            if dfs.is_reachable(p) && seen[p as usize] != stamp {
                seen[p as usize] = stamp;
                work.push((p, None));
            }
        }
    }
}
