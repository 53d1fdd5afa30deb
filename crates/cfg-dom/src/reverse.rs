//! The reversed graph with a virtual exit, on which dominance is
//! post-dominance.
//!
//! Invariants: node ids `0..n` are the original nodes and `n` is the virtual
//! exit, the entry of the reversed graph. Only nodes reachable from the
//! original entry take part (others are isolated). The exit has an edge to
//! every node without successors, and, so that nodes in infinite loops are
//! post-dominated by something, to one node of each region that cannot reach
//! an exit: repeatedly, the first node in the original graph's postorder not
//! yet reverse-reachable from the exit (LLVM's choice of a "furthest" node).

use crate::graph::{CsrGraph, Graph, NONE, Node};
use crate::traversal::Dfs;

/// The reverse of a graph plus a virtual exit node.
#[derive(Clone, Debug, Default)]
pub struct ReverseGraph {
    csr: CsrGraph,
    exit: Node,
    stamp: Option<u64>,
}

impl ReverseGraph {
    /// The reverse of `g` with a virtual exit.
    pub fn of(g: &impl Graph) -> ReverseGraph {
        let n = g.num_nodes();
        let exit = n as Node;
        let dfs = Dfs::of(g);
        let mut edges: Vec<(Node, Node)> = Vec::new();
        for &u in dfs.preorder() {
            let mut has_succ = false;
            for v in g.successors(u) {
                if dfs.is_reachable(v) {
                    edges.push((v, u));
                    has_succ = true;
                }
            }
            if !has_succ {
                edges.push((exit, u));
            }
        }
        // Regions that cannot reach an exit (infinite loops).
        let mut succs: Vec<Vec<Node>> = vec![Vec::new(); n + 1];
        for &(a, b) in &edges {
            succs[a as usize].push(b);
        }
        let mut seen = vec![false; n + 1];
        let mut stack = Vec::new();
        reach(exit, &succs, &mut seen, &mut stack);
        for &u in dfs.postorder() {
            if !seen[u as usize] {
                edges.push((exit, u));
                succs[exit as usize].push(u);
                reach(u, &succs, &mut seen, &mut stack);
            }
        }
        let csr = CsrGraph::from_edges(n + 1, Some(exit), edges).unwrap_or_default();
        ReverseGraph { csr, exit, stamp: g.stamp() }
    }

    /// The virtual exit node (`num_nodes() - 1`).
    pub fn exit(&self) -> Node {
        self.exit
    }

    /// True when `n` is the virtual exit.
    pub fn is_exit(&self, n: Node) -> bool {
        n == self.exit
    }
}

/// Marks everything reachable from `from` in `succs`.
fn reach(from: Node, succs: &[Vec<Node>], seen: &mut [bool], stack: &mut Vec<Node>) {
    stack.push(from);
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x as usize], true) {
            continue;
        }
        stack.extend(succs[x as usize].iter().copied().filter(|&y| !seen[y as usize]));
    }
}

impl Graph for ReverseGraph {
    fn num_nodes(&self) -> usize {
        self.csr.num_nodes()
    }
    fn entry(&self) -> Option<Node> {
        Some(self.exit).filter(|&e| e != NONE)
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.csr.succ_slice(n).iter().copied()
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.csr.pred_slice(n).iter().copied()
    }
    fn stamp(&self) -> Option<u64> {
        self.stamp
    }
}

/// The post-dominator tree: the dominator tree of the [`ReverseGraph`],
/// with the virtual exit hidden from node-level queries.
#[derive(Clone, Debug, Default)]
pub struct PostDomTree {
    tree: crate::DomTree,
    exit: Node,
}

impl PostDomTree {
    /// The post-dominator tree of `g`.
    pub fn of(g: &impl Graph) -> PostDomTree {
        let rev = ReverseGraph::of(g);
        PostDomTree { tree: crate::DomTree::of(&rev), exit: rev.exit() }
    }

    /// The immediate post-dominator of `n`: `None` when only the virtual
    /// exit post-dominates it (it is an exit, or leads to several), or when
    /// `n` is unreachable.
    pub fn ipdom(&self, n: Node) -> Option<Node> {
        self.tree.idom(n).filter(|&d| d != self.exit)
    }

    /// True when every path from `b` to an exit passes through `a`.
    pub fn post_dominates(&self, a: Node, b: Node) -> bool {
        a != self.exit && self.tree.dominates(a, b)
    }

    /// The underlying tree over the reversed graph (its root is the virtual
    /// exit, node `num_nodes() - 1`).
    pub fn tree(&self) -> &crate::DomTree {
        &self.tree
    }

    /// The virtual exit's id.
    pub fn exit(&self) -> Node {
        self.exit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_dominators_with_several_exits_and_an_infinite_loop() {
        // 0 -> 1 -> {2, 3}; 2 exits; 3 -> 4 -> 3 loops forever.
        let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (1, 2), (1, 3), (3, 4), (4, 3)]).unwrap();
        let p = PostDomTree::of(&g);
        assert_eq!(p.ipdom(0), Some(1));
        assert_eq!(p.ipdom(1), None, "two ways out: only the virtual exit");
        assert_eq!(p.ipdom(2), None);
        // The loop hangs off the exit through one of its nodes.
        assert!(p.ipdom(3) == Some(4) || p.ipdom(4) == Some(3));
        assert!(p.post_dominates(1, 0) && !p.post_dominates(2, 1));
    }
}
