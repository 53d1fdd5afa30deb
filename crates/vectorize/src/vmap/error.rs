//! The vectorizer's error type: [`VectorizeError`], classed by
//! [`VectorizeErrorKind`] (an invalid graph, a bad `in_axes`, a primitive
//! with no rule, a rule that built something ill-typed, a size limit).
//!
//! A leaf of the `vmap` tree, depending only on the graph's [`Sym`] and
//! [`Prim`]: the entry point (`vmap/mod.rs`) and the engine (`engine.rs`)
//! build it, the strategies and templates (`strategy.rs`, `template.rs`)
//! name its kinds, and none of them imports another's items back through
//! this module. `vmap` and the crate root re-export both, so their public
//! paths stay `vectorize::VectorizeError` and
//! `vectorize::VectorizeErrorKind`.
//!
//! Invariant: `sym`, when set, is the node of the *input* graph being
//! vectorized (not a symbol of the output); `Display` prefixes the message
//! with it.

use crate::graph::Sym;
use crate::ops::Prim;
use core::fmt;

/// What went wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum VectorizeErrorKind {
    /// The input graph does not verify (the message lists why).
    Invalid,
    /// `in_axes` does not fit the function, or maps no parameter.
    InAxes,
    /// A batched node's primitive has no rule: there is no fallback.
    NoRule(Prim),
    /// A rule built something ill-typed.
    Rule,
    /// The vectorized graph would exceed a limit.
    Limit,
}

/// A vectorization error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VectorizeError {
    /// The class.
    pub kind: VectorizeErrorKind,
    /// The original node being vectorized, if any.
    pub sym: Option<Sym>,
    /// Details.
    pub message: String,
}

impl fmt::Display for VectorizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for VectorizeError {}
