//! Liveness by its textbook definition, computed naively: `var` is live at
//! a point when some path from that point along CFG edges reaches a use of
//! `var` before any killing definition of it.
//!
//! Same semantics as [`crate::Liveness`] (see its module doc), stated here
//! as a search: from the start point, walk the instructions of the block in
//! order; a non-phi instruction reading `var` (operand or guard) is a use
//! (found), one defining it without a guard kills the path (stop), a guarded
//! definition is passed through; a phi is a use only through its guard (its
//! operands are read at the end of the predecessors) and kills through its
//! result. At the end of a block `B`, for every laid-out successor `S`: a
//! phi of `S` reading `var` for incoming block `B` is a use (found);
//! otherwise the search continues at the top of `S`, once per block. No
//! gen/kill sets, no fixpoint: O(instructions) per query. For small
//! functions only; nothing recurses.

use ir_core::entity::EntityRef;
use ir_core::{Block, Function, Opcode, Var};

/// True when `var` is live at the top of `block` (before its phis), by the
/// path definition. False for blocks not in the layout and vars out of
/// range.
pub fn live_in(func: &Function, block: Block, var: Var) -> bool {
    search(func, block, var, true)
}

/// True when `var` is live at the bottom of `block` (after its terminator,
/// where its successors' phis read their operands), by the path definition.
pub fn live_out(func: &Function, block: Block, var: Var) -> bool {
    search(func, block, var, false)
}

/// What walking a block's instructions from its top says about `var`.
enum Walk {
    Used,
    Killed,
    Through,
}

fn walk(func: &Function, block: Block, var: Var) -> Walk {
    for inst in func.block_insts(block) {
        let guard = func.guard(inst);
        let used = if func.opcode(inst) == Opcode::Phi {
            guard.is_some_and(|g| g.var == var)
        } else {
            func.uses(inst).any(|(_, v)| v == var)
        };
        if used {
            return Walk::Used;
        }
        if guard.is_none() && func.results(inst).contains(&var) {
            return Walk::Killed;
        }
    }
    Walk::Through
}

/// True when a phi of `succ` reads `var` for incoming block `pred`.
fn phi_reads(func: &Function, succ: Block, pred: Block, var: Var) -> bool {
    func.block_insts(succ)
        .filter(|&i| func.opcode(i) == Opcode::Phi)
        .any(|i| func.phi_incoming(i).any(|(b, op)| b == pred && op.as_var() == Some(var)))
}

fn search(func: &Function, start: Block, var: Var, from_top: bool) -> bool {
    let layout = func.layout();
    if !layout.is_block_inserted(start) || var.index() >= func.num_vars() {
        return false;
    }
    let mut entered = vec![false; func.num_blocks()];
    // (block, whether to walk its instructions before reaching its end)
    let mut stack = vec![(start, from_top)];
    while let Some((b, walk_first)) = stack.pop() {
        if walk_first {
            match walk(func, b, var) {
                Walk::Used => return true,
                Walk::Killed => continue,
                Walk::Through => {}
            }
        }
        for s in func.block_successors(b).filter(|&s| layout.is_block_inserted(s)) {
            if phi_reads(func, s, b, var) {
                return true;
            }
            if let Some(seen) = entered.get_mut(s.index())
                && !*seen
            {
                *seen = true;
                stack.push((s, true));
            }
        }
    }
    false
}
