//! The loop-carried pass ([`crate::Options::loop_carried`]): per reducible
//! loop, the flow dependences that cross its back edge.
//!
//! Invariants: the loop's header starts from what its back edges bring
//! alone (the fixed point's exit states of its latches, carried along the
//! edge) and the header is not re-entered, so what a use sees in this pass
//! came around the loop at least once; writes only kill here (what they
//! define has not gone around yet); irreducible loops are skipped.

use super::MemDep;
use crate::code::MemInput;
use crate::sets::EMPTY;
use crate::state::State;
use cfg_dom::{Graph, Node};

impl MemDep {
    /// Per reducible loop: the flow dependences that cross its back edge.
    /// The loop's header starts from what its back edges bring (the fixed
    /// point's exit states of its latches, carried along the edge), and
    /// the body is run to a fixed point from there alone (inner loops
    /// included, the header not re-entered): what a use then sees came
    /// around the loop at least once.
    pub(super) fn carried_pass<G: Graph>(&mut self, input: &MemInput<'_, G>) {
        let graph = input.graph();
        self.loops.compute(graph);
        let n = input.num_blocks();
        self.louts.resize_with(n, State::default);
        self.carried_flow.clear();
        self.carried_flow.resize(self.sites.uses.len(), EMPTY);
        let rpo: Vec<Node> = self.dfs.reverse_postorder().collect();
        let mut work = std::mem::take(&mut self.work);
        let mut louts = std::mem::take(&mut self.louts);
        for l in self.loops.loops() {
            if self.loops.is_irreducible(l) {
                continue;
            }
            let h = self.loops.header(l);
            let body: Vec<Node> = rpo.iter().copied().filter(|&b| self.loops.contains(l, b)).collect();
            let mut h_in = State::default();
            let outs = std::mem::take(&mut self.outs);
            let loops = std::mem::take(&mut self.loops);
            self.join_preds(input, h, &outs, |p| loops.contains(l, p), &mut h_in);
            self.outs = outs;
            for &b in &body {
                louts[b as usize].clear();
                self.pending[b as usize] = true;
            }
            loop {
                let mut any = false;
                for &b in &body {
                    if !std::mem::replace(&mut self.pending[b as usize], false) {
                        continue;
                    }
                    any = true;
                    if b == h {
                        work.clone_from(&h_in);
                    } else {
                        self.join_preds(input, b, &louts, |p| loops.contains(l, p), &mut work);
                    }
                    self.transfer(input, b, &mut work, true);
                    if !work.same(&louts[b as usize], &mut self.sets) {
                        std::mem::swap(&mut louts[b as usize], &mut work);
                        for s in graph.successors(b) {
                            if s != h && loops.contains(l, s) {
                                self.pending[s as usize] = true;
                            }
                        }
                    }
                }
                if !any {
                    break;
                }
            }
            for &b in &body {
                for &inst in input.block_insts(b) {
                    for &u in self.sites.uses_of_inst(inst) {
                        let s = std::mem::replace(&mut self.carried_flow[u as usize], EMPTY);
                        if s != EMPTY {
                            self.carried.push((h, u, s));
                        }
                    }
                }
                louts[b as usize].clear();
            }
            self.loops = loops;
        }
        self.carried.sort_unstable_by_key(|&(h, u, _)| (h, u));
        self.louts = louts;
        self.work = work;
    }
}
