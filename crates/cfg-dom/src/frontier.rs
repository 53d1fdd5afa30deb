//! Dominance frontiers and iterated dominance frontiers.
//!
//! DF(x) = the nodes y such that x dominates a predecessor of y but does not
//! strictly dominate y (Cytron et al., TOPLAS 1991). Computed per join node
//! by the "runner" walk of Cooper, Harvey and Kennedy ("A simple, fast
//! dominance algorithm", 2001; `docs/references.md`): from each predecessor up to
//! the join's immediate dominator. Stored in CSR form, each list sorted.
//!
//! IDF(S), the limit of DF applied to S and its results, is computed without
//! DF sets by Sreedhar and Gao's DJ-graph algorithm ("A linear time
//! algorithm for placing φ-nodes", POPL 1995): nodes of S wait in a
//! "piggybank" of per-depth stacks; the deepest is taken, its dominator
//! subtree is walked once, and each join edge `u -> y` out of the subtree
//! with `depth(y) <= depth(x)` puts `y` in the IDF (and in the piggybank).
//! Every node and edge is visited at most once per query; scratch marks are
//! stamped with a query counter, so a query costs nothing for the parts of
//! the graph it does not touch. On top of the paper, an index built once
//! per graph prunes the walk: a subtree none of whose join edges reaches
//! the current level or above is skipped (on structured CFGs, 4–20x fewer
//! nodes walked per query; see `docs/benchmarks.md`).
//!
//! Which to use for phi placement: a query walks the dominator subtrees of
//! its definitions, which on a long CFG is much of the graph for a variable
//! defined near the top, while Cytron's worklist over [`DominanceFrontiers`]
//! reads only the frontier entries it needs. For many variables on one
//! graph, build the DF sets once (the `ssa` crate does); for a few queries,
//! or graphs whose DF sets would be quadratic, use [`IteratedFrontiers`].
//!
//! Invariants: unreachable nodes have empty frontiers and are ignored in
//! queries; results are sorted by node id.

use crate::csr::{bucket_by, row};
use crate::domtree::DomTree;
use crate::graph::{Graph, NONE, Node};
use crate::stamp::Versioned;
use crate::stamp::{Mismatch, Stale, belongs, check_stamp};

/// Dominance frontiers of every node.
#[derive(Clone, Debug, Default)]
pub struct DominanceFrontiers {
    start: Vec<u32>,
    list: Vec<Node>,
    stamp: Option<u64>,
    /// Scratch of one computation: `(x, y)` pairs, and `last[x] == y` once
    /// y is in DF(x).
    pairs: Vec<(Node, Node)>,
    last: Vec<Node>,
}

impl DominanceFrontiers {
    /// An empty set of frontiers.
    pub fn new() -> DominanceFrontiers {
        DominanceFrontiers::default()
    }

    /// The frontiers of `g` given its dominator tree; an error when `dt`
    /// belongs to another graph.
    pub fn of(g: &impl Graph, dt: &DomTree) -> Result<DominanceFrontiers, Mismatch> {
        let mut df = DominanceFrontiers::new();
        df.compute(g, dt)?;
        Ok(df)
    }

    /// Empties the frontiers, keeping buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.list.clear();
        self.stamp = None;
        self.pairs.clear();
        self.last.clear();
    }

    /// Computes the frontiers of `g`, reusing buffers. An error (and empty
    /// frontiers) when `dt` was computed on another graph.
    ///
    /// The sets can hold a quadratic number of entries (a nest of `d`
    /// loops has about `d²/2`: 4.7 GB at depth 20,000); to cap the memory,
    /// use [`DominanceFrontiers::compute_bounded`].
    pub fn compute(&mut self, g: &impl Graph, dt: &DomTree) -> Result<(), Mismatch> {
        self.compute_bounded(g, dt, usize::MAX).map(|_| ())
    }

    /// [`DominanceFrontiers::compute`], giving up as soon as the sets
    /// would hold more than `max_entries` entries in all: then `Ok(false)`
    /// and empty frontiers (no stamp, zero nodes), having spent time and
    /// memory proportional to `max_entries` only.
    pub fn compute_bounded(&mut self, g: &impl Graph, dt: &DomTree, max_entries: usize) -> Result<bool, Mismatch> {
        self.clear();
        belongs("the dominator tree", g.num_nodes(), g.stamp(), dt.num_nodes(), dt.stamp())?;
        let n = g.num_nodes();
        let (pairs, last) = (&mut self.pairs, &mut self.last);
        pairs.clear();
        last.clear();
        // Runs from two predecessors of y can meet, hence `last`.
        last.resize(n, NONE);
        let root = dt.root();
        // Pairs are produced in increasing y, so the stable bucket below
        // leaves every frontier sorted without a sort.
        for y in 0..n as Node {
            // The runner stops at y's idom; for the root (which can be in
            // frontiers through edges back to it) it runs to the top.
            let stop = match dt.idom(y) {
                Some(iy) => iy,
                None if Some(y) == root => NONE,
                None => continue,
            };
            for p in g.predecessors(y).filter(|&p| dt.is_reachable(p)) {
                let mut runner = p;
                while runner != stop && runner != NONE {
                    if last[runner as usize] == y {
                        break; // the rest of this run is already recorded
                    }
                    last[runner as usize] = y;
                    if pairs.len() == max_entries {
                        pairs.clear();
                        return Ok(false);
                    }
                    pairs.push((runner, y));
                    runner = dt.idom(runner).unwrap_or(NONE);
                }
            }
        }
        bucket_by(n, pairs.iter().copied(), &mut self.start, &mut self.list);
        self.stamp = g.stamp();
        Ok(true)
    }

    /// The stamp of the graph the frontiers were computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the frontiers were computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.cfg_stamp())
    }

    /// Number of nodes of the graph the frontiers were computed on (0 when
    /// empty).
    pub fn num_nodes(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// DF(`n`), sorted.
    pub fn frontier(&self, n: Node) -> &[Node] {
        row(&self.start, &self.list, n as usize)
    }
}

/// Iterated dominance frontiers of one graph, one query at a time.
///
/// `compute` indexes the graph once in O(n + m): the dominator tree's
/// depths and children, the join edges (every edge `u -> y` that is not a
/// tree edge), and per node `reach`, the smallest depth of any join edge
/// target leaving its dominator subtree. [`IteratedFrontiers::query`] then
/// walks only subtrees whose `reach` is at or above the current level: a
/// subtree that cannot add to the IDF at this level never will, because
/// levels only go up. The index holds copies of what it needs, so queries
/// do not borrow the graph or the tree.
#[derive(Clone, Debug, Default)]
pub struct IteratedFrontiers {
    /// Depth in the dominator tree; `NONE` for unreachable nodes.
    depth: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<Node>,
    join_start: Vec<u32>,
    joins: Vec<Node>,
    /// Smallest depth of a join edge target out of each node's subtree
    /// (`NONE` if there is none).
    reach: Vec<u32>,
    stamp: Option<u64>,
    /// Scratch of `compute`: the join edges before bucketing.
    pairs: Vec<(Node, Node)>,
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
    /// An empty index: every query answers the empty set.
    pub fn new() -> IteratedFrontiers {
        IteratedFrontiers::default()
    }

    /// The index of `g` given its dominator tree; an error when `dt`
    /// belongs to another graph.
    pub fn of(g: &impl Graph, dt: &DomTree) -> Result<IteratedFrontiers, Mismatch> {
        let mut idf = IteratedFrontiers::new();
        idf.compute(g, dt)?;
        Ok(idf)
    }

    /// Empties the index, keeping buffers.
    pub fn clear(&mut self) {
        for v in [&mut self.depth, &mut self.child_start, &mut self.children, &mut self.join_start, &mut self.joins] {
            v.clear();
        }
        self.reach.clear();
        self.pairs.clear();
        self.stamp = None;
    }

    /// Indexes `g` (whose dominator tree is `dt`), reusing buffers. An
    /// error (and an empty index) when `dt` was computed on another graph.
    pub fn compute(&mut self, g: &impl Graph, dt: &DomTree) -> Result<(), Mismatch> {
        self.clear();
        belongs("the dominator tree", g.num_nodes(), g.stamp(), dt.num_nodes(), dt.stamp())?;
        let n = g.num_nodes();
        self.depth.clear();
        self.depth.extend((0..n as Node).map(|v| dt.depth(v).unwrap_or(NONE)));
        let reachable = |v: Node| dt.is_reachable(v);
        bucket_by(
            n,
            (0..n as Node).filter(|&c| reachable(c)).filter_map(|c| dt.idom(c).map(|p| (p, c))),
            &mut self.child_start,
            &mut self.children,
        );
        self.pairs.clear();
        for u in (0..n as Node).filter(|&u| reachable(u)) {
            self.pairs.extend(g.successors(u).filter(|&y| reachable(y) && dt.idom(y) != Some(u)).map(|y| (u, y)));
        }
        bucket_by(n, self.pairs.iter().copied(), &mut self.join_start, &mut self.joins);
        // Children follow their parent in the tree's preorder, so a
        // backward pass sees every subtree before its root.
        self.reach.clear();
        self.reach.resize(n, NONE);
        for &u in dt.preorder().iter().rev() {
            let own = row(&self.join_start, &self.joins, u as usize).iter().map(|&y| self.depth[y as usize]).min();
            let below =
                row(&self.child_start, &self.children, u as usize).iter().map(|&c| self.reach[c as usize]).min();
            self.reach[u as usize] = own.into_iter().chain(below).min().unwrap_or(NONE);
        }
        self.stamp = g.stamp();
        Ok(())
    }

    /// The stamp of the graph the index was computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the index was computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.cfg_stamp())
    }

    fn next_query(&mut self) {
        let n = self.depth.len();
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

    /// IDF of `defs` into `out` (cleared first), sorted by node id.
    /// Unreachable and out-of-range nodes in `defs` are ignored.
    pub fn query(&mut self, defs: impl IntoIterator<Item = Node>, out: &mut Vec<Node>) {
        self.query_deeper(defs, None, out);
    }

    /// The part of IDF(`defs`) deeper than `floor` in the dominator tree
    /// (all of it for `None`) into `out` (cleared first), sorted by node
    /// id. Exact, and cheaper than filtering [`IteratedFrontiers::query`]:
    /// a frontier is never deeper than its node (y ∈ DF(x) implies
    /// depth(y) ≤ depth(x)), so nodes at or above the floor cannot lead
    /// below it and are never walked. A caller that wants only the IDF
    /// strictly dominated by `d` passes `depth(d)` and keeps the nodes `d`
    /// dominates.
    pub fn query_deeper(&mut self, defs: impl IntoIterator<Item = Node>, floor: Option<u32>, out: &mut Vec<Node>) {
        out.clear();
        // Levels are compared as depth + 1, so "no floor" is 0.
        let floor = floor.map_or(0usize, |f| f as usize + 1);
        self.next_query();
        let q = self.query;
        let mut top = 0usize;
        for d in defs {
            let Some(&depth) = self.depth.get(d as usize) else { continue };
            if depth == NONE || (depth as usize) < floor || self.queued[d as usize] == q {
                continue;
            }
            self.queued[d as usize] = q;
            let depth = depth as usize;
            if self.bank.len() <= depth {
                self.bank.resize_with(depth + 1, Vec::new);
            }
            self.bank[depth].push(d);
            top = top.max(depth + 1);
        }
        // Take the deepest waiting node; insertions are never deeper than
        // the current level, so `top` only moves down.
        while top > floor {
            let Some(x) = self.bank[top - 1].pop() else {
                top -= 1;
                continue;
            };
            let level = top as u32 - 1;
            // Walk x's dominator subtree not yet visited, looking at join
            // edges out of it; skip subtrees that reach no higher than
            // `level`.
            self.walk.clear();
            if self.visited[x as usize] != q && self.reach[x as usize] <= level {
                self.visited[x as usize] = q;
                self.walk.push(x);
            }
            while let Some(u) = self.walk.pop() {
                for &y in row(&self.join_start, &self.joins, u as usize) {
                    let dy = self.depth[y as usize];
                    if dy <= level && dy as usize >= floor && self.in_idf[y as usize] != q {
                        self.in_idf[y as usize] = q;
                        out.push(y);
                        if self.queued[y as usize] != q {
                            self.queued[y as usize] = q;
                            self.bank[dy as usize].push(y);
                        }
                    }
                }
                for &c in row(&self.child_start, &self.children, u as usize) {
                    if self.visited[c as usize] != q && self.reach[c as usize] <= level {
                        self.visited[c as usize] = q;
                        self.walk.push(c);
                    }
                }
            }
        }
        out.sort_unstable();
    }

    /// The dominance frontier of the single node `x` into `out` (cleared
    /// first), sorted by node id; empty for unreachable or out-of-range
    /// nodes. It walks the part of `x`'s dominator subtree whose join edges
    /// can leave it at `x`'s depth or above: `y` is in DF(x) exactly when a
    /// join edge from the subtree reaches `y` with depth(y) ≤ depth(x).
    pub fn frontier(&mut self, x: Node, out: &mut Vec<Node>) {
        out.clear();
        let Some(&level) = self.depth.get(x as usize) else { return };
        if level == NONE {
            return;
        }
        self.next_query();
        let q = self.query;
        self.walk.clear();
        if self.reach[x as usize] <= level {
            self.walk.push(x);
        }
        while let Some(u) = self.walk.pop() {
            for &y in row(&self.join_start, &self.joins, u as usize) {
                if self.depth[y as usize] <= level && self.in_idf[y as usize] != q {
                    self.in_idf[y as usize] = q;
                    out.push(y);
                }
            }
            for &c in row(&self.child_start, &self.children, u as usize) {
                if self.reach[c as usize] <= level {
                    self.walk.push(c);
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
        let df = DominanceFrontiers::of(&g, &dt).unwrap();
        assert_eq!(df.frontier(2), [2]);
        assert_eq!(df.frontier(4), [2]);
        assert_eq!(df.frontier(3), [4]);
        assert_eq!(df.frontier(5), [2]);
        assert_eq!(df.frontier(1), [] as [Node; 0]);
        // x is defined in bb1, bb3, bb4: phis at bb2 and bb4 only.
        let mut idf = IteratedFrontiers::of(&g, &dt).unwrap();
        let mut out = Vec::new();
        idf.query([1, 3, 4], &mut out);
        assert_eq!(out, [2, 4]);
        idf.query([1], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_tree_of_another_graph_is_an_error() {
        let g = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 2)]).unwrap();
        let other = CsrGraph::from_edges(9, Some(0), [(0, 8)]).unwrap();
        let dt = DomTree::of(&other);
        let err = DominanceFrontiers::of(&g, &dt).unwrap_err();
        assert_eq!(err, Mismatch::Nodes { what: "the dominator tree", expected: 3, found: 9 });
        assert!(IteratedFrontiers::of(&g, &dt).is_err());
        // Same size, different stamps.
        let (mut a, mut b) = (g.clone(), g.clone());
        a.set_stamp(Some(1));
        b.set_stamp(Some(2));
        let err = DominanceFrontiers::of(&a, &DomTree::of(&b)).unwrap_err();
        assert!(matches!(err, Mismatch::Stamp { expected: 1, found: 2, .. }), "{err}");
    }
}
