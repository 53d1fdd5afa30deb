//! `mlu-sim`: a simulator for the `target-mlu` ISA.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! execute lowered programs (cores, memories, DMA engines, barriers) so
//! that lowering can be checked against the `ir-core` reference
//! interpreter. It is a leaf: nothing but the CLI depends on it.
//!
//! Depends on: `target-mlu` (for the ISA it runs).

#![deny(missing_docs)]
