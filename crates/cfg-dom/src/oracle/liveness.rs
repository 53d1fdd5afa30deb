//! Liveness by its textbook definition, computed naively: `var` is live at
//! a point when some path from that point along CFG edges reaches a use of
//! `var` before any killing definition of it.
//!
//! Same semantics as [`crate::Liveness`] (see [`crate::VarCode`]), stated
//! here as a search: from the start point, walk the instructions of the
//! block in order; an instruction reading `var` at itself is a use (found),
//! one defining it without a guard kills the path (stop), a guarded
//! definition is passed through; a phi's incoming values are not read at
//! the phi but at the end of their predecessors. At the end of a block `B`,
//! for every successor `S`: a phi of `S` reading `var` from `B` is a use
//! (found); otherwise the search continues at the top of `S`, once per
//! block. No gen/kill sets, no fixpoint: O(instructions) per query. For
//! small functions only; nothing recurses.

use crate::code::{VarCode, VarId};
use crate::graph::{Graph, Node};

/// True when `var` is live at the top of `block` (before its phis), by the
/// path definition. False for blocks and vars out of range.
pub fn live_in(g: &impl Graph, code: &impl VarCode, block: Node, var: VarId) -> bool {
    search(g, code, block, var, true)
}

/// True when `var` is live at the bottom of `block` (after its terminator,
/// where its successors' phis read their operands), by the path definition.
pub fn live_out(g: &impl Graph, code: &impl VarCode, block: Node, var: VarId) -> bool {
    search(g, code, block, var, false)
}

/// What walking a block's instructions from its top says about `var`.
enum Walk {
    Used,
    Killed,
    Through,
}

fn walk(code: &impl VarCode, block: Node, var: VarId) -> Walk {
    for inst in code.block_insts(block) {
        if code.uses(inst).any(|u| u.var == var && u.pred.is_none()) {
            return Walk::Used;
        }
        if !code.is_guarded(inst) && code.defs(inst).any(|d| d == var) {
            return Walk::Killed;
        }
    }
    Walk::Through
}

/// True when a phi of `succ` reads `var` from `pred`.
fn phi_reads(code: &impl VarCode, succ: Node, pred: Node, var: VarId) -> bool {
    code.block_insts(succ)
        .filter(|&i| code.is_phi(i))
        .any(|i| code.uses(i).any(|u| u.var == var && u.pred == Some(pred)))
}

fn search(g: &impl Graph, code: &impl VarCode, start: Node, var: VarId, from_top: bool) -> bool {
    let n = g.num_nodes();
    if start as usize >= n || var as usize >= code.num_vars() {
        return false;
    }
    let mut entered = vec![false; n];
    // (block, whether to walk its instructions before reaching its end)
    let mut stack = vec![(start, from_top)];
    while let Some((b, walk_first)) = stack.pop() {
        if walk_first {
            match walk(code, b, var) {
                Walk::Used => return true,
                Walk::Killed => continue,
                Walk::Through => {}
            }
        }
        for s in g.successors(b) {
            if phi_reads(code, s, b, var) {
                return true;
            }
            if let Some(seen) = entered.get_mut(s as usize)
                && !*seen
            {
                *seen = true;
                stack.push((s, true));
            }
        }
    }
    false
}
