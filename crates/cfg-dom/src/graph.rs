//! The graph trait every analysis of this crate runs on, and its
//! implementations: compressed adjacency lists ([`CsrGraph`]), petgraph
//! graphs (feature `petgraph`), and the reversed graph with a virtual exit
//! that post-dominance needs ([`crate::ReverseGraph`]). A client IR builds
//! its CFG as a [`CsrGraph`] with [`CsrGraph::compute_distinct`] (Keel's IR
//! does, in `ir_core::Function::cfg`), or implements [`Graph`] itself.
//!
//! Invariants (the [`Graph`] contract; [`check_graph`] verifies it): nodes
//! are dense `u32` ids `0..num_nodes()`; there is at most one entry;
//! successor and predecessor lists agree (`b` is a successor of `a` exactly
//! as often as `a` is a predecessor of `b`). Nothing here recurses.

use crate::csr::{bucket_by, row};

/// A node of a [`Graph`]: a dense id in `0..num_nodes()`.
pub type Node = u32;

/// Marks "no node" in `u32` arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// A directed graph with dense `u32` node ids and a single entry.
///
/// Implement it for your own CFG to run every analysis of this crate on it:
/// four methods, no allocation required.
///
/// The contract: every id a method returns is below `num_nodes()`, and the
/// successor and predecessor lists agree. The analyses trust it (they index
/// arrays by node id); a graph that breaks it makes them panic, never
/// loop or answer wrongly in silence. [`check_graph`] verifies the contract
/// in O(nodes + edges) for a graph you did not build yourself; the var-level
/// entry points of the `ssa` and `defuse` crates run it on every input.
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
    /// analyses copy it so that using their results on a changed function,
    /// or with another graph, is caught (see [`crate::Stale`] and
    /// [`crate::Mismatch`]).
    fn stamp(&self) -> Option<u64> {
        None
    }

    /// True when the type guarantees the contract by construction, so the
    /// O(nodes + edges) [`check_graph`] may be skipped. False by default;
    /// true for [`CsrGraph`], whose builders reject out-of-range ids and
    /// derive predecessors from the same edges as successors.
    fn valid_by_construction(&self) -> bool {
        false
    }
}

/// `Ok` when `g` keeps the [`Graph`] contract: the entry and every
/// successor and predecessor are below `num_nodes()`, and each node's
/// predecessor count equals the number of edges into it. O(nodes + edges).
pub fn check_graph(g: &impl Graph) -> Result<(), GraphError> {
    check_graph_with(g, &mut Vec::new())
}

/// [`check_graph`] with a reusable counter buffer, skipped for graphs that
/// are [`Graph::valid_by_construction`].
pub(crate) fn check_graph_with(g: &impl Graph, into: &mut Vec<u32>) -> Result<(), GraphError> {
    if g.valid_by_construction() {
        return Ok(());
    }
    let n = g.num_nodes();
    if n >= NONE as usize {
        return Err(GraphError::TooManyNodes(n));
    }
    let out_of_range = |node: Node| GraphError::NodeOutOfRange { node: u64::from(node), num_nodes: n };
    if let Some(e) = g.entry().filter(|&e| e as usize >= n) {
        return Err(out_of_range(e));
    }
    // Edges into each node, counted from successor lists, then matched off
    // by predecessor lists.
    into.clear();
    into.resize(n, 0);
    for a in 0..n as Node {
        for b in g.successors(a) {
            let count = into.get_mut(b as usize).ok_or_else(|| out_of_range(b))?;
            *count = count.saturating_add(1);
        }
    }
    for b in 0..n as Node {
        for a in g.predecessors(b) {
            if a as usize >= n {
                return Err(out_of_range(a));
            }
            match into[b as usize].checked_sub(1) {
                Some(c) => into[b as usize] = c,
                None => return Err(GraphError::Inconsistent { node: b }),
            }
        }
        if into[b as usize] != 0 {
            return Err(GraphError::Inconsistent { node: b });
        }
    }
    Ok(())
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
    /// The predecessor list of `node` does not match the edges into it.
    Inconsistent {
        /// The node whose lists disagree.
        node: Node,
    },
}

impl core::fmt::Display for GraphError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            GraphError::NodeOutOfRange { node, num_nodes } => {
                write!(f, "node {node} is out of range for a graph of {num_nodes} nodes")
            }
            GraphError::TooManyNodes(n) => write!(f, "{n} nodes do not fit in u32 ids"),
            GraphError::Inconsistent { node } => {
                write!(f, "the predecessors of node {node} do not match the edges into it")
            }
        }
    }
}

impl std::error::Error for GraphError {}

/// Adjacency lists in compressed (CSR) form: for each node, its successors
/// are one slice of a flat array, and so are its predecessors.
///
/// Follows the crate's lifecycle: build with [`CsrGraph::from_edges`] or
/// [`CsrGraph::compute_distinct`] (which reuses the buffers of an existing
/// graph), empty with [`CsrGraph::clear`].
#[derive(Clone, Debug, Default)]
pub struct CsrGraph {
    entry: Option<Node>,
    succ_start: Vec<u32>,
    succ: Vec<Node>,
    pred_start: Vec<u32>,
    pred: Vec<Node>,
    stamp: Option<u64>,
    /// Scratch for [`CsrGraph::compute_distinct`]: edges and a last-seen
    /// mark.
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

    /// Rebuilds this graph as a CFG, reusing its buffers: `num_nodes`
    /// nodes; for each node of `sources`, in that order, an edge to each
    /// *distinct* node of `successors(node)`, in first-occurrence order (a
    /// branch with both arms to one block is one edge, as phis have one
    /// incoming value per predecessor block, not per edge); the given entry
    /// and stamp. Nodes not in `sources` get no out-edges. This is the CFG
    /// builder of Keel's IR and the one to use for any client IR whose
    /// terminators list their targets.
    ///
    /// Sources are expected to be distinct (a repeated one would get its
    /// edges again). An error, leaving the graph empty, when a node is out
    /// of range.
    pub fn compute_distinct<S: IntoIterator<Item = Node>>(
        &mut self,
        num_nodes: usize,
        entry: Option<Node>,
        stamp: Option<u64>,
        sources: impl IntoIterator<Item = Node>,
        mut successors: impl FnMut(Node) -> S,
    ) -> Result<(), GraphError> {
        self.clear();
        if num_nodes >= NONE as usize {
            return Err(GraphError::TooManyNodes(num_nodes));
        }
        let out_of_range = |node: Node| GraphError::NodeOutOfRange { node: u64::from(node), num_nodes };
        if let Some(e) = entry.filter(|&e| e as usize >= num_nodes) {
            return Err(out_of_range(e));
        }
        let mut edges = std::mem::take(&mut self.edges);
        let mut seen = std::mem::take(&mut self.seen);
        edges.clear();
        seen.clear();
        // `seen[b] == a`: the edge a -> b is recorded already.
        seen.resize(num_nodes, NONE);
        let mut result = Ok(());
        'sources: for a in sources {
            if a as usize >= num_nodes {
                result = Err(out_of_range(a));
                break;
            }
            for b in successors(a) {
                if b as usize >= num_nodes {
                    result = Err(out_of_range(b));
                    break 'sources;
                }
                if seen[b as usize] != a {
                    seen[b as usize] = a;
                    edges.push((a, b));
                }
            }
        }
        if result.is_ok() {
            self.fill(num_nodes, entry, &edges);
            self.stamp = stamp;
        }
        self.edges = edges;
        self.seen = seen;
        result
    }

    /// Sets the stamp analyses of this graph will carry (see
    /// [`Graph::stamp`]).
    pub fn set_stamp(&mut self, stamp: Option<u64>) {
        self.stamp = stamp;
    }

    fn fill(&mut self, n: usize, entry: Option<Node>, edges: &[(Node, Node)]) {
        self.clear();
        self.entry = entry;
        bucket_by(n, edges.iter().copied(), &mut self.succ_start, &mut self.succ);
        bucket_by(n, edges.iter().map(|&(a, b)| (b, a)), &mut self.pred_start, &mut self.pred);
    }

    /// Successors of `n` as a slice.
    #[inline]
    pub fn succ_slice(&self, n: Node) -> &[Node] {
        row(&self.succ_start, &self.succ, n as usize)
    }

    /// Predecessors of `n` as a slice.
    #[inline]
    pub fn pred_slice(&self, n: Node) -> &[Node] {
        row(&self.pred_start, &self.pred, n as usize)
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.succ.len()
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

    fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    fn valid_by_construction(&self) -> bool {
        true
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
    fn stamp(&self) -> Option<u64> {
        (**self).stamp()
    }
    fn valid_by_construction(&self) -> bool {
        (**self).valid_by_construction()
    }
}
