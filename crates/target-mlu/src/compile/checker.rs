//! The allocation checker: proves that an [`Allocation`] computes what its
//! [`VirtualCode`] computes, register for register.
//!
//! Algorithm (the symbolic checker of the `regalloc2` crate, which
//! `docs/references.md` lists among Keel's models, simplified to one value
//! per location): a forward dataflow over the physical program's control
//! flow whose state maps every location (GPR or spill slot) to the virtual
//! register whose current value it holds, or to nothing. A virtual
//! instruction's physical copy must read, at each register operand, a
//! location holding the virtual register the virtual instruction reads
//! there; its definition makes the written location hold the defined
//! virtual register and every other location holding an older value of it
//! hold nothing. Reloads, spills and moves copy the abstract value (the
//! physical instruction must be the load, store or move it claims to be);
//! an inserted jump changes nothing. At joins,
//! locations that disagree hold nothing. The lattice has height 2 per
//! location, so the worklist terminates.
//!
//! Invariant: the checker never panics, whatever the allocation holds
//! (mismatched lengths or registers out of range are errors: an
//! [`AllocError`] naming the physical instruction, with a typed
//! [`AllocErrorKind`](super::error::AllocErrorKind)).

use super::error::{AllocError, AllocErrorKind as K};
use super::regalloc::{Allocation, Origin, VirtualCode};
use mlu_isa::{Addr, Inst, Operand, Ty};

const NONE: u32 = u32::MAX;

/// Most abstract-state entries (blocks × locations) the checker keeps:
/// past this, [`check_allocation`] refuses to check (it would need more
/// than 256 MiB) and says so.
pub const MAX_STATE: usize = 1 << 26;

/// Checks `alloc` against `code`. An allocation too large to check
/// (`blocks × locations > MAX_STATE`) is an error saying so.
pub fn check_allocation(code: &VirtualCode, alloc: &Allocation) -> Result<(), AllocError> {
    let p = &alloc.program;
    let n = p.insts.len();
    let err = |at: usize, kind: K| AllocError { at: at as u32, kind };
    if alloc.origins.len() != n {
        return Err(err(0, K::OriginCount { origins: alloc.origins.len(), insts: n }));
    }
    let regs = p
        .insts
        .iter()
        .flat_map(|i| i.uses().as_slice().iter().copied().chain(i.def()).collect::<Vec<_>>())
        .map(|r| r.index() + 1)
        .max()
        .unwrap_or(0);
    let locs = regs + alloc.spill_slots as usize;
    let slot_loc = |s: u32| regs + s as usize;
    // A spill slot's address: the spill object, 8 bytes per slot, no base.
    let is_slot = |a: &Addr, slot: u32| *a == super::regalloc::slot_addr(alloc.spill, slot);
    let target = |i: &Inst| i.target().and_then(|l| p.labels.get(l.index())).map(|l| l.at as usize);
    // Block leaders: the entry, every label, every instruction after a jump or branch.
    let leader = super::blocks::leaders(p);
    let blocks = leader.iter().filter(|&&l| l).count();
    if blocks.saturating_mul(locs) > MAX_STATE {
        return Err(err(0, K::TooLarge { blocks, locations: locs }));
    }
    let mut state_at: Vec<Option<Vec<u32>>> = vec![None; n + 1];
    state_at[0] = Some(vec![NONE; locs]);
    let mut work = vec![0usize];
    let mut queued = vec![false; n + 1];
    queued[0] = true;
    while let Some(start) = work.pop() {
        queued[start] = false;
        let Some(mut s) = state_at[start].clone() else { continue };
        let mut k = start;
        loop {
            if k >= n {
                break;
            }
            let inst = &p.insts[k];
            match alloc.origins[k] {
                Origin::Inst(vi) => {
                    let Some(vinst) = code.program.insts.get(vi as usize) else {
                        return Err(err(k, K::NotVirtual { origin: vi }));
                    };
                    if vinst.mnemonic() != inst.mnemonic() {
                        return Err(err(
                            k,
                            K::StandsFor { physical: Box::new(inst.clone()), virtual_inst: Box::new(vinst.clone()) },
                        ));
                    }
                    let (vu, pu) = (vinst.uses(), inst.uses());
                    if vu.as_slice().len() != pu.as_slice().len() {
                        return Err(err(k, K::OperandCount));
                    }
                    for (v, &reg) in vu.as_slice().iter().zip(pu.as_slice()) {
                        let held = s.get(reg.index()).copied().unwrap_or(NONE);
                        if held != u32::from(v.0) {
                            let held = (held != NONE).then_some(held);
                            return Err(err(k, K::WrongValue { reg, expected: u32::from(v.0), held }));
                        }
                    }
                    match (vinst.def(), inst.def()) {
                        (Some(v), Some(r)) if r.index() < regs => {
                            for x in s.iter_mut() {
                                if *x == u32::from(v.0) {
                                    *x = NONE;
                                }
                            }
                            s[r.index()] = u32::from(v.0);
                        }
                        (None, None) => {}
                        _ => return Err(err(k, K::DefinitionsDiffer)),
                    }
                }
                Origin::Reload { slot, reg, .. } => {
                    if slot >= alloc.spill_slots || reg.index() >= regs {
                        return Err(err(k, K::ReloadOutOfRange));
                    }
                    if !matches!(inst, Inst::Load { ty: Ty::I64, dst, addr } if *dst == reg && is_slot(addr, slot)) {
                        return Err(err(k, K::NotReload { inst: Box::new(inst.clone()), slot }));
                    }
                    s[reg.index()] = s[slot_loc(slot)];
                }
                Origin::Spill { reg, slot, .. } => {
                    if slot >= alloc.spill_slots || reg.index() >= regs {
                        return Err(err(k, K::SpillOutOfRange));
                    }
                    let stores = |value: &Operand| *value == Operand::Reg(reg);
                    if !matches!(inst, Inst::Store { ty: Ty::I64, addr, value } if is_slot(addr, slot) && stores(value))
                    {
                        return Err(err(k, K::NotSpill { inst: Box::new(inst.clone()), slot }));
                    }
                    s[slot_loc(slot)] = s[reg.index()];
                }
                Origin::Move { from, to, .. } => {
                    if from.index() >= regs || to.index() >= regs {
                        return Err(err(k, K::MoveOutOfRange));
                    }
                    if !matches!(inst, Inst::Mov { ty: Ty::I64, dst, src: Operand::Reg(r) } if *dst == to && *r == from)
                    {
                        return Err(err(k, K::NotMove { inst: Box::new(inst.clone()), to, from }));
                    }
                    s[to.index()] = s[from.index()];
                }
                Origin::Jump => {
                    if !matches!(inst, Inst::Jump { .. }) {
                        return Err(err(k, K::NotJump { inst: Box::new(inst.clone()) }));
                    }
                }
            }
            let mut succ: [Option<usize>; 2] = [None, None];
            if let Some(t) = target(inst) {
                succ[0] = Some(t);
            }
            if !inst.ends_flow() {
                succ[1] = Some(k + 1);
            }
            let falls = succ[1] == Some(k + 1) && !leader[k + 1];
            for t in succ.into_iter().flatten() {
                if t == k + 1 && falls {
                    continue;
                }
                if t > n {
                    return Err(err(k, K::BranchPastEnd));
                }
                let changed = match &mut state_at[t] {
                    slot @ None => {
                        *slot = Some(s.clone());
                        true
                    }
                    Some(old) => {
                        let mut changed = false;
                        for (o, &x) in old.iter_mut().zip(&s) {
                            if *o != x && *o != NONE {
                                *o = NONE;
                                changed = true;
                            }
                        }
                        changed
                    }
                };
                if changed && !queued[t] {
                    queued[t] = true;
                    work.push(t);
                }
            }
            if !falls {
                break;
            }
            k += 1;
        }
    }
    Ok(())
}
