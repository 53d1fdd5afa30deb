//! The slow, obviously-correct oracle: for each use, a backward search
//! along the CFG for the definitions that reach it.
//!
//! From the use (or, for a phi's incoming value, from the end of the
//! predecessor it names, if that is a predecessor), walk instructions
//! backward; a definition of the var is recorded; an unguarded one ends
//! that path, a guarded one does not (it may not have executed); at a
//! block's top continue into every reachable predecessor (each block
//! entered from its end at most once per use); at the entry, a param is a
//! definition. Only uses in reachable blocks get chains.
//! O(uses × instructions): for small functions. Runs on any
//! [`cfg_dom::VarCode`] and [`cfg_dom::Graph`], checked first.

use crate::chains::{Chains, UdBuilder};
use crate::sites::{DefId, Sites};
use cfg_dom::{Dfs, Graph, Input, InputBuffers, InputError, InstId, Node, VarCode, VarId};

/// Chains of `code` on its CFG `graph` by backward search from every use;
/// an error when the input is malformed ([`cfg_dom::check_input`]).
pub fn oracle<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<Chains, InputError> {
    let mut buffers = InputBuffers::default();
    let input = Input::new(graph, code, &mut buffers)?;
    let dfs = Dfs::of(graph);
    let sites = Sites::of(&input);
    let mut ud = UdBuilder::with_capacity(sites.num_uses());
    let mut seen = vec![u32::MAX; graph.num_nodes()];
    let mut insts: Vec<InstId> = Vec::new();
    for u in 0..sites.num_uses() as u32 {
        let at = sites.use_at(u).expect("u is a use of these sites");
        let use_ = input.uses(at.inst)[at.index as usize];
        let block_of = input.block_of(at.inst);
        if let Some(b) = block_of.filter(|&b| dfs.is_reachable(b)) {
            // Where the search starts: just before the use, or at the end of
            // the predecessor a phi's incoming value comes from.
            let start = match use_.pred {
                Some(p) => graph.predecessors(b).any(|q| q == p).then_some((p, None)),
                None => Some((b, Some(at.inst))),
            };
            if let Some((b, before)) = start.filter(|&(b, _)| dfs.is_reachable(b)) {
                search(&input, &dfs, &sites, use_.var, b, before, u, &mut seen, &mut insts, &mut ud.list);
            }
        }
        ud.close();
    }
    Ok(Chains::from_ud(sites, ud.start, ud.list, code.code_stamp()))
}

/// Backward search for the definitions of `var` reaching the point just
/// before `before` in block `b` (its end when `before` is `None`).
#[allow(clippy::too_many_arguments)]
fn search<G: Graph, C: VarCode>(
    input: &Input<'_, G, C>,
    dfs: &Dfs,
    sites: &Sites,
    var: VarId,
    b: Node,
    before: Option<InstId>,
    stamp: u32,
    seen: &mut [u32],
    insts: &mut Vec<InstId>,
    out: &mut Vec<DefId>,
) {
    let graph = input.graph();
    let mut work: Vec<(Node, Option<InstId>)> = vec![(b, before)];
    while let Some((b, before)) = work.pop() {
        // The block's instructions before the start point, walked backward.
        insts.clear();
        insts.extend(input.block_insts(b).iter().copied().take_while(|&i| Some(i) != before));
        let mut killed = false;
        for &i in insts.iter().rev() {
            for (k, &r) in input.defs(i).iter().enumerate() {
                if r == var
                    && let Some(d) = sites.def_id(i, k as u32)
                {
                    out.push(d);
                    if !input.is_guarded(i) {
                        killed = true;
                    }
                }
            }
            if killed {
                break;
            }
        }
        if killed {
            continue;
        }
        if graph.entry() == Some(b)
            && let Some(p) = input.params().iter().position(|&p| p == var)
        {
            out.push(sites.param_def(p as u32).expect("every param has a definition"));
        }
        for p in graph.predecessors(b) {
            if dfs.is_reachable(p) && seen[p as usize] != stamp {
                seen[p as usize] = stamp;
                work.push((p, None));
            }
        }
    }
}
