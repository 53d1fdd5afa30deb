//! The SSA level: single definition and dominance, on `cfg-dom`'s dominator
//! tree of the function's CFG (semi-NCA; O(1) dominance queries), with
//! instruction positions for order within a block. Keel's one SSA verifier.
//!
//! Invariants checked: every var has at most one definition (a param counts
//! as one, at function entry); every use in a reachable block is dominated
//! by its definition: by an earlier instruction of the same block, or by a
//! block that dominates the use's block; a phi's incoming value must be
//! dominated by the end of its incoming block; a guarded definition names
//! its fallbacks. Vars with several definitions are reported once and
//! skipped by the dominance check, so one mistake gives one error. Uses in
//! unreachable blocks, and phi pairs from unreachable predecessors, are
//! exempt (nothing executes them; LLVM makes the same choice). Linear in
//! the size of the function, plus the dominator tree.

use super::context::Ctx;
use super::error::ErrorKind;
use crate::code::node;
use crate::entities::{Block, Inst, Var};
use crate::instructions::UseSite;
use cfg_dom::{CsrGraph, DomTree};
use cranelift_entity::{EntityRef, SecondaryMap};

#[derive(Copy, Clone, PartialEq, Eq, Default)]
enum Def {
    #[default]
    None,
    Param,
    At(Inst),
    Many,
}

pub(super) fn check(cx: &mut Ctx<'_>, cfg: &CsrGraph) {
    let func = cx.func;
    let dt = DomTree::of(cfg);
    let mut defs: SecondaryMap<Var, Def> = SecondaryMap::with_capacity(func.num_vars());
    let mut count: SecondaryMap<Var, u32> = SecondaryMap::with_capacity(func.num_vars());
    // Position of each instruction in its block.
    let mut pos: SecondaryMap<Inst, u32> = SecondaryMap::with_capacity(func.num_insts());
    for &p in func.params() {
        defs[p] = Def::Param;
        count[p] += 1;
    }
    for b in func.blocks() {
        for (k, inst) in func.block_insts(b).enumerate() {
            pos[inst] = k as u32;
            for &r in func.results(inst) {
                if func.var_data(r).is_none() {
                    continue;
                }
                count[r] += 1;
                defs[r] = if defs[r] == Def::None { Def::At(inst) } else { Def::Many };
            }
            if func.guard(inst).is_some() && !func.results(inst).is_empty() && func.fallbacks(inst).is_empty() {
                cx.block = Some(b);
                cx.inst = Some(inst);
                cx.err(
                    ErrorKind::MissingFallback,
                    "a guarded definition in SSA form must name what its results keep when the guard fails (`else ...`)",
                );
            }
        }
    }
    for v in func.vars() {
        if count[v] > 1 {
            cx.block = None;
            cx.inst = None;
            let shown = cx.show_var(v);
            cx.err_var(
                ErrorKind::MultipleDefinitions,
                Some(v),
                format!("{shown} is defined {} times; SSA allows one", count[v]),
            );
        }
    }
    // Does the definition of `v` dominate position `at` of block `b`
    // (`u32::MAX`: the end of the block)? Vars without a single definition
    // were reported already.
    let dominated = |v: Var, b: Block, at: u32| -> bool {
        match defs.get(v).copied().unwrap_or_default() {
            Def::None | Def::Param | Def::Many => true,
            Def::At(d) => match func.layout().inst_block(d) {
                Some(db) if db == b => pos[d] < at,
                Some(db) => dt.dominates(node(db), node(b)),
                None => false,
            },
        }
    };
    for b in func.blocks().filter(|&b| dt.is_reachable(node(b))) {
        for inst in func.block_insts(b) {
            let here = pos[inst];
            let is_phi = func.is_phi(inst);
            if is_phi {
                for (pred, op) in func.phi_incoming(inst) {
                    let Some(v) = op.as_var() else { continue };
                    if func.block_exists(pred) && dt.is_reachable(node(pred)) && !dominated(v, pred, u32::MAX) {
                        report(cx, b, inst, v, &format!("the end of {pred}"));
                    }
                }
            }
            // A phi's operands are checked above, at their predecessors; its
            // guard (only in unverified IR) and all uses of other
            // instructions (operands, guard, fallbacks) here.
            for (site, v) in func.uses(inst) {
                if is_phi && site != UseSite::Guard || v.index() >= func.num_vars() {
                    continue;
                }
                if !dominated(v, b, here) {
                    report(cx, b, inst, v, "this use");
                }
            }
        }
    }
}

fn report(cx: &mut Ctx<'_>, b: Block, inst: Inst, v: Var, place: &str) {
    cx.block = Some(b);
    cx.inst = Some(inst);
    let shown = cx.show_var(v);
    cx.err_var(ErrorKind::UseNotDominated, Some(v), format!("the definition of {shown} does not dominate {place}"));
}
