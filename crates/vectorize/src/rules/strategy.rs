//! The vectorizer's higher-order rules as the rule DSL names them
//! ([`Strategy`]): a strategy body (`rule map(f, xs..) => flatten(f,
//! xs..)`) names one, and the vectorizer (`vmap/strategy.rs`) carries it
//! out.
//!
//! A leaf of the `rules` tree, depending only on [`Prim`], so that the
//! parser (which refuses a strategy inside a term) and the rule table
//! (which checks a strategy body) both import it and neither imports the
//! other's items back. `rules` re-exports it, so its public path stays
//! `vectorize::rules::Strategy`.
//!
//! Invariant: one table (`Strategy::ALL`) is the single source of each
//! strategy's name and of the one primitive it serves; names are distinct.

use crate::ops::Prim;

/// The vectorizer's higher-order rules, named by strategy bodies.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Strategy {
    /// `map`: flatten the lanes' arrays into one, apply the vectorized
    /// lambda once, partition the result by the lanes' lengths.
    Flatten,
    /// `apply`: call the lambda vectorized for the arguments' pattern.
    Call,
    /// `if`: keep an `if` when the condition is the same in every lane;
    /// otherwise run both branches and `select`, masking the branches
    /// unless both are pure.
    Branch,
    /// `if`, always masking the branches under a batched condition.
    MaskedBranch,
    /// `while`: keep the loop when the condition is the same in every
    /// lane; otherwise run while any lane is active and freeze the lanes
    /// that have finished.
    Loop,
    /// `get`: the component of the vectorized tuple.
    Project,
}

impl Strategy {
    const ALL: [(Strategy, &'static str, Prim); 6] = [
        (Strategy::Flatten, "flatten", Prim::Map),
        (Strategy::Call, "call", Prim::Apply),
        (Strategy::Branch, "branch", Prim::If),
        (Strategy::MaskedBranch, "masked_branch", Prim::If),
        (Strategy::Loop, "loop", Prim::While),
        (Strategy::Project, "project", Prim::Get),
    ];

    /// The name used in rule bodies.
    pub fn name(self) -> &'static str {
        Strategy::ALL.iter().find(|s| s.0 == self).map_or("?", |s| s.1)
    }

    /// The strategy named `name` and the primitive it serves.
    pub(super) fn lookup(name: &str) -> Option<(Strategy, Prim)> {
        Strategy::ALL.iter().find(|s| s.1 == name).map(|s| (s.0, s.2))
    }
}
