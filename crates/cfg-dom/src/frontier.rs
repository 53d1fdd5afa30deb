//! Dominance frontiers and iterated dominance frontiers.
//!
//! DF(x) = the nodes y such that x dominates a predecessor of y but does not
//! strictly dominate y (Cytron et al., 1991). Computed per join node by the
//! "runner" walk of Cooper, Harvey and Kennedy: from each predecessor up to
//! the join's immediate dominator. Stored in CSR form, each list sorted.
//!
//! IDF(S), the limit of DF applied to S and its results, is computed without
//! DF sets in time linear in the graph plus the output, by Sreedhar and
//! Gao's DJ-graph algorithm ("A linear time algorithm for placing
//! φ-nodes", POPL 1995): nodes of S wait in a "piggybank" of per-depth
//! stacks; the deepest is taken, its dominator subtree is walked once, and
//! each join edge `u -> y` out of the subtree with `depth(y) <= depth(x)`
//! puts `y` in the IDF (and in the piggybank). Every node and edge is
//! visited at most once per query; scratch marks are stamped with a query
//! counter, so a query costs nothing for the parts of the graph it does not
//! touch — phi placement asks one query per variable.
//!
//! Invariants: unreachable nodes have empty frontiers and are ignored in
//! queries; results are sorted by node id.

use crate::domtree::DomTree;
use crate::graph::{Graph, NONE, Node, csr, slice};
use crate::stamp::{Stale, check_cfg};
use ir_core::{Epoch, Function};

/// Dominance frontiers of every node.
#[derive(Clone, Debug, Default)]
pub struct DominanceFrontiers {
    start: Vec<u32>,
    list: Vec<Node>,
    stamp: Option<Epoch>,
}

impl DominanceFrontiers {
    /// An empty set of frontiers.
    pub fn new() -> DominanceFrontiers {
        DominanceFrontiers::default()
    }

    /// The frontiers of `g` given its dominator tree.
    pub fn of(g: &impl Graph, dt: &DomTree) -> DominanceFrontiers {
        let mut df = DominanceFrontiers::new();
        df.compute(g, dt);
        df
    }

    /// Empties the frontiers, keeping buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.list.clear();
        self.stamp = None;
    }

    /// Computes the frontiers of `g`, reusing buffers.
    pub fn compute(&mut self, g: &impl Graph, dt: &DomTree) {
        let n = g.num_nodes();
        let mut pairs: Vec<(Node, Node)> = Vec::new();
        // `last[x] == y` once y is in DF(x): runs from two predecessors of y
        // can meet.
        let mut last = vec![NONE; n];
        for y in 0..n as Node {
            let Some(iy) = dt.idom(y) else { continue };
            let mut preds = g.predecessors(y).filter(|&p| dt.is_reachable(p)).peekable();
            let first = preds.next();
            // Only joins have frontier entries, except through a self-loop
            // or a back edge from a single predecessor that y dominates.
            for p in first.into_iter().chain(preds) {
                let mut runner = p;
                while runner != iy && runner != NONE {
                    if last[runner as usize] != y {
                        last[runner as usize] = y;
                        pairs.push((runner, y));
                    }
                    runner = dt.idom(runner).unwrap_or(NONE);
                }
            }
        }
        // The root can also be in frontiers: through edges back to it.
        if let Some(root) = dt.root() {
            for p in g.predecessors(root).filter(|&p| dt.is_reachable(p)) {
                let mut runner = p;
                loop {
                    if last[runner as usize] != root {
                        last[runner as usize] = root;
                        pairs.push((runner, root));
                    }
                    match dt.idom(runner) {
                        Some(up) => runner = up,
                        None => break,
                    }
                }
            }
        }
        pairs.sort_unstable();
        csr(n, pairs.iter().copied(), &mut self.start, &mut self.list);
        self.stamp = g.stamp();
    }

    /// The stamp of the graph the frontiers were computed on.
    pub fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }

    /// `Ok` when the frontiers were computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &Function) -> Result<(), Stale> {
        check_cfg(self.stamp, func)
    }

    /// DF(`n`), sorted.
    pub fn frontier(&self, n: Node) -> &[Node] {
        slice(&self.start, &self.list, n)
    }
}

/// Iterated dominance frontiers, one query at a time, with reusable scratch.
#[derive(Clone, Debug, Default)]
pub struct IteratedFrontiers {
    /// Query stamp per node: visited in the current query.
    visited: Vec<u32>,
    /// Query stamp per node: already in the IDF of the current query.
    in_idf: Vec<u32>,
    /// Query stamp per node: in the piggybank (input or IDF) already.
    queued: Vec<u32>,
    query: u32,
    /// Per-depth stacks of nodes waiting to be processed.
    bank: Vec<Vec<Node>>,
    walk: Vec<Node>,
}

impl IteratedFrontiers {
    /// Empty scratch.
    pub fn new() -> IteratedFrontiers {
        IteratedFrontiers::default()
    }

    /// Releases the scratch.
    pub fn clear(&mut self) {
        *self = IteratedFrontiers::default();
    }

    fn next_query(&mut self, n: usize) {
        if self.visited.len() < n {
            self.visited.resize(n, 0);
            self.in_idf.resize(n, 0);
            self.queued.resize(n, 0);
        }
        self.query = self.query.wrapping_add(1);
        if self.query == 0 {
            // After 2^32 queries, restart the stamps.
            self.visited.iter_mut().for_each(|x| *x = 0);
            self.in_idf.iter_mut().for_each(|x| *x = 0);
            self.queued.iter_mut().for_each(|x| *x = 0);
            self.query = 1;
        }
    }

    /// IDF of `defs` (nodes outside the tree are ignored) into `out`
    /// (cleared first), sorted by node id.
    pub fn compute(&mut self, g: &impl Graph, dt: &DomTree, defs: impl IntoIterator<Item = Node>, out: &mut Vec<Node>) {
        out.clear();
        let n = g.num_nodes();
        self.next_query(n);
        let q = self.query;
        let mut top = 0usize;
        for d in defs {
            let Some(depth) = dt.depth(d) else { continue };
            if self.queued[d as usize] != q {
                self.queued[d as usize] = q;
                let depth = depth as usize;
                if self.bank.len() <= depth {
                    self.bank.resize_with(depth + 1, Vec::new);
                }
                self.bank[depth].push(d);
                top = top.max(depth + 1);
            }
        }
        // Take the deepest waiting node; insertions are never deeper than
        // the current level, so `top` only moves down.
        while top > 0 {
            let Some(x) = self.bank[top - 1].pop() else {
                top -= 1;
                continue;
            };
            let level = top as u32 - 1;
            // Walk x's dominator subtree (D-edges) not yet visited, looking
            // at join edges (J-edges) out of it.
            self.walk.clear();
            if self.visited[x as usize] != q {
                self.visited[x as usize] = q;
                self.walk.push(x);
            }
            while let Some(u) = self.walk.pop() {
                for y in g.successors(u) {
                    if dt.idom(y) == Some(u) {
                        continue; // a D-edge: walked below
                    }
                    let Some(dy) = dt.depth(y) else { continue };
                    if dy <= level && self.in_idf[y as usize] != q {
                        self.in_idf[y as usize] = q;
                        out.push(y);
                        if self.queued[y as usize] != q {
                            self.queued[y as usize] = q;
                            self.bank[dy as usize].push(y);
                        }
                    }
                }
                for &c in dt.children(u) {
                    if self.visited[c as usize] != q {
                        self.visited[c as usize] = q;
                        self.walk.push(c);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn the_documents_frontiers() {
        // Digest §000: DF(bb2) = {bb2}, DF(bb4) = {bb2}, DF(bb3) = {bb4}.
        let g =
            CsrGraph::from_edges(7, Some(0), [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6)]).unwrap();
        let dt = DomTree::of(&g);
        let df = DominanceFrontiers::of(&g, &dt);
        assert_eq!(df.frontier(2), [2]);
        assert_eq!(df.frontier(4), [2]);
        assert_eq!(df.frontier(3), [4]);
        assert_eq!(df.frontier(5), [2]);
        assert_eq!(df.frontier(1), [] as [Node; 0]);
        // x is defined in bb1, bb3, bb4: phis at bb2 and bb4 only.
        let mut idf = IteratedFrontiers::new();
        let mut out = Vec::new();
        idf.compute(&g, &dt, [1, 3, 4], &mut out);
        assert_eq!(out, [2, 4]);
        idf.compute(&g, &dt, [1], &mut out);
        assert!(out.is_empty());
    }
}
