//! `cfg-dom`: control-flow and var-level analyses for any compiler's IR.
//!
//! The crate sits at the bottom of Keel and depends on no Keel crate: every
//! analysis runs on the small [`Graph`] trait (dense `u32` node ids, an
//! entry, successors, predecessors), implemented here for compressed
//! adjacency lists ([`CsrGraph`]), for petgraph graphs ([`Petgraph`],
//! feature `petgraph`, on by default) and for the reverse of any graph with a
//! virtual exit ([`ReverseGraph`]). Var-level analyses ([`Liveness`] here,
//! phi placement and DU chains in the `ssa` and `defuse` crates) add the
//! [`VarCode`] trait: per block its instructions, per instruction the vars
//! it defines and uses. Keel's IR implements [`VarCode`] on
//! `ir_core::Function` and builds its CFG as a [`CsrGraph`]
//! (`Function::cfg`); any compiler can implement both traits in an
//! afternoon. Analyses follow one lifecycle —
//! `new`, `compute` (reusing buffers), `clear` — and carry the stamp of the
//! graph they ran on, so [`DomTree::check`] and friends catch use on a
//! function that changed, and analyses handed over together are checked to
//! belong to one graph ([`Mismatch`]).
//!
//! - [`Dfs`]: preorder, postorder, reverse postorder, DFS tree, back edges,
//!   reachability; [`is_reducible`].
//! - [`DomTree`]: semi-NCA, O(1) `dominates`, children, depth, nearest common
//!   dominator, unreachable nodes outside the tree; [`PostDomTree`].
//! - [`DominanceFrontiers`] (sorted DF sets; Cytron's worklist over them is
//!   the fastest IDF for many variables) and [`IteratedFrontiers`]
//!   (Sreedhar–Gao IDF per query, pruned by a per-graph index, no DF sets).
//! - [`LoopForest`] (Havlak–Ramalingam loop nesting, irreducible loops
//!   included), the dataflow framework ([`Analysis`], [`GenKill`],
//!   [`BitDataflow`]), [`Liveness`], Graphviz output ([`dot`]), and the one
//!   CSR builder Keel uses for every per-entity list ([`csr`]).
//! - With feature `fuzzing` (for tests and fuzz targets, off by default):
//!   `oracle`, slow textbook definitions of every analysis, and `fuzzing`,
//!   the checks of each analysis against them.
//!
//! Nothing in the crate recurses: a 10^7-node chain works on a 2 MiB stack.
//!
//! # Bad input
//!
//! The rule, crate-wide: an entry point that takes input it cannot trust
//! returns an error — [`CsrGraph::from_edges`] and
//! [`CsrGraph::compute_distinct`] ([`GraphError`]), [`Liveness::compute`]
//! and [`check_input`] ([`InputError`]), and every function that takes two
//! analyses that must belong together ([`Mismatch`]). The [`Graph`] trait
//! is a contract the analyses trust: a foreign implementation that breaks
//! it makes them panic, never loop or answer wrongly in silence;
//! [`check_graph`] verifies it. Queries take ids of the analysed graph; an
//! id outside it answers as a node outside the tree (`None`, `false`, an
//! empty list), which never panics.
//!
//! # Example: dominators of a petgraph graph
//!
//! ```
//! use cfg_dom::{DomTree, Petgraph};
//! use petgraph::graph::DiGraph;
//!
//! // A diamond with a loop on its right arm: a -> {b, c}, c -> c, {b, c} -> d.
//! let mut g = DiGraph::<&str, ()>::new();
//! let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| g.add_node(n));
//! g.extend_with_edges([(a, b), (a, c), (c, c), (b, d), (c, d)]);
//!
//! let view = Petgraph::new(&g, a);
//! let dt = DomTree::of(&view);
//! let id = |n: petgraph::graph::NodeIndex| n.index() as u32;
//! assert_eq!(dt.idom(id(d)), Some(id(a)));
//! assert!(dt.dominates(id(a), id(c)) && !dt.dominates(id(b), id(d)));
//! ```
//!
//! # Example: frontiers of a CFG built from terminators
//!
//! ```
//! use cfg_dom::{CsrGraph, DomTree, DominanceFrontiers};
//!
//! // bb0: br bb1, bb2; bb1: jump bb3; bb2: jump bb3; bb3: ret.
//! let targets: [&[u32]; 4] = [&[1, 2], &[3], &[3], &[]];
//! let mut cfg = CsrGraph::new();
//! cfg.compute_distinct(4, Some(0), Some(7), 0..4, |b| targets[b as usize].iter().copied()).unwrap();
//! let dt = DomTree::of(&cfg);
//! let df = DominanceFrontiers::of(&cfg, &dt).unwrap();
//! assert_eq!(dt.idom(3), Some(0));
//! assert_eq!(df.frontier(1), [3]);
//! assert_eq!(dt.stamp(), Some(7)); // carried from the graph
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod code;
pub mod csr;
mod dataflow;
mod domtree;
pub mod dot;
mod frontier;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod graph;
mod idf;
mod liveness;
mod loops;
#[cfg(feature = "fuzzing")]
pub mod oracle;
#[cfg(feature = "petgraph")]
mod petgraph_impl;
mod pruned;
mod reverse;
mod stamp;
mod traversal;

pub use code::{Input, InputBuffers, InputError, InstId, Use, VarCode, VarId, check_input};
pub use dataflow::{
    Analysis, BitDataflow, Confluence, DataflowResults, Direction, Flow, GenKill, JoinSemiLattice, Scope,
};
pub use domtree::DomTree;
pub use frontier::{DominanceFrontiers, IteratedFrontiers};
pub use graph::{CsrGraph, Graph, GraphError, Node, check_graph};
pub use idf::{Idf, IdfMethod};
pub use liveness::Liveness;
pub use loops::{LoopForest, LoopId};
#[cfg(feature = "petgraph")]
pub use petgraph_impl::Petgraph;
pub use pruned::PrunedPhis;
pub use reverse::{PostDomTree, ReverseGraph};
pub use stamp::{Mismatch, Stale, Versioned, belongs, check_stamp};
pub use traversal::{Dfs, is_reducible};
