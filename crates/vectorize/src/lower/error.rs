//! The lowering's error type, [`LowerError`]: what a graph uses that the
//! lowering does not support, or a failure of the lowered Keel code to
//! build or verify.
//!
//! A leaf of the `lower` tree: the entry point (`lower/mod.rs`) and the
//! emitters (`emit.rs`, `control.rs`) all return it, and it depends on
//! nothing of theirs (only on [`Sym`]), so the tree's imports run one way.
//! `lower` re-exports it, so its public path stays
//! `vectorize::lower::LowerError`.
//!
//! Invariant: `sym`, when set, is a symbol of the graph being lowered
//! (the node at fault); `Display` prefixes the message with it.

use crate::graph::Sym;

/// Why a graph cannot be lowered.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LowerError {
    /// The node at fault, if any.
    pub sym: Option<Sym>,
    /// What is not supported.
    pub message: String,
}

impl core::fmt::Display for LowerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LowerError {}
