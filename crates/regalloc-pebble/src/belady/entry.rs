//! Entry states and register hints of the whole-function sweep: which
//! vars a block starts with in registers, and in which (module doc of
//! [`crate::belady`]); which register a var should aim for so that the
//! edges need no moves.
//!
//! Invariant: at most `P` vars of a class start in registers; each var a
//! predecessor leaves in a free register is voted there by the weight of
//! the edges that then need no move; the answer does not depend on the
//! order the graph lists predecessors in.

use super::{Env, INF, Sweep};
use crate::class::RegClass;
use crate::dag::NONE;
use crate::input::RegCode;
use crate::pass::{Here, Pass, exit_loc};
use cfg_dom::{Graph, Node, VarId};

/// The live vars (`live`, sorted by var) that a predecessor's exit list
/// (sorted by var) names: their index in `live`, their register there (or
/// `NONE`) and whether their home is current. One merged walk of the two
/// lists, where a search per var was a sixth of the allocation on small
/// blocks.
fn exit_locs<'a>(
    live: &'a [(VarId, u64)],
    exit: &'a [(VarId, u32, bool)],
) -> impl Iterator<Item = (usize, u32, bool)> + 'a {
    let mut e = 0;
    live.iter().enumerate().filter_map(move |(k, &(x, _))| {
        while exit.get(e).is_some_and(|&(y, _, _)| y < x) {
            e += 1;
        }
        exit.get(e).filter(|&&(y, _, _)| y == x).map(|&(_, r, home)| (k, r, home))
    })
}

impl Sweep {
    /// True when the previous sweep left `x` in a register at none of the
    /// latches of header `b` (false on the first sweep).
    pub(super) fn latch_lost<G: Graph>(&self, g: &G, done: &[bool], b: Node, x: VarId) -> bool {
        if self.prev_exit.is_empty() {
            return false;
        }
        g.predecessors(b).filter(|&q| !done[q as usize]).all(|q| exit_loc(&self.prev_exit[q as usize], x).0 == NONE)
    }

    /// Sets the targets of block `b`'s live-out vars (see `target`).
    pub(super) fn set_targets<G: Graph>(&mut self, g: &G, pass: &Pass, done: &[bool], b: Node) {
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

    /// Chooses block `b`'s entry state and installs it (module doc).
    pub(super) fn entry<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>, pass: &Pass, done: &[bool], b: Node) {
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
                    self.cands.push((0, d, x, true, u32::MAX));
                }
            }
        } else {
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
            if !header && self.preds.len() == 1 && self.entry_shortcut {
                self.enter_from_one(env, pass, b);
                return;
            }
            // Where each done predecessor leaves each live var (`locs`,
            // by live var, then predecessor).
            let np = self.preds.len();
            self.locs.clear();
            self.locs.resize(live.len() * np, (NONE, true));
            for (j, &p) in self.preds.iter().enumerate() {
                for (k, r, home) in exit_locs(live, &pass.exit[p as usize]) {
                    self.locs[k * np + j] = (r, home);
                }
            }
            let mut through = [0u32; 2];
            for (k, &(x, d)) in live.iter().enumerate() {
                let (mut all, mut some, mut dirty) = (true, false, false);
                // Edge work either way: loads where it is missing, if taken;
                // stores where it is dirty, if not.
                let (mut missing, mut stores) = (0u64, 0u64);
                let wb = fx.weight[b as usize];
                for (j, &p) in self.preds.iter().enumerate() {
                    let we = fx.weight[p as usize].min(wb);
                    match self.locs[k * np + j] {
                        (NONE, _) => {
                            all = false;
                            missing += we;
                        }
                        (_, home) => {
                            some = true;
                            dirty |= !home;
                            if !home {
                                stores += we;
                            }
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
                    self.cands.push((t, d, x, dirty, k as u32));
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
                self.cands.retain(|&(t, _, x, _, _)| {
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
        // Registers: the free one the most predecessor weight leaves the
        // var in, else its preferred one, else the lowest free one.
        let mut count = [0u32; 2];
        let cands = std::mem::take(&mut self.cands);
        let mut later = std::mem::take(&mut self.later);
        later.clear();
        let np = self.preds.len();
        for &(_, d, x, dirty, k) in &cands {
            let c = fx.class[x as usize].index();
            if count[c] >= env.regs[c] {
                continue;
            }
            count[c] += 1;
            // The free register the predecessors leave it in, by the
            // total weight of the edges that then need no move.
            let mut votes: smallvec::SmallVec<[(u64, u32); 4]> = smallvec::SmallVec::new();
            let mut vote = |r: u32, p: Node| {
                if r != NONE && self.is_free(c, r) {
                    let w = fx.weight[p as usize].min(fx.weight[b as usize]);
                    match votes.iter_mut().find(|v| v.1 == r) {
                        Some(v) => v.0 += w,
                        None => votes.push((w, r)),
                    }
                }
            };
            // (The entry block's candidates, `k` unset, have no done
            // predecessor.)
            for (j, &p) in self.preds.iter().enumerate() {
                vote(self.locs[k as usize * np + j].0, p);
            }
            // At a loop header, the latches' registers of the previous
            // sweep vote too: a move on the entry edge is cheaper than one
            // on every back edge.
            for q in g.predecessors(b).filter(|&q| !done[q as usize]) {
                if let Some(e) = self.prev_exit.get(q as usize) {
                    vote(exit_loc(e, x).0, q);
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
                    let g = self.roots[x as usize];
                    self.pref[g as usize] = r;
                }
            }
        }
    }

    /// The entry of a block whose one predecessor is done and which heads
    /// no loop (most blocks): what [`Sweep::entry`] decides there, without
    /// its votes. Every live var the predecessor leaves in a register is a
    /// candidate of the first tier and keeps that register (the
    /// predecessor's registers are distinct, and no more than there are),
    /// dirty where its home is not current; the candidates are placed in
    /// the votes' order where that order decides something (the preferred
    /// register of a copy group).
    fn enter_from_one<G: Graph, C: RegCode>(&mut self, env: &Env<'_, G, C>, pass: &Pass, b: Node) {
        let (fx, live) = (env.fx, env.nu.dist_in(b));
        let exit = &pass.exit[self.preds[0] as usize];
        self.cands.clear();
        self.locs.clear();
        for (k, r, home) in exit_locs(live, exit) {
            if r != NONE {
                let (x, d) = live[k];
                self.cands.push((0, d, x, !home, self.locs.len() as u32));
                self.locs.push((r, home));
            }
        }
        // The order of placement decides only the preferred register of a
        // copy group none of whose vars has one yet, the first placed
        // giving it: sorted only when two candidates are of such a group.
        self.group_stamp = self.group_stamp.wrapping_add(1);
        if self.group_stamp == 0 {
            self.group_seen.fill(0);
            self.group_stamp = 1;
        }
        let mut clash = false;
        for k in 0..self.cands.len() {
            let g = self.roots[self.cands[k].2 as usize] as usize;
            if self.pref[g] == NONE {
                clash |= self.group_seen[g] == self.group_stamp;
                self.group_seen[g] = self.group_stamp;
            }
        }
        if clash {
            self.cands.sort_unstable();
        }
        let cands = std::mem::take(&mut self.cands);
        for &(_, d, x, dirty, k) in &cands {
            let c = fx.class[x as usize].index();
            self.place(c, self.locs[k as usize].0, x, d);
            self.clean[x as usize] = !dirty;
        }
        self.cands = cands;
    }

    /// The installed entry state of `b`, as the pass records it.
    pub(super) fn entry_list<G: Graph, C: RegCode>(&self, env: &Env<'_, G, C>, b: Node, out: &mut Vec<(VarId, Here)>) {
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
}
