//! One block's instructions in the whole-function sweep: next reads,
//! loads, Belady's evictions, definitions and stores (module doc of
//! [`crate::belady`]).
//!
//! Invariant: before each instruction every var it reads is in a register
//! and at most `P` registers of a class are taken; a var evicted while its
//! home slot is stale is stored first; a tied definition keeps its
//! register.

use super::{Env, INF, Sweep};
use crate::block_dag::CodeError;
use crate::class::{Loc, PReg, RegClass};
use crate::dag::NONE;
use crate::error::AllocError;
use crate::input::{InstKind, RegCode};
use crate::output::Edit;
use crate::pass::{Item, Pass, home_slot, note_var};
use crate::planted::{Bug, planted};
use cfg_dom::{Graph, Node, VarId};

impl Sweep {
    /// Next reads inside `b`, backward: per read and per definition, the
    /// position of the value's next read after the instruction (appended
    /// to `use_next` and `def_next`, from `ubase[b]` and `dbase[b]`; the
    /// same for every sweep, so computed once). The same walk tells the
    /// shared homes which vars are live where ([`crate::slot_share`]).
    pub(super) fn next_reads<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>, b: Node) {
        let input = env.input;
        let insts = input.block_insts(b);
        let len = insts.len() as u64;
        self.touched.clear();
        for &(x, d) in env.nu.dist_out(b) {
            self.next[x as usize] = len.saturating_add(d);
            self.touched.push(x);
            self.slot_share.live(x);
        }
        let nu_total: usize = insts.iter().map(|&i| input.uses(i).len()).sum();
        let nd_total: usize = insts.iter().map(|&i| input.defs(i).len()).sum();
        let (ubase, dbase) = (self.use_next.len(), self.def_next.len());
        self.ubase[b as usize] = ubase;
        self.dbase[b as usize] = dbase;
        self.use_next.resize(ubase + nu_total, INF);
        self.def_next.resize(dbase + nd_total, INF);
        let (mut ju, mut jd) = (ubase + nu_total, dbase + nd_total);
        for (k, &i) in insts.iter().enumerate().rev() {
            let guarded = input.is_guarded(i);
            let defs = input.defs(i);
            let uses = input.uses(i);
            jd -= defs.len();
            ju -= uses.len();
            for &d in defs {
                self.slot_share.defined(d);
            }
            for (t, &d) in defs.iter().enumerate() {
                self.def_next[jd + t] = self.next[d as usize];
                if !guarded {
                    self.next[d as usize] = INF;
                    self.slot_share.killed(d);
                }
            }
            for (t, u) in uses.iter().enumerate() {
                self.use_next[ju + t] = self.next[u.var as usize];
            }
            for u in uses {
                self.next[u.var as usize] = k as u64;
                self.touched.push(u.var);
                self.slot_share.live(u.var);
            }
            // A guarded definition whose value is read later reads the old
            // value too (it flows through when the guard is false).
            for (t, &d) in defs.iter().enumerate() {
                if guarded && self.def_next[jd + t] != INF {
                    self.next[d as usize] = k as u64;
                    self.touched.push(d);
                }
            }
        }
        for &x in &self.touched {
            self.next[x as usize] = INF;
        }
        self.slot_share.end_block(Some(b) == input.graph().entry());
    }

    /// Takes a register of class `c` for `x` before instruction `stamp`:
    /// `hint` if free, else the lowest free one, else the register whose
    /// value is read furthest ahead (stored first when memory is stale).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take(
        &mut self,
        pass: &mut Pass,
        items: &mut Vec<Item>,
        w: u64,
        c: usize,
        hint: u32,
        stamp: u32,
        drop_stores: bool,
    ) -> u32 {
        if hint != NONE && self.is_free(c, hint) {
            return hint;
        }
        if let Some(r) = self.lowest_free(c) {
            return r;
        }
        let mut best: Option<(u64, bool, u32)> = None;
        // What plain MIN (a clean value as far as it is) would choose.
        let mut plain: Option<(u64, bool, u32)> = None;
        for r in 0..self.reg_var[c].len() as u32 {
            if self.busy[c][r as usize] == stamp {
                continue;
            }
            let y = self.reg_var[c][r as usize];
            // Furthest next read first; a clean value costs one load to
            // bring back, a dirty one a store too, so a clean value counts
            // as `CLEAN_FACTOR` times as far.
            let clean = self.clean[y as usize];
            let dist = self.reg_next[c][r as usize].saturating_sub(self.pos);
            let key = (if clean { dist.saturating_mul(self.clean_factor) } else { dist }, clean);
            if best.is_none_or(|(n, cl, _)| key > (n, cl)) {
                best = Some((key.0, key.1, r));
            }
            if plain.is_none_or(|(n, cl, _)| (dist, clean) > (n, cl)) {
                plain = Some((dist, clean, r));
            }
        }
        let (_, _, r) = best.expect("an instruction never needs more registers than there are");
        self.factor_mattered |= plain.is_some_and(|p| p.2 != r);
        let y = self.reg_var[c][r as usize];
        if !self.clean[y as usize] {
            self.store_home(pass, items, w, PReg::new(RegClass::ALL[c], r), y, drop_stores);
        }
        self.free(c, r);
        r
    }

    /// Stores `x` from `reg` into its home slot (an edit before the next
    /// instruction, weighted `w`); its home is then current.
    fn store_home(&mut self, pass: &mut Pass, items: &mut Vec<Item>, w: u64, reg: PReg, x: VarId, drop_stores: bool) {
        let slot = home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x);
        note_var(&mut pass.slots[slot as usize], x);
        let e = Edit { from: Loc::Reg(reg), to: Loc::Slot(slot), var: x };
        pass.costs.add(e.kind(), w);
        pass.store_cost[x as usize] += w;
        if !drop_stores {
            items.push(Item::Edit(e));
        }
        self.clean[x as usize] = true;
    }

    /// Block `b`'s instructions, from its installed entry state.
    pub(super) fn block<G: Graph, C: RegCode>(
        &mut self,
        env: &Env<'_, G, C>,
        pass: &mut Pass,
        b: Node,
        stamp: &mut u32,
    ) -> Result<(), AllocError> {
        let (fx, input) = (env.fx, env.input);
        let drop_stores = planted(Bug::DropStores);
        let w = fx.weight[b as usize];
        let mut items = std::mem::take(&mut pass.items[b as usize]);
        items.clear();
        let (mut ju, mut jd) = (self.ubase[b as usize], self.dbase[b as usize]);
        for (k, &i) in input.block_insts(b).iter().enumerate() {
            self.pos = k as u64;
            // Reads reserve their registers with `st`, definitions with
            // `st + 1`: a definition may empty a register only read here.
            *stamp = stamp.wrapping_add(2);
            let st = *stamp;
            let guarded = input.is_guarded(i);
            let (uses, defs) = (input.uses(i), input.defs(i));
            if input.is_phi(i) {
                return Err(AllocError::Code(CodeError::Phi { inst: i }));
            }
            let last = k + 1 == input.block_insts(b).len();
            let is_term = input.code().inst_kind(i) == InstKind::Terminator;
            if is_term && (!last || !defs.is_empty()) {
                return Err(AllocError::Code(CodeError::BadTerminator { inst: i }));
            }
            // The vars read: uses, and tied definitions (guarded ones whose
            // value is read later).
            let tied = |s: &Sweep, t: usize| guarded && s.def_next[jd + t] != INF;
            for (t, &d) in defs.iter().enumerate() {
                if tied(self, t) && defs[..t].contains(&d) {
                    return Err(AllocError::Code(CodeError::BadTie { inst: i }));
                }
            }
            self.reads.clear();
            let mut need = [0u32; 2];
            let tied_defs: smallvec::SmallVec<[VarId; 4]> =
                defs.iter().enumerate().filter(|&(t, _)| tied(self, t)).map(|(_, &d)| d).collect();
            for x in uses.iter().map(|u| u.var).chain(tied_defs.iter().copied()) {
                if self.mark[x as usize] != st {
                    self.mark[x as usize] = st;
                    self.reads.push(x);
                    need[fx.class[x as usize].index()] += 1;
                }
            }
            let mut out = [0u32; 2];
            for &d in defs {
                out[fx.class[d as usize].index()] += 1;
            }
            for c in RegClass::ALL {
                let needs = need[c.index()].max(out[c.index()]);
                if needs > env.regs[c.index()] {
                    return Err(AllocError::TooFewRegisters {
                        block: b,
                        inst: i,
                        class: c,
                        needs,
                        have: env.regs[c.index()],
                    });
                }
            }
            // Reads: load what is not in a register.
            for k in 0..self.reads.len() {
                let x = self.reads[k];
                let c = fx.class[x as usize].index();
                let r = self.var_reg[x as usize];
                if r != NONE {
                    self.busy[c][r as usize] = st;
                    continue;
                }
                let hint = self.prefers(x);
                let r = self.take(pass, &mut items, w, c, hint, st, drop_stores);
                let slot = home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x);
                let class = fx.class[x as usize];
                let e = Edit { from: Loc::Slot(slot), to: Loc::Reg(PReg::new(class, r)), var: x };
                pass.costs.add(e.kind(), w);
                items.push(Item::Edit(e));
                self.place(c, r, x, 0);
                self.clean[x as usize] = true;
                self.busy[c][r as usize] = st;
            }
            let at = pass.alloc_start[i as usize] as usize;
            for (t, u) in uses.iter().enumerate() {
                let class = fx.class[u.var as usize];
                pass.allocs[at + t] = PReg::new(class, self.var_reg[u.var as usize]);
            }
            // After the reads: each value's next read; dead values free
            // their registers (a definition may take them).
            let mut copy_src = NONE;
            for (t, u) in uses.iter().enumerate() {
                let x = u.var;
                let c = fx.class[x as usize].index();
                let r = self.var_reg[x as usize];
                if r == NONE {
                    continue; // freed by an earlier operand of the same var
                }
                let nx = self.use_next[ju + t];
                if nx == INF && !tied_defs.contains(&x) {
                    if defs.len() == 1 && input.code().is_copy(i) {
                        copy_src = r;
                    }
                    self.free(c, r);
                    self.busy[c][r as usize] = u32::MAX;
                } else {
                    self.reg_next[c][r as usize] = nx;
                }
            }
            // A tied definition keeps its register: no other definition of
            // this instruction may take it.
            for &d in &tied_defs {
                let r = self.var_reg[d as usize];
                self.busy[fx.class[d as usize].index()][r as usize] = st + 1;
            }
            // A copy whose source's home is current, into a var that
            // shares that home: the destination's home is current too.
            let copy_home = match (uses, defs) {
                ([u], [d])
                    if u.var != *d
                        && pass.home_key.get(u.var as usize).is_some_and(|&k| pass.home_key[*d as usize] == k)
                        && self.clean[u.var as usize]
                        && pass.home[u.var as usize] != NONE
                        && !guarded
                        && input.code().is_copy(i) =>
                {
                    Some(*d)
                }
                _ => None,
            };
            // Definitions.
            for (t, &d) in defs.iter().enumerate() {
                let c = fx.class[d as usize].index();
                let nx = self.def_next[jd + t];
                let r = if tied(self, t) {
                    self.var_reg[d as usize]
                } else {
                    let old = self.var_reg[d as usize];
                    if old != NONE {
                        self.free(c, old);
                    }
                    let hint = if copy_src != NONE && self.is_free(c, copy_src) { copy_src } else { self.prefers(d) };
                    self.take(pass, &mut items, w, c, hint, st + 1, drop_stores)
                };
                debug_assert_ne!(r, NONE, "a tied definition was read first");
                self.place(c, r, d, nx);
                self.clean[d as usize] = false;
                self.busy[c][r as usize] = st + 1;
                pass.allocs[at + uses.len() + t] = PReg::new(fx.class[d as usize], r);
            }
            for (t, &d) in defs.iter().enumerate() {
                if self.def_next[jd + t] == INF {
                    let r = self.var_reg[d as usize];
                    if r != NONE {
                        self.free(fx.class[d as usize].index(), r);
                    }
                }
            }
            items.push(Item::Inst(i));
            if let Some(d) = copy_home {
                self.clean[d as usize] = true;
                let slot = home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, d);
                note_var(&mut pass.slots[slot as usize], d);
            }
            // (A terminator defines nothing: checked above.)
            for (t, &d) in defs.iter().enumerate() {
                self.def_cost[d as usize] = self.def_cost[d as usize].saturating_add(w);
                let r = self.var_reg[d as usize];
                if self.spill_at_def[d as usize] && r != NONE && self.def_next[jd + t] != INF && !self.clean[d as usize]
                {
                    self.store_home(pass, &mut items, w, PReg::new(fx.class[d as usize], r), d, drop_stores);
                }
            }
            ju += uses.len();
            jd += defs.len();
        }
        pass.items[b as usize] = items;
        // Exit: the live-out vars in registers, in var order (a walk of the
        // live-out list, sorted by var, where sorting the registers' vars
        // was a quarter of the block's time); then empty the registers.
        let exit = &mut pass.exit[b as usize];
        exit.clear();
        for &(x, _) in env.nu.dist_out(b) {
            let r = self.var_reg[x as usize];
            if r != NONE {
                exit.push((x, r, self.clean[x as usize]));
            }
        }
        for c in 0..2 {
            for k in 0..self.taken[c].len() {
                let mut bits = self.taken[c][k];
                while bits != 0 {
                    let r = k as u32 * 64 + bits.trailing_zeros();
                    bits &= bits - 1;
                    self.free(c, r);
                }
            }
        }
        Ok(())
    }
}
