//! The graph trait every analysis of this crate runs on, and its
//! implementations: compressed adjacency lists ([`CsrGraph`]), the CFG of an
//! `ir-core` function ([`CsrGraph::from_function`]), petgraph graphs
//! (feature `petgraph`), and the reversed graph with a virtual exit that
//! post-dominance needs ([`ReverseGraph`]).
//!
//! Invariants: nodes are dense `u32` ids `0..num_nodes()`; there is at most
//! one entry; successor and predecessor lists agree (`b` is a successor of
//! `a` exactly as often as `a` is a predecessor of `b`). Nothing here
//! recurses.

use ir_core::{Block, Epoch, Function};

/// A node of a [`Graph`]: a dense id in `0..num_nodes()`.
pub type Node = u32;

/// Marks "no node" in `u32` arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// A directed graph with dense `u32` node ids and a single entry.
///
/// Implement it for your own CFG to run every analysis of this crate on it:
/// four methods, no allocation required.
pub trait Graph {
    /// Number of nodes; ids are `0..num_nodes()`.
    fn num_nodes(&self) -> usize;

    /// The entry node (the root of dominance), if the graph has one.
    fn entry(&self) -> Option<Node>;

    /// Successors of `n`, in a fixed order.
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_;

    /// Predecessors of `n`.
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_;

    /// The version of the function this graph was built from, if any;
    /// analyses copy it so that using their results on a changed function
    /// is caught (see [`crate::Stale`]).
    fn stamp(&self) -> Option<Epoch> {
        None
    }
}

/// Why a graph could not be built.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GraphError {
    /// An edge or the entry names a node `>= num_nodes`.
    NodeOutOfRange {
        /// The offending id.
        node: u64,
        /// The number of nodes.
        num_nodes: usize,
    },
    /// More nodes than `u32` ids (minus the reserved one).
    TooManyNodes(usize),
}

impl core::fmt::Display for GraphError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            GraphError::NodeOutOfRange { node, num_nodes } => {
                write!(f, "node {node} is out of range for a graph of {num_nodes} nodes")
            }
            GraphError::TooManyNodes(n) => write!(f, "{n} nodes do not fit in u32 ids"),
        }
    }
}

impl std::error::Error for GraphError {}

/// Adjacency lists in compressed (CSR) form: for each node, its successors
/// are one slice of a flat array, and so are its predecessors.
///
/// Follows the crate's lifecycle: build with [`CsrGraph::from_edges`] or
/// [`CsrGraph::from_function`], or reuse the buffers of an existing graph
/// with [`CsrGraph::compute_function`].
#[derive(Clone, Debug, Default)]
pub struct CsrGraph {
    entry: Option<Node>,
    succ_start: Vec<u32>,
    succ: Vec<Node>,
    pred_start: Vec<u32>,
    pred: Vec<Node>,
    stamp: Option<Epoch>,
    /// Scratch for rebuilding from a function: edges and a last-seen mark.
    edges: Vec<(Node, Node)>,
    seen: Vec<u32>,
}

impl CsrGraph {
    /// An empty graph (no nodes).
    pub fn new() -> CsrGraph {
        CsrGraph::default()
    }

    /// Empties the graph, keeping its buffers.
    pub fn clear(&mut self) {
        self.entry = None;
        self.succ_start.clear();
        self.succ.clear();
        self.pred_start.clear();
        self.pred.clear();
        self.stamp = None;
    }

    /// A graph of `num_nodes` nodes with the given edges (kept in order,
    /// duplicates included) and entry.
    pub fn from_edges(
        num_nodes: usize,
        entry: Option<Node>,
        edges: impl IntoIterator<Item = (Node, Node)>,
    ) -> Result<CsrGraph, GraphError> {
        if num_nodes >= NONE as usize {
            return Err(GraphError::TooManyNodes(num_nodes));
        }
        let edges: Vec<(Node, Node)> = edges.into_iter().collect();
        let bad = entry.into_iter().chain(edges.iter().flat_map(|&(a, b)| [a, b])).find(|&x| x as usize >= num_nodes);
        if let Some(node) = bad {
            return Err(GraphError::NodeOutOfRange { node: u64::from(node), num_nodes });
        }
        let mut g = CsrGraph::new();
        g.fill(num_nodes, entry, &edges);
        Ok(g)
    }

    /// A graph from successor lists: node `i`'s successors are `succs[i]`.
    pub fn from_successors(succs: &[Vec<Node>], entry: Option<Node>) -> Result<CsrGraph, GraphError> {
        let edges = succs.iter().enumerate().flat_map(|(a, s)| s.iter().map(move |&b| (a as Node, b)));
        CsrGraph::from_edges(succs.len(), entry, edges)
    }

    /// The CFG of an `ir-core` function: one node per block ever created
    /// (block `bbN` is node `N`; blocks not in the layout are isolated), an
    /// edge from each laid-out block to each distinct laid-out successor of
    /// its terminator, in terminator order; the entry block is the entry.
    /// Stamped with the function's CFG epoch.
    pub fn from_function(func: &Function) -> CsrGraph {
        let mut g = CsrGraph::new();
        g.compute_function(func);
        g
    }

    /// Rebuilds this graph as [`CsrGraph::from_function`] would, reusing
    /// its buffers.
    pub fn compute_function(&mut self, func: &Function) {
        let n = func.num_blocks();
        let layout = func.layout();
        let mut edges = std::mem::take(&mut self.edges);
        let mut seen = std::mem::take(&mut self.seen);
        edges.clear();
        seen.clear();
        seen.resize(n, NONE);
        for b in func.blocks() {
            for s in func.block_successors(b) {
                // Each distinct successor once: phis have one incoming per
                // predecessor block, not per edge.
                if layout.is_block_inserted(s) && seen[s.as_u32() as usize] != b.as_u32() {
                    seen[s.as_u32() as usize] = b.as_u32();
                    edges.push((b.as_u32(), s.as_u32()));
                }
            }
        }
        self.fill(n, func.entry_block().map(|b| b.as_u32()), &edges);
        self.stamp = Some(func.cfg_epoch());
        self.edges = edges;
        self.seen = seen;
    }

    fn fill(&mut self, n: usize, entry: Option<Node>, edges: &[(Node, Node)]) {
        self.clear();
        self.entry = entry;
        csr(n, edges.iter().copied(), &mut self.succ_start, &mut self.succ);
        csr(n, edges.iter().map(|&(a, b)| (b, a)), &mut self.pred_start, &mut self.pred);
    }

    /// Successors of `n` as a slice.
    #[inline]
    pub fn succ_slice(&self, n: Node) -> &[Node] {
        slice(&self.succ_start, &self.succ, n)
    }

    /// Predecessors of `n` as a slice.
    #[inline]
    pub fn pred_slice(&self, n: Node) -> &[Node] {
        slice(&self.pred_start, &self.pred, n)
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.succ.len()
    }
}

/// Buckets `(from, to)` pairs by `from` into CSR arrays, keeping order,
/// without scratch memory: counts become end offsets, then a reverse pass
/// places each pair and moves its bucket's cursor back to the start.
pub(crate) fn csr(
    n: usize,
    pairs: impl DoubleEndedIterator<Item = (Node, Node)> + Clone,
    start: &mut Vec<u32>,
    list: &mut Vec<Node>,
) {
    start.clear();
    start.resize(n + 1, 0);
    for (a, _) in pairs.clone() {
        start[a as usize] += 1;
    }
    let mut total = 0;
    for s in start.iter_mut() {
        total += *s;
        *s = total;
    }
    list.clear();
    list.resize(total as usize, 0);
    for (a, b) in pairs.rev() {
        start[a as usize] -= 1;
        list[start[a as usize] as usize] = b;
    }
}

#[inline]
pub(crate) fn slice<'a>(start: &[u32], list: &'a [Node], n: Node) -> &'a [Node] {
    match (start.get(n as usize), start.get(n as usize + 1)) {
        (Some(&s), Some(&e)) => &list[s as usize..e as usize],
        _ => &[],
    }
}

impl Graph for CsrGraph {
    #[inline]
    fn num_nodes(&self) -> usize {
        self.succ_start.len().saturating_sub(1)
    }

    #[inline]
    fn entry(&self) -> Option<Node> {
        self.entry
    }

    #[inline]
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.succ_slice(n).iter().copied()
    }

    #[inline]
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.pred_slice(n).iter().copied()
    }

    fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }
}

impl<G: Graph> Graph for &G {
    fn num_nodes(&self) -> usize {
        (**self).num_nodes()
    }
    fn entry(&self) -> Option<Node> {
        (**self).entry()
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        (**self).successors(n)
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        (**self).predecessors(n)
    }
    fn stamp(&self) -> Option<Epoch> {
        (**self).stamp()
    }
}

/// The block of a node of [`CsrGraph::from_function`].
pub fn block(n: Node) -> Block {
    Block::from_u32(n)
}

/// The node of a block in [`CsrGraph::from_function`].
pub fn node(b: Block) -> Node {
    b.as_u32()
}
