//! `vectorize`: rule-based vectorization of a graph IR (digest §003).
//!
//! Work in progress.

#![deny(missing_docs)]

mod bits;
mod builder;
pub mod dot;
pub mod eval;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod generate;
mod graph;
pub mod import;
mod infer;
pub mod lower;
mod ops;
mod purity;
pub mod rules;
mod schedule;
pub mod text;
mod types;
mod uniform;
mod value;
mod verify;
mod vmap;

pub use bits::Bits;
pub use builder::Builder;
pub use graph::{Arg, Graph, LambdaData, MAX_FLAGGED_ARGS, NameError, NewNode, NodeData, Sym, valid_name};
pub use infer::{TypeError, infer};
pub use ops::{Op, Prim, PrimKind};
pub use purity::Purity;
pub use rules::{DEFAULT_RULES, RuleSet};
pub use schedule::{Schedule, StaleSchedule};
pub use types::{NodeTy, ValTy};
pub use uniform::{Summary, Uniformity};
pub use value::{Array, ArrayBuilder, Container, Value};
pub use verify::{VerifyError, verify};
pub use vmap::{
    MAX_REWRITE_DEPTH, Plant, Stats, VectorizeConfig, VectorizeError, VectorizeErrorKind, Vectorized, Vectorizer, vectorize,
};
