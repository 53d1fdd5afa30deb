//! `vectorize`: rule-based vectorization of a graph IR (digest §003).
//!
//! Work in progress.

#![deny(missing_docs)]

mod builder;
pub mod eval;
mod graph;
mod infer;
mod ops;
mod schedule;
pub mod text;
mod types;
mod value;
mod verify;

pub use builder::Builder;
pub use graph::{Arg, Graph, LambdaData, MAX_FLAGGED_ARGS, NameError, NewNode, NodeData, Sym, valid_name};
pub use infer::{TypeError, infer};
pub use ops::{Op, Prim, PrimKind};
pub use schedule::{Schedule, StaleSchedule};
pub use types::{NodeTy, ValTy};
pub use value::{Array, ArrayBuilder, Container, Value};
pub use verify::{VerifyError, verify};
