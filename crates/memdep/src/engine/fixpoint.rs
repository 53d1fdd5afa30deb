//! The fixed point of the analysis: blocks in a weak topological order
//! with Bourdoncle's recursive strategy (Bourdoncle, "Efficient chaotic
//! iteration strategies with widenings", FMPA 1993; the order is
//! [`crate::wto`]), each block's entry state the join of its predecessors'
//! exit states carried along their edges.
//!
//! Invariants: a block is processed only when an input changed, so the
//! sets recorded on its last visit are those of the fixed point; a loop's
//! blocks are swept, again while its header's input changed, before the
//! code after it, which is computed once from the loop's final state; the
//! entry block starts empty. Nothing recurses: the loops being swept are an
//! explicit stack.
//!
//! Memory: a block's exit state is dropped as soon as the scan has passed
//! the last visit of each of its successors (the end of a successor's
//! outermost loop, or the successor itself outside loops), so what is kept
//! is the states on the frontier of the scan, not one per block; the
//! persistent maps they alone held go with them. On the kernel of 10^5
//! tensor instructions this took the analysis from 350 to 310 ms (the
//! freed nodes are reused while still in cache). Nothing is dropped when
//! the exit states are read afterwards (the loop-carried pass, `explain`)
//! or when an irreducible or non-contiguous loop could make the rounds
//! visit a block again. The join at a block's entry is built in the
//! working state and a spare one, swapped, so no state is allocated or
//! dropped per join (on the kernels, freeing the dropped states'
//! vectors and allocating new ones took 8% of the time).

use super::MemDep;
use crate::code::MemInput;
use crate::state::State;
use cfg_dom::{Graph, Node};

impl MemDep {
    /// Runs every block to the least fixed point, recording the sites'
    /// sets on each visit.
    pub(super) fn fixpoint<G: Graph>(&mut self, input: &MemInput<'_, G>) {
        let graph = input.graph();
        let n = input.num_blocks();
        for s in self.outs.iter_mut() {
            s.clear();
        }
        self.outs.resize_with(n, State::default);
        self.pending.clear();
        self.pending.resize(n, false);
        // Bourdoncle's recursive strategy over a weak topological order
        // (each loop contiguous, header first; see `crate::wto`):
        // sweep a loop's blocks in order, again while its header's input
        // changed, then go on past it; so the code after a loop is computed
        // once, from the loop's final state, and a loop with many back edges
        // is swept, not restarted at each. Blocks are processed only when
        // an input changed. Rounds repeat while anything is pending: only
        // an irreducible loop, entered elsewhere than at its header, can
        // leave work behind.
        self.loops.compute(graph);
        let rpo: Vec<Node> = self.dfs.reverse_postorder().collect();
        let order = crate::wto::iteration_order(&rpo, &self.loops);
        let len = order.len();
        let mut position = vec![u32::MAX; n];
        for (k, &b) in order.iter().enumerate() {
            position[b as usize] = k as u32;
            self.pending[b as usize] = true;
        }
        // Where the loop headed at each position ends (exclusive). Every
        // loop is contiguous in the order; the test keeps the sweep sound
        // should one not be.
        // Each loop's lowest and highest position and size, folded from its
        // own blocks and then from child loops into parents (children
        // first): linear, where walking every body would be quadratic on
        // deep nests.
        let mut loop_end = vec![u32::MAX; len];
        let nl = self.loops.num_loops();
        let (mut lo, mut hi, mut size) = (vec![u32::MAX; nl], vec![0u32; nl], vec![0usize; nl]);
        for l in self.loops.loops() {
            for &b in self.loops.own_nodes(l) {
                let p = position[b as usize];
                lo[l.index()] = lo[l.index()].min(p);
                hi[l.index()] = hi[l.index()].max(p);
                size[l.index()] += 1;
            }
        }
        let mut postorder = Vec::with_capacity(nl);
        let mut walk: Vec<(cfg_dom::LoopId, bool)> = self.loops.roots().map(|l| (l, false)).collect();
        while let Some((l, done)) = walk.pop() {
            if done {
                postorder.push(l);
            } else {
                walk.push((l, true));
                walk.extend(self.loops.children(l).iter().map(|&c| (c, false)));
            }
        }
        for &l in &postorder {
            let h = position[self.loops.header(l) as usize];
            let (a, z, k) = (lo[l.index()], hi[l.index()], size[l.index()]);
            debug_assert_eq!(k, self.loops.body(l).len(), "own nodes and child loops partition the body");
            if a == h && z != u32::MAX && (z - a + 1) as usize == k {
                loop_end[h as usize] = z + 1;
            }
            if let Some(p) = self.loops.parent(l) {
                lo[p.index()] = lo[p.index()].min(a);
                hi[p.index()] = hi[p.index()].max(z);
                size[p.index()] += k;
            }
        }
        let (release_start, release) = self.release_schedule(graph, &order, &position, &loop_end);
        let mut frontier = 0u32;
        let mut work = std::mem::take(&mut self.work);
        let mut stack: Vec<(u32, u32)> = Vec::new();
        loop {
            let mut pos = 0u32;
            stack.clear();
            while (pos as usize) < len {
                let end = loop_end[pos as usize];
                if end != u32::MAX && stack.last().is_none_or(|&(s, _)| s != pos) {
                    stack.push((pos, end));
                }
                let b = order[pos as usize];
                if std::mem::replace(&mut self.pending[b as usize], false) {
                    self.entry_state(input, b, &mut work);
                    // Outside loops a block is visited once: the exit
                    // states only it still reads go before its transfer,
                    // which can then update the maps it took from them in
                    // place instead of copying them.
                    if self.loops.innermost_loop(b).is_none() {
                        self.release_upto(&mut frontier, pos + 1, &release_start, &release);
                    }
                    self.transfer(input, b, &mut work, false);
                    if self.sets.exceeded() {
                        // Every set since the refusal may be wrong: stop.
                        self.work = work;
                        return;
                    }
                    if !work.same(&self.outs[b as usize], &mut self.sets) {
                        std::mem::swap(&mut self.outs[b as usize], &mut work);
                        for s in graph.successors(b) {
                            self.pending[s as usize] = true;
                        }
                    }
                }
                pos += 1;
                while let Some(&(s, e)) = stack.last() {
                    if pos < e {
                        break;
                    }
                    if self.pending[order[s as usize] as usize] {
                        pos = s;
                        break;
                    }
                    stack.pop();
                }
                // The scan reached a new position: the exit states nothing
                // will read again go (see `release_schedule`).
                self.release_upto(&mut frontier, pos, &release_start, &release);
            }
            if !order.iter().any(|&b| self.pending[b as usize]) {
                break;
            }
        }
        self.work = work;
    }

    /// Drops the exit states listed under the positions up to `to` not
    /// dropped yet (`frontier` is the last position done).
    fn release_upto(&mut self, frontier: &mut u32, to: u32, start: &[u32], list: &[Node]) {
        if start.is_empty() {
            return;
        }
        while *frontier < to {
            *frontier += 1;
            for &b in cfg_dom::csr::row(start, list, *frontier as usize) {
                self.outs[b as usize].clear();
            }
        }
    }

    /// When each block's exit state is read for the last time, as a CSR by
    /// scan position: block `b` is listed under the least position `r` such
    /// that, once the scan first reaches `r`, no successor of `b` is
    /// processed again. A successor outside every loop is processed once,
    /// so `r` is past it; one inside a loop is processed last when its
    /// outermost loop is done, so `r` is that loop's end. Once the scan
    /// reaches `r`, every loop still being swept contains `r - 1` and `r`,
    /// so it contains no such successor (it would then end past `r`).
    ///
    /// Empty (nothing released) when the exit states are wanted afterwards
    /// (the loop-carried pass and `explain` read them), and when the order
    /// is not one sweep: an irreducible loop or one that is not contiguous
    /// can make the rounds go over a block again.
    fn release_schedule<G: Graph>(
        &self,
        graph: &G,
        order: &[Node],
        position: &[u32],
        loop_end: &[u32],
    ) -> (Vec<u32>, Vec<Node>) {
        let (mut start, mut list) = (Vec::new(), Vec::new());
        let loops = &self.loops;
        let one_sweep = loops
            .loops()
            .all(|l| !loops.is_irreducible(l) && loop_end[position[loops.header(l) as usize] as usize] != u32::MAX);
        if self.keep_exit_states || self.options.loop_carried || !one_sweep {
            return (start, list);
        }
        // Per loop, the end of its outermost loop: top down from the roots
        // (linear on deep nests).
        let mut outer_end = vec![u32::MAX; loops.num_loops()];
        let mut walk: Vec<cfg_dom::LoopId> = loops.roots().collect();
        while let Some(l) = walk.pop() {
            outer_end[l.index()] = match loops.parent(l) {
                Some(p) => outer_end[p.index()],
                None => loop_end[position[loops.header(l) as usize] as usize],
            };
            walk.extend(loops.children(l).iter().copied());
        }
        // Per block, when it is processed for the last time.
        let done_at = |s: Node| -> u32 {
            match loops.innermost_loop(s) {
                Some(l) => outer_end[l.index()],
                None => position[s as usize] + 1,
            }
        };
        let entries = order.iter().map(|&b| {
            let r = graph.successors(b).map(done_at).max().unwrap_or(position[b as usize] + 1);
            (r, b)
        });
        cfg_dom::csr::bucket_by(order.len() + 1, entries, &mut start, &mut list);
        (start, list)
    }

    /// The state on entry to `b`: the join of its reachable predecessors'
    /// exit states, each carried along its edge.
    pub(super) fn entry_state<G: Graph>(&mut self, input: &MemInput<'_, G>, b: Node, into: &mut State) {
        let outs = std::mem::take(&mut self.outs);
        self.join_preds(input, b, &outs, |_| true, into);
        self.outs = outs;
    }

    /// The join of `outs` of the reachable predecessors of `b` that `keep`
    /// accepts, each carried along its edge, then the changes on entry.
    pub(super) fn join_preds<G: Graph>(
        &mut self,
        input: &MemInput<'_, G>,
        b: Node,
        outs: &[State],
        keep: impl Fn(Node) -> bool,
        into: &mut State,
    ) {
        let graph = input.graph();
        let ivs = input.inductions(b);
        // The join is built in `into`, through a spare state's buffers
        // (the join of `into` and the next state goes to the spare, then
        // the two swap), so no state is allocated or dropped per join. A
        // predecessor's exit state is carried along its edge in another
        // reused state when the block has induction variables. `first`:
        // the one predecessor met so far, not copied yet.
        let mut spare = std::mem::take(&mut self.spare);
        let mut carried = std::mem::take(&mut self.carried_state);
        let mut first: Option<&State> = None;
        let mut joined = false;
        for p in graph.predecessors(b) {
            if !self.dfs.is_reachable(p) || !keep(p) {
                continue;
            }
            let out = &outs[p as usize];
            let next = if ivs.is_empty() {
                out
            } else {
                carried.copy_from(out);
                let back = self.dt.dominates(b, p);
                for &(sym, step) in ivs {
                    if back {
                        carried.advance(sym, step, &mut self.sets);
                    } else {
                        carried.forget(sym);
                    }
                }
                &carried
            };
            if joined {
                into.join_into(next, &mut self.sets, self.planted, &mut spare);
                std::mem::swap(into, &mut spare);
            } else if let Some(f) = first.take() {
                f.join_into(next, &mut self.sets, self.planted, into);
                joined = true;
            } else if ivs.is_empty() {
                first = Some(out);
            } else {
                std::mem::swap(into, &mut carried);
                joined = true;
            }
        }
        if !joined {
            match first {
                // One predecessor: its state, into the buffers `into` has.
                Some(f) => into.copy_from(f),
                None => into.clear(),
            }
        }
        // Neither keeps a reference to a map (which would make the
        // transfer copy what it could update in place).
        spare.clear();
        carried.clear();
        self.spare = spare;
        self.carried_state = carried;
        for &sym in input.changes_at_entry(b) {
            into.forget(sym);
        }
        // Classes of symbols nothing ahead uses only cost time.
        let live = &self.symbols;
        into.defs.classes.retain(|c| live.live_at(b, c.sym));
        into.reads.classes.retain(|c| live.live_at(b, c.sym));
    }
}
