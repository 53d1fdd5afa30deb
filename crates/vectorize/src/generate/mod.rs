//! A seeded generator of well-typed graphs (and of arguments for them),
//! for the vectorizer's oracle tests, fuzzing and benchmarks.
//!
//! Every generated graph verifies, and every call of its function
//! terminates: loops count a counter up to a bound of at most 7 (the bound
//! is `and(v, 7)` of some value, batched or not, so the trip count may
//! differ between lanes). Graphs mix every primitive: scalar arithmetic of
//! every class, compares, conversions, `select` of any type, arrays nested
//! two deep (ragged), `length`/`sum`/`max`/`any`, `index` (an index taken
//! modulo the length, so it traps only on an empty array), `broadcast`,
//! `concat`/`partition`, `map` (with arguments passed whole and zipped
//! arrays), `apply`, `if` and `while` with lambdas nested up to
//! [`GenConfig::depth`] deep, tuples, and (optionally) user-written lifted
//! operations with `*` flags and masks. Division by a possibly zero value,
//! an empty array indexed, and similar traps happen on some inputs, on
//! purpose: the oracle then checks that the vectorized graph traps too.
//!
//! Like Keel's program generator (`ir-gen`), it is a decoder over a
//! [`Source`] of choices (`source.rs`): a seeded [`SplitMix64`] or a
//! fuzzer's bytes ([`ByteSource`]); 0 is always the simplest choice, so an
//! empty input decodes to a small graph. Recursion is bounded by the configuration (lambda nesting is at
//! most `depth`, types at most two arrays deep), never by the input.
//!
//! # Panics
//! Never for any choices: a node that would not type is a bug of the
//! generator, which the tests would catch (`Builder` errors are
//! `expect`ed with a message).

use crate::graph::{Graph, Sym};
use crate::types::ValTy;
use nodes::{Body, Gen};
use source::{below, chance};

pub use config::{Features, GenConfig};
pub use source::{ByteSource, Source, SplitMix64};
pub use values::{random_args, random_value};

mod config;
mod nodes;
mod source;
mod values;

/// A generated graph: its function, which parameters to batch, and what
/// it contains.
#[derive(Debug)]
pub struct Generated {
    /// The graph.
    pub graph: Graph,
    /// Its one function.
    pub func: Sym,
    /// Which parameters the tests batch (at least one).
    pub in_axes: Vec<bool>,
    /// What it contains.
    pub features: Features,
}

/// Generates a graph with one function `@f`.
pub fn generate(cfg: &GenConfig, s: &mut dyn Source) -> Generated {
    let mut gn = Gen { g: Graph::new(), s, cfg: cfg.clone(), features: Features::default() };
    let nparams = 1 + below(gn.s, cfg.params.max(1));
    let params: Vec<ValTy> = (0..nparams).map(|_| gn.pick_param_ty()).collect();
    let f = gn.g.add_function("f", &params).expect("a fresh name");
    let ps = gn.g.lambda(f).map_or_else(Vec::new, |l| l.params.clone());
    let mut body = Body {
        scope: f,
        pool: ps.iter().copied().zip(params.iter().copied()).collect(),
        depth: 0,
        structured: Vec::new(),
    };
    for _ in 0..cfg.nodes {
        gn.step(&mut body, (cfg.nodes / 3).max(2));
    }
    let nres = 1 + below(gn.s, 2);
    let results: Vec<Sym> = (0..nres)
        .map(|_| {
            if !body.structured.is_empty() && chance(gn.s, 60) {
                return body.structured[below(gn.s, body.structured.len())];
            }
            let passable: Vec<Sym> = body.pool.iter().filter(|&&(_, t)| gn.passable(t)).map(|&(s, _)| s).collect();
            passable[passable.len() - 1 - below(gn.s, passable.len().min(4))]
        })
        .collect();
    gn.g.set_results(f, &results);
    let mut in_axes: Vec<bool> = (0..nparams).map(|_| below(gn.s, 4) != 0).collect();
    // Rows are always batched: one array per lane.
    for (axis, t) in in_axes.iter_mut().zip(&params) {
        *axis |= t.depth > 0 && !cfg.arrays;
    }
    if !in_axes.iter().any(|&b| b) {
        let i = below(gn.s, nparams);
        in_axes[i] = true;
    }
    let features = gn.features;
    Generated { graph: gn.g, func: f, in_axes, features }
}
