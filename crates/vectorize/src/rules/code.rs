//! The compiled forms of the rule DSL, what the parser (`parse.rs`)
//! produces and the rule table (`rules/mod.rs`) keeps: a term as postfix
//! code ([`Instr`], run by the table's stager) and an optimisation rule's
//! pattern as a flat tree ([`Pat`], matched by the vectorizer's
//! rewrite-on-construction, `vmap/stage.rs`).
//!
//! A leaf of the `rules` tree, depending only on [`Prim`], so that the
//! parser and the table both import it and neither imports the other's
//! items back.
//!
//! Invariants: a term's code is postfix (every `App { argc, .. }` follows
//! the `argc` values it consumes, so running the code leaves one value),
//! and its `Var(i)` is the rule's `i`-th variable (the head's, or the
//! pattern's); a pattern lists children before their parent (every index
//! in `Pat::App`'s `args` is smaller than the node's own), the root last,
//! and its `Var(i)` numbers variables in order of first appearance.

use crate::ops::Prim;

/// One instruction of a compiled term (postfix).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) enum Instr {
    Var(usize),
    Lit(String),
    App { prim: Prim, lift: bool, argc: usize },
}

/// A pattern node of an optimisation rule (a flat tree: children by
/// index).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Pat {
    Var(usize),
    App { prim: Prim, lift: bool, args: Vec<usize> },
}
