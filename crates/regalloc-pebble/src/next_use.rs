//! Global next-use distances and loop register pressure: what the
//! whole-function allocator ([`crate::belady`]) needs to apply Belady's
//! rule across block boundaries.
//!
//! **Distances** (Braun and Hack, "Register spilling and live-range
//! splitting for SSA-form programs", CC 2009, `docs/references.md`): for a
//! var live into block `b`, the number of instructions from `b`'s start to
//! its next read, the least over the paths; leaving a loop adds
//! [`LOOP_EXIT`] per level left, so a value read inside the loop is always
//! nearer than one read only after it. A backward fixpoint in postorder
//! (distances only decrease; each round is linear in the live-in sets);
//! no recursion.
//!
//! **Pressure**: per block and class the most vars live at one point
//! (uses and definitions of an instruction counted together), and per
//! loop header the most over its loop's blocks.
//!
//! Invariant: `dist_in(b)` lists exactly the vars live into `b`, sorted,
//! each with a finite distance (a live var is read on some path).

use crate::class::RegClass;
use crate::facts::Facts;
use crate::input::RegCode;
use cfg_dom::{Graph, Input, Liveness, LoopForest, Node, VarId};

/// The distance added per loop level an edge leaves.
pub(crate) const LOOP_EXIT: u64 = 1 << 20;

/// Distances and pressure of one function.
#[derive(Debug, Default)]
pub(crate) struct NextUse {
    /// Per block: (var, distance) for every var live in, sorted (CSR).
    start: Vec<u32>,
    dist: Vec<(VarId, u64)>,
    /// Parallel to `dist`: the var is read in the block before written.
    fixed: Vec<bool>,
    /// Per block: (var, distance from the block's end) for every var live
    /// out, sorted (CSR).
    out_start: Vec<u32>,
    out: Vec<(VarId, u64)>,
    /// Per block: (var, position of its first read) for the vars read
    /// before written (CSR, sorted by var).
    first_start: Vec<u32>,
    first: Vec<(VarId, u32)>,
    /// Per block, per class: the most vars live at one point.
    pub(crate) pressure: Vec<[u32; 2]>,
    /// Per block, per class: at a loop header the most over its loop's
    /// blocks, elsewhere the block's own.
    pub(crate) loop_pressure: Vec<[u32; 2]>,
    depth: Vec<u32>,
}

impl NextUse {
    /// Computes everything for `input`.
    pub(crate) fn compute<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        loops: &LoopForest,
    ) {
        let g = input.graph();
        let n = fx.nblocks;
        self.depth.clear();
        self.depth.extend((0..n as Node).map(|b| loops.loop_depth(b)));
        // First reads, and the pressure, block by block.
        self.first_start.clear();
        self.first.clear();
        self.first_start.push(0);
        self.pressure.clear();
        let mut seen: Vec<u32> = vec![u32::MAX; fx.nvars];
        let mut live: Vec<bool> = vec![false; fx.nvars];
        let mut row: Vec<(VarId, u32)> = Vec::new();
        let mut outs_buf: Vec<VarId> = Vec::new();
        for b in 0..n as Node {
            row.clear();
            for (k, &i) in input.block_insts(b).iter().enumerate() {
                let guarded = input.is_guarded(i);
                let reads = input.uses(i).iter().map(|u| u.var);
                let tied = input.defs(i).iter().copied().filter(|_| guarded);
                for x in reads.chain(tied) {
                    if seen[x as usize] != b {
                        seen[x as usize] = b;
                        row.push((x, k as u32));
                    }
                }
                for &d in input.defs(i) {
                    seen[d as usize] = b;
                }
            }
            row.sort_unstable();
            self.first.extend_from_slice(&row);
            self.first_start.push(self.first.len() as u32);
            // Pressure: backward from the live-out set.
            let mut count = [0u32; 2];
            let mut outs = std::mem::take(&mut outs_buf);
            outs.clear();
            outs.extend(liveness.live_out(b));
            for &x in &outs {
                live[x as usize] = true;
                count[fx.class[x as usize].index()] += 1;
            }
            let mut most = count;
            for &i in input.block_insts(b).iter().rev() {
                let mut at = count;
                for &d in input.defs(i) {
                    let c = fx.class[d as usize].index();
                    if !live[d as usize] {
                        at[c] += 1;
                    }
                    if live[d as usize] && !input.is_guarded(i) {
                        live[d as usize] = false;
                        count[c] -= 1;
                    }
                }
                for u in input.uses(i) {
                    let c = fx.class[u.var as usize].index();
                    if !live[u.var as usize] {
                        live[u.var as usize] = true;
                        count[c] += 1;
                        outs.push(u.var);
                    }
                }
                for c in 0..2 {
                    most[c] = most[c].max(at[c]).max(count[c]);
                }
            }
            for &x in &outs {
                live[x as usize] = false;
            }
            outs_buf = outs;
            self.pressure.push(most);
        }
        self.loop_pressure.clear();
        self.loop_pressure.extend_from_slice(&self.pressure);
        for b in 0..n as Node {
            for &l in fx.loop_of_header(b) {
                for c in 0..2 {
                    self.loop_pressure[b as usize][c] =
                        self.loop_pressure[b as usize][c].max(self.pressure[l as usize][c]);
                }
            }
        }
        // Distances: start from the first reads, then relax to the fixpoint
        // with a worklist (a block is revisited when a successor's
        // distances drop). Rows are sorted by var, so a block meets each
        // successor in one merge.
        self.start.clear();
        self.dist.clear();
        self.fixed.clear();
        self.start.push(0);
        for b in 0..n as Node {
            let first = cfg_dom::csr::row(&self.first_start, &self.first, b as usize);
            let mut k = 0;
            for x in liveness.live_in(b) {
                while k < first.len() && first[k].0 < x {
                    k += 1;
                }
                let read = k < first.len() && first[k].0 == x;
                self.dist.push((x, if read { u64::from(first[k].1) } else { u64::MAX }));
                self.fixed.push(read);
            }
            self.start.push(self.dist.len() as u32);
        }
        let mut queued = vec![true; n];
        let mut work: std::collections::VecDeque<Node> = fx.order.iter().rev().copied().collect();
        let mut best: Vec<u64> = Vec::new();
        while let Some(b) = work.pop_front() {
            queued[b as usize] = false;
            let (lo, hi) = (self.start[b as usize] as usize, self.start[b as usize + 1] as usize);
            if (lo..hi).all(|k| self.fixed[k]) {
                continue;
            }
            self.out_of(g, b, lo..hi, &mut best);
            let len = input.block_insts(b).len() as u64;
            let mut changed = false;
            for (k, &o) in (lo..hi).zip(&best) {
                if self.fixed[k] {
                    continue;
                }
                let nd = len.saturating_add(o);
                if nd < self.dist[k].1 {
                    self.dist[k].1 = nd;
                    changed = true;
                }
            }
            if changed {
                for p in g.predecessors(b) {
                    if !queued[p as usize] {
                        queued[p as usize] = true;
                        work.push_back(p);
                    }
                }
            }
        }
        // Per block, the distances of its live-out vars from its end.
        self.out_start.clear();
        self.out.clear();
        self.out_start.push(0);
        let mut vars: Vec<VarId> = Vec::new();
        for b in 0..n as Node {
            vars.clear();
            vars.extend(liveness.live_out(b));
            let base = self.out.len();
            self.out.extend(vars.iter().map(|&x| (x, u64::MAX)));
            self.out_row(g, b, base, &vars, &mut best);
            self.out_start.push(self.out.len() as u32);
        }
    }

    /// For the vars of `b`'s live-in row `range`, into `best`: the least
    /// distance over `b`'s successors from `b`'s end.
    fn out_of<G: Graph>(&self, g: &G, b: Node, range: std::ops::Range<usize>, best: &mut Vec<u64>) {
        best.clear();
        best.resize(range.len(), u64::MAX);
        let mine = &self.dist[range];
        self.merge_succs(g, b, mine.iter().map(|e| e.0), best);
    }

    /// Fills `self.out[base..]` (vars set, distances `MAX`) for block `b`.
    fn out_row<G: Graph>(&mut self, g: &G, b: Node, base: usize, vars: &[VarId], best: &mut Vec<u64>) {
        let len = self.out.len() - base;
        best.clear();
        best.resize(len, u64::MAX);
        self.merge_succs(g, b, vars.iter().copied(), best);
        for (e, &d) in self.out[base..].iter_mut().zip(best.iter()) {
            e.1 = d;
        }
    }

    /// `best[k]` = min over the successors `s` of `b` of the distance of the
    /// `k`-th var of `vars` (sorted) at `s`'s start, plus [`LOOP_EXIT`] per
    /// loop level the edge leaves.
    fn merge_succs<G: Graph>(&self, g: &G, b: Node, vars: impl Iterator<Item = VarId> + Clone, best: &mut [u64]) {
        let db = self.depth[b as usize];
        for s in g.successors(b) {
            let row = self.dist_in(s);
            let pen = u64::from(db.saturating_sub(self.depth[s as usize])) * LOOP_EXIT;
            let mut j = 0;
            for (k, x) in vars.clone().enumerate() {
                while j < row.len() && row[j].0 < x {
                    j += 1;
                }
                if j < row.len() && row[j].0 == x && row[j].1 != u64::MAX {
                    best[k] = best[k].min(row[j].1.saturating_add(pen));
                }
            }
        }
    }

    /// The vars live into `b` with their distances, sorted by var.
    pub(crate) fn dist_in(&self, b: Node) -> &[(VarId, u64)] {
        cfg_dom::csr::row(&self.start, &self.dist, b as usize)
    }

    /// The distance of `x` at `b`'s start (`u64::MAX` when not live in).
    pub(crate) fn at_entry(&self, b: Node, x: VarId) -> u64 {
        let row = self.dist_in(b);
        row.binary_search_by_key(&x, |&(y, _)| y).map_or(u64::MAX, |k| row[k].1)
    }

    /// The vars live out of `b` with their distances from its end (the
    /// least over the successors they are live into, plus [`LOOP_EXIT`]
    /// per loop level the edge leaves), sorted by var.
    pub(crate) fn dist_out(&self, b: Node) -> &[(VarId, u64)] {
        cfg_dom::csr::row(&self.out_start, &self.out, b as usize)
    }

    /// True when `x`, live into loop header `b`, is read before the loop
    /// is left.
    pub(crate) fn used_in_loop(&self, b: Node, x: VarId) -> bool {
        self.at_entry(b, x) < LOOP_EXIT
    }

    /// The class-indexed loop pressure at `b`.
    pub(crate) fn loop_pressure(&self, b: Node, c: RegClass) -> u32 {
        self.loop_pressure[b as usize][c.index()]
    }
}
