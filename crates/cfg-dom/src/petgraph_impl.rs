//! [`Graph`] for petgraph graphs (feature `petgraph`).
//!
//! Invariant: node ids are petgraph's node indices (`NodeIndexable`), so the
//! analyses' answers index straight back into the petgraph graph. Works for
//! any graph whose reference implements petgraph's `IntoNeighborsDirected`
//! and `NodeIndexable` (`Graph`, `StableGraph`, `GraphMap`, ...).

use crate::graph::{Graph, Node};
use petgraph::Direction;
use petgraph::visit::{IntoNeighborsDirected, NodeIndexable};

/// A petgraph graph seen as a [`Graph`], with a chosen entry.
#[derive(Copy, Clone, Debug)]
pub struct Petgraph<G: IntoNeighborsDirected + NodeIndexable> {
    graph: G,
    entry: G::NodeId,
}

impl<G: IntoNeighborsDirected + NodeIndexable> Petgraph<G> {
    /// Views `graph` (usually `&petgraph::Graph`) with `entry` as its root.
    pub fn new(graph: G, entry: G::NodeId) -> Petgraph<G> {
        Petgraph { graph, entry }
    }
}

impl<G: IntoNeighborsDirected + NodeIndexable> Graph for Petgraph<G> {
    fn num_nodes(&self) -> usize {
        self.graph.node_bound()
    }

    fn entry(&self) -> Option<Node> {
        u32::try_from(self.graph.to_index(self.entry)).ok()
    }

    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        let id = self.graph.from_index(n as usize);
        self.graph.neighbors_directed(id, Direction::Outgoing).map(move |m| self.graph.to_index(m) as Node)
    }

    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        let id = self.graph.from_index(n as usize);
        self.graph.neighbors_directed(id, Direction::Incoming).map(move |m| self.graph.to_index(m) as Node)
    }
}
