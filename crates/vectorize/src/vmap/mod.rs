//! The vectorizer, as source document 003 ("a method and apparatus for
//! constructing a vectorized version of a source program having a
//! graph-based intermediate representation"; `docs/references.md`) designs
//! it in its figures 4, 7, 8 and 11: a **graph interpreter** walks each
//! lambda's body in dependence order keeping a **context** (original symbol
//! → vectorized symbol); for each node it calls the **staged evaluator**,
//! which looks the node up, maps its arguments through the context, takes
//! the **rule** for its primitive from the table keyed by primitive,
//! applies it, and records `sym -> sym'`. Every node the rule builds passes
//! through the optimisation rules first (rewrite on construction,
//! `stage.rs`). Lambdas are non-terminals: a new lambda `/l/` with new
//! params, its body vectorized in dependence order.
//!
//! Beyond document 003 (what issue 14 added):
//! - **Unmapped arguments.** Each vectorized value is *batched* (one value
//!   per lane, an extra outer array level) or *the same in every lane*. A
//!   node whose inputs are all the same in every lane is copied, not
//!   batched (JAX's `in_axes=None`); a lifted node passes such an input
//!   with the `*` flag and broadcasts it only where the primitive cannot
//!   take it whole. Loops keep unbatched whatever the "same in every lane"
//!   analysis ([`crate::Uniformity`]) proves unbatched: counters, bounds,
//!   constants.
//! - **Lambdas per calling pattern.** Since a lambda's params may be
//!   batched or not, `/l/` is built per (lambda, pattern, mode) at its use
//!   (JAX's per-call-site batching of a jaxpr) and memoized; document 003's
//!   `l -> /l/` is the all-batched case.
//! - **Masks.** Inside a branch taken by only some lanes, every node that
//!   may trap ([`crate::Purity`]) carries the lanes' mask, so inactive
//!   lanes neither trap nor loop; nodes the same in every lane are guarded
//!   by "some lane is active" (also at the top: an empty batch runs
//!   nothing that could trap).
//! - **No fallback.** A batched node whose primitive has no rule is an
//!   error ([`VectorizeErrorKind::NoRule`]); there is no per-element loop
//!   anywhere, so the vectorized graph's size does not depend on the batch.
//!
//! Invariants: no recursion, however deeply lambdas nest: lambda frames
//! are an explicit stack, and a node that needs a lambda not yet
//! vectorized suspends and is retried when it is (nothing is built before
//! all its lambdas are ready, so a retry builds nothing twice); every
//! output node is typed when built; bad input (an unverified graph, a bad
//! `in_axes`, a missing or ill-typed rule, a size limit) is a
//! [`VectorizeError`], never a panic.

mod config;
mod engine;
mod error;
mod stage;
mod strategy;
mod template;

use crate::graph::{Graph, Sym};
use crate::purity::Purity;
use crate::rules::RuleSet;
use crate::schedule::Schedule;
use crate::uniform::Uniformity;
use crate::verify::verify;
pub use config::{Stats, VectorizeConfig};
pub use error::{VectorizeError, VectorizeErrorKind};
pub use stage::MAX_REWRITE_DEPTH;
use std::sync::Arc;

/// The result: a graph holding the vectorized function.
#[derive(Debug)]
pub struct Vectorized {
    /// The new graph (only `/p/` and its lambdas).
    pub graph: Graph,
    /// `/p/`, named like `p`.
    pub func: Sym,
    /// Counts.
    pub stats: Stats,
}

/// A vectorizer configured with a rule set.
#[derive(Clone, Debug)]
pub struct Vectorizer {
    rules: Arc<RuleSet>,
    config: VectorizeConfig,
}

impl Default for Vectorizer {
    fn default() -> Vectorizer {
        Vectorizer::new(RuleSet::default())
    }
}

impl Vectorizer {
    /// A vectorizer with these rules and the default limits.
    pub fn new(rules: RuleSet) -> Vectorizer {
        Vectorizer { rules: Arc::new(rules), config: VectorizeConfig::default() }
    }

    /// A vectorizer with these rules and limits.
    pub fn with_config(rules: RuleSet, config: VectorizeConfig) -> Vectorizer {
        Vectorizer { rules: Arc::new(rules), config }
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Builds `/p/` for function `func` of `g`: parameter `i` becomes an
    /// array of per-lane values when `in_axes[i]` (at least one must be),
    /// and stays a single value shared by every lane otherwise; every
    /// result becomes an array of per-lane results, so that
    /// `eval(/p/, xs)[r][l] == eval(p, x_l)[r]`.
    pub fn vectorize(&self, g: &Graph, func: Sym, in_axes: &[bool]) -> Result<Vectorized, VectorizeError> {
        let error = |kind| VectorizeError { kind, sym: None };
        if let Err(errors) = verify(g) {
            return Err(error(VectorizeErrorKind::Unverified(errors)));
        }
        let Some(name) = g.function_name(func) else {
            return Err(error(VectorizeErrorKind::NotAFunction(func)));
        };
        let nparams = g.lambda(func).map_or(0, |l| l.params.len());
        if in_axes.len() != nparams {
            return Err(error(VectorizeErrorKind::InAxesLength {
                function: name.to_string(),
                params: nparams,
                in_axes: in_axes.len(),
            }));
        }
        if !in_axes.iter().any(|&b| b) {
            return Err(error(VectorizeErrorKind::NothingMapped));
        }
        let sched = Schedule::new(g).map_err(|s| error(VectorizeErrorKind::Cycle(s)))?;
        let stale = |e| error(VectorizeErrorKind::Stale(e));
        let purity = Purity::new(g, &sched).map_err(stale)?;
        let uni = Uniformity::new(g, &sched).map_err(stale)?;
        let mut eng = engine::Engine::new(g, &sched, &purity, uni, Arc::clone(&self.rules), &self.config);
        let func_out = eng.run(func, name, in_axes)?;
        let mut stats = eng.stats();
        let graph = eng.into_graph();
        stats.nodes_in = g.len();
        stats.nodes_out = graph.len();
        Ok(Vectorized { graph, func: func_out, stats })
    }
}

/// [`Vectorizer::vectorize`] with the default rules.
pub fn vectorize(g: &Graph, func: Sym, in_axes: &[bool]) -> Result<Vectorized, VectorizeError> {
    Vectorizer::default().vectorize(g, func, in_axes)
}
