//! `memdep`: memory data dependence over tensor memory descriptors, for
//! any compiler's IR (digest §002, made precise and sound).
//!
//! Tensor instructions read and write *ranges* of memory objects: a
//! descriptor `@A[offset, size]`. A range may be written piecewise by
//! several instructions and read by one that overlaps them all, so scalar
//! SSA cannot say what a read depends on. This crate computes, per read,
//! the writes it may depend on (flow, UD), per write the reads it reaches
//! (DU), and per write the earlier reads and writes it may overwrite
//! (anti and output dependences), with:
//!
//! - **exact kills**: a certain write of an exact range kills what it
//!   covers, element by element (the document's sorted interval kill sets,
//!   kept inside out: per segment, the definitions still live there); an
//!   inexact write only adds itself; a guarded write kills nothing; joins
//!   unite definitions and intersect kills. On programs whose offsets are
//!   exact or unknown the answer *equals* element-granular reaching
//!   definitions (tested against a byte-level oracle);
//! - **symbolic offsets**: two descriptors whose offsets are one value
//!   plus different constants (`@x[%off, 64]`, `@x[%off + 64, 64]`) are
//!   compared exactly, and a write kills relative to that value, as long as
//!   the value has not changed in between;
//! - **affine offsets in loops**: offsets affine in a loop's induction
//!   variable (`%off = mul %t, 64`) follow the variable across the back
//!   edge, so the tiles of different iterations do not depend on each
//!   other in the chains, and [`MemQueries::loop_carried`] answers per pair
//!   `NoDep`, `Must(distance)` or `May(reason)` (an exact one-index
//!   distance test);
//! - **no hidden caps** and **no confusion of unknown with independent**:
//!   there is no limit on instructions, blocks or paths; what is not known
//!   is a dependence.
//!
//! # On your own IR
//!
//! Implement [`MemCode`] (per instruction its accesses as `(object,
//! offset, size)` with exact, unknown or affine offsets, certain or only
//! possible, guarded or not, or "anything"; per symbol where it changes)
//! next to `cfg_dom::Graph` for the CFG. The `foreign-ir` package does it
//! for a toy IR in about forty lines (`cargo run -p foreign-ir --example
//! memdep`). Keel's IR is one implementation ([`KeelCode`], with
//! [`Summaries`] for calls; [`MemDep::compute_function`]), behind the
//! default feature `keel`; without it the crate depends on `cfg-dom`,
//! `smallvec` and `hashbrown` only.
//!
//! # Results are plain data
//!
//! [`MemDeps`] holds dense site ids ([`UseId`], [`DefId`]; [`Sites`] maps
//! them to `(instruction, access number)`) and dependence sets in *range
//! form*: each set is a sorted list of id ranges, interned, so the
//! thousand loads of a function that all may read what a thousand stores
//! through one pointer wrote share one short list instead of 10^6 pairs
//! ([`MemDeps::counts`] reports each form). Queries: [`MemDeps::defs_of`]
//! (the definitions reaching a use), [`MemDeps::uses_of`],
//! [`MemDeps::depends`] (two instructions, every kind),
//! [`MemDeps::reaching_insts`]; [`may_overlap`] and [`MemQueries`] (overlap
//! of two sites, loop-carried answers, [`MemQueries::clobbered_between`]).
//!
//! The lifecycle is the workspace's: [`MemDep::new`], [`MemDep::compute`]
//! per function (buffers reused), [`MemDep::clear`]; results carry the code
//! stamp of their function ([`MemDeps::check`]).
//!
//! # Bad input
//!
//! The rule: every entry point checks its input first ([`MemInput::new`]:
//! the graph keeps its contract, code and graph have one block count and
//! stamp, ids are in range, each instruction is in one block, bounds are
//! ordered, symbol changes name blocks and instructions of the code) and
//! returns an [`InputError`] instead of panicking. Queries with ids out of
//! range answer nothing (`None`, an empty list, no dependence kind) —
//! except [`MemQueries::loop_carried`] and [`MemQueries::may_overlap`],
//! which answer `May` for a site they do not know, since unknown is never
//! independent. Nothing recurses.
//!
//! # Features
//!
//! - `keel` (default): [`KeelCode`] (a Keel function's accesses, offsets
//!   resolved through `ssa`'s renaming walk), [`Summaries`],
//!   [`MemDep::compute_function`], [`MemQueries::of_function`].
//! - `fuzzing`: the oracles as checks and the planted bugs (implies `keel`).
//!
#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "keel"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod code;
mod deps;
mod engine;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[cfg(feature = "keel")]
mod keel;
mod naive;
mod overlap;
mod planted;
mod queries;
mod segmap;
mod sets;
mod state;
mod wto;

pub use code::{
    Access, Effects, InputBuffers, InputError, MemCode, MemInput, ObjectId, Offset, SymbolChange, SymbolId,
};
pub use deps::{ANY, DefId, DepKinds, Difference, EdgeCounts, MemDeps, Site, Sites, UseId};
pub use engine::{Explanation, LiveOnObject, LiveSegment, MemDep, Options, RelativeSegments};
#[cfg(feature = "keel")]
pub use keel::{KeelBuffers, KeelCode, Summaries, Summary, keel_input};
pub use naive::{Naive, naive};
pub use overlap::{Answer, Distance, Reason, may_overlap};
pub use queries::{CarriedPair, MemQueries};
pub use sets::SetId;

/// Memory dependences of `code` on its CFG `graph` with default options (a
/// fresh [`MemDep`]; keep one across functions to reuse its buffers).
pub fn memdep<G: cfg_dom::Graph, C: MemCode>(graph: &G, code: &C) -> Result<MemDeps, InputError> {
    MemDep::new().compute(graph, code)
}
