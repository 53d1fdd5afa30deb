//! The whole-function allocator ([`crate::Strategy::Global`], the
//! default): Belady's rule over global next-use distances decides which
//! values are in registers at every point, and the same forward sweep
//! assigns the registers, so that a hot value keeps one register across
//! blocks and loops and moves only where two predecessors disagree.
//!
//! This is the red-blue pebble game of source document 004 played over the
//! whole function in statement order, with Belady's MIN as the eviction
//! rule (the rule of [`crate::LocalRule::Refined`]'s re-plan) and the
//! distances of [`crate::next_use`], after Braun and Hack ("Register
//! spilling and live-range splitting for SSA-form programs", CC 2009,
//! `docs/references.md`).
//!
//! **Per block** (reverse postorder, then unreachable blocks):
//! - *Entry.* The function's entry takes its params nearest to a use in
//!   registers. A join takes first the vars every processed predecessor
//!   leaves in a register, then those some leave there, nearest first. A
//!   loop header takes the vars its loop reads (nearest first, even from
//!   memory: one load before the loop instead of one per iteration), then
//!   vars that only pass through the loop, as many as the loop's own
//!   pressure leaves room for. Each var takes the register its heaviest
//!   predecessor left it in, else its copy group's register, else the
//!   lowest free one.
//! - *Instructions.* A var read and not in a register is loaded; a
//!   register is freed after the last read of its value; a definition
//!   takes a free register (the copy source's when a copy's source dies,
//!   else its copy group's); when none is free the register whose value
//!   is read furthest ahead is emptied (stored first if memory is stale).
//!   A guarded definition keeps its var's register (the old value flows
//!   through when the guard is false).
//! - *Exit.* The vars live out, where they are; every edge then gets the
//!   parallel move from the predecessor's exit to the successor's entry
//!   ([`crate::pass::fixups`]).
//!
//! Invariants: at every point at most `P` vars of a class are in
//! registers; a var not in a register has a current home slot; the result
//! passes [`crate::check`] (tests and fuzzing check every allocation). Cost
//! is linear in instructions plus, per block, its live-in set and `P`
//! per eviction; nothing recurses.

use crate::block_dag::CodeError;
use crate::class::{Loc, PReg, RegClass};
use crate::dag::NONE;
use crate::error::AllocError;
use crate::facts::Facts;
use crate::global::GlobalAssign;
use crate::input::{InstKind, RegCode};
use crate::next_use::NextUse;
use crate::output::Edit;
use crate::pass::{Here, Item, Pass, fixups, home_slot, note_var};
use crate::planted::{Bug, planted};
use cfg_dom::{Graph, Input, Liveness, Node, VarId};

const INF: u64 = u64::MAX;

/// Sweeps after the first that read the previous one's latches.
const SWEEPS: usize = 2;

/// How much further a clean value counts when choosing what to evict.
const CLEAN_FACTOR: u64 = 2;

/// Buffers the sweep reuses between functions.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    /// Per var: its register index, or `NONE`.
    var_reg: Vec<u32>,
    /// Per var: its home slot holds its current value.
    clean: Vec<bool>,
    /// Per class, per register: its var, or `NONE`.
    reg_var: [Vec<u32>; 2],
    /// Per class, per register: the position of its value's next read.
    reg_next: [Vec<u64>; 2],
    /// Per class, per register: the instruction stamp that reserves it.
    busy: [Vec<u32>; 2],
    /// Per class: one bit per register, set when taken.
    taken: [Vec<u64>; 2],
    /// Per var: the representative of its copy group (union-find).
    group: Vec<u32>,
    /// Per group representative: the register the group prefers.
    pref: Vec<u32>,
    /// Per var: the register the current block's successors expect it in
    /// (an allocated successor's entry, else an allocated sibling
    /// predecessor's exit), or `NONE`.
    target: Vec<u32>,
    targeted: Vec<VarId>,
    /// Per var: the stamp of the last instruction that read it.
    mark: Vec<u32>,
    /// Per var: the last loop header whose loop writes it.
    written: Vec<u32>,
    /// Per var: the next read while scanning a block backward.
    next: Vec<u64>,
    use_next: Vec<u64>,
    def_next: Vec<u64>,
    /// Per block: where its reads and its definitions start in
    /// `use_next` and `def_next`.
    ubase: Vec<usize>,
    dbase: Vec<usize>,
    touched: Vec<VarId>,
    reads: Vec<VarId>,
    /// (tier, distance, var, dirty) of an entry's candidates.
    cands: Vec<(u8, u64, VarId, bool)>,
    preds: Vec<Node>,
    /// The position of the instruction being allocated in its block.
    pos: u64,
    /// Per block: swept already (this sweep).
    done: Vec<bool>,
    /// How much further a clean value counts when evicting (this sweep).
    clean_factor: u64,
    /// Evictions so far (every sweep of the function).
    evictions: u64,
    /// Entry candidates that found no predecessor's register free.
    later: Vec<(VarId, bool, u64)>,
    /// Per block: its position in the sweep order.
    rank: Vec<u32>,
    /// The previous sweep's exit states (empty on the first sweep).
    prev_exit: Vec<Vec<(VarId, u32, bool)>>,
    /// Per var: stored right after each definition.
    spill_at_def: Vec<bool>,
    /// Per var: its definitions, weighted by loop depth (a definition that
    /// cannot be followed by a store, a terminator's, counts as never).
    def_cost: Vec<u64>,
}

impl Sweep {
    fn reset(&mut self, fx: &Facts, p: [u32; 2]) {
        let nv = fx.nvars;
        self.var_reg.clear();
        self.var_reg.resize(nv, NONE);
        self.clean.clear();
        self.clean.resize(nv, true);
        self.mark.clear();
        self.mark.resize(nv, u32::MAX);
        self.written.clear();
        self.written.resize(nv, NONE);
        self.group.clear();
        self.group.extend(0..nv as u32);
        self.pref.clear();
        self.pref.resize(nv, NONE);
        self.target.clear();
        self.target.resize(nv, NONE);
        self.def_cost.clear();
        self.def_cost.resize(nv, 0);
        self.targeted.clear();
        for (c, &n) in p.iter().enumerate() {
            let n = n as usize;
            self.reg_var[c].clear();
            self.reg_var[c].resize(n, NONE);
            self.reg_next[c].clear();
            self.reg_next[c].resize(n, INF);
            self.busy[c].clear();
            self.busy[c].resize(n, u32::MAX);
            self.taken[c].clear();
            self.taken[c].resize(n.div_ceil(64), 0);
        }
    }

    fn root(&mut self, x: VarId) -> u32 {
        let mut r = x;
        while self.group[r as usize] != r {
            r = self.group[r as usize];
        }
        let mut y = x;
        while self.group[y as usize] != r {
            let up = self.group[y as usize];
            self.group[y as usize] = r;
            y = up;
        }
        r
    }

    /// True when the previous sweep left `x` in a register at none of the
    /// latches of header `b` (false on the first sweep).
    fn latch_lost<G: Graph>(&self, g: &G, done: &[bool], b: Node, x: VarId) -> bool {
        if self.prev_exit.is_empty() {
            return false;
        }
        g.predecessors(b).filter(|&q| !done[q as usize]).all(|q| {
            let e = &self.prev_exit[q as usize];
            e.binary_search_by_key(&x, |&(y, _, _)| y).is_err()
        })
    }

    fn prefers(&mut self, x: VarId) -> u32 {
        if self.target[x as usize] != NONE {
            return self.target[x as usize];
        }
        let r = self.root(x);
        self.pref[r as usize]
    }

    /// Sets the targets of block `b`'s live-out vars (see `target`).
    fn set_targets<G: Graph>(&mut self, g: &G, pass: &Pass, done: &[bool], b: Node) {
        for &x in &self.targeted {
            self.target[x as usize] = NONE;
        }
        self.targeted.clear();
        for s in g.successors(b) {
            if done[s as usize] {
                for &(x, h) in &pass.entry[s as usize] {
                    if self.target[x as usize] == NONE {
                        self.target[x as usize] = h.reg;
                        self.targeted.push(x);
                    }
                }
            }
        }
        for s in g.successors(b) {
            if done[s as usize] {
                continue;
            }
            // Siblings in id order: the answer does not depend on the
            // order the graph lists predecessors in.
            let mut sibs: smallvec::SmallVec<[Node; 4]> =
                g.predecessors(s).filter(|&p| p != b && done[p as usize]).collect();
            sibs.sort_unstable();
            for p in sibs {
                for &(x, r, _) in &pass.exit[p as usize] {
                    if r != NONE && self.target[x as usize] == NONE {
                        self.target[x as usize] = r;
                        self.targeted.push(x);
                    }
                }
            }
        }
    }

    fn place(&mut self, c: usize, r: u32, x: VarId, next: u64) {
        self.reg_var[c][r as usize] = x;
        self.reg_next[c][r as usize] = next;
        self.taken[c][r as usize / 64] |= 1 << (r % 64);
        self.var_reg[x as usize] = r;
        let g = self.root(x);
        if self.pref[g as usize] == NONE {
            self.pref[g as usize] = r;
        }
    }

    fn free(&mut self, c: usize, r: u32) {
        let x = self.reg_var[c][r as usize];
        if x != NONE {
            self.var_reg[x as usize] = NONE;
        }
        self.reg_var[c][r as usize] = NONE;
        self.reg_next[c][r as usize] = INF;
        self.taken[c][r as usize / 64] &= !(1 << (r % 64));
    }

    fn is_free(&self, c: usize, r: u32) -> bool {
        (r as usize) < self.reg_var[c].len() && self.reg_var[c][r as usize] == NONE
    }

    fn lowest_free(&self, c: usize) -> Option<u32> {
        let n = self.reg_var[c].len() as u32;
        self.taken[c].iter().enumerate().find(|(_, w)| **w != u64::MAX).and_then(|(k, w)| {
            let r = k as u32 * 64 + (!w).trailing_zeros();
            (r < n).then_some(r)
        })
    }
}

/// Everything one sweep reads.
pub(crate) struct Env<'e, G, C> {
    pub(crate) fx: &'e Facts,
    pub(crate) input: &'e Input<'e, G, C>,
    pub(crate) liveness: &'e Liveness,
    pub(crate) nu: &'e NextUse,
    pub(crate) regs: [u32; 2],
}

impl Sweep {
    /// Allocates the whole function (module doc).
    pub(crate) fn run<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>) -> Result<Pass, AllocError> {
        let fx = env.fx;
        self.spill_at_def.clear();
        self.spill_at_def.resize(fx.nvars, false);
        self.prev_exit.clear();
        self.clean_factor = CLEAN_FACTOR;
        self.evictions = 0;
        self.use_next.clear();
        self.def_next.clear();
        self.ubase.clear();
        self.ubase.resize(fx.nblocks, 0);
        self.dbase.clear();
        self.dbase.resize(fx.nblocks, 0);
        self.next.clear();
        self.next.resize(fx.nvars, INF);
        for b in 0..fx.nblocks as Node {
            self.next_reads(env, b);
        }
        self.rank.clear();
        self.rank.resize(fx.nblocks, 0);
        for (k, &b) in fx.order.iter().enumerate() {
            self.rank[b as usize] = k as u32;
        }
        let mut best = self.fresh_pass(env);
        let mut spare = self.fresh_pass(env);
        let (mut best_cost, mut back) = self.run_once(env, &mut best)?;
        // A var whose stores (at evictions, on edges) cost more than a
        // store after each of its definitions is stored there instead, once
        // per definition, and evicted without a store (regalloc2 and
        // Braun and Hack spill at the definition; we do where it pays).
        let mut any = false;
        for x in 0..fx.nvars {
            if best.store_cost[x] > self.def_cost[x] {
                self.spill_at_def[x] = true;
                any = true;
            }
        }
        if any {
            let (cost, b) = self.run_once(env, &mut spare)?;
            if cost < best_cost {
                std::mem::swap(&mut best, &mut spare);
                (best_cost, back) = (cost, b);
            } else {
                self.spill_at_def.fill(false);
            }
        }
        // Plain Belady (a clean value counts as far as it is): better on
        // some deep loop nests, worse on others; the cheaper sweep wins.
        // (Only when a sweep evicted something: the factor decides nothing
        // else.)
        if self.evictions > 0 {
            self.clean_factor = 1;
            let (cost, b) = self.run_once(env, &mut spare)?;
            if cost < best_cost {
                std::mem::swap(&mut best, &mut spare);
                (best_cost, back) = (cost, b);
            } else {
                self.clean_factor = CLEAN_FACTOR;
            }
        }
        // Sweeps that see the previous sweep's latches, while the back
        // edges still carry work.
        for _ in 0..SWEEPS {
            if back == 0 {
                break;
            }
            self.prev_exit.clone_from(&best.exit);
            let (cost, b) = self.run_once(env, &mut spare)?;
            if cost < best_cost {
                std::mem::swap(&mut best, &mut spare);
                (best_cost, back) = (cost, b);
            } else {
                break;
            }
        }
        let ga = GlobalAssign::none(fx.nvars);
        fixups(fx, env.input, env.liveness, &ga, env.regs, &mut best);
        Ok(best)
    }

    /// An empty pass whose rows have room for the block's entry, exit and
    /// code (one allocation each, not a growth per push).
    fn fresh_pass<G: Graph, C: RegCode>(&self, env: &Env<'_, G, C>) -> Pass {
        let mut pass = Pass::empty(env.fx, env.input);
        for b in 0..env.fx.nblocks {
            let node = b as Node;
            pass.entry[b].reserve_exact(env.nu.dist_in(node).len());
            pass.exit[b].reserve_exact(env.nu.dist_out(node).len());
            pass.items[b].reserve(env.input.block_insts(node).len() + 4);
        }
        pass
    }

    /// The edge work of `pass` (loads, stores and moves the parallel moves
    /// will need, weighted, cycles aside), added to each var's store cost:
    /// how sweeps are compared before the one kept gets its fix-ups. Also
    /// the part of it on edges back to a block swept earlier.
    fn edge_estimate<G: Graph, C: RegCode>(&self, env: &Env<'_, G, C>, pass: &mut Pass) -> (u64, u64) {
        let (fx, g) = (env.fx, env.input.graph());
        let (mut total, mut back) = (0u64, 0u64);
        for p in 0..fx.nblocks as Node {
            for s in g.successors(p) {
                let before = total;
                let we = fx.weight[p as usize].min(fx.weight[s as usize]);
                let (exit, entry) = (&pass.exit[p as usize], &pass.entry[s as usize]);
                let (mut i, mut j) = (0, 0);
                while i < exit.len() || j < entry.len() {
                    let xe = exit.get(i).map_or(VarId::MAX, |e| e.0);
                    let xn = entry.get(j).map_or(VarId::MAX, |e| e.0);
                    let x = xe.min(xn);
                    let from = (xe == x).then(|| exit[i]);
                    let to = (xn == x).then(|| entry[j].1);
                    i += usize::from(xe == x);
                    j += usize::from(xn == x);
                    let (mut loads, mut stores, mut moves) = (0u64, 0u64, 0u64);
                    match (from, to) {
                        (Some((_, r, home)), Some(h)) => {
                            moves += u64::from(r != h.reg);
                            stores += u64::from(!home && !h.dirty);
                        }
                        (Some((_, _, home)), None) => {
                            stores += u64::from(!home && env.liveness.is_live_in(s, x));
                        }
                        (None, Some(_)) => loads += 1,
                        (None, None) => {}
                    }
                    pass.store_cost[x as usize] += stores * we;
                    total = total.saturating_add((loads + stores + moves) * we);
                }
                if self.rank[s as usize] <= self.rank[p as usize] {
                    back = back.saturating_add(total - before);
                }
            }
        }
        (total, back)
    }

    /// One sweep, without fix-ups: the pass and its estimated weighted
    /// cost ([`Sweep::edge_estimate`]).
    fn run_once<G: Graph, C: RegCode>(
        &mut self,
        env: &Env<'_, G, C>,
        pass: &mut Pass,
    ) -> Result<(u64, u64), AllocError> {
        let (fx, input) = (env.fx, env.input);
        self.reset(fx, env.regs);
        // Copy groups: a copy's source and destination prefer one register.
        for b in 0..fx.nblocks as Node {
            for &i in input.block_insts(b) {
                if input.code().is_copy(i)
                    && let ([u], [d]) = (input.uses(i), input.defs(i))
                    && fx.class[u.var as usize] == fx.class[*d as usize]
                {
                    let (a, z) = (self.root(u.var), self.root(*d));
                    if a != z {
                        self.group[z as usize] = a;
                    }
                }
            }
        }
        pass.clear();
        let mut done = std::mem::take(&mut self.done);
        done.clear();
        done.resize(fx.nblocks, false);
        let mut stamp = 0u32;
        for &b in &fx.order {
            self.entry(env, pass, &done, b);
            let mut entry = std::mem::take(&mut pass.entry[b as usize]);
            self.entry_list(env, b, &mut entry);
            self.set_targets(input.graph(), pass, &done, b);
            self.block(env, pass, b, &mut stamp)?;
            pass.entry[b as usize] = entry;
            done[b as usize] = true;
        }
        self.done = done;
        let (edges, back) = self.edge_estimate(env, pass);
        Ok((pass.costs.weighted().saturating_add(edges), back))
    }

    /// Chooses block `b`'s entry state and installs it (module doc).
    fn entry<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>, pass: &Pass, done: &[bool], b: Node) {
        let (fx, nu) = (env.fx, env.nu);
        let g = env.input.graph();
        let live = nu.dist_in(b);
        self.preds.clear();
        for &(x, _) in live {
            self.clean[x as usize] = true;
        }
        self.cands.clear();
        let mut header = false;
        if g.entry() == Some(b) {
            for &x in &fx.params {
                let d = nu.at_entry(b, x);
                if d != INF && !self.cands.iter().any(|c| c.2 == x) {
                    self.cands.push((0, d, x, true));
                }
            }
        } else {
            self.preds.clear();
            self.preds.extend(g.predecessors(b).filter(|&p| done[p as usize]));
            if self.preds.is_empty() {
                return;
            }
            header = g.predecessors(b).any(|p| !done[p as usize]);
            if header {
                for &l in fx.loop_of_header(b) {
                    for &x in fx.writes(l) {
                        self.written[x as usize] = b;
                    }
                }
            }
            let mut through = [0u32; 2];
            for &(x, d) in live {
                let (mut all, mut some, mut dirty) = (true, false, false);
                // Edge work either way: loads where it is missing, if taken;
                // stores where it is dirty, if not.
                let (mut missing, mut stores) = (0u64, 0u64);
                let wb = fx.weight[b as usize];
                for &p in &self.preds {
                    let e = &pass.exit[p as usize];
                    let we = fx.weight[p as usize].min(wb);
                    match e.binary_search_by_key(&x, |&(y, _, _)| y) {
                        Ok(k) if e[k].1 != NONE => {
                            some = true;
                            dirty |= !e[k].2;
                            if !e[k].2 {
                                stores += we;
                            }
                        }
                        _ => {
                            all = false;
                            missing += we;
                        }
                    }
                }
                let tier = if header {
                    // Dirty when the loop writes it: the latch then need
                    // not store it every iteration.
                    dirty |= self.written[x as usize] == b;
                    if nu.used_in_loop(b, x) {
                        // A var the previous sweep brought to no latch in a
                        // register is loaded where the loop reads it, not
                        // on every back edge.
                        (!self.latch_lost(g, done, b, x)).then_some(0)
                    } else {
                        through[fx.class[x as usize].index()] += 1;
                        some.then_some(2)
                    }
                } else if all {
                    Some(0)
                } else {
                    // Taken when the loads on the edges cost less than the
                    // stores they save and the load the block would make.
                    (some && missing < stores + wb).then_some(1)
                };
                if let Some(t) = tier {
                    self.cands.push((t, d, x, dirty));
                }
            }
            if header {
                // Vars that only pass through the loop keep a register only
                // where the loop's own pressure leaves one.
                let mut room = [0u32; 2];
                for c in RegClass::ALL {
                    let own = nu.loop_pressure(b, c).saturating_sub(through[c.index()]);
                    room[c.index()] = env.regs[c.index()].saturating_sub(own);
                }
                self.cands.sort_unstable();
                let mut kept = [0u32; 2];
                self.cands.retain(|&(t, _, x, _)| {
                    if t < 2 {
                        return true;
                    }
                    let c = fx.class[x as usize].index();
                    kept[c] += 1;
                    kept[c] <= room[c]
                });
            }
        }
        self.cands.sort_unstable();
        // Registers: the heaviest predecessor's, else the group's, else
        // the lowest free one.
        let mut count = [0u32; 2];
        let cands = std::mem::take(&mut self.cands);
        let mut later = std::mem::take(&mut self.later);
        later.clear();
        for &(_, d, x, dirty) in &cands {
            let c = fx.class[x as usize].index();
            if count[c] >= env.regs[c] {
                continue;
            }
            count[c] += 1;
            // The free register the predecessors leave it in, by the
            // total weight of the edges that then need no move.
            let mut votes: smallvec::SmallVec<[(u64, u32); 4]> = smallvec::SmallVec::new();
            for &p in &self.preds {
                let e = &pass.exit[p as usize];
                if let Ok(k) = e.binary_search_by_key(&x, |&(y, _, _)| y)
                    && e[k].1 != NONE
                    && self.is_free(c, e[k].1)
                {
                    let w = fx.weight[p as usize].min(fx.weight[b as usize]);
                    match votes.iter_mut().find(|v| v.1 == e[k].1) {
                        Some(v) => v.0 += w,
                        None => votes.push((w, e[k].1)),
                    }
                }
            }
            // At a loop header, the latches' registers of the previous
            // sweep vote too: a move on the entry edge is cheaper than one
            // on every back edge.
            for q in g.predecessors(b) {
                if done[q as usize] {
                    continue;
                }
                let Some(e) = self.prev_exit.get(q as usize) else { continue };
                if let Ok(k) = e.binary_search_by_key(&x, |&(y, _, _)| y)
                    && e[k].1 != NONE
                    && self.is_free(c, e[k].1)
                {
                    let w = fx.weight[q as usize].min(fx.weight[b as usize]);
                    match votes.iter_mut().find(|v| v.1 == e[k].1) {
                        Some(v) => v.0 += w,
                        None => votes.push((w, e[k].1)),
                    }
                }
            }
            let best = votes.iter().copied().max_by_key(|&(w, r)| (w, core::cmp::Reverse(r)));
            match best {
                Some((_, r)) => {
                    self.place(c, r, x, d);
                    self.clean[x as usize] = !dirty;
                }
                None => later.push((x, dirty, d)),
            }
        }
        for &(x, dirty, d) in &later {
            let c = fx.class[x as usize].index();
            let hint = self.prefers(x);
            let r = if hint != NONE && self.is_free(c, hint) { Some(hint) } else { self.lowest_free(c) };
            if let Some(r) = r {
                self.place(c, r, x, d);
                self.clean[x as usize] = !dirty;
            }
        }
        self.cands = cands;
        self.later = later;
        if header {
            // Inside the loop, its vars aim for the registers they have at
            // its top, so that the back edges need no moves.
            for &(x, _) in live {
                let r = self.var_reg[x as usize];
                if r != NONE {
                    let g = self.root(x);
                    self.pref[g as usize] = r;
                }
            }
        }
    }

    /// The installed entry state of `b`, as the pass records it.
    fn entry_list<G: Graph, C: RegCode>(&self, env: &Env<'_, G, C>, b: Node, out: &mut Vec<(VarId, Here)>) {
        // `dist_in` is sorted by var, and so is the list.
        out.clear();
        out.extend(
            env.nu
                .dist_in(b)
                .iter()
                .filter(|&&(x, _)| self.var_reg[x as usize] != NONE)
                .map(|&(x, _)| (x, Here { reg: self.var_reg[x as usize], dirty: !self.clean[x as usize] })),
        );
    }

    /// Next reads inside `b`, backward: per read and per definition, the
    /// position of the value's next read after the instruction (appended
    /// to `use_next` and `def_next`, from `ubase[b]` and `dbase[b]`; the
    /// same for every sweep, so computed once).
    fn next_reads<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>, b: Node) {
        let input = env.input;
        let insts = input.block_insts(b);
        let len = insts.len() as u64;
        self.touched.clear();
        for &(x, d) in env.nu.dist_out(b) {
            self.next[x as usize] = len.saturating_add(d);
            self.touched.push(x);
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
            for (t, &d) in defs.iter().enumerate() {
                self.def_next[jd + t] = self.next[d as usize];
                if !guarded {
                    self.next[d as usize] = INF;
                }
            }
            for (t, u) in uses.iter().enumerate() {
                self.use_next[ju + t] = self.next[u.var as usize];
            }
            for u in uses {
                self.next[u.var as usize] = k as u64;
                self.touched.push(u.var);
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
    }

    /// Takes a register of class `c` for `x` before instruction `stamp`:
    /// `hint` if free, else the lowest free one, else the register whose
    /// value is read furthest ahead (stored first when memory is stale).
    #[allow(clippy::too_many_arguments)]
    fn take(
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
        }
        let (_, _, r) = best.expect("an instruction never needs more registers than there are");
        self.evictions += 1;
        let y = self.reg_var[c][r as usize];
        if !self.clean[y as usize] {
            let slot = home_slot(&mut pass.home, &mut pass.slots, y);
            note_var(&mut pass.slots[slot as usize], y);
            let class = if c == 0 { RegClass::Scalar } else { RegClass::Vector };
            let e = Edit { from: Loc::Reg(PReg::new(class, r)), to: Loc::Slot(slot), var: y };
            pass.costs.add(e.kind(), w);
            pass.store_cost[y as usize] += w;
            if !drop_stores {
                items.push(Item::Edit(e));
            }
            self.clean[y as usize] = true;
        }
        self.free(c, r);
        r
    }

    /// Block `b`'s instructions, from its installed entry state.
    fn block<G: Graph, C: RegCode>(
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
                let slot = home_slot(&mut pass.home, &mut pass.slots, x);
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
            // (A terminator defines nothing: checked above.)
            for (t, &d) in defs.iter().enumerate() {
                self.def_cost[d as usize] = self.def_cost[d as usize].saturating_add(w);
                let r = self.var_reg[d as usize];
                if self.spill_at_def[d as usize] && r != NONE && self.def_next[jd + t] != INF {
                    let slot = home_slot(&mut pass.home, &mut pass.slots, d);
                    note_var(&mut pass.slots[slot as usize], d);
                    let e = Edit { from: Loc::Reg(PReg::new(fx.class[d as usize], r)), to: Loc::Slot(slot), var: d };
                    pass.costs.add(e.kind(), w);
                    pass.store_cost[d as usize] += w;
                    if !drop_stores {
                        items.push(Item::Edit(e));
                    }
                    self.clean[d as usize] = true;
                }
            }
            ju += uses.len();
            jd += defs.len();
        }
        pass.items[b as usize] = items;
        // Exit: the live-out vars in registers; then empty the registers.
        let exit = &mut pass.exit[b as usize];
        exit.clear();
        for c in 0..2 {
            for k in 0..self.taken[c].len() {
                let mut bits = self.taken[c][k];
                while bits != 0 {
                    let r = k as u32 * 64 + bits.trailing_zeros();
                    bits &= bits - 1;
                    let x = self.reg_var[c][r as usize];
                    if env.liveness.is_live_out(b, x) {
                        exit.push((x, r, self.clean[x as usize]));
                    }
                    self.free(c, r);
                }
            }
        }
        exit.sort_unstable_by_key(|e| e.0);
        Ok(())
    }
}
