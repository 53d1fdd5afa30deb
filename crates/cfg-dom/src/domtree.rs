//! Dominator trees by the semi-NCA algorithm.
//!
//! Algorithm: L. Georgiadis, "Linear-Time Algorithms for Dominators and
//! Related Problems" (PhD thesis, Princeton, 2005), semi-NCA variant: a DFS
//! numbers the reachable nodes in preorder; semidominators come from the
//! Lengauer–Tarjan eval/link with path compression ("A fast algorithm
//! for finding dominators in a flowgraph", TOPLAS 1979), processed in reverse
//! preorder; immediate dominators are then the nearest common ancestor of
//! the DFS parent and the semidominator, found by walking up. It is what
//! LLVM, SpiderMonkey and Cranelift use. Everything runs on `u32` arrays
//! indexed by preorder number, with explicit stacks (no recursion).
//!
//! Invariants: unreachable nodes are explicitly outside the tree (`idom` is
//! `None`, they dominate nothing and nothing dominates them); children are
//! listed in DFS preorder; `dominates` is O(1) through preorder/subtree-end
//! numbers of the tree; a computed tree carries the stamp of the graph it
//! was computed on.
//!
//! Layout for speed: every pass after the DFS works on arrays indexed by
//! preorder number, in order (a dominator precedes what it dominates in
//! DFS preorder, so subtree sizes come from one backward pass and tree
//! numbers and depths from one forward pass, with no tree DFS); the
//! link-eval forest keeps each node's ancestor and label side by side; the
//! DFS keeps no exit events and copies no successor lists.

use crate::csr::{bucket_by, row};
use crate::graph::{Graph, NONE, Node};
use crate::stamp::Versioned;
use crate::stamp::{Stale, check_stamp};

/// A dominator tree (a forest of one tree: unreachable nodes are outside).
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    /// Immediate dominator of each node; `NONE` for the root and for
    /// unreachable nodes.
    idom: Vec<Node>,
    /// Preorder number in the dominator tree; `NONE` if unreachable.
    tree_pre: Vec<u32>,
    /// Largest `tree_pre` in each node's subtree.
    tree_max: Vec<u32>,
    /// Depth in the tree (the root is 0).
    depth: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<Node>,
    root: Option<Node>,
    stamp: Option<u64>,
    scratch: Scratch,
}

/// Buffers of one computation, kept for the next.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// Node at each preorder index: the reachable nodes in DFS preorder.
    vertex: Vec<Node>,
    /// Preorder index of each node (`NONE` if unreachable).
    pre: Vec<u32>,
    /// By preorder index: DFS parent, semidominator, the link-eval forest
    /// (ancestor, label), immediate dominator, then subtree size, depth
    /// and tree preorder number.
    parent: Vec<u32>,
    semi: Vec<u32>,
    forest: Vec<Link>,
    idom: Vec<u32>,
    size: Vec<u32>,
    depth: Vec<u32>,
    number: Vec<u32>,
    dfs: Vec<(Node, u32)>,
    path: Vec<u32>,
}

/// A node of the link-eval forest: one cache line access per step.
#[derive(Copy, Clone, Debug, Default)]
struct Link {
    ancestor: u32,
    label: u32,
}

impl DomTree {
    /// An empty tree.
    pub fn new() -> DomTree {
        DomTree::default()
    }

    /// The dominator tree of `g`.
    pub fn of(g: &impl Graph) -> DomTree {
        let mut t = DomTree::new();
        t.compute(g);
        t
    }

    /// Empties the tree, keeping its buffers.
    pub fn clear(&mut self) {
        self.idom.clear();
        self.tree_pre.clear();
        self.tree_max.clear();
        self.depth.clear();
        self.child_start.clear();
        self.children.clear();
        self.root = None;
        self.stamp = None;
    }

    /// Computes the dominator tree of `g` from its entry, reusing buffers.
    pub fn compute(&mut self, g: &impl Graph) {
        self.clear();
        let n = g.num_nodes();
        self.stamp = g.stamp();
        self.idom.resize(n, NONE);
        self.tree_pre.resize(n, NONE);
        self.tree_max.resize(n, NONE);
        self.depth.resize(n, NONE);
        let Some(entry) = g.entry().filter(|&e| (e as usize) < n) else {
            bucket_by(n, core::iter::empty(), &mut self.child_start, &mut self.children);
            return;
        };
        self.root = Some(entry);
        let s = &mut self.scratch;
        spanning_tree(g, entry, n, s);
        semidominators(g, s);
        immediate_dominators(s);
        number_tree(s);
        // Back to node ids, in one sequential pass over preorder indices.
        let r = s.vertex.len();
        for i in 0..r {
            let v = s.vertex[i] as usize;
            if i > 0 {
                self.idom[v] = s.vertex[s.idom[i] as usize];
            }
            self.tree_pre[v] = s.number[i];
            self.tree_max[v] = s.number[i] + s.size[i] - 1;
            self.depth[v] = s.depth[i];
        }
        // Children, bucketed by parent in preorder.
        let (vertex, idom) = (&s.vertex, &s.idom);
        let pairs = (1..r).map(|i| (vertex[idom[i] as usize], vertex[i]));
        bucket_by(n, pairs, &mut self.child_start, &mut self.children);
    }

    /// The root (the graph's entry), if the graph had one.
    pub fn root(&self) -> Option<Node> {
        self.root
    }

    /// Number of nodes of the graph the tree was computed on.
    pub fn num_nodes(&self) -> usize {
        self.idom.len()
    }

    /// True when `n` is reachable from the root (so it is in the tree).
    #[inline]
    pub fn is_reachable(&self, n: Node) -> bool {
        self.tree_pre.get(n as usize).is_some_and(|&p| p != NONE)
    }

    /// The immediate dominator of `n`; `None` for the root and for nodes
    /// outside the tree.
    #[inline]
    pub fn idom(&self, n: Node) -> Option<Node> {
        self.idom.get(n as usize).copied().filter(|&d| d != NONE)
    }

    /// True when `a` dominates `b` (every path from the root to `b` passes
    /// through `a`; a node dominates itself). False when either is
    /// unreachable. O(1).
    #[inline]
    pub fn dominates(&self, a: Node, b: Node) -> bool {
        match (self.tree_pre.get(a as usize), self.tree_pre.get(b as usize)) {
            (Some(&pa), Some(&pb)) if pa != NONE && pb != NONE => pa <= pb && pb <= self.tree_max[a as usize],
            _ => false,
        }
    }

    /// True when `a` dominates `b` and `a != b`.
    #[inline]
    pub fn strictly_dominates(&self, a: Node, b: Node) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The children of `n` in the tree, in DFS preorder of the graph.
    #[inline]
    pub fn children(&self, n: Node) -> &[Node] {
        row(&self.child_start, &self.children, n as usize)
    }

    /// Depth of a reachable node (the root is at depth 0).
    #[inline]
    pub fn depth(&self, n: Node) -> Option<u32> {
        self.depth.get(n as usize).copied().filter(|&d| d != NONE)
    }

    /// The nearest common dominator of two reachable nodes: the deepest node
    /// dominating both. O(depth).
    pub fn nearest_common_dominator(&self, mut a: Node, mut b: Node) -> Option<Node> {
        let (mut da, mut db) = (self.depth(a)?, self.depth(b)?);
        while da > db {
            a = self.idom[a as usize];
            da -= 1;
        }
        while db > da {
            b = self.idom[b as usize];
            db -= 1;
        }
        while a != b {
            a = self.idom[a as usize];
            b = self.idom[b as usize];
        }
        Some(a)
    }

    /// Reachable nodes in DFS preorder (every node after its dominators).
    pub fn preorder(&self) -> &[Node] {
        if self.root.is_some() { &self.scratch.vertex } else { &[] }
    }

    /// Preorder number of a reachable node in the tree.
    pub fn tree_pre_number(&self, n: Node) -> Option<u32> {
        self.tree_pre.get(n as usize).copied().filter(|&p| p != NONE)
    }

    /// The stamp of the graph the tree was computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the tree was computed on `func`'s CFG as it is now (see
    /// [`crate::Stale`]).
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.cfg_stamp())
    }
}

/// DFS from `entry`: preorder indices and DFS parents. A node is numbered
/// when popped; its unvisited successors are pushed in reverse so they are
/// visited in successor order.
fn spanning_tree(g: &impl Graph, entry: Node, n: usize, s: &mut Scratch) {
    s.vertex.clear();
    s.parent.clear();
    s.pre.clear();
    s.pre.resize(n, NONE);
    s.dfs.clear();
    s.dfs.push((entry, NONE));
    while let Some((v, parent)) = s.dfs.pop() {
        if s.pre[v as usize] != NONE {
            continue;
        }
        let index = s.vertex.len() as u32;
        s.pre[v as usize] = index;
        s.vertex.push(v);
        s.parent.push(parent);
        let from = s.dfs.len();
        let pre = &s.pre;
        s.dfs.extend(g.successors(v).filter(|&w| (w as usize) < n && pre[w as usize] == NONE).map(|w| (w, index)));
        s.dfs[from..].reverse();
    }
}

/// Semidominators in reverse preorder; `label`/`ancestor` form the
/// link-eval forest: node `x` counts as linked once processed (`x > w`).
fn semidominators(g: &impl Graph, s: &mut Scratch) {
    let r = s.vertex.len();
    s.semi.clear();
    s.semi.extend(0..r as u32);
    s.forest.clear();
    s.forest.extend((0..r).map(|i| Link { ancestor: s.parent[i], label: i as u32 }));
    for w in (1..r as u32).rev() {
        let mut semi = s.parent[w as usize];
        let first_linked = w + 1;
        for p in g.predecessors(s.vertex[w as usize]) {
            let Some(&v) = s.pre.get(p as usize).filter(|&&v| v != NONE) else { continue };
            let candidate = eval(s, v, first_linked);
            if candidate < semi {
                semi = candidate;
            }
        }
        s.semi[w as usize] = semi;
        s.forest[w as usize].label = semi;
    }
}

/// The smallest semidominator on the forest path from `v` up to (not
/// including) its root, compressing the path as it goes. The common case
/// (`v` unlinked, or linked straight to a root) is inline; the path walk
/// is not.
#[inline]
fn eval(s: &mut Scratch, v: u32, first_linked: u32) -> u32 {
    let f = &s.forest;
    if v < first_linked || f[v as usize].ancestor < first_linked {
        return f[v as usize].label;
    }
    eval_path(s, v, first_linked)
}

/// [`eval`] when the forest path from `v` has at least two links.
#[inline(never)]
fn eval_path(s: &mut Scratch, v: u32, first_linked: u32) -> u32 {
    let f = &mut s.forest;
    s.path.clear();
    let mut top = v;
    loop {
        s.path.push(top);
        top = f[top as usize].ancestor;
        if f[top as usize].ancestor < first_linked {
            break;
        }
    }
    // `top` is the last linked node; its ancestor is the forest root.
    let root = f[top as usize].ancestor;
    let mut prev = top;
    while let Some(cur) = s.path.pop() {
        let prev_label = f[prev as usize].label;
        let node = &mut f[cur as usize];
        if prev_label < node.label {
            node.label = prev_label;
        }
        node.ancestor = root;
        prev = cur;
    }
    f[v as usize].label
}

/// `idom(v)` = nearest common ancestor of `parent(v)` and `semi(v)`: walk
/// up the already-final idoms of smaller preorder numbers.
fn immediate_dominators(s: &mut Scratch) {
    let r = s.vertex.len();
    s.idom.clear();
    s.idom.extend_from_slice(&s.parent);
    for v in 1..r {
        let semi = s.semi[v];
        let mut d = s.idom[v];
        while d > semi {
            d = s.idom[d as usize];
        }
        s.idom[v] = d;
    }
}

/// Dominator-tree numbering in preorder-index space: subtree sizes by one
/// backward pass (an immediate dominator has a smaller index), then each
/// node's tree preorder number and depth by one forward pass, the children
/// of a node taking consecutive ranges in index order (`path` holds, per
/// node, where its next child's range starts).
fn number_tree(s: &mut Scratch) {
    let r = s.vertex.len();
    s.size.clear();
    s.size.resize(r, 1);
    for i in (1..r).rev() {
        let p = s.idom[i] as usize;
        s.size[p] += s.size[i];
    }
    s.depth.clear();
    s.depth.resize(r, 0);
    s.number.clear();
    s.number.resize(r, 0);
    s.path.clear();
    s.path.resize(r, 0);
    if r > 0 {
        s.path[0] = 1;
    }
    for i in 1..r {
        let p = s.idom[i] as usize;
        let at = s.path[p];
        s.number[i] = at;
        s.path[p] = at + s.size[i];
        s.path[i] = at + 1;
        s.depth[i] = s.depth[p] + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    /// The DU-chain document's CFG (digest §000): entry=0, bb1..bb6 = 1..6.
    fn du_graph() -> CsrGraph {
        CsrGraph::from_edges(7, Some(0), [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6)]).unwrap()
    }

    #[test]
    fn the_documents_dominator_tree() {
        let t = DomTree::of(&du_graph());
        let idoms: Vec<Option<Node>> = (0..7).map(|n| t.idom(n)).collect();
        assert_eq!(idoms, [None, Some(0), Some(1), Some(2), Some(2), Some(4), Some(5)]);
        assert_eq!(t.children(2), [3, 4]);
        assert!(t.dominates(2, 6) && !t.dominates(3, 4) && t.dominates(4, 4));
        assert_eq!(t.depth(6), Some(5));
        assert_eq!(t.nearest_common_dominator(3, 6), Some(2));
    }

    #[test]
    fn irreducible_and_unreachable() {
        // 0 -> {1, 2}, 1 <-> 2, 2 -> 3; node 4 unreachable, pointing in.
        let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (0, 2), (1, 2), (2, 1), (2, 3), (4, 3)]).unwrap();
        let t = DomTree::of(&g);
        assert_eq!((0..5).map(|n| t.idom(n)).collect::<Vec<_>>(), [None, Some(0), Some(0), Some(2), None]);
        assert!(!t.dominates(4, 3) && !t.dominates(0, 4) && !t.is_reachable(4));
    }

    #[test]
    fn a_ten_million_node_chain_on_a_small_stack() {
        let n = 10_000_000u32;
        let t = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let g = CsrGraph::from_edges(n as usize, Some(0), (0..n - 1).map(|i| (i, i + 1))).unwrap();
                DomTree::of(&g)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(t.idom(n - 1), Some(n - 2));
        assert!(t.dominates(0, n - 1));
        assert_eq!(t.depth(n - 1), Some(n - 1));
    }
}
