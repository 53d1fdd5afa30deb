//! `ssa`: SSA construction and destruction.
//!
//! **Status: not yet implemented (issue 5).** This crate exposes no API yet.
//! It will place phis at iterated dominance frontiers (minimal,
//! semi-pruned and pruned), rename by an iterative dominator-tree walk
//! (versions `%x.N` remembering their original), clean up phis to a
//! fixpoint, represent predicated definitions psi-style (digest §000), and
//! destruct SSA through parallel copies on split edges.
//!
//! Depends on: `ir-core`, `cfg-dom`.

#![deny(missing_docs)]
