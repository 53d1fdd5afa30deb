//! Dominator trees by the semi-NCA algorithm.
//!
//! Algorithm: L. Georgiadis, "Linear-Time Algorithms for Dominators and
//! Related Problems" (PhD thesis, Princeton, 2005), semi-NCA variant: a DFS
//! numbers the reachable nodes in preorder; semidominators come from the
//! Lengauer–Tarjan eval/link with path compression, processed in reverse
//! preorder; immediate dominators are then the nearest common ancestor of
//! the DFS parent and the semidominator, found by walking up. It is what
//! LLVM, SpiderMonkey and Cranelift use. Everything runs on `u32` arrays
//! indexed by preorder number, with explicit stacks (no recursion).
//!
//! Invariants: unreachable nodes are explicitly outside the tree (`idom` is
//! `None`, they dominate nothing and nothing dominates them); children are
//! listed in reverse postorder of the graph; `dominates` is O(1) through
//! preorder/subtree-end numbers of the tree; a computed tree carries the
//! stamp of the graph it was computed on.

use crate::graph::{Graph, NONE, Node, csr, slice};
use crate::stamp::{Stale, check_cfg};
use ir_core::{Epoch, Function};

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
    /// Reachable nodes in reverse postorder of the graph.
    rpo: Vec<Node>,
    root: Option<Node>,
    stamp: Option<Epoch>,
    scratch: Scratch,
}

/// Buffers of one computation, kept for the next.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// Node at each preorder index.
    vertex: Vec<Node>,
    /// Preorder index of each node (`NONE` if unreachable).
    pre: Vec<u32>,
    /// By preorder index: DFS parent, semidominator, eval label, forest
    /// ancestor, immediate dominator.
    parent: Vec<u32>,
    semi: Vec<u32>,
    label: Vec<u32>,
    ancestor: Vec<u32>,
    idom: Vec<u32>,
    dfs: Vec<(Node, u32, bool)>,
    path: Vec<u32>,
    succ_buf: Vec<Node>,
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
        self.rpo.clear();
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
            csr(n, core::iter::empty(), &mut self.child_start, &mut self.children);
            return;
        };
        self.root = Some(entry);
        let s = &mut self.scratch;
        spanning_tree(g, entry, n, s, &mut self.rpo);
        semidominators(g, s);
        immediate_dominators(s);
        // Back to node ids.
        for i in 1..s.vertex.len() {
            self.idom[s.vertex[i] as usize] = s.vertex[s.idom[i] as usize];
        }
        // Children in reverse postorder: a stable bucket of the RPO.
        let idom = &self.idom;
        let pairs = self.rpo.iter().filter(|&&v| idom[v as usize] != NONE).map(|&v| (idom[v as usize], v));
        csr(n, pairs, &mut self.child_start, &mut self.children);
        self.number_tree(entry);
    }

    /// Preorder numbers, subtree ends and depths, by an explicit-stack DFS.
    fn number_tree(&mut self, root: Node) {
        let stack = &mut self.scratch.path;
        stack.clear();
        stack.push(root);
        self.depth[root as usize] = 0;
        let mut next = 0u32;
        // Preorder by pushing children in reverse.
        while let Some(v) = stack.pop() {
            self.tree_pre[v as usize] = next;
            next += 1;
            let kids = slice(&self.child_start, &self.children, v);
            for &c in kids.iter().rev() {
                self.depth[c as usize] = self.depth[v as usize] + 1;
                stack.push(c);
            }
        }
        // Subtree ends: in RPO a node precedes its subtree's nodes, so a
        // reverse sweep sees children before parents.
        for &v in &self.rpo {
            self.tree_max[v as usize] = self.tree_pre[v as usize];
        }
        for &v in self.rpo.iter().rev() {
            let p = self.idom[v as usize];
            if p != NONE {
                let m = self.tree_max[v as usize];
                if m > self.tree_max[p as usize] {
                    self.tree_max[p as usize] = m;
                }
            }
        }
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

    /// The children of `n` in the tree, in reverse postorder of the graph.
    #[inline]
    pub fn children(&self, n: Node) -> &[Node] {
        slice(&self.child_start, &self.children, n)
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

    /// Reachable nodes in reverse postorder of the graph (dominators before
    /// the nodes they dominate).
    pub fn reverse_postorder(&self) -> &[Node] {
        &self.rpo
    }

    /// Preorder number of a reachable node in the tree.
    pub fn tree_pre_number(&self, n: Node) -> Option<u32> {
        self.tree_pre.get(n as usize).copied().filter(|&p| p != NONE)
    }

    /// The stamp of the graph the tree was computed on.
    pub fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }

    /// `Ok` when the tree was computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &Function) -> Result<(), Stale> {
        check_cfg(self.stamp, func)
    }
}

/// DFS from `entry`: preorder indices, parents, and the RPO of the graph.
fn spanning_tree(g: &impl Graph, entry: Node, n: usize, s: &mut Scratch, rpo: &mut Vec<Node>) {
    s.vertex.clear();
    s.parent.clear();
    s.pre.clear();
    s.pre.resize(n, NONE);
    s.dfs.clear();
    s.dfs.push((entry, NONE, false));
    rpo.clear();
    while let Some((v, parent, exit)) = s.dfs.pop() {
        if exit {
            rpo.push(v);
            continue;
        }
        if s.pre[v as usize] != NONE {
            continue;
        }
        let index = s.vertex.len() as u32;
        s.pre[v as usize] = index;
        s.vertex.push(v);
        s.parent.push(parent);
        s.dfs.push((v, parent, true));
        s.succ_buf.clear();
        s.succ_buf.extend(g.successors(v).filter(|&w| (w as usize) < n && s.pre[w as usize] == NONE));
        for &w in s.succ_buf.iter().rev() {
            s.dfs.push((w, index, false));
        }
    }
    rpo.reverse();
}

/// Semidominators in reverse preorder; `label`/`ancestor` form the
/// link-eval forest: node `x` counts as linked once processed (`x > w`).
fn semidominators(g: &impl Graph, s: &mut Scratch) {
    let r = s.vertex.len();
    s.semi.clear();
    s.semi.extend(0..r as u32);
    s.label.clear();
    s.label.extend(0..r as u32);
    s.ancestor.clear();
    s.ancestor.extend_from_slice(&s.parent);
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
        s.label[w as usize] = semi;
    }
}

/// The smallest semidominator on the forest path from `v` up to (not
/// including) its root, compressing the path as it goes.
fn eval(s: &mut Scratch, v: u32, first_linked: u32) -> u32 {
    if s.ancestor[v as usize] < first_linked || v < first_linked {
        return s.label[v as usize];
    }
    s.path.clear();
    let mut top = v;
    loop {
        s.path.push(top);
        top = s.ancestor[top as usize];
        if s.ancestor[top as usize] < first_linked {
            break;
        }
    }
    // `top` is the last linked node; its ancestor is the forest root.
    let root = s.ancestor[top as usize];
    let mut prev = top;
    while let Some(cur) = s.path.pop() {
        if s.label[prev as usize] < s.label[cur as usize] {
            s.label[cur as usize] = s.label[prev as usize];
        }
        s.ancestor[cur as usize] = root;
        prev = cur;
    }
    s.label[v as usize]
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
