//! The local heuristic: `Local-Alloc(DAG, P)` of the register-allocation
//! document (source document 004, "Register allocation and assignment by
//! two-colour (red-blue) pebbling", `docs/references.md`, whose pseudo code is
//! the authority), played on a [`Dag`].
//!
//! ```text
//! frontier = sources
//! while some operation has not run:
//!     S  = P frontier values minimising move-cost(S) / |dominated by S|
//!     u  = the successor of S with the least cover cost (c1, c2)
//!     if c1 > 0: evict values (storing those not in memory), load u's inputs
//!     if c2 = 1: slide the input whose slide cost is 1 onto u
//!     elif a register is free: compute u into it
//!     else: store the input with the smallest slide cost (if needed), slide it
//! ```
//!
//! Definitions, made precise here where the document leaves them open:
//! - the **frontier** is the values that have a pebble and an operation
//!   still to run that reads them; `S` is chosen by [`crate::select`];
//! - the **successors of S** are the operations ready to run (inputs
//!   computed, waits done) that read a value of `S`, plus the ready
//!   operations no frontier value feeds (inputs all constants or pinned);
//!   when there are none, every ready operation;
//! - **cover cost** `(c1, c2)`: `c1` = inputs not in a register; `c2` = the
//!   least *slide cost* among the inputs, where slide cost = the operations
//!   still to run that read the input, plus one if it is a sink not yet in
//!   memory (so `c2 = 1` means an input that can give its register away for
//!   free); an operation without outputs has `c2 = 0`; one whose outputs
//!   have no input to slide from has `c2 = ∞`. Compared lexicographically,
//!   then by rank;
//! - **spill-nodes(u, S)** (which values to evict when `u`'s inputs need
//!   registers; the document does not say): the value minimising (is in
//!   `S`, extra cost of evicting it, readers still to run, rank), where the
//!   extra cost counts a store that would not otherwise be needed and a
//!   load that will be;
//! - "a free register" includes one whose value costs nothing to evict (in
//!   memory and read by nothing more);
//! - operations with no input and no order edge (constants) run lazily,
//!   just before their first reader, into a register (no load);
//! - effects keep their order (order edges); the terminator runs last,
//!   after every sink that must be in memory has been stored.
//!
//! Invariant: the result is a legal game ([`crate::game::replay`] accepts
//! it: the property tests replay every schedule), and it depends only on
//! the DAG's structure and ranks.

use crate::class::{PReg, RegClass};
use crate::dag::{Dag, NONE, OpId, OpKind, ValueId};
use crate::game::PebbleError;
use crate::game::{Board, LocalRule, Move, Schedule, Setup};
use crate::order_search::OrderSearch;
use crate::replan::Replanner;
use crate::select::Selector;
use smallvec::SmallVec;

/// Most orders the `Searched` rule's local search replays after its three
/// starting orders.
pub const SEARCH_BUDGET: u32 = 128;

/// Slide cost of "no input to slide from".
const NO_SLIDE: u32 = u32::MAX / 2;

/// Plays the heuristic on `dag` with `setup`'s registers and starting
/// position. Reusable: keep one across DAGs so its buffers are reused.
#[derive(Clone, Debug, Default)]
pub struct Pebbler {
    b: Board,
    /// Per op: inputs not yet computed (constants excepted) plus waits
    /// not yet done.
    missing: Vec<u32>,
    /// Per op: runs lazily (no input, waits for nothing, pure).
    lazy: Vec<bool>,
    frontier: Vec<ValueId>,
    fpos: Vec<u32>,
    ready_ops: Vec<OpId>,
    in_s: Vec<bool>,
    /// Per class, per register: values not yet in a register that prefer it.
    hinted: [Vec<u32>; 2],
    sel: Selector,
    cands: Vec<OpId>,
    moves: Vec<Move>,
    out_reg: Vec<Option<PReg>>,
    loads: u64,
    stores: u64,
    replanner: Replanner,
    search: OrderSearch,
    order: Vec<OpId>,
    alt: Schedule,
}

/// Plays the heuristic on the plain game: sources in memory, sinks to
/// memory, `regs` registers of each class.
pub fn pebble(dag: &Dag, regs: crate::class::Regs) -> Result<Schedule, PebbleError> {
    Pebbler::new().run(dag, &Setup::plain(regs))
}

impl Pebbler {
    /// A fresh context.
    pub fn new() -> Pebbler {
        Pebbler::default()
    }

    /// Plays `Local-Alloc` on `dag` from `setup`.
    pub fn run(&mut self, dag: &Dag, setup: &Setup) -> Result<Schedule, PebbleError> {
        let mut out = Schedule::default();
        self.run_into(dag, setup, &mut out)?;
        Ok(out)
    }

    /// [`Pebbler::run`] into `out`, reusing its buffers.
    pub fn run_into(&mut self, dag: &Dag, setup: &Setup, out: &mut Schedule) -> Result<(), PebbleError> {
        self.reset(dag, setup)?;
        let mut remaining =
            (0..dag.num_ops() as OpId).filter(|&o| dag.kind(o) != OpKind::Terminator && !self.lazy[o as usize]).count();
        while remaining > 0 {
            self.choose_s(dag);
            let u = self.choose_u(dag);
            let Some(u) = u else {
                break;
            };
            self.execute(dag, u)?;
            remaining -= 1;
        }
        // Constants nobody read.
        let mut rest: Vec<OpId> =
            (0..dag.num_ops() as OpId).filter(|&o| !self.b.done[o as usize] && self.lazy[o as usize]).collect();
        rest.sort_unstable_by_key(|&o| dag.op_rank(o));
        for o in rest {
            self.in_s.iter_mut().for_each(|x| *x = false);
            self.execute(dag, o)?;
        }
        // Sinks that must be in memory are stored before the terminator.
        let mut sinks: Vec<ValueId> = dag.sinks().collect();
        sinks.sort_unstable_by_key(|&v| dag.value_rank(v));
        for v in sinks {
            let vi = v as usize;
            if self.b.pin[vi] == NONE && !self.b.sink_anywhere[vi] && !self.b.blue[vi] && self.b.red[vi] != NONE {
                self.store(v);
            }
        }
        if let Some(t) = dag.terminator() {
            self.in_s.iter_mut().for_each(|x| *x = false);
            self.execute(dag, t)?;
        }
        self.finish(dag, out);
        // A game at the lower bound cannot be improved: no replanning.
        let bound = setup.lower_bound(dag);
        debug_assert!(out.cost() >= bound, "a game below the lower bound");
        if setup.rule != LocalRule::Document && out.cost() > bound {
            // Three starting orders, each replanned: the heuristic's, and
            // depth first taller or shorter input first; the cheapest game
            // is kept (and, for `Searched`, improved below).
            self.order.clear();
            self.order.extend(out.order());
            self.replanner.replan(dag, setup, &self.order, &mut self.alt)?;
            if self.alt.cost() < out.cost() {
                std::mem::swap(out, &mut self.alt);
            }
            for tallest in [true, false] {
                self.replanner.depth_first_order(dag, tallest, &mut self.order);
                self.replanner.replan(dag, setup, &self.order, &mut self.alt)?;
                if self.alt.cost() < out.cost() {
                    std::mem::swap(out, &mut self.alt);
                }
            }
            if setup.rule == LocalRule::Searched && out.cost() > bound {
                self.order.clear();
                self.order.extend(out.order());
                self.search.improve(dag, setup, &mut self.replanner, &mut self.order, out, SEARCH_BUDGET)?;
            }
        }
        Ok(())
    }

    fn reset(&mut self, dag: &Dag, setup: &Setup) -> Result<(), PebbleError> {
        self.b.reset(dag, setup).map_err(PebbleError::Setup)?;
        for op in 0..dag.num_ops() as OpId {
            for c in RegClass::ALL {
                let have = self.b.regs[c.index()].len() as u32;
                let needs = self.local_demand(dag, op, c);
                if needs > have {
                    return Err(PebbleError::TooFewRegisters { op, class: c, needs, have });
                }
            }
        }
        let (nv, no) = (dag.num_values(), dag.num_ops());
        self.lazy.clear();
        self.lazy.extend((0..no as OpId).map(|o| {
            dag.kind(o) == OpKind::Pure
                && dag.inputs(o).is_empty()
                && dag.waits_for(o).is_empty()
                && dag.waiters(o).is_empty()
        }));
        self.missing.clear();
        for o in 0..no as OpId {
            let ins = dag.inputs(o).iter().filter(|&&v| !self.b.ready[v as usize] && !self.is_const(dag, v)).count();
            self.missing.push((ins + dag.waits_for(o).len()) as u32);
        }
        self.frontier.clear();
        self.fpos.clear();
        self.fpos.resize(nv, NONE);
        for v in 0..nv as ValueId {
            self.enter_frontier(v);
        }
        self.ready_ops.clear();
        for o in 0..no as OpId {
            if self.missing[o as usize] == 0 && !self.lazy[o as usize] && dag.kind(o) != OpKind::Terminator {
                self.ready_ops.push(o);
            }
        }
        self.in_s.clear();
        self.in_s.resize(nv, false);
        for c in RegClass::ALL {
            let h = &mut self.hinted[c.index()];
            h.clear();
            h.resize(self.b.holder[c.index()].len(), 0);
        }
        for v in 0..nv as ValueId {
            let r = self.b.hint[v as usize];
            if r != NONE
                && self.b.red[v as usize] == NONE
                && self.b.pin[v as usize] == NONE
                && let Some(n) = self.hinted[dag.class(v).index()].get_mut(r as usize)
            {
                *n += 1;
            }
        }
        self.sel.reset(dag);
        self.sel.chosen.clear();
        self.moves.clear();
        self.out_reg.clear();
        self.out_reg.resize(nv, None);
        self.loads = 0;
        self.stores = 0;
        Ok(())
    }

    /// Registers of class `c` an operation needs from the game (pinned
    /// values have their own).
    fn local_demand(&self, dag: &Dag, op: OpId, c: RegClass) -> u32 {
        let local = |v: &&ValueId| dag.class(**v) == c && self.b.pin[**v as usize] == NONE;
        let i = dag.inputs(op).iter().filter(local).count();
        let o = dag.outputs(op).iter().filter(local).count();
        i.max(o) as u32
    }

    /// `v` is the output of a lazy operation that has not run.
    #[inline]
    fn is_const(&self, dag: &Dag, v: ValueId) -> bool {
        dag.def_op(v).is_some_and(|d| self.lazy[d as usize] && !self.b.done[d as usize])
    }

    fn enter_frontier(&mut self, v: ValueId) {
        let vi = v as usize;
        if self.fpos[vi] == NONE
            && self.b.ready[vi]
            && self.b.pin[vi] == NONE
            && self.b.pending[vi] > 0
            && (self.b.red[vi] != NONE || self.b.blue[vi])
        {
            self.fpos[vi] = self.frontier.len() as u32;
            self.frontier.push(v);
        }
    }

    fn leave_frontier(&mut self, v: ValueId) {
        let p = self.fpos[v as usize];
        if p == NONE {
            return;
        }
        self.frontier.swap_remove(p as usize);
        if let Some(&moved) = self.frontier.get(p as usize) {
            self.fpos[moved as usize] = p;
        }
        self.fpos[v as usize] = NONE;
    }

    /// Step 1: marks `S` in `in_s`.
    fn choose_s(&mut self, dag: &Dag) {
        for &v in &self.sel.chosen {
            self.in_s[v as usize] = false;
        }
        let caps = [self.b.regs[0].len() as u32, self.b.regs[1].len() as u32];
        let frontier = std::mem::take(&mut self.frontier);
        self.sel.select(dag, &self.b, &self.lazy, &frontier, caps);
        self.frontier = frontier;
        for &v in &self.sel.chosen {
            self.in_s[v as usize] = true;
        }
    }

    /// Step 2: the candidate with the least cover cost.
    fn choose_u(&mut self, dag: &Dag) -> Option<OpId> {
        self.ready_ops.retain(|&o| !self.b.done[o as usize]);
        self.cands.clear();
        for &o in &self.ready_ops {
            let mut anchored = false;
            let mut touches_s = false;
            for &v in dag.inputs(o) {
                if self.b.pin[v as usize] == NONE && !self.is_const(dag, v) {
                    anchored = true;
                    touches_s |= self.in_s[v as usize];
                }
            }
            if touches_s || !anchored {
                self.cands.push(o);
            }
        }
        if self.cands.is_empty() {
            self.cands.extend_from_slice(&self.ready_ops);
        }
        self.cands.iter().copied().min_by_key(|&o| {
            let (c1, c2) = self.cover_cost(dag, o);
            (c1, c2, dag.op_rank(o))
        })
    }

    /// Slide cost of input `v`: readers still to run, plus one for a sink
    /// not yet in memory.
    #[inline]
    fn slide_cost(&self, dag: &Dag, v: ValueId) -> u32 {
        self.b.pending[v as usize] + u32::from(dag.is_sink(v) && !self.b.blue[v as usize])
    }

    fn cover_cost(&self, dag: &Dag, o: OpId) -> (u32, u32) {
        let ins = dag.inputs(o);
        let c1 = ins.iter().filter(|&&v| !self.b.is_red(v)).count() as u32;
        let local_outs = dag.outputs(o).iter().any(|&v| self.b.pin[v as usize] == NONE);
        if !local_outs {
            return (c1, 0);
        }
        if let Some(t) = dag.tied(o).flatten().find(|&t| self.b.pin[t as usize] == NONE) {
            return (c1, self.slide_cost(dag, t));
        }
        let c2 = ins
            .iter()
            .filter(|&&v| self.b.pin[v as usize] == NONE)
            .map(|&v| self.slide_cost(dag, v))
            .min()
            .unwrap_or(NO_SLIDE);
        (c1, c2)
    }

    fn store(&mut self, v: ValueId) {
        self.moves.push(Move::Store { value: v });
        self.b.blue[v as usize] = true;
        self.stores += 1;
    }

    /// Extra cost of evicting `v` now (see the module doc).
    fn evict_cost(&self, dag: &Dag, v: ValueId) -> u32 {
        let vi = v as usize;
        let dirty_needed = dag.is_sink(v) && !self.b.blue[vi];
        let store_now = if dirty_needed && !self.b.sink_anywhere[vi] { 0 } else { u32::from(dirty_needed) };
        if self.b.pending[vi] == 0 {
            return store_now;
        }
        // In memory already, or a sink whose store is due anyway: one
        // reload later. Otherwise a store now and a reload later.
        if self.b.blue[vi] || (dag.is_sink(v) && !self.b.sink_anywhere[vi]) { 1 } else { 2 }
    }

    /// Evicts one value of class `c` that `u` does not read or write, from
    /// a register not in `taken` (already given to another output of `u`);
    /// stores it first if memory does not hold it and it is still wanted.
    /// Returns the freed register.
    fn evict(&mut self, dag: &Dag, c: RegClass, u: OpId, taken: &[u32]) -> Option<u32> {
        let ci = c.index();
        let mut best: Option<((bool, u32, u32, u32), ValueId)> = None;
        for &r in &self.b.regs[ci] {
            let v = self.b.holder[ci][r as usize];
            if v == NONE || taken.contains(&r) || dag.inputs(u).contains(&v) || dag.def_op(v) == Some(u) {
                continue;
            }
            let key = (self.in_s[v as usize], self.evict_cost(dag, v), self.b.pending[v as usize], dag.value_rank(v));
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, v));
            }
        }
        let (_, v) = best?;
        let r = self.b.red[v as usize];
        if !self.b.can_drop(dag, v) {
            self.store(v);
        }
        self.b.unred(dag, v);
        Some(r)
    }

    /// An empty register of class `c`, else one whose value costs nothing
    /// to evict (in memory, or dead and not a sink), not read by `u`.
    fn free_reg(&mut self, dag: &Dag, c: RegClass, u: OpId, hint: u32) -> Option<u32> {
        let ci = c.index();
        if hint != NONE && self.b.regs[ci].contains(&hint) && self.b.holder[ci][hint as usize] == NONE {
            return Some(hint);
        }
        if let Some(&r) = self.b.regs[ci].iter().find(|&&r| self.b.holder[ci][r as usize] == NONE && !self.hinted(c, r))
        {
            return Some(r);
        }
        if let Some(&r) = self.b.regs[ci].iter().find(|&&r| self.b.holder[ci][r as usize] == NONE) {
            return Some(r);
        }
        let mut best: Option<((u32, u32), u32)> = None;
        for &r in &self.b.regs[ci] {
            let v = self.b.holder[ci][r as usize];
            if dag.inputs(u).contains(&v) || dag.def_op(v) == Some(u) {
                continue;
            }
            if self.b.pending[v as usize] == 0 && self.b.can_drop(dag, v) {
                let key = (dag.value_rank(v), r);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, r));
                }
            }
        }
        let (_, r) = best?;
        let v = self.b.holder[ci][r as usize];
        self.b.unred(dag, v);
        Some(r)
    }

    /// A register of class `c` for `u`'s use: free, else evict.
    fn room(&mut self, dag: &Dag, c: RegClass, u: OpId, hint: u32) -> Result<u32, PebbleError> {
        if let Some(r) = self.free_reg(dag, c, u, hint) {
            return Ok(r);
        }
        self.evict(dag, c, u, &[]).ok_or(PebbleError::TooFewRegisters {
            op: u,
            class: c,
            needs: self.local_demand(dag, u, c),
            have: self.b.regs[c.index()].len() as u32,
        })
    }

    /// Steps 3 and 4: bring `u`'s inputs into registers and run it.
    fn execute(&mut self, dag: &Dag, u: OpId) -> Result<(), PebbleError> {
        // Inputs: constants first materialised, others loaded, in rank
        // order, each into a register made free for it.
        let mut ins: SmallVec<[ValueId; 8]> =
            dag.inputs(u).iter().copied().filter(|&v| self.is_const(dag, v) || !self.b.is_red(v)).collect();
        ins.sort_unstable_by_key(|&v| dag.value_rank(v));
        for v in ins {
            if self.is_const(dag, v) {
                let d = dag.def_op(v).expect("a constant has an operation");
                self.run_op(dag, d, Some(u))?;
                continue;
            }
            let c = dag.class(v);
            let r = self.room(dag, c, u, self.b.hint[v as usize])?;
            self.unhint(dag, v);
            self.moves.push(Move::Load { value: v, reg: PReg::new(c, r) });
            self.loads += 1;
            self.b.put(dag, v, r);
            self.enter_frontier(v);
        }
        self.run_op(dag, u, None)
    }

    /// Runs `op` (its inputs are red): places its outputs (step 4) and
    /// updates the board. `for_user` is the operation a lazily run
    /// constant is for (its registers are not to be taken).
    fn run_op(&mut self, dag: &Dag, op: OpId, for_user: Option<OpId>) -> Result<(), PebbleError> {
        let guard = for_user.unwrap_or(op);
        let ins = dag.inputs(op);
        // The reads happen now.
        for &v in ins {
            self.b.pending[v as usize] -= 1;
        }
        let outs = dag.outputs(op);
        let ties: SmallVec<[Option<ValueId>; 4]> = dag.tied(op).collect();
        // Tied inputs belong to their outputs: no other output takes them.
        let mut slid: SmallVec<[ValueId; 8]> = ties.iter().flatten().copied().collect();
        let reserved: SmallVec<[u32; 4]> = slid.iter().map(|&t| self.b.red[t as usize]).collect();
        let mut placed: SmallVec<[(ValueId, u32); 4]> = SmallVec::new();
        for (k, &o) in outs.iter().enumerate() {
            let c = dag.class(o);
            if self.b.pin[o as usize] != NONE {
                let r = self.b.pin[o as usize];
                self.out_reg[o as usize] = Some(PReg::new(c, r));
                continue;
            }
            let reg = if let Some(t) = ties[k] {
                // A tied output slides onto its input, which is stored first
                // if it is still wanted and memory lacks it.
                if !self.b.can_drop(dag, t) {
                    self.store(t);
                }
                self.b.red[t as usize]
            } else if let Some(i) =
                ins.iter().copied().filter(|&i| self.slidable_free(dag, i, c, &slid)).min_by_key(|&i| dag.value_rank(i))
            {
                // c2 = 1: an input nothing else needs.
                slid.push(i);
                self.b.red[i as usize]
            } else if let Some(r) = self.free_output_reg(dag, c, guard, &placed, &reserved, self.b.hint[o as usize]) {
                r
            } else if let Some(i) = ins
                .iter()
                .copied()
                .filter(|&i| self.b.red[i as usize] != NONE && dag.class(i) == c && !slid.contains(&i))
                .min_by_key(|&i| (!self.b.can_drop(dag, i), self.b.pending[i as usize], dag.value_rank(i)))
            {
                // The input with the smallest slide cost, stored first if
                // needed.
                if !self.b.can_drop(dag, i) {
                    self.store(i);
                }
                slid.push(i);
                self.b.red[i as usize]
            } else {
                let taken: SmallVec<[u32; 4]> = placed
                    .iter()
                    .filter(|&&(p, _)| dag.class(p) == c)
                    .map(|&(_, r)| r)
                    .chain(reserved.iter().copied())
                    .collect();
                self.evict(dag, c, guard, &taken).ok_or(PebbleError::TooFewRegisters {
                    op,
                    class: c,
                    needs: self.local_demand(dag, op, c),
                    have: self.b.regs[c.index()].len() as u32,
                })?
            };
            placed.push((o, reg));
        }
        for &i in &slid {
            self.b.unred(dag, i);
        }
        for &(o, r) in &placed {
            let c = dag.class(o);
            let h = self.b.holder[c.index()][r as usize];
            if h != NONE {
                // Only a value that may go is ever overwritten.
                debug_assert!(self.b.can_drop(dag, h), "overwriting needed value {h}");
                self.b.unred(dag, h);
            }
            self.b.put(dag, o, r);
            self.out_reg[o as usize] = Some(PReg::new(c, r));
            self.unhint(dag, o);
        }
        self.moves.push(Move::Compute { op });
        self.b.done[op as usize] = true;
        // Inputs no longer read leave the frontier; dead ones free their
        // register.
        for &v in ins {
            if self.b.pending[v as usize] == 0 {
                self.leave_frontier(v);
                if !dag.is_sink(v) && self.b.red[v as usize] != NONE {
                    self.b.unred(dag, v);
                }
            }
        }
        for &o in outs {
            self.b.ready[o as usize] = true;
            if self.b.pin[o as usize] == NONE && self.b.pending[o as usize] == 0 && !dag.is_sink(o) {
                self.b.unred(dag, o);
            }
            self.enter_frontier(o);
            if !self.lazy[op as usize] {
                for &w in dag.users(o) {
                    self.unblock(dag, w);
                }
            }
        }
        for &w in dag.waiters(op) {
            self.unblock(dag, w);
        }
        Ok(())
    }

    /// `v` is placed: its preference no longer reserves anything.
    fn unhint(&mut self, dag: &Dag, v: ValueId) {
        let r = std::mem::replace(&mut self.b.hint[v as usize], NONE);
        if r != NONE
            && let Some(n) = self.hinted[dag.class(v).index()].get_mut(r as usize)
        {
            *n = n.saturating_sub(1);
        }
    }

    /// True when a value still to be placed prefers register `r` of class
    /// `c` (so others leave it free when they can).
    #[inline]
    fn hinted(&self, c: RegClass, r: u32) -> bool {
        self.hinted[c.index()].get(r as usize).is_some_and(|&n| n > 0)
    }

    /// One requirement of `o` met; it may become ready.
    fn unblock(&mut self, dag: &Dag, o: OpId) {
        let m = &mut self.missing[o as usize];
        *m = m.saturating_sub(1);
        if *m == 0 && !self.lazy[o as usize] && dag.kind(o) != OpKind::Terminator && !self.b.done[o as usize] {
            self.ready_ops.push(o);
        }
    }

    /// Input `i` can give its register to an output of class `c` at no
    /// cost: nothing else reads it and memory holds it if it is a sink.
    fn slidable_free(&self, dag: &Dag, i: ValueId, c: RegClass, slid: &[ValueId]) -> bool {
        dag.class(i) == c
            && self.b.red[i as usize] != NONE
            && self.b.pin[i as usize] == NONE
            && !slid.contains(&i)
            && self.b.pending[i as usize] == 0
            && self.b.can_drop(dag, i)
    }

    /// A free register for an output (not one already given to another
    /// output of the same operation).
    fn free_output_reg(
        &mut self,
        dag: &Dag,
        c: RegClass,
        u: OpId,
        placed: &[(ValueId, u32)],
        reserved: &[u32],
        hint: u32,
    ) -> Option<u32> {
        let ci = c.index();
        let taken = |r: u32| placed.iter().any(|&(o, pr)| pr == r && dag.class(o) == c) || reserved.contains(&r);
        if hint != NONE && self.b.regs[ci].contains(&hint) && self.b.holder[ci][hint as usize] == NONE && !taken(hint) {
            return Some(hint);
        }
        if let Some(&r) =
            self.b.regs[ci].iter().find(|&&r| self.b.holder[ci][r as usize] == NONE && !taken(r) && !self.hinted(c, r))
        {
            return Some(r);
        }
        if let Some(&r) = self.b.regs[ci].iter().find(|&&r| self.b.holder[ci][r as usize] == NONE && !taken(r)) {
            return Some(r);
        }
        let mut best: Option<((u32, u32), u32)> = None;
        for &r in &self.b.regs[ci] {
            let v = self.b.holder[ci][r as usize];
            if taken(r) || dag.inputs(u).contains(&v) {
                continue;
            }
            if self.b.pending[v as usize] == 0 && self.b.can_drop(dag, v) {
                let key = (dag.value_rank(v), r);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, r));
                }
            }
        }
        best.map(|(_, r)| r)
    }

    fn finish(&mut self, dag: &Dag, out: &mut Schedule) {
        std::mem::swap(&mut self.moves, &mut out.moves);
        std::mem::swap(&mut self.out_reg, &mut out.out_reg);
        out.final_blue.clear();
        out.final_blue.extend_from_slice(&self.b.blue);
        out.final_red.clear();
        out.final_red.extend((0..dag.num_values() as ValueId).map(|v| {
            let r = self.b.red[v as usize];
            (r != NONE).then(|| PReg::new(dag.class(v), r))
        }));
        out.loads = self.loads;
        out.stores = self.stores;
    }
}
