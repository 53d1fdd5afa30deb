//! The vectorizer's error type: [`VectorizeError`], the node at fault and
//! a [`VectorizeErrorKind`] (an invalid graph, a bad `in_axes`, a
//! primitive with no rule, a rule that failed, a node that could not be
//! built, a size limit), each carrying what it names.
//!
//! A leaf of the `vmap` tree, depending only on the graph's symbols,
//! primitives and errors and on the rules' [`StageError`]: the entry point
//! (`vmap/mod.rs`) and the engine (`engine.rs`) build it, the strategies
//! and templates (`strategy.rs`, `template.rs`) name its kinds, and none of
//! them imports another's items back through this module. `vmap` and the
//! crate root re-export both, so their public paths stay
//! `vectorize::VectorizeError` and `vectorize::VectorizeErrorKind`.
//!
//! Invariant: `sym`, when set, is the node of the *input* graph being
//! vectorized (not a symbol of the output); `Display` prefixes the kind's
//! message with it.

use crate::graph::{NameError, Sym};
use crate::ops::Prim;
use crate::rules::StageError;
use crate::schedule::StaleSchedule;
use crate::verify::VerifyError;
use core::fmt;

/// What went wrong, with what it names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum VectorizeErrorKind {
    /// The input graph does not verify (every error).
    Unverified(Vec<VerifyError>),
    /// The symbol given is not a function of the graph.
    NotAFunction(Sym),
    /// `in_axes` has another length than the function has parameters.
    InAxesLength {
        /// The function's name.
        function: String,
        /// Its parameters.
        params: usize,
        /// The entries of `in_axes`.
        in_axes: usize,
    },
    /// `in_axes` maps no parameter.
    NothingMapped,
    /// A body of the input graph has a cycle through this node.
    Cycle(Sym),
    /// An analysis was computed for another graph.
    Stale(StaleSchedule),
    /// A batched node's primitive has no rule: there is no fallback.
    NoRule(Prim),
    /// A rule's term could not be built.
    RuleFailed {
        /// The rule's source line.
        rule: String,
        /// Why.
        why: StageError,
    },
    /// A node the vectorizer itself builds could not be (it does not
    /// type, or the node limit is reached).
    Build(StageError),
    /// The vectorized function's name was refused.
    Name(NameError),
    /// A lambda of the input graph that is not one.
    NotALambda,
    /// A lambda with no scope to build it in.
    NoScope,
    /// A constant array that is not in the input graph's pool.
    NoSuchConstant(u32),
    /// `get` of something that is not a tuple.
    GetOfNonTuple,
    /// The `project` strategy given to another primitive than `get`.
    ProjectMisused,
    /// A vectorized lambda's mask or lane count with no value at a call.
    MissingExtra,
    /// A batched `map` inside a lambda called per element.
    BatchedMapInPlainLambda,
    /// A `map` with no mapped argument.
    UnmappedMap,
}

/// A vectorization error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VectorizeError {
    /// What went wrong.
    pub kind: VectorizeErrorKind,
    /// The original node being vectorized, if any.
    pub sym: Option<Sym>,
}

impl VectorizeError {
    /// An error of this kind at node `sym`.
    pub fn new(kind: VectorizeErrorKind, sym: Option<Sym>) -> VectorizeError {
        VectorizeError { kind, sym }
    }
}

impl From<StageError> for VectorizeError {
    /// A node the vectorizer builds that could not be, at no node yet.
    fn from(e: StageError) -> VectorizeError {
        VectorizeError { kind: VectorizeErrorKind::Build(e), sym: None }
    }
}

impl fmt::Display for VectorizeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VectorizeErrorKind as K;
        match self {
            K::Unverified(errors) => {
                f.write_str("the graph does not verify: ")?;
                for (i, e) in errors.iter().enumerate() {
                    write!(f, "{}{e}", if i > 0 { "; " } else { "" })?;
                }
                Ok(())
            }
            K::NotAFunction(s) => write!(f, "{s} is not a function of the graph"),
            K::InAxesLength { function, params, in_axes } => {
                write!(f, "@{function} has {params} parameters but in_axes has {in_axes} entries")
            }
            K::NothingMapped => f.write_str("in_axes maps no parameter: the batch size would be unknown"),
            K::Cycle(s) => write!(f, "a cycle through {s}"),
            K::Stale(e) => write!(f, "{e}"),
            K::NoRule(p) => write!(f, "no rule for `{p}`: there is no fallback"),
            K::RuleFailed { rule, why } => write!(f, "the rule `{rule}` failed: {why}"),
            K::Build(e) => write!(f, "{e}"),
            K::Name(e) => write!(f, "{e}"),
            K::NotALambda => f.write_str("not a lambda"),
            K::NoScope => f.write_str("a lambda with no scope"),
            K::NoSuchConstant(_) => f.write_str("no such constant"),
            K::GetOfNonTuple => f.write_str("`get` of something that is not a tuple"),
            K::ProjectMisused => f.write_str("`project` serves only `get`"),
            K::MissingExtra => f.write_str("a vectorized lambda's extra parameter has no value"),
            K::BatchedMapInPlainLambda => f.write_str("a batched map inside a per-element lambda"),
            K::UnmappedMap => f.write_str("a map with no mapped argument"),
        }
    }
}

impl std::error::Error for VectorizeErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VectorizeErrorKind::Unverified(errors) => errors.first().map(|e| e as _),
            VectorizeErrorKind::Stale(e) => Some(e),
            VectorizeErrorKind::RuleFailed { why, .. } => Some(why),
            VectorizeErrorKind::Build(e) => Some(e),
            VectorizeErrorKind::Name(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for VectorizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for VectorizeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}
