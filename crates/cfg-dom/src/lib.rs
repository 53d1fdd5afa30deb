//! `cfg-dom`: control-flow analyses for Keel and for any graph.
//!
//! **Status: not yet implemented (issue 4).** This crate exposes no API yet.
//! It will hold a small public graph trait (dense `u32` node ids, entry,
//! successors, predecessors) implemented for `ir-core` functions, petgraph
//! graphs and adjacency lists; iterative traversals (pre/postorder, RPO,
//! back edges, reducibility); dominator and post-dominator trees (semi-NCA
//! over RPO numbers, O(1) dominance queries); dominance frontiers and
//! iterated frontiers in linear time; a loop nesting forest that handles
//! irreducible loops; and block liveness on a small gen/kill dataflow
//! framework. Every analysis follows `new` / `compute` / `clear` and stamps
//! its results with the function epoch so stale use is caught.
//!
//! Depends on: `ir-core`.

#![deny(missing_docs)]
