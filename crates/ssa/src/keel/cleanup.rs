//! Phi clean-up, to a fixpoint (the DU-chain document's step 3):
//! - a *trivial* phi, whose operands are all one value or the phi itself,
//!   is replaced by that value everywhere (Braun et al., "Simple and
//!   efficient construction of static single assignment form", 2013, call
//!   this `tryRemoveTrivialPhi`); replacing it can make the phis that used it
//!   trivial in turn, so they are re-examined;
//! - a *dead* phi, whose result no instruction but other dead phis reads,
//!   is removed: liveness is propagated from non-phi uses through phi
//!   operands, and what stays unmarked goes.
//!
//! Invariants: only the phis construction inserted are touched (a phi the
//! input already had is the user's definition); use lists are built once
//! and updated as uses move, so the whole clean-up is linear in the number
//! of uses plus the work of the replacements.

use ir_core::entity::EntityRef;
use ir_core::{Function, Guard, Inst, Operand, UseSite};

/// Cleans up the phis `phis` of `func` (those that construction inserted, or
/// any a client inserted itself): removes trivial ones, then dead ones, to
/// a fixpoint; other instructions are only rewritten to read replacements.
/// Returns how many were removed as trivial and as dead.
pub fn cleanup_phis(func: &mut Function, phis: &[Inst]) -> (usize, usize) {
    let nv = func.num_vars();
    // Who reads each var.
    let mut uses: Vec<Vec<(Inst, UseSite)>> = vec![Vec::new(); nv];
    for b in func.blocks().collect::<Vec<_>>() {
        for inst in func.block_insts(b).collect::<Vec<_>>() {
            for (site, v) in func.uses(inst) {
                if v.index() < nv {
                    uses[v.index()].push((inst, site));
                }
            }
        }
    }
    let mut is_inserted = vec![false; func.num_insts()];
    for &p in phis {
        is_inserted[p.index()] = true;
    }
    let mut removed = vec![false; func.num_insts()];
    // Trivial phis.
    let mut trivial = 0;
    let mut work: Vec<Inst> = phis.to_vec();
    while let Some(p) = work.pop() {
        if removed[p.index()] {
            continue;
        }
        let Some(&r) = func.results(p).first() else { continue };
        let mut same: Option<Operand> = None;
        let mut unique = true;
        for &op in func.operands(p) {
            if op.as_var() == Some(r) || Some(op) == same {
                continue;
            }
            if same.is_some() {
                unique = false;
                break;
            }
            same = Some(op);
        }
        let (true, Some(value)) = (unique, same) else { continue };
        // Replace every use of r by `value`, then drop the phi.
        let readers = std::mem::take(&mut uses[r.index()]);
        for &(inst, site) in &readers {
            if inst == p {
                continue;
            }
            replace_use(func, inst, site, value);
            if let Some(v) = value.as_var().filter(|v| v.index() < nv) {
                uses[v.index()].push((inst, site));
            }
            if is_inserted.get(inst.index()).copied().unwrap_or(false) {
                work.push(inst);
            }
        }
        if let Some(v) = value.as_var().filter(|v| v.index() < nv) {
            uses[v.index()].retain(|&(i, _)| i != p);
        }
        let _ = func.remove_inst(p);
        removed[p.index()] = true;
        trivial += 1;
    }
    // Dead phis: live if read by something that is not an inserted phi, or
    // by a live inserted phi.
    let mut live = vec![false; func.num_insts()];
    let mut work: Vec<Inst> = Vec::new();
    for &p in phis.iter().filter(|p| !removed[p.index()]) {
        let Some(&r) = func.results(p).first() else { continue };
        let read_elsewhere = uses[r.index()].iter().any(|&(i, _)| {
            !is_inserted.get(i.index()).copied().unwrap_or(false) && func.layout().inst_block(i).is_some()
        });
        if read_elsewhere {
            live[p.index()] = true;
            work.push(p);
        }
    }
    let mut def_of: Vec<Option<Inst>> = vec![None; nv];
    for &p in phis.iter().filter(|p| !removed[p.index()]) {
        if let Some(&r) = func.results(p).first().filter(|r| r.index() < nv) {
            def_of[r.index()] = Some(p);
        }
    }
    while let Some(p) = work.pop() {
        for &op in func.operands(p) {
            if let Some(q) = op.as_var().and_then(|v| def_of.get(v.index()).copied().flatten())
                && !live[q.index()]
            {
                live[q.index()] = true;
                work.push(q);
            }
        }
    }
    let mut dead = 0;
    for &p in phis.iter().filter(|p| !removed[p.index()] && !live[p.index()]) {
        let _ = func.remove_inst(p);
        dead += 1;
    }
    (trivial, dead)
}

fn replace_use(func: &mut Function, inst: Inst, site: UseSite, value: Operand) {
    match site {
        UseSite::Operand(i) => {
            func.set_operand(inst, i as usize, value);
        }
        UseSite::Guard => {
            if let (Some(g), Some(v)) = (func.guard(inst), value.as_var()) {
                func.set_guard(inst, Some(Guard { var: v, negated: g.negated }));
            }
        }
        UseSite::Fallback(i) => {
            let mut ops = func.fallbacks(inst).to_vec();
            if let Some(slot) = ops.get_mut(i as usize) {
                *slot = value;
            }
            func.set_fallbacks(inst, &ops);
        }
    }
}
