//! `vectorize`: rule-based vectorization.
//!
//! **Status: not yet implemented.** This crate exposes no API yet. It will
//! turn a program `p: T -> R` into `/p/: array[T] -> array[R]` with one
//! vectorization rule per primitive and rewrite-on-construction
//! optimization rules (digest §003), over a graph view of `ir-core` code.
//!
//! Depends on: `ir-core`.

#![deny(missing_docs)]
