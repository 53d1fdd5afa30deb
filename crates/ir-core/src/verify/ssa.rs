//! The SSA level: single definition and dominance.
//!
//! Invariants checked: every var has at most one definition (a param counts
//! as one, at function entry); every use in a reachable block is dominated
//! by its definition: by an earlier instruction of the same block, or by a
//! block that dominates the use's block; a phi's incoming value must be
//! dominated by the end of its incoming block. Vars with several definitions
//! are reported once and skipped by the dominance check, so one mistake
//! gives one error. Uses in unreachable blocks are exempt (nothing executes
//! them; LLVM makes the same choice).

use super::ErrorKind;
use super::cfg::Cfg;
use super::checks::Ctx;
use crate::entities::{Block, Inst, Var};
use crate::opcode::Opcode;
use cranelift_entity::SecondaryMap;

#[derive(Copy, Clone, PartialEq, Eq, Default)]
enum Def {
    #[default]
    None,
    Param,
    At(Block, Inst),
    Many,
}

pub(super) fn check(cx: &mut Ctx<'_>, cfg: &Cfg) {
    let func = cx.func;
    let mut defs: SecondaryMap<Var, Def> = SecondaryMap::with_capacity(func.num_vars());
    let mut count: SecondaryMap<Var, u32> = SecondaryMap::with_capacity(func.num_vars());
    for &p in func.params() {
        defs[p] = Def::Param;
        count[p] += 1;
    }
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            for &r in func.results(inst) {
                if func.var_data(r).is_none() {
                    continue;
                }
                count[r] += 1;
                defs[r] = if defs[r] == Def::None { Def::At(b, inst) } else { Def::Many };
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
    for b in func.blocks() {
        for inst in func.block_insts(b) {
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
    // `seen[v] == b` means v's definition was passed while walking block b.
    let mut seen: SecondaryMap<Var, Option<Block>> = SecondaryMap::with_capacity(func.num_vars());
    for b in func.blocks() {
        if !cfg.reachable(b) {
            continue;
        }
        for inst in func.block_insts(b) {
            let is_phi = func.opcode(inst) == Opcode::Phi;
            if is_phi {
                for (pred, op) in func.phi_incoming(inst) {
                    let Some(v) = op.as_var() else { continue };
                    if !func.block_exists(pred) || !cfg.reachable(pred) {
                        continue;
                    }
                    let ok = match defs[v] {
                        Def::Param | Def::Many => true,
                        Def::None => true, // reported as undefined already
                        Def::At(db, _) => cfg.dominates(db, pred),
                    };
                    if !ok {
                        report(cx, b, inst, v, &format!("the end of {pred}"));
                    }
                }
            }
            // A phi's operands are checked above, at their predecessors; its
            // guard (only in unverified IR) and all uses of other
            // instructions (operands, guard, fallbacks) here.
            let uses = func.uses(inst).filter(|&(site, _)| !is_phi || site == crate::UseSite::Guard).map(|(_, v)| v);
            for v in uses {
                let ok = match defs[v] {
                    Def::Param | Def::Many | Def::None => true,
                    Def::At(db, _) if db == b => seen[v] == Some(b),
                    Def::At(db, _) => cfg.dominates(db, b),
                };
                if !ok {
                    report(cx, b, inst, v, "this use");
                }
            }
            for &r in func.results(inst) {
                if func.var_data(r).is_some() {
                    seen[r] = Some(b);
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
