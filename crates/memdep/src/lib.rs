//! `memdep`: memory data dependence over tensor memory descriptors, for
//! any compiler's IR.
//!
//! Placeholder top doc; completed below.

#![deny(missing_docs)]

mod code;
mod deps;
mod engine;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod keel;
mod naive;
mod overlap;
mod plant;
mod queries;
mod segmap;
mod sets;
mod state;

pub use code::{
    Access, Effects, InputBuffers, InputError, MemCode, MemInput, ObjectId, Offset, SymbolChange, SymbolId,
};
pub use deps::{ANY, DefId, DepKinds, EdgeCounts, MemDeps, Site, Sites, UseId};
pub use engine::{MemDep, Options};
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
