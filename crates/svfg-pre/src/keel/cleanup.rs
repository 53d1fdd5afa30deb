//! Applying a [`Cleanup`] to a Keel function ([`crate::cleanup`]): every
//! read of a forwarded var (operand, guard or fallback, phi operands
//! included) is rewritten to read the copied var, then the dead
//! instructions are removed.
//!
//! Invariant: the function stays in SSA form and computes what it computed
//! (a forwarded var's definition dominates every read it replaces; a
//! removed instruction's results are read nowhere, and it has no effect).

use super::code::KeelCode;
use super::error::PreError;
use crate::cleanup::{Cleanup, CleanupStats, cleanup};
use crate::input::NONE;
use ir_core::{Function, Guard, Inst, Operand, Var};

/// Cleans `func` (SSA form) up: copies forwarded, unused phis, copies and
/// pure computations that cannot trap removed (see [`crate::cleanup`]).
pub fn cleanup_function(func: &mut Function) -> Result<CleanupStats, PreError> {
    let plan = cleanup(&func.cfg(), &KeelCode::new(func)).map_err(|e| PreError::of_input(func, e))?;
    Ok(apply_cleanup_unchecked(func, &plan))
}

/// Applies `plan` to `func`, the function it was made for (unchanged since:
/// [`PreError::StalePlan`] otherwise, and nothing is changed); returns its
/// counts.
pub fn apply_cleanup(func: &mut Function, plan: &Cleanup) -> Result<CleanupStats, PreError> {
    plan.check(func).map_err(PreError::StalePlan)?;
    Ok(apply_cleanup_unchecked(func, plan))
}

/// [`apply_cleanup`] without the stamp check (the caller just made it).
fn apply_cleanup_unchecked(func: &mut Function, plan: &Cleanup) -> CleanupStats {
    let mut to = vec![NONE; func.num_vars()];
    for &(v, s) in &plan.forward {
        if let Some(slot) = to.get_mut(v as usize) {
            *slot = s;
        }
    }
    let new = |v: Var| to.get(v.as_u32() as usize).copied().filter(|&s| s != NONE).map(Var::from_u32);
    let insts: Vec<Inst> = func.blocks().flat_map(|b| func.block_insts(b).collect::<Vec<_>>()).collect();
    for inst in insts {
        let ops: Vec<(usize, Var)> =
            func.operands(inst).iter().enumerate().filter_map(|(k, o)| Some((k, new(o.as_var()?)?))).collect();
        for (k, s) in ops {
            func.set_operand(inst, k, Operand::var(s));
        }
        if let Some(g) = func.guard(inst)
            && let Some(s) = new(g.var)
        {
            func.set_guard(inst, Some(Guard { var: s, ..g }));
        }
        let keeps = func.fallbacks(inst);
        if keeps.iter().any(|o| o.as_var().and_then(new).is_some()) {
            let rewritten: Vec<Operand> =
                keeps.iter().map(|&o| o.as_var().and_then(new).map_or(o, Operand::var)).collect();
            func.set_fallbacks(inst, &rewritten);
        }
    }
    for &i in &plan.delete {
        // An id the plan names is an instruction of a block (the plan was
        // made for this function): removal cannot fail.
        let _ = func.remove_inst(Inst::from_u32(i));
    }
    plan.stats
}
