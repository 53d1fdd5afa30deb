//! Depth-first traversal: preorder, postorder, reverse postorder, DFS tree,
//! retreating ("back") edges, reachability, and the reducibility test.
//!
//! Invariants: one DFS from the entry, with an explicit stack (a node is
//! visited when popped, its unvisited successors pushed in reverse so that
//! they are visited in successor order); unreachable nodes have no numbers.
//! Ancestry in the DFS tree is an O(1) interval test on preorder numbers.
//! Reducibility: a graph is reducible iff every retreating edge `u -> v`
//! has `v` dominating `u` (Hecht and Ullman, "Characterizations of
//! reducible flow graphs", JACM 1974).

use crate::graph::{Graph, NONE, Node};
use crate::stamp::Versioned;
use crate::stamp::{Mismatch, Stale, belongs, check_stamp};
use fixedbitset::FixedBitSet;

/// A depth-first search from the entry, with its numberings.
#[derive(Clone, Debug, Default)]
pub struct Dfs {
    /// Preorder number of each node, `NONE` if unreachable.
    pre: Vec<u32>,
    /// Postorder number of each node, `NONE` if unreachable.
    post: Vec<u32>,
    /// Nodes in preorder.
    preorder: Vec<Node>,
    /// Nodes in postorder.
    postorder: Vec<Node>,
    /// DFS-tree parent of each node, by node; `NONE` for the entry and
    /// unreachable nodes.
    parent: Vec<Node>,
    /// Largest preorder number in each node's DFS subtree.
    last: Vec<u32>,
    stack: Vec<(Node, Node, bool)>,
    buf: Vec<Node>,
    stamp: Option<u64>,
}

impl Dfs {
    /// An empty traversal.
    pub fn new() -> Dfs {
        Dfs::default()
    }

    /// A traversal of `g`.
    pub fn of(g: &impl Graph) -> Dfs {
        let mut d = Dfs::new();
        d.compute(g);
        d
    }

    /// Empties the traversal, keeping its buffers.
    pub fn clear(&mut self) {
        self.pre.clear();
        self.post.clear();
        self.preorder.clear();
        self.postorder.clear();
        self.parent.clear();
        self.last.clear();
        self.stack.clear();
        self.stamp = None;
    }

    /// Traverses `g` from its entry, reusing buffers.
    pub fn compute(&mut self, g: &impl Graph) {
        self.clear();
        let n = g.num_nodes();
        self.pre.resize(n, NONE);
        self.post.resize(n, NONE);
        self.parent.resize(n, NONE);
        self.last.resize(n, NONE);
        self.stamp = g.stamp();
        let Some(entry) = g.entry().filter(|&e| (e as usize) < n) else { return };
        // (node, parent, exit): an enter event, or the exit of a visited node.
        self.stack.push((entry, NONE, false));
        let mut buf = std::mem::take(&mut self.buf);
        while let Some((v, parent, exit)) = self.stack.pop() {
            if exit {
                self.post[v as usize] = self.postorder.len() as u32;
                self.postorder.push(v);
                self.last[v as usize] = self.preorder.len() as u32 - 1;
                continue;
            }
            if self.pre[v as usize] != NONE {
                continue;
            }
            self.pre[v as usize] = self.preorder.len() as u32;
            self.preorder.push(v);
            self.parent[v as usize] = parent;
            self.stack.push((v, parent, true));
            buf.clear();
            buf.extend(g.successors(v).filter(|&s| (s as usize) < n && self.pre[s as usize] == NONE));
            self.stack.extend(buf.iter().rev().map(|&s| (s, v, false)));
        }
        self.buf = buf;
    }

    /// Nodes reachable from the entry, in preorder.
    pub fn preorder(&self) -> &[Node] {
        &self.preorder
    }

    /// Reachable nodes in postorder.
    pub fn postorder(&self) -> &[Node] {
        &self.postorder
    }

    /// Reachable nodes in reverse postorder (a topological order of the
    /// graph without its retreating edges).
    pub fn reverse_postorder(&self) -> impl ExactSizeIterator<Item = Node> + DoubleEndedIterator + '_ {
        self.postorder.iter().rev().copied()
    }

    /// True when `n` is reachable from the entry.
    #[inline]
    pub fn is_reachable(&self, n: Node) -> bool {
        self.pre.get(n as usize).is_some_and(|&p| p != NONE)
    }

    /// Preorder number of a reachable node.
    #[inline]
    pub fn pre_number(&self, n: Node) -> Option<u32> {
        self.pre.get(n as usize).copied().filter(|&p| p != NONE)
    }

    /// Postorder number of a reachable node.
    #[inline]
    pub fn post_number(&self, n: Node) -> Option<u32> {
        self.post.get(n as usize).copied().filter(|&p| p != NONE)
    }

    /// The DFS-tree parent of a reachable node other than the entry.
    #[inline]
    pub fn parent(&self, n: Node) -> Option<Node> {
        self.parent.get(n as usize).copied().filter(|&p| p != NONE)
    }

    /// True when `a` is an ancestor of `b` (or `b` itself) in the DFS tree.
    #[inline]
    pub fn is_ancestor(&self, a: Node, b: Node) -> bool {
        match (self.pre_number(a), self.pre_number(b)) {
            (Some(pa), Some(pb)) => pa <= pb && pb <= self.last[a as usize],
            _ => false,
        }
    }

    /// Retreating edges `(u, v)`: `v` is a DFS ancestor of `u` (self-loops
    /// included). In a reducible graph these are exactly the back edges of
    /// natural loops.
    pub fn back_edges(&self, g: &impl Graph) -> Result<Vec<(Node, Node)>, Mismatch> {
        belongs("the traversal", g.num_nodes(), g.stamp(), self.pre.len(), self.stamp)?;
        let mut out = Vec::new();
        for &u in &self.preorder {
            for v in g.successors(u) {
                if self.is_ancestor(v, u) {
                    out.push((u, v));
                }
            }
        }
        Ok(out)
    }

    /// The stamp of the graph traversed.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the traversal was computed on `func`'s CFG as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.cfg_stamp())
    }

    /// The set of reachable nodes.
    pub fn reachable_set(&self) -> FixedBitSet {
        let mut s = FixedBitSet::with_capacity(self.pre.len());
        for &n in &self.preorder {
            s.insert(n as usize);
        }
        s
    }
}

/// True when every retreating edge of `g` goes to a node that dominates its
/// source: the graph's loops all have a single entry.
pub fn is_reducible(g: &impl Graph) -> bool {
    let dfs = Dfs::of(g);
    let mut dt = crate::DomTree::new();
    dt.compute(g);
    dfs.back_edges(g).unwrap_or_default().into_iter().all(|(u, v)| dt.dominates(v, u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn orders_and_back_edges() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3; 4 unreachable.
        let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (1, 2), (2, 1), (2, 3), (4, 3)]).unwrap();
        let d = Dfs::of(&g);
        assert_eq!(d.preorder(), [0, 1, 2, 3]);
        assert_eq!(d.postorder(), [3, 2, 1, 0]);
        assert_eq!(d.reverse_postorder().collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(d.back_edges(&g).unwrap(), [(2, 1)]);
        assert!(d.is_ancestor(1, 3) && !d.is_ancestor(3, 1) && !d.is_reachable(4));
        assert!(is_reducible(&g));
        // Two entries into the cycle 1 <-> 2.
        let g = CsrGraph::from_edges(3, Some(0), [(0, 1), (0, 2), (1, 2), (2, 1)]).unwrap();
        assert!(!is_reducible(&g));
    }

    #[test]
    fn a_long_chain_needs_no_recursion() {
        let n = 1_000_000u32;
        let g = CsrGraph::from_edges(n as usize, Some(0), (0..n - 1).map(|i| (i, i + 1))).unwrap();
        let d = std::thread::Builder::new().stack_size(1 << 20).spawn(move || Dfs::of(&g)).unwrap().join().unwrap();
        assert_eq!(d.postorder()[0], n - 1);
    }
}
