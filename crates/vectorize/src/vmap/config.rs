//! The vectorizer's configuration and counters: [`VectorizeConfig`], the
//! limits one vectorization runs under (rewrites by optimisation rules,
//! nodes built), and [`Stats`], what it counted.
//!
//! A leaf of the `vmap` tree, depending on nothing else in the crate: the
//! entry point (`vmap/mod.rs`) takes the configuration and returns the
//! counts, the engine (`engine.rs`) hands the limits to the
//! rewrite-on-construction stage (`stage.rs`), and both add to the counts;
//! none of them imports another's items back through this module. `vmap`
//! and the crate root re-export both types, so their public paths stay
//! `vectorize::VectorizeConfig` and `vectorize::Stats`.
//!
//! Invariants: plain data, no behaviour beyond the defaults. A `Stats`
//! starts at zero (`Default`); during a vectorization its counters only
//! grow and `rewrite_limit_hit`, once set, stays set; `nodes_in` and
//! `nodes_out` are set once, by the entry point, at the end.

/// Limits of one vectorization.
#[derive(Clone, Debug)]
pub struct VectorizeConfig {
    /// Most rewrites by optimisation rules (egg's iteration limit).
    pub max_rewrites: u64,
    /// Most nodes in the vectorized graph.
    pub max_nodes: usize,
}

impl Default for VectorizeConfig {
    fn default() -> VectorizeConfig {
        VectorizeConfig { max_rewrites: 1 << 20, max_nodes: 1 << 26 }
    }
}

/// Counts of one vectorization.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Symbols in the input graph.
    pub nodes_in: usize,
    /// Symbols in the vectorized graph.
    pub nodes_out: usize,
    /// Rule applications (batched nodes).
    pub rules_applied: u64,
    /// Nodes copied because they are the same in every lane.
    pub copied: u64,
    /// Lambdas vectorized (one per lambda and calling pattern).
    pub lambdas: u64,
    /// Optimisation-rule rewrites.
    pub rewrites: u64,
    /// Nodes shared with an identical one already built.
    pub shared: u64,
    /// True when a rewrite limit stopped rewriting (egg's stop reason);
    /// the graph is correct, only less simplified.
    pub rewrite_limit_hit: bool,
}
