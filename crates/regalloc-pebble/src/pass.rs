//! One allocation pass over a whole function: every block's pebble game in
//! order, the entry states that carry values across edges, the fix-ups on
//! edges, and the assembly of the [`Allocation`] (see [`crate::alloc`]).

use crate::block_dag::BlockDag;
use crate::class::{Loc, PReg, RegClass};
use crate::dag::{NONE, ValueId};
use crate::error::AllocError;
use crate::facts::Facts;
use crate::game::PebbleError;
use crate::game::{Move, Setup, SinkNeed, Start};
use crate::global::{GlobalAssign, local_regs_into};
use crate::input::RegCode;
use crate::output::{Allocation, Costs, Edit, ProgPoint, SlotInfo};
use crate::parallel_move::{Want, sequence};
use crate::pebble::Pebbler;
use crate::planted::{Bug, planted};
use cfg_dom::{Graph, Input, InstId, Liveness, Node, VarId};
use smallvec::SmallVec;

/// Where a var is at a block boundary.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Here {
    pub(crate) reg: u32,
    /// Entry: the value is not also in memory. Exit: see `home`.
    pub(crate) dirty: bool,
}

/// An item of a block's new code.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Item {
    Inst(InstId),
    Edit(Edit),
}

/// One pass's result.
#[derive(Debug)]
pub(crate) struct Pass {
    /// Per block: entry registers (var, where), sorted by var.
    pub(crate) entry: Vec<Vec<(VarId, Here)>>,
    /// Per block: exit state of its carried vars (var, register, home
    /// current), sorted by var.
    pub(crate) exit: Vec<Vec<(VarId, u32, bool)>>,
    pub(crate) items: Vec<Vec<Item>>,
    /// Fix-ups: (point, edit), points at block starts/ends or edges.
    pub(crate) fixups: Vec<(Fix, Edit)>,
    pub(crate) alloc_start: Vec<u32>,
    pub(crate) allocs: Vec<PReg>,
    pub(crate) home: Vec<u32>,
    /// Per var, the var whose home slot it shares (empty: its own).
    pub(crate) home_key: Vec<VarId>,
    pub(crate) slots: Vec<SlotInfo>,
    pub(crate) costs: Costs,
    pub(crate) var_cost: Vec<u64>,
    /// Per var: its stores, weighted by loop depth.
    pub(crate) store_cost: Vec<u64>,
    pub(crate) demand: [u32; 2],
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Fix {
    Start(Node),
    End(Node),
    Edge(Node, Node),
}

pub(crate) struct Work<'w> {
    pub(crate) bd: &'w mut BlockDag,
    pub(crate) pebbler: &'w mut Pebbler,
    pub(crate) scratch: &'w mut Scratch,
    /// How every block's game decides spills and registers.
    pub(crate) rule: crate::game::LocalRule,
}

/// Buffers a pass reuses from block to block.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    preds: Vec<Node>,
    read_here: Vec<VarId>,
    written: Vec<VarId>,
    vars: Vec<VarId>,
    /// (gain, var, first candidate, candidates, dirty).
    wish: Vec<(u64, VarId, u32, u32, bool)>,
    cands: Vec<(u64, u32)>,
    schedule: crate::game::Schedule,
}

impl Work<'_> {
    /// One allocation of the whole function with `q` local registers per
    /// class and `ga`'s globals.
    pub(crate) fn pass<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        q: [u32; 2],
        ga: &GlobalAssign,
    ) -> Result<Pass, AllocError> {
        let drop_stores = planted(Bug::DropStores);
        let g = input.graph();
        let n = fx.nblocks;
        let mut pass = Pass::empty(fx, input);
        let mut done = vec![false; n];
        let mut setup = Setup { rule: self.rule, ..Setup::default() };
        let mut temp_pool: Vec<u32> = Vec::new();
        let mut affinity: Vec<u32> = vec![NONE; fx.nvars];
        let mut cur: Vec<u32> = Vec::new();
        let mut temp: Vec<u32> = Vec::new();
        let mut is_exit: Vec<bool> = Vec::new();
        let mut used_temps: Vec<u32> = Vec::new();
        for &b in &fx.order {
            let mut avail = std::mem::take(&mut setup.available);
            local_regs_into(ga, q, b, &mut avail);
            pass.entry[b as usize] = self.entry_state(fx, input, liveness, &pass, &done, ga, &avail, &affinity, b);
            let entry = &pass.entry[b as usize];
            let red = |x: VarId| entry.binary_search_by_key(&x, |&(y, _)| y).is_ok();
            self.bd.build(input, liveness, b, &ga.reg, red)?;
            let bd = &*self.bd;
            let nv = bd.dag.num_values();
            setup.available = avail;
            setup.start.clear();
            setup.start.resize(nv, Start::Blue);
            setup.pinned.clear();
            setup.pinned.resize(nv, None);
            setup.sink_need.clear();
            setup.sink_need.resize(nv, SinkNeed::Memory);
            for v in 0..nv as ValueId {
                let x = bd.value_var[v as usize];
                if ga.reg[x as usize] != NONE {
                    setup.pinned[v as usize] = Some(ga.reg[x as usize]);
                }
            }
            for &(x, v) in &bd.sources {
                if let Ok(k) = entry.binary_search_by_key(&x, |&(y, _)| y) {
                    let h = entry[k].1;
                    setup.start[v as usize] = Start::Red { reg: h.reg, dirty: h.dirty };
                }
            }
            setup.hint.clear();
            setup.hint.resize(nv, None);
            for &(x, v) in &bd.exits {
                setup.sink_need[v as usize] =
                    if wants_memory(fx, g, &pass, &done, b, x) { SinkNeed::Memory } else { SinkNeed::Anywhere };
                setup.hint[v as usize] = expected_reg(g, &pass, &done, b, x);
            }
            // Otherwise a value prefers the register its var had before
            // (values of one var then agree across blocks, and joins need
            // no moves).
            for v in 0..nv as ValueId {
                if setup.hint[v as usize].is_none() {
                    let a = affinity[bd.value_var[v as usize] as usize];
                    if a != NONE {
                        setup.hint[v as usize] = Some(a);
                    }
                }
            }
            for c in RegClass::ALL {
                pass.demand[c.index()] = pass.demand[c.index()].max(bd.dag.max_demand(c));
            }
            let sched = &mut self.scratch.schedule;
            match self.pebbler.run_into(&bd.dag, &setup, sched) {
                Ok(()) => {}
                Err(PebbleError::TooFewRegisters { op, class, needs, have }) => {
                    return Err(AllocError::TooFewRegisters {
                        block: b,
                        inst: bd.op_inst[op as usize],
                        class,
                        needs,
                        have,
                    });
                }
                Err(PebbleError::Setup(e)) => unreachable!("the driver's setups are consistent: {e}"),
            };
            // Translate the game into code and edits.
            let w = fx.weight[b as usize];
            cur.clear();
            cur.resize(nv, NONE);
            temp.clear();
            temp.resize(nv, NONE);
            is_exit.clear();
            is_exit.resize(nv, false);
            for &(_, v) in &bd.exits {
                is_exit[v as usize] = true;
            }
            for v in 0..nv as ValueId {
                cur[v as usize] = match (setup.pinned[v as usize], setup.start[v as usize]) {
                    (Some(r), _) => r,
                    (None, Start::Red { reg, .. }) if bd.is_source(v) => reg,
                    _ => NONE,
                };
            }
            used_temps.clear();
            let items = &mut pass.items[b as usize];
            for m in &sched.moves {
                match *m {
                    Move::Load { value, reg } => {
                        let x = bd.value_var[value as usize];
                        let slot = if bd.is_source(value) || is_exit[value as usize] {
                            home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x)
                        } else {
                            temp[value as usize]
                        };
                        debug_assert_ne!(slot, NONE, "a load from a slot never written");
                        let e = Edit { from: Loc::Slot(slot), to: Loc::Reg(reg), var: x };
                        pass.costs.add(e.kind(), w);
                        pass.var_cost[x as usize] += w;
                        items.push(Item::Edit(e));
                        cur[value as usize] = reg.index;
                    }
                    Move::Store { value } => {
                        let x = bd.value_var[value as usize];
                        let slot = if bd.is_source(value) || is_exit[value as usize] {
                            home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x)
                        } else {
                            let t = temp_pool.pop().unwrap_or_else(|| {
                                pass.slots.push(SlotInfo::default());
                                pass.slots.len() as u32 - 1
                            });
                            used_temps.push(t);
                            temp[value as usize] = t;
                            t
                        };
                        note_var(&mut pass.slots[slot as usize], x);
                        let reg = PReg::new(bd.dag.class(value), cur[value as usize]);
                        let e = Edit { from: Loc::Reg(reg), to: Loc::Slot(slot), var: x };
                        pass.costs.add(e.kind(), w);
                        pass.var_cost[x as usize] += w;
                        if drop_stores {
                            continue;
                        }
                        items.push(Item::Edit(e));
                    }
                    Move::Compute { op } => {
                        let inst = bd.op_inst[op as usize];
                        let at = pass.alloc_start[inst as usize] as usize;
                        let uses =
                            &bd.use_vals[bd.use_start[op as usize] as usize..bd.use_start[op as usize + 1] as usize];
                        for (k, &u) in uses.iter().enumerate() {
                            pass.allocs[at + k] = PReg::new(bd.dag.class(u), cur[u as usize]);
                        }
                        let defs =
                            &bd.def_vals[bd.def_start[op as usize] as usize..bd.def_start[op as usize + 1] as usize];
                        for (k, &d) in defs.iter().enumerate() {
                            let r = sched.reg_of(d).expect("every output has a register");
                            pass.allocs[at + uses.len() + k] = r;
                            cur[d as usize] = r.index;
                        }
                        items.push(Item::Inst(inst));
                    }
                }
            }
            temp_pool.extend_from_slice(&used_temps);
            for m in &sched.moves {
                let placed = match *m {
                    Move::Load { value, reg } => Some((value, reg.index)),
                    _ => None,
                };
                if let Some((v, r)) = placed {
                    let a = &mut affinity[bd.value_var[v as usize] as usize];
                    if *a == NONE {
                        *a = r;
                    }
                }
            }
            for v in 0..nv as ValueId {
                if let Some(r) = sched.out_reg[v as usize] {
                    let a = &mut affinity[bd.value_var[v as usize] as usize];
                    if *a == NONE {
                        *a = r.index;
                    }
                }
            }
            // The exit state of the carried vars.
            let exit = &mut pass.exit[b as usize];
            exit.clear();
            for &(x, v) in &bd.exits {
                let reg = sched.final_red[v as usize].map_or(NONE, |r| r.index);
                let home = sched.final_blue[v as usize];
                exit.push((x, reg, home));
            }
            done[b as usize] = true;
        }
        fixups(fx, input, liveness, ga, q, &mut pass);
        Ok(pass)
    }

    /// Chooses where block `b`'s live-in vars start (module doc).
    #[allow(clippy::too_many_arguments)]
    fn entry_state<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        pass: &Pass,
        done: &[bool],
        ga: &GlobalAssign,
        avail: &[Vec<u32>; 2],
        affinity: &[u32],
        b: Node,
    ) -> Vec<(VarId, Here)> {
        let g = input.graph();
        let mut out: Vec<(VarId, Here)> = Vec::new();
        if !fx.carry {
            return out;
        }
        if g.entry() == Some(b) {
            let mut next = [0usize; 2];
            for &x in &fx.params {
                if ga.reg[x as usize] != NONE || !liveness.is_live_in(b, x) || out.iter().any(|&(y, _)| y == x) {
                    continue;
                }
                let c = fx.class[x as usize].index();
                if let Some(&r) = avail[c].get(next[c]) {
                    next[c] += 1;
                    out.push((x, Here { reg: r, dirty: true }));
                }
            }
            out.sort_unstable_by_key(|&(x, _)| x);
            return out;
        }
        let sc = &mut *self.scratch;
        sc.preds.clear();
        sc.preds.extend(g.predecessors(b).filter(|&p| done[p as usize]));
        if sc.preds.is_empty() {
            return out;
        }
        let wb = fx.weight[b as usize];
        let loop_blocks = fx.loop_of_header(b);
        sc.read_here.clear();
        sc.read_here.extend_from_slice(fx.reads(b));
        sc.written.clear();
        for &l in loop_blocks {
            sc.read_here.extend_from_slice(fx.reads(l));
            sc.written.extend_from_slice(fx.writes(l));
        }
        sc.read_here.sort_unstable();
        sc.read_here.dedup();
        sc.written.sort_unstable();
        sc.written.dedup();
        let total_pred: u64 = sc.preds.iter().map(|&p| fx.weight[p as usize].min(wb)).sum();
        // The vars worth a look: those a predecessor leaves in a register,
        // and those the block (or its loop) reads or writes; any other var
        // is in memory everywhere and gains nothing in a register.
        sc.vars.clear();
        for &p in &sc.preds {
            sc.vars.extend(pass.exit[p as usize].iter().filter(|e| e.1 != NONE).map(|e| e.0));
        }
        sc.vars.extend_from_slice(&sc.read_here);
        sc.vars.extend_from_slice(&sc.written);
        sc.vars.sort_unstable();
        sc.vars.dedup();
        // Per var: (gain, candidate registers with their costs, dirty). A
        // candidate is a register some predecessor leaves the var in (the
        // others then need a move or a load), or any free register (every
        // predecessor loads or moves), weighed against memory (dirty
        // predecessors store) and the load the block (or its loop, per
        // iteration) saves when the var is already in a register.
        const ANY: u32 = u32::MAX;
        sc.wish.clear();
        sc.cands.clear();
        for &x in &sc.vars {
            if ga.reg[x as usize] != NONE || !liveness.is_live_in(b, x) {
                continue;
            }
            let c = fx.class[x as usize].index();
            let mut mem_cost = 0u64;
            let mut any_dirty = false;
            let first = sc.cands.len();
            for &p in &sc.preds {
                let we = fx.weight[p as usize].min(wb);
                let (reg, home) = exit_of(pass, p, x);
                if !home {
                    mem_cost += we;
                    any_dirty = true;
                }
                if reg != NONE && avail[c].contains(&reg) {
                    match sc.cands[first..].iter_mut().find(|(_, r)| *r == reg) {
                        Some(e) => e.0 += we,
                        None => sc.cands.push((we, reg)),
                    }
                }
            }
            // (here, r) -> (cost, r): the predecessors not there pay.
            for e in &mut sc.cands[first..] {
                e.0 = total_pred - e.0;
            }
            sc.cands.push((total_pred, ANY));
            sc.cands[first..].sort_unstable();
            let best = sc.cands[first].0;
            // The load the block (or loop, per iteration) saves; and at a
            // loop header, the store the latch saves for a var the loop
            // writes (it stays dirty in its register instead).
            let written = sc.written.binary_search(&x).is_ok();
            let benefit = u64::from(sc.read_here.binary_search(&x).is_ok()) * wb + u64::from(written) * wb;
            let reg_cost = best as i128 - benefit as i128;
            if reg_cost < mem_cost as i128 {
                let gain = (mem_cost as i128 - reg_cost) as u64;
                // A var the loop writes stays dirty: the latch need not
                // store it every iteration.
                sc.wish.push((gain, x, first as u32, (sc.cands.len() - first) as u32, any_dirty || written));
            } else {
                sc.cands.truncate(first);
            }
        }
        sc.wish.sort_unstable_by_key(|w| (core::cmp::Reverse(w.0), w.1));
        // Room for the block's (or loop's) own work: the widest instruction
        // must still find its registers without evicting what came in.
        let mut budget = [0usize; 2];
        for c in RegClass::ALL {
            let need = core::iter::once(b)
                .chain(loop_blocks.iter().copied())
                .map(|l| fx.demand[l as usize][c.index()])
                .max()
                .unwrap_or(0);
            budget[c.index()] = avail[c.index()].len().saturating_sub(need as usize);
        }
        let mut taken: [SmallVec<[u32; 16]>; 2] = [SmallVec::new(), SmallVec::new()];
        for &(_, x, first, len, dirty) in &sc.wish {
            let c = fx.class[x as usize].index();
            if taken[c].len() >= budget[c] {
                continue;
            }
            let cands = &sc.cands[first as usize..(first + len) as usize];
            let pick = cands.iter().find_map(|&(_, r)| {
                if r != ANY {
                    return (!taken[c].contains(&r)).then_some(r);
                }
                let a = affinity[x as usize];
                if a != NONE && avail[c].contains(&a) && !taken[c].contains(&a) {
                    return Some(a);
                }
                avail[c].iter().copied().find(|r| !taken[c].contains(r))
            });
            if let Some(r) = pick {
                taken[c].push(r);
                out.push((x, Here { reg: r, dirty }));
            }
        }
        out.sort_unstable_by_key(|&(x, _)| x);
        out
    }
}

/// The parallel move on every edge.
pub(crate) fn fixups<G: Graph, C: RegCode>(
    fx: &Facts,
    input: &Input<'_, G, C>,
    liveness: &Liveness,
    ga: &GlobalAssign,
    q: [u32; 2],
    pass: &mut Pass,
) {
    let g = input.graph();
    let mut wants: Vec<Want> = Vec::new();
    let mut edits: Vec<Edit> = Vec::new();
    let mut stays: Vec<PReg> = Vec::new();
    let mut term_reads: Vec<PReg> = Vec::new();
    let mut scratch: Vec<PReg> = Vec::new();
    let mut homes_current: Vec<VarId> = Vec::new();
    let mut ap: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    let mut as_: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    for p in 0..fx.nblocks as Node {
        let nsucc = g.successors(p).count();
        let exit = &pass.exit[p as usize];
        for s in g.successors(p) {
            wants.clear();
            stays.clear();
            // Only vars in a register at the predecessor's end or at the
            // successor's start can need work: merge the two sorted
            // lists (a var in memory at both ends needs nothing).
            let entry = &pass.entry[s as usize];
            let (mut i, mut j) = (0, 0);
            while i < exit.len() || j < entry.len() {
                let xe = exit.get(i).map_or(VarId::MAX, |e| e.0);
                let xn = entry.get(j).map_or(VarId::MAX, |e| e.0);
                let x = xe.min(xn);
                let (reg, home) = if xe == x {
                    i += 1;
                    (exit[i - 1].1, exit[i - 1].2)
                } else {
                    (NONE, true)
                };
                let want = if xn == x {
                    j += 1;
                    Some(entry[j - 1].1)
                } else {
                    None
                };
                if ga.reg[x as usize] != NONE || !liveness.is_live_in(s, x) {
                    continue;
                }
                let c = fx.class[x as usize];
                if reg != NONE {
                    stays.push(PReg::new(c, reg));
                }
                let from_reg = (reg != NONE).then(|| Loc::Reg(PReg::new(c, reg)));
                let store = match want {
                    None => !home,
                    Some(h) => !h.dirty && !home,
                };
                if store {
                    let slot = home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x);
                    note_var(&mut pass.slots[slot as usize], x);
                    wants.push(Want { from: from_reg.expect("a value is somewhere"), to: Loc::Slot(slot), var: x });
                }
                if let Some(h) = want {
                    let to = Loc::Reg(PReg::new(c, h.reg));
                    match from_reg {
                        Some(f) => wants.push(Want { from: f, to, var: x }),
                        None => {
                            let slot = home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, x);
                            wants.push(Want { from: Loc::Slot(slot), to, var: x });
                        }
                    }
                }
            }
            if wants.iter().all(|w| w.from == w.to) {
                continue;
            }
            // Where: the predecessor's end, the successor's start, or
            // the edge itself.
            terminator_regs(input, pass, p, &mut term_reads);
            let writes_reg = |r: PReg| wants.iter().any(|w| w.to == Loc::Reg(r));
            let at = if nsucc == 1 && !term_reads.iter().any(|&r| writes_reg(r)) {
                Fix::End(p)
            } else if g.predecessors(s).count() == 1 {
                Fix::Start(s)
            } else {
                Fix::Edge(p, s)
            };
            scratch.clear();
            local_regs_into(ga, q, p, &mut ap);
            local_regs_into(ga, q, s, &mut as_);
            for c in RegClass::ALL {
                for &r in &ap[c.index()] {
                    let pr = PReg::new(c, r);
                    if as_[c.index()].contains(&r)
                        && !stays.contains(&pr)
                        && !writes_reg(pr)
                        && (!matches!(at, Fix::End(_)) || !term_reads.contains(&pr))
                    {
                        scratch.push(pr);
                    }
                }
            }
            homes_current.clear();
            homes_current.extend(
                wants.iter().filter(|w| matches!(w.from, Loc::Slot(_)) || exit_of(pass, p, w.var).1).map(|w| w.var),
            );
            // A var broken out of a cycle through memory needs a home.
            for w in &wants {
                if matches!((w.from, w.to), (Loc::Reg(_), Loc::Reg(_)))
                    && pass.home[w.var as usize] == NONE
                    && is_in_cycle(&wants, w)
                {
                    home_slot(&mut pass.home, &pass.home_key, &mut pass.slots, w.var);
                }
            }
            edits.clear();
            let home = &pass.home;
            sequence(&wants, |x| home[x as usize], |x| homes_current.contains(&x), &scratch, &mut edits);
            let we = fx.weight[p as usize].min(fx.weight[s as usize]);
            for &e in &edits {
                if let Loc::Slot(sl) = e.to {
                    note_var(&mut pass.slots[sl as usize], e.var);
                }
                pass.costs.add(e.kind(), we);
                pass.var_cost[e.var as usize] += we;
                if e.kind() == crate::output::EditKind::Store {
                    pass.store_cost[e.var as usize] += we;
                }
                pass.fixups.push((at, e));
            }
        }
    }
}

/// True when register move `w` is on a cycle of `wants` (following moves
/// from its destination leads back to its source).
fn is_in_cycle(wants: &[Want], w: &Want) -> bool {
    let mut at = w.to;
    for _ in 0..wants.len() {
        match wants.iter().find(|n| n.from == at && matches!(n.to, Loc::Reg(_))) {
            Some(n) if n.to == w.from => return true,
            Some(n) => at = n.to,
            None => return false,
        }
    }
    false
}

/// Whether block `b` must leave var `x` in memory: without carrying always;
/// otherwise when an already allocated successor expects it there.
fn wants_memory<G: Graph>(fx: &Facts, g: &G, pass: &Pass, done: &[bool], b: Node, x: VarId) -> bool {
    if !fx.carry {
        return true;
    }
    g.successors(b).any(|s| {
        done[s as usize] && {
            let e = &pass.entry[s as usize];
            match e.binary_search_by_key(&x, |&(y, _)| y) {
                Ok(k) => !e[k].1.dirty,
                Err(_) => true,
            }
        }
    })
}

/// The register an already allocated successor of `b` expects var `x` in.
fn expected_reg<G: Graph>(g: &G, pass: &Pass, done: &[bool], b: Node, x: VarId) -> Option<u32> {
    g.successors(b).filter(|&s| done[s as usize]).find_map(|s| {
        let e = &pass.entry[s as usize];
        e.binary_search_by_key(&x, |&(y, _)| y).ok().map(|k| e[k].1.reg)
    })
}

/// Var `x` at the end of block `p`: (register or `NONE`, home current).
fn exit_of(pass: &Pass, p: Node, x: VarId) -> (u32, bool) {
    exit_loc(&pass.exit[p as usize], x)
}

/// Var `x` in an exit list (sorted by var): (register or `NONE`, home
/// current); a var the list does not hold is in memory, current.
pub(crate) fn exit_loc(exit: &[(VarId, u32, bool)], x: VarId) -> (u32, bool) {
    match exit.binary_search_by_key(&x, |&(y, _, _)| y) {
        Ok(k) => (exit[k].1, exit[k].2),
        Err(_) => (NONE, true),
    }
}

/// The registers block `p`'s terminator reads, into `out`.
fn terminator_regs<G: Graph, C: RegCode>(input: &Input<'_, G, C>, pass: &Pass, p: Node, out: &mut Vec<PReg>) {
    out.clear();
    let Some(&last) = input.block_insts(p).last() else { return };
    if input.code().inst_kind(last) != crate::input::InstKind::Terminator {
        return;
    }
    let at = pass.alloc_start[last as usize] as usize;
    out.extend_from_slice(&pass.allocs[at..at + input.uses(last).len()]);
}

/// Var `x`'s home slot, made on first use: the slot of `key[x]`, the var
/// whose home it shares ([`crate::slot_share`]; itself when `key` is
/// empty or says so).
pub(crate) fn home_slot(home: &mut [u32], key: &[VarId], slots: &mut Vec<SlotInfo>, x: VarId) -> u32 {
    if home[x as usize] == NONE {
        let k = key.get(x as usize).copied().unwrap_or(x);
        if home[k as usize] == NONE {
            slots.push(SlotInfo { home_of: Some(k), vars: vec![k] });
            home[k as usize] = slots.len() as u32 - 1;
        }
        home[x as usize] = home[k as usize];
    }
    home[x as usize]
}

pub(crate) fn note_var(s: &mut SlotInfo, x: VarId) {
    if let Err(k) = s.vars.binary_search(&x) {
        s.vars.insert(k, x);
    }
}

impl Pass {
    /// A pass with nothing decided: every block empty, no edit, no slot.
    pub(crate) fn empty<G: Graph, C: RegCode>(fx: &Facts, input: &Input<'_, G, C>) -> Pass {
        let mut pass = Pass {
            entry: Vec::new(),
            exit: Vec::new(),
            items: Vec::new(),
            fixups: Vec::new(),
            alloc_start: Vec::new(),
            allocs: Vec::new(),
            home: Vec::new(),
            home_key: Vec::new(),
            slots: Vec::new(),
            costs: Costs::default(),
            var_cost: Vec::new(),
            store_cost: Vec::new(),
            demand: [0, 0],
        };
        pass.reuse_for(fx, input);
        pass
    }

    /// Makes this pass (of any function, or fresh) an empty pass of the
    /// function of `fx` and `input`, keeping every buffer's capacity: the
    /// rows of the blocks it had are cleared, not reallocated.
    pub(crate) fn reuse_for<G: Graph, C: RegCode>(&mut self, fx: &Facts, input: &Input<'_, G, C>) {
        let n = fx.nblocks;
        let ni = input.num_insts();
        clear_rows(&mut self.entry, n);
        clear_rows(&mut self.exit, n);
        clear_rows(&mut self.items, n);
        self.alloc_start.clear();
        self.alloc_start.reserve(ni + 1);
        let mut total = 0u32;
        for i in 0..ni as InstId {
            self.alloc_start.push(total);
            total += (input.uses(i).len() + input.defs(i).len()) as u32;
        }
        self.alloc_start.push(total);
        self.allocs.clear();
        self.allocs.resize(total as usize, PReg::scalar(0));
        self.fixups.clear();
        self.home.clear();
        self.home.resize(fx.nvars, NONE);
        self.home_key.clear();
        self.slots.clear();
        self.costs = Costs::default();
        self.var_cost.clear();
        self.var_cost.resize(fx.nvars, 0);
        self.store_cost.clear();
        self.store_cost.resize(fx.nvars, 0);
        self.demand = [0, 0];
    }

    /// Empties the pass for another sweep over the same function, keeping
    /// its buffers.
    pub(crate) fn clear(&mut self) {
        for v in &mut self.entry {
            v.clear();
        }
        for v in &mut self.exit {
            v.clear();
        }
        for v in &mut self.items {
            v.clear();
        }
        self.fixups.clear();
        self.home.fill(NONE);
        self.slots.clear();
        self.costs = Costs::default();
        self.var_cost.fill(0);
        self.store_cost.fill(0);
        self.demand = [0, 0];
    }

    /// The allocation this pass describes. Its result arrays are moved out
    /// (the pass is left to be reused with [`Pass::reuse_for`]).
    pub(crate) fn take_allocation<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        q: Option<u32>,
        ga: &GlobalAssign,
    ) -> Allocation {
        let n = fx.nblocks;
        let mut order_start = Vec::with_capacity(n + 1);
        let mut order = Vec::new();
        let mut edits: Vec<(ProgPoint, Edit)> = Vec::new();
        self.fixups.sort_by_key(|&(f, _)| f);
        let fix_at = |f: Fix| {
            let lo = self.fixups.partition_point(|&(g, _)| g < f);
            let hi = self.fixups.partition_point(|&(g, _)| g <= f);
            &self.fixups[lo..hi]
        };
        for b in 0..n as Node {
            order_start.push(order.len() as u32);
            let first = order.len();
            for &(_, e) in fix_at(Fix::Start(b)) {
                edits.push((ProgPoint::Before { block: b, index: 0 }, e));
            }
            let items = &self.items[b as usize];
            let has_term = input
                .block_insts(b)
                .last()
                .is_some_and(|&i| input.code().inst_kind(i) == crate::input::InstKind::Terminator);
            for (k, item) in items.iter().enumerate() {
                let index = (order.len() - first) as u32;
                match *item {
                    Item::Edit(e) => edits.push((ProgPoint::Before { block: b, index }, e)),
                    Item::Inst(i) => {
                        let last = k + 1 == items.len();
                        if last && has_term {
                            for &(_, e) in fix_at(Fix::End(b)) {
                                edits.push((ProgPoint::Before { block: b, index }, e));
                            }
                        }
                        order.push(i);
                    }
                }
            }
            if !has_term {
                let index = (order.len() - first) as u32;
                for &(_, e) in fix_at(Fix::End(b)) {
                    edits.push((ProgPoint::Before { block: b, index }, e));
                }
            }
        }
        order_start.push(order.len() as u32);
        for &(f, e) in &self.fixups {
            if let Fix::Edge(p, s) = f {
                edits.push((ProgPoint::OnEdge { from: p, to: s }, e));
            }
        }
        edits.sort_by_key(|&(p, _)| p);
        // Params: the entry state, the global registers, else home slots.
        let entry = input.graph().entry();
        let mut param_locs: Vec<Option<Loc>> = Vec::new();
        for (k, &x) in fx.params.iter().enumerate() {
            let c = fx.class[x as usize];
            let live = fx.param_live[k];
            let loc = if ga.reg[x as usize] != NONE {
                Some(Loc::Reg(PReg::new(c, ga.reg[x as usize])))
            } else if let Some(e) = entry
                && let Some(&(_, h)) = self.entry[e as usize].iter().find(|&&(y, _)| y == x)
            {
                Some(Loc::Reg(PReg::new(c, h.reg)))
            } else if live {
                Some(Loc::Slot(home_slot(&mut self.home, &self.home_key, &mut self.slots, x)))
            } else {
                None
            };
            let _ = &ga;
            param_locs.push(loc);
        }
        let mut entry_locs: Vec<(VarId, Loc)> = Vec::new();
        for &x in &fx.entry_live {
            let c = fx.class[x as usize];
            let loc = if ga.reg[x as usize] != NONE {
                Loc::Reg(PReg::new(c, ga.reg[x as usize]))
            } else if let Some(e) = entry
                && let Some(&(_, h)) = self.entry[e as usize].iter().find(|&&(y, _)| y == x)
            {
                Loc::Reg(PReg::new(c, h.reg))
            } else {
                Loc::Slot(home_slot(&mut self.home, &self.home_key, &mut self.slots, x))
            };
            entry_locs.push((x, loc));
        }
        let mut regs_used = [0u32; 2];
        let mut see = |r: PReg| {
            let u = &mut regs_used[r.class.index()];
            *u = (*u).max(r.index + 1);
        };
        for &r in &self.allocs {
            see(r);
        }
        for (_, e) in &edits {
            for l in [e.from, e.to] {
                if let Loc::Reg(r) = l {
                    see(r);
                }
            }
        }
        for l in param_locs.iter().flatten() {
            if let Loc::Reg(r) = *l {
                see(r);
            }
        }
        Allocation {
            order_start,
            order,
            alloc_start: std::mem::take(&mut self.alloc_start),
            allocs: std::mem::take(&mut self.allocs),
            edits,
            param_locs,
            entry_locs,
            slots: std::mem::take(&mut self.slots),
            regs_used,
            costs: self.costs,
            globals: ga.list.clone(),
            local_regs: q,
        }
    }
}

/// `n` empty per-block rows, the capacities of those kept.
fn clear_rows<T>(rows: &mut Vec<Vec<T>>, n: usize) {
    rows.truncate(n);
    for row in rows.iter_mut() {
        row.clear();
    }
    rows.resize_with(n, Vec::new);
}
