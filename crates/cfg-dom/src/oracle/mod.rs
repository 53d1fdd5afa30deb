//! Slow, obviously-correct reference implementations (textbook
//! definitions, computed naively) of every analysis in this crate, used by
//! its property tests and fuzz target — and by anyone checking their own
//! `Graph` implementation. Quadratic or worse: for small graphs only.

mod dominance;
mod liveness;
mod loops;

#[allow(unused_imports, reason = "filled in as the module is written")]
pub use dominance::*;
#[allow(unused_imports, reason = "filled in as the module is written")]
pub use liveness::*;
#[allow(unused_imports, reason = "filled in as the module is written")]
pub use loops::*;
