//! Reference definitions of traversal, dominance, post-dominance, dominance
//! frontiers and reducibility, computed slowly and simply.
//!
//! Every function here reads the graph only through
//! [`Graph::entry`], [`Graph::num_nodes`] and [`Graph::successors`]
//! (predecessors are derived from the successor lists, so the oracles do not
//! trust a graph's predecessor lists either), ignores successor ids that are
//! out of range, and treats an entry that is out of range as no entry. They
//! share nothing with the fast analyses of the crate: no DFS numbering, no
//! dominator tree, no [`crate::ReverseGraph`].
//!
//! Costs are polynomial and meant for graphs of up to a few hundred nodes:
//! [`dominators`] is O(n² · iterations / 64), the removal definitions
//! one breadth-first search per removed node, [`frontier`] O(n · e).
//!
//! Conventions, shared with the analyses: only nodes reachable from the
//! entry take part; an unreachable node dominates nothing, is dominated by
//! nothing and has an empty frontier; a node dominates (and post-dominates)
//! itself.

use crate::graph::{Graph, Node};
use fixedbitset::FixedBitSet;
use std::collections::{BTreeSet, VecDeque};

/// The entry of `g`, if it names one of its nodes.
fn entry_of(g: &impl Graph) -> Option<Node> {
    g.entry().filter(|&e| (e as usize) < g.num_nodes())
}

/// Successor lists (in order, duplicates kept, out-of-range ids dropped)
/// and the predecessor lists derived from them.
fn adjacency(g: &impl Graph) -> (Vec<Vec<Node>>, Vec<Vec<Node>>) {
    let n = g.num_nodes();
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    for (a, list) in succ.iter_mut().enumerate() {
        for b in g.successors(a as Node).filter(|&b| (b as usize) < n) {
            list.push(b);
            pred[b as usize].push(a as Node);
        }
    }
    (succ, pred)
}

/// Breadth-first search over `next` from `start`, never entering
/// `removed`: the set of nodes reached.
fn bfs(next: &[Vec<Node>], start: impl IntoIterator<Item = Node>, removed: Option<Node>) -> FixedBitSet {
    let mut seen = FixedBitSet::with_capacity(next.len());
    let mut queue = VecDeque::new();
    for s in start {
        if Some(s) != removed && !seen.put(s as usize) {
            queue.push_back(s);
        }
    }
    while let Some(x) = queue.pop_front() {
        for &y in &next[x as usize] {
            if Some(y) != removed && !seen.put(y as usize) {
                queue.push_back(y);
            }
        }
    }
    seen
}

/// The nodes reachable from the entry (by breadth-first search); empty
/// when there is no entry.
pub fn reachable(g: &impl Graph) -> FixedBitSet {
    let (succ, _) = adjacency(g);
    bfs(&succ, entry_of(g), None)
}

/// A depth-first search by its textbook recursive definition.
///
/// `visit(v)`: number `v` in preorder, then for each successor `s` of `v`
/// in order, if `s` is not yet visited, make `v` its parent and `visit(s)`;
/// then number `v` in postorder. The search starts at the entry. (Written
/// with an explicit stack of `(node, next successor index)` frames, which is
/// the recursion itself.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthFirst {
    /// Reachable nodes in preorder.
    pub preorder: Vec<Node>,
    /// Reachable nodes in postorder.
    pub postorder: Vec<Node>,
    /// The DFS-tree parent of each node; `None` for the entry and for
    /// unreachable nodes.
    pub parent: Vec<Option<Node>>,
}

impl DepthFirst {
    /// True when `a` is `b` or an ancestor of `b` in the DFS tree (both
    /// reachable): `a` is on `b`'s parent chain.
    pub fn is_ancestor(&self, a: Node, b: Node) -> bool {
        let reached = |x: Node| self.preorder.contains(&x);
        if !reached(a) || !reached(b) {
            return false;
        }
        let mut x = Some(b);
        while let Some(y) = x {
            if y == a {
                return true;
            }
            x = self.parent[y as usize];
        }
        false
    }
}

/// The depth-first search of `g` from its entry (see [`DepthFirst`]).
pub fn depth_first(g: &impl Graph) -> DepthFirst {
    let (succ, _) = adjacency(g);
    let n = succ.len();
    let mut out = DepthFirst { preorder: Vec::new(), postorder: Vec::new(), parent: vec![None; n] };
    let Some(entry) = entry_of(g) else { return out };
    let mut visited = vec![false; n];
    visited[entry as usize] = true;
    out.preorder.push(entry);
    let mut frames: Vec<(Node, usize)> = vec![(entry, 0)];
    while let Some(frame) = frames.last_mut() {
        let (v, i) = *frame;
        if let Some(&s) = succ[v as usize].get(i) {
            frame.1 += 1;
            if !visited[s as usize] {
                visited[s as usize] = true;
                out.parent[s as usize] = Some(v);
                out.preorder.push(s);
                frames.push((s, 0));
            }
        } else {
            out.postorder.push(v);
            frames.pop();
        }
    }
    out
}

/// The dominator sets, by the classic iterative dataflow: `Dom(entry) =
/// {entry}`; for every other reachable node, start from the set of all
/// reachable nodes and repeat `Dom(n) = {n} ∪ ⋂ Dom(p)` over the reachable
/// predecessors `p` of `n` until nothing changes (the greatest fixpoint).
/// `None` for unreachable nodes.
pub fn dominators(g: &impl Graph) -> Vec<Option<FixedBitSet>> {
    let (_, pred) = adjacency(g);
    let n = pred.len();
    let reach = reachable(g);
    let mut dom: Vec<Option<FixedBitSet>> = (0..n).map(|v| reach.contains(v).then(|| reach.clone())).collect();
    let Some(entry) = entry_of(g) else { return dom };
    let mut only_entry = FixedBitSet::with_capacity(n);
    only_entry.insert(entry as usize);
    dom[entry as usize] = Some(only_entry);
    let mut changed = true;
    while changed {
        changed = false;
        for v in reach.ones().filter(|&v| v != entry as usize) {
            let mut new = reach.clone();
            for &p in &pred[v] {
                if let Some(dp) = &dom[p as usize] {
                    new.intersect_with(dp);
                }
            }
            new.insert(v);
            if dom[v].as_ref() != Some(&new) {
                dom[v] = Some(new);
                changed = true;
            }
        }
    }
    dom
}

/// The nodes `a` dominates, by removal: `b` (reachable) is dominated by `a`
/// when `b == a` or `b` is no longer reachable from the entry once `a` is
/// removed (one breadth-first search). Empty when `a` is unreachable.
pub fn dominated_by_removal(g: &impl Graph, a: Node) -> FixedBitSet {
    let (succ, _) = adjacency(g);
    removal(&succ, entry_of(g), a)
}

/// [`dominated_by_removal`] for every node `a`, by index.
pub fn all_dominated_by_removal(g: &impl Graph) -> Vec<FixedBitSet> {
    let (succ, _) = adjacency(g);
    (0..succ.len() as Node).map(|a| removal(&succ, entry_of(g), a)).collect()
}

fn removal(succ: &[Vec<Node>], entry: Option<Node>, a: Node) -> FixedBitSet {
    let reach = bfs(succ, entry, None);
    let mut out = FixedBitSet::with_capacity(succ.len());
    if !reach.contains(a as usize) {
        return out;
    }
    let without = bfs(succ, entry, Some(a));
    out.union_with(&reach);
    out.difference_with(&without);
    out
}

/// True when `a` dominates `b`, by removal: both are reachable, and `a == b`
/// or every path from the entry to `b` passes through `a` (`b` is
/// unreachable once `a` is removed). Independent of [`dominators`].
pub fn dominates_by_removal(g: &impl Graph, a: Node, b: Node) -> bool {
    dominated_by_removal(g, a).contains(b as usize)
}

/// Immediate (post-)dominators from (post-)dominator sets: for each node
/// with a set, the strict (post-)dominator whose own set is largest (the
/// strict dominators of a node form a chain, and the nearest one is
/// dominated by all the others); `None` when there is none.
pub fn immediate(sets: &[Option<FixedBitSet>]) -> Vec<Option<Node>> {
    let size = |x: usize| sets[x].as_ref().map_or(0, |s| s.count_ones(..));
    (0..sets.len())
        .map(|v| {
            let s = sets[v].as_ref()?;
            s.ones().filter(|&d| d != v).max_by_key(|&d| size(d)).map(|d| d as Node)
        })
        .collect()
}

/// The immediate dominator of every node: [`immediate`] of [`dominators`].
pub fn idoms(g: &impl Graph) -> Vec<Option<Node>> {
    immediate(&dominators(g))
}

/// The deepest node dominating both `a` and `b`, given [`dominators`]: the
/// common dominators of two nodes form a chain from the entry, so the
/// deepest is the one whose own dominator set is exactly the common set.
/// `None` when either is unreachable.
pub fn nearest_common_dominator(dom: &[Option<FixedBitSet>], a: Node, b: Node) -> Option<Node> {
    let mut common = dom.get(a as usize)?.clone()?;
    common.intersect_with(dom.get(b as usize)?.as_ref()?);
    common.ones().find(|&d| dom[d].as_ref() == Some(&common)).map(|d| d as Node)
}

/// The reachable nodes that get an edge to the virtual exit of
/// post-dominance, in the order the rule adds them, by its definition
/// (`crate::ReverseGraph`'s documentation):
///
/// 1. every reachable node without successors, in node order;
/// 2. then, walking the reachable nodes in the postorder of
///    [`depth_first`], each node that cannot yet reach the virtual exit
///    (through the original edges and the exit edges chosen so far) gets
///    an exit edge — one node per region that cannot reach an exit.
pub fn exit_sources(g: &impl Graph) -> Vec<Node> {
    let (succ, pred) = adjacency(g);
    let reach = bfs(&succ, entry_of(g), None);
    let mut sources: Vec<Node> = reach.ones().filter(|&v| succ[v].is_empty()).map(|v| v as Node).collect();
    // Nodes that can reach the exit: backwards from the exit sources.
    let mut reaches_exit = bfs(&pred, sources.iter().copied(), None);
    for u in depth_first(g).postorder {
        if !reaches_exit.contains(u as usize) {
            sources.push(u);
            reaches_exit.union_with(&bfs(&pred, [u], None));
        }
    }
    sources
}

/// The nodes `a` post-dominates, by removal: reachable nodes `b` such that
/// `b == a` or every path from `b` to the virtual exit passes through `a`
/// (`b` cannot reach the exit once `a` is removed), in the reachable part
/// of `g` plus an edge to the exit from each of [`exit_sources`]. Empty
/// when `a` is unreachable.
pub fn post_dominated_by(g: &impl Graph, a: Node) -> FixedBitSet {
    PostDominance::new(g).post_dominated_by(a)
}

/// True when `a` post-dominates `b` (see [`post_dominated_by`]).
pub fn post_dominates(g: &impl Graph, a: Node, b: Node) -> bool {
    post_dominated_by(g, a).contains(b as usize)
}

/// The post-dominator set of every reachable node (the real nodes that
/// post-dominate it, itself included; the virtual exit left out), by
/// [`post_dominated_by`]; `None` for unreachable nodes.
pub fn post_dominators(g: &impl Graph) -> Vec<Option<FixedBitSet>> {
    let pd = PostDominance::new(g);
    let n = pd.pred.len();
    let mut sets: Vec<Option<FixedBitSet>> =
        (0..n).map(|v| pd.reach.contains(v).then(|| FixedBitSet::with_capacity(n))).collect();
    for a in pd.reach.ones() {
        for b in pd.post_dominated_by(a as Node).ones() {
            if let Some(s) = &mut sets[b] {
                s.insert(a);
            }
        }
    }
    sets
}

/// The immediate post-dominator of every node: [`immediate`] of
/// [`post_dominators`]; `None` when only the virtual exit strictly
/// post-dominates the node, or it is unreachable.
pub fn ipdoms(g: &impl Graph) -> Vec<Option<Node>> {
    immediate(&post_dominators(g))
}

/// What the removal definition of post-dominance needs, computed once.
struct PostDominance {
    pred: Vec<Vec<Node>>,
    reach: FixedBitSet,
    sources: Vec<Node>,
}

impl PostDominance {
    fn new(g: &impl Graph) -> PostDominance {
        let (succ, pred) = adjacency(g);
        let reach = bfs(&succ, entry_of(g), None);
        PostDominance { pred, reach, sources: exit_sources(g) }
    }

    /// Reachable nodes that cannot reach the exit without `a`.
    fn post_dominated_by(&self, a: Node) -> FixedBitSet {
        let mut out = FixedBitSet::with_capacity(self.pred.len());
        if !self.reach.contains(a as usize) {
            return out;
        }
        // Backwards from the exit (through its sources), avoiding `a`;
        // predecessors of reachable nodes are not all reachable.
        let mut still = bfs(&self.pred, self.sources.iter().copied(), Some(a));
        still.intersect_with(&self.reach);
        out.union_with(&self.reach);
        out.difference_with(&still);
        out
    }
}

/// DF(`x`) by its definition, given the [`dominators`] of `g`: the nodes `y`
/// such that `x` dominates a (reachable) predecessor of `y` and `x` does
/// not strictly dominate `y`. Sorted.
pub fn frontier_with(g: &impl Graph, dom: &[Option<FixedBitSet>], x: Node) -> Vec<Node> {
    let (_, pred) = adjacency(g);
    frontier_in(&pred, dom, x)
}

fn frontier_in(pred: &[Vec<Node>], dom: &[Option<FixedBitSet>], x: Node) -> Vec<Node> {
    let dominated_by_x = |v: usize| dom[v].as_ref().is_some_and(|d| d.contains(x as usize));
    (0..pred.len())
        .filter(|&y| {
            let x_dominates_a_pred = pred[y].iter().any(|&p| dominated_by_x(p as usize));
            let x_strictly_dominates_y = y != x as usize && dominated_by_x(y);
            x_dominates_a_pred && !x_strictly_dominates_y
        })
        .map(|y| y as Node)
        .collect()
}

/// DF(`x`) by its definition (see [`frontier_with`]), computing the
/// [`dominators`] first.
pub fn frontier(g: &impl Graph, x: Node) -> Vec<Node> {
    frontier_with(g, &dominators(g), x)
}

/// DF of every node, by the definition of [`frontier_with`].
pub fn frontiers(g: &impl Graph) -> Vec<Vec<Node>> {
    let dom = dominators(g);
    let (_, pred) = adjacency(g);
    (0..pred.len() as Node).map(|x| frontier_in(&pred, &dom, x)).collect()
}

/// DF⁺(`defs`) given the frontier of every node (as from [`frontiers`]):
/// with DF(S) the union of DF(x) for x in S, iterate `I = DF(defs ∪ I)`
/// from `I = ∅` until it stops growing. Nodes out of range are ignored
/// (unreachable ones have empty frontiers). Sorted.
pub fn iterate_frontiers(frontiers: &[Vec<Node>], defs: impl IntoIterator<Item = Node>) -> Vec<Node> {
    let n = frontiers.len();
    let mut defs_set = FixedBitSet::with_capacity(n);
    defs_set.extend(defs.into_iter().map(|d| d as usize).filter(|&d| d < n));
    let df_of = |set: &FixedBitSet| -> FixedBitSet {
        let mut out = FixedBitSet::with_capacity(n);
        for x in set.ones() {
            out.extend(frontiers[x].iter().map(|&y| y as usize));
        }
        out
    };
    let mut idf = FixedBitSet::with_capacity(n);
    loop {
        let mut with_defs = defs_set.clone();
        with_defs.union_with(&idf);
        let next = df_of(&with_defs);
        if next == idf {
            return idf.ones().map(|y| y as Node).collect();
        }
        idf = next;
    }
}

/// DF⁺(`defs`), the iterated dominance frontier, by [`iterate_frontiers`]
/// over [`frontiers`].
pub fn iterated_frontier(g: &impl Graph, defs: impl IntoIterator<Item = Node>) -> Vec<Node> {
    iterate_frontiers(&frontiers(g), defs)
}

/// Reducibility by T1/T2 reduction (Hecht and Ullman, "Flow graph
/// reducibility", STOC 1972): on the part of `g`
/// reachable from the entry, with edges as a set, repeatedly remove
/// self-loops (T1) and merge a node other than the entry that has a single
/// predecessor into that predecessor (T2); the graph is reducible iff this
/// collapses it to a single node. A graph without an entry is reducible
/// (there is nothing to traverse).
pub fn reducible_by_t1_t2(g: &impl Graph) -> bool {
    let (succ, _) = adjacency(g);
    let Some(entry) = entry_of(g) else { return true };
    let reach = bfs(&succ, [entry], None);
    let n = succ.len();
    let mut succs: Vec<BTreeSet<Node>> = vec![BTreeSet::new(); n];
    let mut preds: Vec<BTreeSet<Node>> = vec![BTreeSet::new(); n];
    for a in reach.ones() {
        for &b in &succ[a] {
            succs[a].insert(b);
            preds[b as usize].insert(a as Node);
        }
    }
    let mut alive: BTreeSet<Node> = reach.ones().map(|v| v as Node).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for v in alive.clone() {
            if !alive.contains(&v) {
                continue;
            }
            // T1.
            if succs[v as usize].remove(&v) {
                preds[v as usize].remove(&v);
                changed = true;
            }
            // T2: the single predecessor `m` absorbs `v`.
            if v != entry && preds[v as usize].len() == 1 {
                let m = *preds[v as usize].first().expect("one predecessor");
                succs[m as usize].remove(&v);
                for s in std::mem::take(&mut succs[v as usize]) {
                    preds[s as usize].remove(&v);
                    preds[s as usize].insert(m);
                    succs[m as usize].insert(s);
                }
                preds[v as usize].clear();
                alive.remove(&v);
                changed = true;
            }
        }
    }
    alive.len() == 1
}
