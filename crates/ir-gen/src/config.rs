//! The knobs of the generator, and their normalisation.
//!
//! Invariants: [`GenConfig`] is plain data a caller may fill with anything;
//! [`Knobs::new`] clamps every field into the range the generator supports
//! (rates into `[0, 1]` with NaN as 0, `max_depth <= 6`, at least one
//! function and one block, at least one var of every type), so no
//! configuration can make the generator fail, loop or emit invalid IR.

use crate::types::BASE_TYPES;

/// What to generate. Rates are probabilities per decision; a rate of 0
/// disables the feature and costs no input. The defaults give a small,
/// varied module.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    /// Blocks in the whole module. The module has exactly this many blocks
    /// whenever `blocks >= functions`; helper functions get at most 16
    /// each and `main` the rest. Up to 10^6 and beyond.
    pub blocks: usize,
    /// Vars of `main` that random instructions read and write, of mixed
    /// types (at least 7: one of every type). Helpers get at most 16.
    pub vars: usize,
    /// Random instructions to aim for, per var: the module gets about
    /// `vars * defs_per_var` of them, spread over its blocks, and never
    /// fewer than one per block.
    pub defs_per_var: f64,
    /// Rate of guarded (`@%p` / `@!%p`) random instructions.
    pub predication: f64,
    /// Rate of memory instructions among random instructions (scalar
    /// `load`/`store`, tensor maps, `dma`, reductions, `matmul`). When
    /// positive the module declares six memory objects.
    pub memory: f64,
    /// Rate at which a region is an irreducible two-block cycle (needs
    /// `max_depth >= 1`).
    pub irreducible: f64,
    /// Functions in the module, `main` included. Function `i` may call only
    /// functions `j > i`, so calls are acyclic.
    pub functions: usize,
    /// Maximum nesting of loops, ifs, switches and irreducible cycles
    /// (clamped to 6). 0 gives straight-line chains with early exits.
    pub max_depth: u32,
    /// Upper bound on every loop's and irreducible cycle's trip count.
    pub max_trips: u32,
    /// Rate at which a top-level step of `main` emits a run of one to four
    /// unreachable blocks instead of a region.
    pub unreachable: f64,
    /// Rate of phis at join blocks (one to three phis where it hits).
    pub phis: f64,
    /// Opt-in (off by default, like every knob below: with it off a seed
    /// gives the same module as before the knob existed): every memory
    /// descriptor and scalar index is *exact* (immediate offset and size),
    /// the input of exact-descriptor oracles.
    pub exact_memory: bool,
    /// Opt-in: rate at which a memory instruction inside a natural loop's
    /// body is a *tile* access, whose descriptors sit at `%kD · T + c`: an
    /// enclosing loop's counter (which goes down by one per trip) times a
    /// tile size, plus a constant (`%tN = mul %kD, T`, `%tN = add %tN, c`).
    pub tiles: f64,
    /// Opt-in: rate at which a descriptor's offset is a shared symbolic
    /// base plus a constant (`%offN = add %sb, c`; `%sb = and %v, 15` is
    /// redefined now and then), so that offsets of different instructions
    /// are related through one value.
    pub symbolic: f64,
    /// Opt-in: rate of calls to the external function `@ext_touch(i64,
    /// i64) -> i64`, which reads and writes memory (see
    /// [`crate::ExternMemory`], the handler a run then needs).
    pub extern_calls: f64,
    /// Only what the MLU ISA expresses (`target-mlu`'s compiler): the one
    /// WRAM object, which scalar and vector instructions cannot reach, is
    /// declared in NRAM instead. Off by default; with it off, every seed
    /// generates exactly what it did before the knob existed.
    pub mlu_expressible: bool,
    /// Opt-in (with `mlu_expressible`): the NRAM objects are declared in
    /// DRAM instead, so every object is shared by an MLU chip's cores
    /// (`target-mlu`'s multi-core split needs it). Off by default.
    pub shared_memory: bool,
    /// Opt-in: rate at which a random instruction inside a natural loop's
    /// body (or latch) is a *loop invariant*, `%vN = op %inv0, %inv1` with
    /// `op` a total integer operation: `%inv0` and `%inv1` are copies of
    /// random `i64` pool vars made once in the entry block and never
    /// written again. Every generated loop is top-tested (it may run zero
    /// times), so this is the family on which loop rotation lets PRE hoist
    /// what lazy code motion must leave in the loop.
    pub invariants: f64,
    /// Opt-in: rate at which a region that may nest is a natural loop
    /// before the menu of shapes is drawn from (which gives loops about
    /// one region in seven). Off by default.
    pub loops: f64,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            blocks: 64,
            vars: 16,
            defs_per_var: 4.0,
            predication: 0.1,
            memory: 0.1,
            irreducible: 0.1,
            functions: 1,
            max_depth: 3,
            max_trips: 3,
            unreachable: 0.05,
            phis: 0.0,
            exact_memory: false,
            tiles: 0.0,
            symbolic: 0.0,
            extern_calls: 0.0,
            mlu_expressible: false,
            shared_memory: false,
            invariants: 0.0,
            loops: 0.0,
        }
    }
}

/// The deepest nesting the generator emits; also the number of counter
/// vars a function may need.
pub const MAX_DEPTH: u32 = 6;

/// Most blocks [`GenConfig::check`] accepts (a 10^7-block module is a few
/// GB of IR).
pub const MAX_BLOCKS: usize = 10_000_000;

/// Most vars of `main` [`GenConfig::check`] accepts.
pub const MAX_VARS: usize = 1_000_000;

/// Most functions [`GenConfig::check`] accepts.
pub const MAX_FUNCTIONS: usize = 200_000;

/// Most random instructions (`vars * defs_per_var`) [`GenConfig::check`]
/// accepts.
pub const MAX_RANDOM_INSTS: f64 = 1e7;

/// Largest loop trip bound [`GenConfig::check`] accepts.
pub const MAX_TRIPS: u32 = 1_000;

/// A knob of [`GenConfig`] outside its documented range: the field and
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The field, as [`GenConfig`] spells it.
    pub field: &'static str,
    /// What is wrong with its value.
    pub kind: ConfigErrorKind,
}

/// What is wrong with a knob's value ([`ConfigError`]). `Display` gives
/// the requirement and the value, `must be ..., not ...`, so that a caller
/// naming the knob its own way (a command-line flag) can prefix its name.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigErrorKind {
    /// A rate outside `[0, 1]`, or NaN.
    Rate(f64),
    /// A count outside `min..=max`.
    Count {
        /// The value given.
        value: u64,
        /// The least accepted.
        min: u64,
        /// The most accepted.
        max: u64,
    },
    /// A `defs_per_var` that is negative or not finite.
    NotFiniteNonNegative(f64),
    /// `vars * defs_per_var` above [`MAX_RANDOM_INSTS`].
    TooManyInstructions {
        /// `defs_per_var`.
        defs_per_var: f64,
        /// `vars`.
        vars: usize,
        /// Their product.
        insts: f64,
    },
}

impl std::fmt::Display for ConfigErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ConfigErrorKind::Rate(r) => write!(f, "must be a rate between 0 and 1, not {r}"),
            ConfigErrorKind::Count { value, min: 0, max } => write!(f, "must be at most {max}, not {value}"),
            ConfigErrorKind::Count { value, min, max } => write!(f, "must be between {min} and {max}, not {value}"),
            ConfigErrorKind::NotFiniteNonNegative(v) => write!(f, "must be a finite number at least 0, not {v}"),
            ConfigErrorKind::TooManyInstructions { defs_per_var, vars, insts } => write!(
                f,
                "must be such that vars * defs_per_var is at most {MAX_RANDOM_INSTS:e}, not {defs_per_var} \
                 (with {vars} vars: {insts:e})"
            ),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.kind)
    }
}

impl std::error::Error for ConfigError {}

impl GenConfig {
    /// Checks every knob against its documented range: rates finite and in
    /// `[0, 1]`, `1 <= blocks <= MAX_BLOCKS`, `vars <= MAX_VARS`,
    /// `1 <= functions <= MAX_FUNCTIONS`, `max_depth <= MAX_DEPTH`,
    /// `max_trips <= MAX_TRIPS`, `defs_per_var` finite and non-negative,
    /// and `vars * defs_per_var <= MAX_RANDOM_INSTS`. The generator itself
    /// never needs this (it clamps; see the module doc): it is for callers
    /// that want a wrong knob to be an error rather than silently clamped.
    pub fn check(&self) -> Result<(), ConfigError> {
        let err = |field, kind| Err(ConfigError { field, kind });
        let count = |field, value: u64, min: u64, max: u64| {
            if (min..=max).contains(&value) { Ok(()) } else { err(field, ConfigErrorKind::Count { value, min, max }) }
        };
        let rates = [
            ("predication", self.predication),
            ("memory", self.memory),
            ("irreducible", self.irreducible),
            ("unreachable", self.unreachable),
            ("phis", self.phis),
            ("tiles", self.tiles),
            ("symbolic", self.symbolic),
            ("extern_calls", self.extern_calls),
            ("invariants", self.invariants),
            ("loops", self.loops),
        ];
        for (field, r) in rates {
            if !(0.0..=1.0).contains(&r) {
                return err(field, ConfigErrorKind::Rate(r));
            }
        }
        count("blocks", self.blocks as u64, 1, MAX_BLOCKS as u64)?;
        count("vars", self.vars as u64, 0, MAX_VARS as u64)?;
        count("functions", self.functions as u64, 1, MAX_FUNCTIONS as u64)?;
        count("max_depth", u64::from(self.max_depth), 0, u64::from(MAX_DEPTH))?;
        count("max_trips", u64::from(self.max_trips), 0, u64::from(MAX_TRIPS))?;
        if !(self.defs_per_var.is_finite() && self.defs_per_var >= 0.0) {
            return err("defs_per_var", ConfigErrorKind::NotFiniteNonNegative(self.defs_per_var));
        }
        let insts = self.vars as f64 * self.defs_per_var;
        if insts > MAX_RANDOM_INSTS {
            let kind = ConfigErrorKind::TooManyInstructions { defs_per_var: self.defs_per_var, vars: self.vars, insts };
            return err("defs_per_var", kind);
        }
        Ok(())
    }
}

/// Blocks per helper function, at most.
pub(crate) const HELPER_BLOCKS: usize = 16;

/// Pool vars per helper function, at most.
pub(crate) const HELPER_VARS: usize = 16;

/// A [`GenConfig`] with every field clamped into its supported range.
#[derive(Clone, Debug)]
pub(crate) struct Knobs {
    pub blocks: usize,
    pub vars: usize,
    pub insts_per_block: f64,
    pub predication: f64,
    pub memory: f64,
    pub irreducible: f64,
    pub functions: usize,
    pub max_depth: u32,
    pub max_trips: u32,
    pub unreachable: f64,
    pub phis: f64,
    pub exact_memory: bool,
    pub tiles: f64,
    pub symbolic: f64,
    pub extern_calls: f64,
    pub mlu_expressible: bool,
    pub shared_memory: bool,
    pub invariants: f64,
    pub loops: f64,
}

fn rate(r: f64) -> f64 {
    if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) }
}

impl Knobs {
    pub fn new(c: &GenConfig) -> Knobs {
        let blocks = c.blocks.max(1);
        let dpv = if c.defs_per_var.is_finite() { c.defs_per_var.max(0.0) } else { 0.0 };
        Knobs {
            blocks,
            vars: c.vars.max(BASE_TYPES.len()),
            insts_per_block: c.vars as f64 * dpv / blocks as f64,
            predication: rate(c.predication),
            memory: rate(c.memory),
            irreducible: rate(c.irreducible),
            functions: c.functions.max(1),
            max_depth: c.max_depth.min(MAX_DEPTH),
            max_trips: c.max_trips,
            unreachable: rate(c.unreachable),
            phis: rate(c.phis),
            exact_memory: c.exact_memory,
            tiles: rate(c.tiles),
            symbolic: rate(c.symbolic),
            extern_calls: rate(c.extern_calls),
            mlu_expressible: c.mlu_expressible,
            shared_memory: c.mlu_expressible && c.shared_memory,
            invariants: rate(c.invariants),
            loops: rate(c.loops),
        }
    }

    /// Blocks of each helper function: a small share of the budget, so that
    /// `main` keeps most of it and the module total is exact.
    pub fn helper_blocks(&self) -> usize {
        (self.blocks / (4 * self.functions)).clamp(1, HELPER_BLOCKS)
    }

    /// Blocks of `main`: the rest of the budget.
    pub fn main_blocks(&self) -> usize {
        self.blocks.saturating_sub((self.functions - 1) * self.helper_blocks()).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_names_the_knob_and_what_is_wrong() {
        assert_eq!(GenConfig::default().check(), Ok(()));
        let e = GenConfig { memory: 1.5, ..GenConfig::default() }.check().unwrap_err();
        assert_eq!(e, ConfigError { field: "memory", kind: ConfigErrorKind::Rate(1.5) });
        assert_eq!(e.to_string(), "memory must be a rate between 0 and 1, not 1.5");
        let e = GenConfig { blocks: 0, ..GenConfig::default() }.check().unwrap_err();
        assert_eq!(e.kind, ConfigErrorKind::Count { value: 0, min: 1, max: MAX_BLOCKS as u64 });
        assert_eq!(e.to_string(), format!("blocks must be between 1 and {MAX_BLOCKS}, not 0"));
        let e = GenConfig { max_depth: 7, ..GenConfig::default() }.check().unwrap_err();
        assert_eq!(e.to_string(), "max_depth must be at most 6, not 7");
        let e = GenConfig { defs_per_var: f64::NAN, ..GenConfig::default() }.check().unwrap_err();
        assert!(matches!(e.kind, ConfigErrorKind::NotFiniteNonNegative(v) if v.is_nan()), "{e}");
        let e = GenConfig { vars: 1_000_000, defs_per_var: 100.0, ..GenConfig::default() }.check().unwrap_err();
        assert!(matches!(e.kind, ConfigErrorKind::TooManyInstructions { vars: 1_000_000, .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "defs_per_var must be such that vars * defs_per_var is at most 1e7, not 100 (with 1000000 vars: 1e8)"
        );
    }
}
