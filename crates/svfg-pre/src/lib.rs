//! `svfg-pre`: semantic partial redundancy elimination.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! number values globally, build the sparse value flow graph of the
//! digest's §001 document, compute down-safety and up-safety as greatest
//! fixpoints over it, and insert and delete computations so that no path
//! computes more than before.
//!
//! Depends on: `ir-core`, `cfg-dom`, `ssa`.

#![deny(missing_docs)]
