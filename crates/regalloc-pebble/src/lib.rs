//! `regalloc-pebble`: register allocation by red-blue pebbling.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! allocate registers on each block's dependence DAG with the red-blue
//! pebble heuristic of the digest's §004 document, then hand the remaining
//! registers to variables globally by loop-weighted spill cost, with a
//! checker that verifies every allocation.
//!
//! Depends on: `ir-core`, `cfg-dom`.

#![deny(missing_docs)]
