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
use crate::scalar::{Imm, ScalarTy};
use crate::types::ValTy;
use crate::value::{ArrayBuilder, Value};
use nodes::{Body, Gen};
pub use source::{ByteSource, Source, SplitMix64};

mod nodes;
mod source;

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Nodes attempted per body (nested bodies get fewer).
    pub nodes: usize,
    /// Parameters of the function (at least 1).
    pub params: usize,
    /// Deepest nesting of lambdas.
    pub depth: u32,
    /// Generate `while` loops.
    pub loops: bool,
    /// Generate user-written lifted operations (`fadd.1`, `*` flags, masks).
    pub lifted: bool,
    /// Allow operations that may trap on some inputs.
    pub trapping: bool,
    /// Generate array types and operations (`map`, `index`, ...); without
    /// them graphs are scalar programs with `if`, `while` and `apply`
    /// (the subset the lowering to Keel IR handles once vectorized).
    pub arrays: bool,
    /// With `arrays` off: some parameters are `array<S>` (always batched),
    /// used only whole by a row reduction (`sum`, `max`, `any`, `length`)
    /// in the function's own body, as `@mean` uses its array. These are the
    /// programs the import from Keel IR produces, and they stay in the
    /// subset the lowering handles. Ignored when `arrays` is on.
    pub rows: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            nodes: 12,
            params: 3,
            depth: 2,
            loops: true,
            lifted: true,
            trapping: true,
            arrays: true,
            rows: false,
        }
    }
}

/// Counts of the features a graph holds (for coverage assertions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `map` nodes.
    pub maps: usize,
    /// `apply` nodes.
    pub applies: usize,
    /// `if` nodes.
    pub ifs: usize,
    /// `while` nodes.
    pub whiles: usize,
    /// Lifted (depth > 0) nodes written by the generator.
    pub lifted: usize,
    /// Masked nodes.
    pub masked: usize,
    /// `index` nodes.
    pub indexes: usize,
    /// Nodes whose type is nested two arrays deep.
    pub nested: usize,
}

impl core::ops::AddAssign for Features {
    fn add_assign(&mut self, o: Features) {
        self.maps += o.maps;
        self.applies += o.applies;
        self.ifs += o.ifs;
        self.whiles += o.whiles;
        self.lifted += o.lifted;
        self.masked += o.masked;
        self.indexes += o.indexes;
        self.nested += o.nested;
    }
}

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

pub(crate) fn below(s: &mut dyn Source, n: usize) -> usize {
    s.choose(n as u64) as usize
}

pub(crate) fn chance(s: &mut dyn Source, percent: u64) -> bool {
    s.choose(100) >= 100 - percent
}

pub(crate) const SCALARS: [ScalarTy; 5] = [ScalarTy::I32, ScalarTy::F32, ScalarTy::I64, ScalarTy::F64, ScalarTy::I1];

/// A random value of `ty` (arrays of 0 to 4 elements, ragged when nested).
pub fn random_value(ty: ValTy, s: &mut dyn Source) -> Value {
    if ty.depth == 0 {
        return Value::Scalar(random_scalar(ty.scalar, s));
    }
    // Iterative: a stack of builders, one per open level.
    let mut stack: Vec<(ArrayBuilder, usize)> = Vec::new();
    let len = |s: &mut dyn Source| if chance(s, 15) { 0 } else { 1 + below(s, 4) };
    stack.push((ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - 1)), len(s)));
    loop {
        let level = stack.len() as u32;
        let (b, left) = stack.last_mut().expect("a level");
        if *left == 0 {
            let (b, _) = stack.pop().expect("a level");
            let v = Value::from(b.finish());
            match stack.last_mut() {
                Some((parent, _)) => {
                    parent.push(&v);
                }
                None => return v,
            }
            continue;
        }
        *left -= 1;
        if level == ty.depth {
            let x = random_scalar(ty.scalar, s);
            b.push_scalar(x);
        } else {
            let n = len(s);
            stack.push((ArrayBuilder::new(ValTy::array(ty.scalar, ty.depth - level - 1)), n));
        }
    }
}

pub(crate) fn random_scalar(t: ScalarTy, s: &mut dyn Source) -> Imm {
    match t {
        ScalarTy::I1 => Imm::bool(below(s, 2) == 1),
        ScalarTy::F32 | ScalarTy::F64 => {
            let v = match below(s, 12) {
                0 => f64::NAN,
                1 => -0.0,
                2 => f64::INFINITY,
                3 => 1e30,
                n => (n as f64 - 7.0) * 0.75 + below(s, 3) as f64,
            };
            if t == ScalarTy::F32 { Imm::f32(v as f32) } else { Imm::f64(v) }
        }
        _ => {
            let v = match below(s, 14) {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => -1,
                n => n as i64 - 6,
            };
            Imm::int(t, v)
        }
    }
}

/// Arguments for `func` of `g`: one random value per parameter.
pub fn random_args(g: &Graph, func: Sym, s: &mut dyn Source) -> Vec<Value> {
    g.param_types(func).into_iter().map(|t| random_value(t, s)).collect()
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
