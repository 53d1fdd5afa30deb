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
            }
            if !order.iter().any(|&b| self.pending[b as usize]) {
                break;
            }
        }
        self.work = work;
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
        // The join so far: none yet, one predecessor's exit state (not
        // copied), or a state of its own.
        let mut first: Option<&State> = None;
        let mut acc: Option<State> = None;
        for p in graph.predecessors(b) {
            if !self.dfs.is_reachable(p) || !keep(p) {
                continue;
            }
            let out = &outs[p as usize];
            if ivs.is_empty() {
                acc = match (acc, first) {
                    (Some(a), _) => Some(a.join(out, &mut self.sets, self.planted)),
                    (None, Some(f)) => Some(f.join(out, &mut self.sets, self.planted)),
                    (None, None) => {
                        first = Some(out);
                        None
                    }
                };
                continue;
            }
            let mut carried = out.clone();
            let back = self.dt.dominates(b, p);
            for &(sym, step) in ivs {
                if back {
                    carried.advance(sym, step, &mut self.sets);
                } else {
                    carried.forget(sym);
                }
            }
            acc = Some(match acc {
                Some(a) => a.join(&carried, &mut self.sets, self.planted),
                None => carried,
            });
        }
        match (acc, first) {
            (Some(a), _) => *into = a,
            // One predecessor: its state, into the buffers `into` has.
            (None, Some(f)) => into.copy_from(f),
            (None, None) => into.clear(),
        }
        for &sym in input.changes_at_entry(b) {
            into.forget(sym);
        }
        // Classes of symbols nothing ahead uses only cost time.
        let live = &self.symbols;
        into.defs.classes.retain(|c| live.live_at(b, c.sym));
        into.reads.classes.retain(|c| live.live_at(b, c.sym));
    }
}
