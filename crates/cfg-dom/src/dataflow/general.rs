//! The general solver: [`DataflowResults`] of any monotone [`Analysis`]
//! over a join-semilattice, by the worklist iteration of the module doc
//! (Kildall 1973; Kam and Ullman 1977), in the visiting order of
//! [`super::worklist`].
//!
//! Invariants: every state starts at [`Analysis::bottom`]; nodes outside
//! the analysis' scope keep it; the loop allocates only through the
//! domain's `clone_from` and the analysis' own code.

use super::framework::{Analysis, Direction, JoinSemiLattice};
use super::worklist::Worklist;
use crate::graph::{Graph, NONE, Node};

/// The results of an [`Analysis`]: an in and an out state per node.
///
/// Follows the crate's lifecycle (`new`, `of`, `compute` reusing buffers,
/// `clear`).
#[derive(Clone, Debug)]
pub struct DataflowResults<D> {
    ins: Vec<D>,
    outs: Vec<D>,
    work: Worklist,
    scratch: Option<D>,
    visits: u64,
    stamp: Option<u64>,
}

impl<D> Default for DataflowResults<D> {
    fn default() -> Self {
        DataflowResults {
            ins: Vec::new(),
            outs: Vec::new(),
            work: Worklist::default(),
            scratch: None,
            visits: 0,
            stamp: None,
        }
    }
}

impl<D: JoinSemiLattice + Clone> DataflowResults<D> {
    /// Empty results (no nodes).
    pub fn new() -> Self {
        Self::default()
    }

    /// Solves `analysis` on `g`.
    pub fn of<A: Analysis<Domain = D>>(g: &impl Graph, analysis: &A) -> Self {
        let mut r = Self::new();
        r.compute(g, analysis);
        r
    }

    /// Empties the results, keeping their buffers.
    pub fn clear(&mut self) {
        self.ins.clear();
        self.outs.clear();
        self.work.clear();
        self.visits = 0;
        self.stamp = None;
    }

    /// Solves `analysis` on `g` to its fixed point, reusing buffers.
    ///
    /// Each solved node is visited at least once; when its transfer result
    /// changes, it is joined into the neighbours downstream (successors
    /// forward, predecessors backward) and those whose state grew are
    /// queued again.
    pub fn compute<A: Analysis<Domain = D>>(&mut self, g: &impl Graph, analysis: &A) {
        self.clear();
        let n = g.num_nodes().min(NONE as usize);
        self.stamp = g.stamp();
        let bottom = analysis.bottom();
        self.ins.resize(n, bottom.clone());
        self.outs.resize(n, bottom.clone());
        self.work.build(g, n, A::DIRECTION, A::SCOPE);
        match A::DIRECTION {
            Direction::Forward => {
                if let Some(e) = g.entry().filter(|&e| self.work.in_scope(e)) {
                    analysis.boundary(&mut self.ins[e as usize]);
                }
            }
            Direction::Backward => {
                for i in 0..self.work.order.len() {
                    let v = self.work.order[i];
                    if !g.successors(v).any(|s| (s as usize) < n) {
                        analysis.boundary(&mut self.outs[v as usize]);
                    }
                }
            }
        }
        let mut scratch = self.scratch.take().unwrap_or_else(|| bottom.clone());
        while let Some(v) = self.work.pop() {
            self.visits += 1;
            let vi = v as usize;
            match A::DIRECTION {
                Direction::Forward => {
                    scratch.clone_from(&self.ins[vi]);
                    analysis.transfer_block(v, &mut scratch);
                    if scratch == self.outs[vi] {
                        continue;
                    }
                    self.outs[vi].clone_from(&scratch);
                    for s in g.successors(v) {
                        if self.work.in_scope(s) && self.ins[s as usize].join(&self.outs[vi]) {
                            self.work.push(s);
                        }
                    }
                }
                Direction::Backward => {
                    scratch.clone_from(&self.outs[vi]);
                    analysis.transfer_block(v, &mut scratch);
                    if scratch == self.ins[vi] {
                        continue;
                    }
                    self.ins[vi].clone_from(&scratch);
                    for p in g.predecessors(v) {
                        if self.work.in_scope(p) && self.outs[p as usize].join(&self.ins[vi]) {
                            self.work.push(p);
                        }
                    }
                }
            }
        }
        self.scratch = Some(scratch);
    }

    /// The state at the top of `n` (before its first instruction); `None`
    /// out of range.
    pub fn state_in(&self, n: Node) -> Option<&D> {
        self.ins.get(n as usize)
    }

    /// The state at the bottom of `n` (after its last instruction); `None`
    /// out of range.
    pub fn state_out(&self, n: Node) -> Option<&D> {
        self.outs.get(n as usize)
    }

    /// True when `n` was solved (it is in the analysis' scope).
    pub fn is_solved(&self, n: Node) -> bool {
        self.work.in_scope(n)
    }

    /// Number of nodes solved for (the graph's).
    pub fn num_nodes(&self) -> usize {
        self.ins.len()
    }

    /// Number of node visits the fixpoint took (at least one per solved
    /// node).
    pub fn visits(&self) -> u64 {
        self.visits
    }

    /// The stamp of the graph the results were computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }
}
