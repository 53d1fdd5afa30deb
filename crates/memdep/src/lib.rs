//! `memdep`: memory data dependence over memory descriptors.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! compute, per use of a memory descriptor, the instructions it may depend
//! on (digest §002): exact definitions kill overlapped ranges (sorted
//! interval kill sets), inexact ones only mark possible kills, predicated
//! ones never kill; joins union definitions and intersect kills.
//!
//! Depends on: `ir-core`, `cfg-dom`, `ssa`.

#![deny(missing_docs)]
