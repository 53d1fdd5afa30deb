//! `defuse`: def-use and use-def chains.
//!
//! **Status: not yet implemented (issue 5).** This crate exposes no API yet.
//! It will build DU/UD chains the way the digest's §000 document does
//! (through semi-pruned SSA, folding phis and predicated links back onto
//! real definitions), a tuned bit-vector reaching-definitions baseline, and
//! a slow oracle; chains are stored in CSR form keyed by `(Inst, index)`.
//!
//! Depends on: `ir-core`, `cfg-dom`, `ssa`.

#![deny(missing_docs)]
