//! What the generator is asked for and what it reports: [`GenConfig`]
//! (sizes, nesting depth, which kinds of node to use) and [`Features`]
//! (how many nodes of each notable kind a generated graph holds, for the
//! tests' coverage assertions).
//!
//! A leaf of the `generate` tree, depending on nothing else in the crate:
//! the entry point (`generate/mod.rs`) and the node generator (`nodes.rs`)
//! both read the configuration and count features, and neither imports
//! the other's items back through this module. `generate` re-exports
//! both, so their public paths stay `vectorize::generate::GenConfig` and
//! `vectorize::generate::Features`.
//!
//! Invariants: plain data. Every `GenConfig` is usable as it is (the
//! generator clamps what it must, e.g. at least one parameter);
//! `Features` starts at zero (`Default`) and, during a generation, its
//! counts only grow (`+=` sums the counts of two graphs, as the tests do).

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
