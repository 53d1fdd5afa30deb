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
//! - *Entry* (`belady/entry.rs`). The function's entry takes its params
//!   nearest to a use in registers. A join takes first the vars every
//!   swept predecessor leaves in a register, then those some leave there
//!   when the loads on the other edges cost less than the stores and the
//!   reload they save, nearest first. A loop header takes the vars its
//!   loop reads (nearest first, even from memory: one load before the loop
//!   instead of one per iteration), then vars that only pass through the
//!   loop, as many as the loop's own pressure leaves room for. Each var
//!   takes the free register the most predecessor weight leaves it in
//!   (at a header, the previous sweep's latches vote too), else its
//!   preferred register, else the lowest free one.
//! - *Instructions* (`belady/block.rs`). A var read and not in a register
//!   is loaded; a register is freed after the last read of its value; a
//!   definition takes a free register: the copy source's when a copy's
//!   source dies, else the one a swept successor (or a swept sibling
//!   predecessor of an unswept one) expects the var in, else its copy
//!   group's; when none is free the register whose value is read furthest
//!   ahead is emptied (a clean value counts as `CLEAN_FACTOR` times as
//!   far; stored first if memory is stale). A guarded definition whose
//!   value is read later keeps its var's register (the old value flows
//!   through when the guard is false). A var marked to spill at its
//!   definitions is stored right after each. The vars of a copy group
//!   that are never live at once share one home slot
//!   ([`crate::slot_share`]): a copy whose source's home is current leaves
//!   the destination's current too, with no store.
//! - *Exit.* The vars live out, where they are; every edge then gets the
//!   parallel move from the predecessor's exit to the successor's entry
//!   ([`crate::pass::fixups`]).
//!
//! **Sweeps** ([`Sweep::run`]). The first sweep; then, if some var's
//! stores cost more than a store after each of its definitions, a sweep
//! that stores those there; then a sweep with plain MIN (`clean_factor`
//! 1), unless the sweep it would replay never let the factor change an
//! eviction (it would then make the same pass: the same choices from the
//! same states); then up to [`SWEEPS`] sweeps whose loop
//! headers read the previous best sweep's latches, while back edges carry
//! work. Each is compared by its in-block edits plus an estimate of its
//! edge work ([`Sweep::edge_estimate`]); the cheapest gets its fix-ups.
//! The two passes (kept and spare) come from a pool the context keeps
//! across functions ([`Sweep::recycle`]): their per-block rows are cleared
//! and refilled, not reallocated, for each function.
//!
//! Invariants: at every point at most `P` vars of a class are in
//! registers; a var not in a register has a current home slot; the result
//! passes [`crate::check`] (tests and fuzzing check every allocation). Cost
//! is linear in instructions plus, per block, its live-in set and `P`
//! per eviction; nothing recurses.

mod block;
mod entry;

use crate::dag::NONE;
use crate::error::AllocError;
use crate::facts::Facts;
use crate::global::GlobalAssign;
use crate::input::RegCode;
use crate::next_use::NextUse;
use crate::pass::{Pass, fixups};
use crate::planted::{Bug, planted};
use crate::slot_share::SlotShare;
use cfg_dom::{Graph, Input, Liveness, Node, VarId};

const INF: u64 = u64::MAX;

/// Sweeps after the first that read the previous one's latches.
const SWEEPS: usize = 2;

/// How much further a clean value counts when choosing what to evict.
const CLEAN_FACTOR: u64 = 2;

/// Buffers the sweep reuses between functions.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    /// Passes of earlier functions, their rows kept for reuse (at most
    /// two: the sweeps' kept and spare passes).
    pool: Vec<Pass>,
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
    /// Per group representative: the entry (`group_stamp`) that last met
    /// it among its candidates (`Sweep::enter_from_one`).
    group_seen: Vec<u32>,
    group_stamp: u32,
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
    /// (tier, distance, var, dirty, index in the block's live list) of an
    /// entry's candidates.
    cands: Vec<(u8, u64, VarId, bool, u32)>,
    /// Per live var and done predecessor of the block being entered: its
    /// register there (or `NONE`) and whether its home is current.
    locs: Vec<(u32, bool)>,
    preds: Vec<Node>,
    /// The position of the instruction being allocated in its block.
    pos: u64,
    /// Per block: swept already (this sweep).
    done: Vec<bool>,
    /// How much further a clean value counts when evicting (this sweep).
    clean_factor: u64,
    /// This sweep: some eviction chose another register than plain MIN
    /// (`clean_factor` 1) would have.
    factor_mattered: bool,
    /// Blocks entered from one done predecessor take the shortcut
    /// (`Sweep::enter_from_one`); off only under `Bug::NoEntryShortcut`.
    entry_shortcut: bool,
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
    /// Per var: its copy group's representative, found once per function
    /// (the groups are the same for every sweep).
    roots: Vec<VarId>,
    /// The shared homes' buffers.
    slot_share: SlotShare,
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
        self.pref.clear();
        self.pref.resize(nv, NONE);
        self.group_seen.clear();
        self.group_seen.resize(nv, 0);
        self.group_stamp = 0;
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

    fn prefers(&mut self, x: VarId) -> u32 {
        if self.target[x as usize] != NONE {
            return self.target[x as usize];
        }
        let r = self.roots[x as usize];
        self.pref[r as usize]
    }

    fn place(&mut self, c: usize, r: u32, x: VarId, next: u64) {
        self.reg_var[c][r as usize] = x;
        self.reg_next[c][r as usize] = next;
        self.taken[c][r as usize / 64] |= 1 << (r % 64);
        self.var_reg[x as usize] = r;
        let g = self.roots[x as usize];
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

/// The cheapest sweep so far: its pass, estimated cost, and the part of
/// that on back edges.
struct Kept {
    pass: Pass,
    cost: u64,
    back: u64,
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
        self.entry_shortcut = !planted(Bug::NoEntryShortcut);
        self.use_next.clear();
        self.def_next.clear();
        self.ubase.clear();
        self.ubase.resize(fx.nblocks, 0);
        self.dbase.clear();
        self.dbase.resize(fx.nblocks, 0);
        // Copy groups (the same for every sweep): a copy's source and
        // destination prefer one register.
        self.group.clear();
        self.group.extend(0..fx.nvars as u32);
        let input = env.input;
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
        let mut roots = std::mem::take(&mut self.roots);
        roots.clear();
        roots.extend((0..fx.nvars as VarId).map(|x| self.root(x)));
        self.slot_share.begin(&roots);
        self.roots = roots;
        self.next.clear();
        self.next.resize(fx.nvars, INF);
        for b in 0..fx.nblocks as Node {
            self.next_reads(env, b);
        }
        // Shared homes (the same for every sweep).
        let mut key = Vec::new();
        self.slot_share.keys(&mut key);
        self.rank.clear();
        self.rank.resize(fx.nblocks, 0);
        for (k, &b) in fx.order.iter().enumerate() {
            self.rank[b as usize] = k as u32;
        }
        let mut best = self.fresh_pass(env);
        best.home_key.clone_from(&key);
        let (cost, back) = self.run_once(env, &mut best)?;
        let mut mattered = self.factor_mattered;
        let mut kept = Kept { pass: best, cost, back };
        let mut spare = self.fresh_pass(env);
        spare.home_key = key;
        // A var whose stores (at evictions, on edges) cost more than a
        // store after each of its definitions is stored there instead, once
        // per definition, and evicted without a store (regalloc2 and
        // Braun and Hack spill at the definition; we do where it pays).
        let mut any = false;
        for x in 0..fx.nvars {
            if kept.pass.store_cost[x] > self.def_cost[x] {
                self.spill_at_def[x] = true;
                any = true;
            }
        }
        if any {
            if self.try_sweep(env, &mut kept, &mut spare)? {
                mattered = self.factor_mattered;
            } else {
                self.spill_at_def.fill(false);
            }
        }
        // Plain Belady (a clean value counts as far as it is): better on
        // some deep loop nests, worse on others; the cheaper sweep wins.
        // Only when the factor changed an eviction in the sweep of the
        // settings kept: it decides nothing else, so otherwise plain MIN
        // would replay that sweep exactly.
        if mattered {
            self.clean_factor = 1;
            if !self.try_sweep(env, &mut kept, &mut spare)? {
                self.clean_factor = CLEAN_FACTOR;
            }
        }
        // Sweeps that see the previous sweep's latches, while the back
        // edges still carry work.
        for _ in 0..SWEEPS {
            if kept.back == 0 {
                break;
            }
            self.prev_exit.clone_from(&kept.pass.exit);
            if !self.try_sweep(env, &mut kept, &mut spare)? {
                break;
            }
        }
        let mut best = kept.pass;
        self.pool.push(spare);
        let ga = GlobalAssign::none(fx.nvars);
        fixups(fx, env.input, env.liveness, &ga, env.regs, &mut best);
        Ok(best)
    }

    /// Gives a pass [`Sweep::run`] returned back, once its allocation is
    /// made, so that the next function's sweeps reuse its rows.
    pub(crate) fn recycle(&mut self, pass: Pass) {
        if self.pool.len() < 2 {
            self.pool.push(pass);
        }
    }

    /// One more sweep into `spare`; kept (swapped into `kept`) when
    /// cheaper. Returns whether it was.
    fn try_sweep<G: Graph, C: RegCode>(
        &mut self,
        env: &Env<'_, G, C>,
        kept: &mut Kept,
        spare: &mut Pass,
    ) -> Result<bool, AllocError> {
        let (cost, back) = self.run_once(env, spare)?;
        if cost >= kept.cost {
            return Ok(false);
        }
        std::mem::swap(&mut kept.pass, spare);
        (kept.cost, kept.back) = (cost, back);
        Ok(true)
    }

    /// An empty pass whose rows have room for the block's entry, exit and
    /// code (one allocation each, not a growth per push).
    fn fresh_pass<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>) -> Pass {
        let mut pass = match self.pool.pop() {
            Some(mut p) => {
                p.reuse_for(env.fx, env.input);
                p
            }
            None => Pass::empty(env.fx, env.input),
        };
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
        self.factor_mattered = false;
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
}
