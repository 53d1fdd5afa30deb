//! Iterated dominance frontiers for many queries on one graph, in memory
//! linear in the graph.
//!
//! Phi placement asks IDF(defs(v)) for every variable v. Two methods, and
//! [`Idf`] picks per graph:
//! - **Cytron's worklist over frontier sets** (Cytron et al., 1991): build
//!   the DF sets once ([`DominanceFrontiers`]), then each query reads only
//!   the frontier entries it reaches. Fastest for many variables, but the
//!   sets themselves can be quadratic in the graph: a nest of `d` loops has
//!   about `d²/2` entries (4.7 GB at depth 20,000).
//! - **Per-query subtree walks** ([`IteratedFrontiers`], Sreedhar and Gao's
//!   DJ-graph method): an O(n + m) index, then each query is linear in the
//!   part of the graph it walks.
//!
//! [`Idf::compute`] builds the DF sets with a budget of
//! [`Idf::entry_budget`] entries (a small multiple of nodes + edges); when
//! they would exceed it, it stops (having spent time and memory
//! proportional to the budget only) and indexes the graph for subtree walks
//! instead. Memory is therefore O(n + m) on every graph.
//!
//! Invariants: both methods give the same sets (tested against each other
//! and the oracle); unreachable and out-of-range nodes in a query are
//! ignored; a query's output is in no particular order but deterministic.

use crate::domtree::DomTree;
use crate::frontier::{DominanceFrontiers, IteratedFrontiers};
use crate::graph::{Graph, Node};
use crate::stamp::Mismatch;

/// Which method an [`Idf`] uses on its graph.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum IdfMethod {
    /// Nothing computed yet.
    #[default]
    None,
    /// Cytron's worklist over materialised DF sets.
    FrontierSets,
    /// Subtree walks per query (the DF sets would exceed the budget).
    SubtreeWalks,
}

/// IDF queries on one graph, by the method that keeps memory linear (see
/// the module doc).
///
/// Lifecycle: [`Idf::new`], then [`Idf::compute`] per graph (buffers
/// reused), then any number of [`Idf::query`] calls.
#[derive(Clone, Debug, Default)]
pub struct Idf {
    method: IdfMethod,
    num_nodes: usize,
    stamp: Option<u64>,
    df: DominanceFrontiers,
    walks: IteratedFrontiers,
    /// Query stamps: `placed[y] == query` once y is in the current IDF,
    /// `queued[y] == query` once y was put on the worklist.
    placed: Vec<u32>,
    queued: Vec<u32>,
    query: u32,
    work: Vec<Node>,
    /// Scratch for the sorted output of subtree walks.
    sorted: Vec<Node>,
}

impl Idf {
    /// An empty index: every query answers the empty set.
    pub fn new() -> Idf {
        Idf::default()
    }

    /// The index of `g` given its dominator tree; an error when `dt`
    /// belongs to another graph.
    pub fn of(g: &impl Graph, dt: &DomTree) -> Result<Idf, Mismatch> {
        let mut idf = Idf::new();
        idf.compute(g, dt)?;
        Ok(idf)
    }

    /// Most DF entries materialised for a graph of `nodes` nodes and
    /// `edges` edges: `8 (n + m) + 4096`. Real CFGs stay far below it
    /// (their DF sets are near-linear); deep loop nests exceed it.
    pub fn entry_budget(nodes: usize, edges: usize) -> usize {
        nodes.saturating_add(edges).saturating_mul(8).saturating_add(4096)
    }

    /// Empties the index, keeping buffers.
    pub fn clear(&mut self) {
        self.method = IdfMethod::None;
        self.num_nodes = 0;
        self.stamp = None;
        self.df.clear();
        self.walks.clear();
    }

    /// Indexes `g`, reusing buffers: DF sets within
    /// [`Idf::entry_budget`], else subtree walks. An error (and an empty
    /// index) when `dt` was computed on another graph.
    pub fn compute(&mut self, g: &impl Graph, dt: &DomTree) -> Result<(), Mismatch> {
        self.compute_with_budget(g, dt, None)
    }

    /// [`Idf::compute`] with an explicit DF entry budget (`Some(0)` forces
    /// subtree walks, `Some(usize::MAX)` forces DF sets); `None` is the
    /// default budget.
    pub fn compute_with_budget(&mut self, g: &impl Graph, dt: &DomTree, budget: Option<usize>) -> Result<(), Mismatch> {
        self.clear();
        let n = g.num_nodes();
        let budget = budget.unwrap_or_else(|| {
            let edges: usize = (0..n as Node).map(|v| g.successors(v).count()).sum();
            Idf::entry_budget(n, edges)
        });
        if self.df.compute_bounded(g, dt, budget)? {
            self.method = IdfMethod::FrontierSets;
        } else {
            self.walks.compute(g, dt)?;
            self.method = IdfMethod::SubtreeWalks;
        }
        self.num_nodes = n;
        self.stamp = g.stamp();
        if self.placed.len() < n {
            self.placed.resize(n, 0);
            self.queued.resize(n, 0);
        }
        Ok(())
    }

    /// The method chosen for the current graph.
    pub fn method(&self) -> IdfMethod {
        self.method
    }

    /// Number of nodes of the graph indexed (0 when empty).
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// The stamp of the graph indexed.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    fn next_query(&mut self) -> u32 {
        self.query = self.query.wrapping_add(1);
        if self.query == 0 {
            self.placed.iter_mut().for_each(|x| *x = 0);
            self.queued.iter_mut().for_each(|x| *x = 0);
            self.query = 1;
        }
        self.query
    }

    /// The dominance frontier of the single node `n` into `out` (cleared
    /// first), sorted by node id; empty for unreachable or out-of-range
    /// nodes. Reads the DF set when materialised, else walks `n`'s
    /// dominator subtree ([`IteratedFrontiers::frontier`]), so memory stays
    /// linear on every graph.
    pub fn frontier(&mut self, n: Node, out: &mut Vec<Node>) {
        out.clear();
        match self.method {
            IdfMethod::None => {}
            IdfMethod::SubtreeWalks => self.walks.frontier(n, out),
            IdfMethod::FrontierSets => {
                if (n as usize) < self.num_nodes {
                    out.extend_from_slice(self.df.frontier(n));
                    out.sort_unstable();
                }
            }
        }
    }

    /// IDF of `defs` appended to `out` (not cleared), in no particular
    /// order but deterministic. Unreachable and out-of-range nodes in
    /// `defs` are ignored.
    pub fn query(&mut self, defs: impl IntoIterator<Item = Node>, out: &mut Vec<Node>) {
        match self.method {
            IdfMethod::None => {}
            IdfMethod::SubtreeWalks => {
                self.walks.query(defs, &mut self.sorted);
                out.extend_from_slice(&self.sorted);
            }
            IdfMethod::FrontierSets => {
                let q = self.next_query();
                let n = self.num_nodes;
                self.work.clear();
                for d in defs {
                    if (d as usize) < n && self.queued[d as usize] != q {
                        self.queued[d as usize] = q;
                        self.work.push(d);
                    }
                }
                while let Some(x) = self.work.pop() {
                    for &y in self.df.frontier(x) {
                        if self.placed[y as usize] == q {
                            continue;
                        }
                        self.placed[y as usize] = q;
                        out.push(y);
                        if self.queued[y as usize] != q {
                            self.queued[y as usize] = q;
                            self.work.push(y);
                        }
                    }
                }
            }
        }
    }
}
