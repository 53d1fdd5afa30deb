//! What the allocator is asked: the registers, the local rule, the global
//! step, carrying values across edges, loop weights, webs, unrolling and
//! the memory budget ([`Options`], [`GlobalStep`]).
//!
//! Invariant: plain data, no behaviour beyond defaults; the modules that
//! read the options depend on this one, never the other way round.

use crate::class::Regs;
use crate::game::LocalRule;

/// How the registers left after local allocation are given out.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum GlobalStep {
    /// No global step: every register is local.
    Off,
    /// Greedily by local loads + stores weighted by loop depth (default).
    #[default]
    Weighted,
    /// Greedily by lifetime (blocks where live), ties by use count, then
    /// loop depth (document 004's variant).
    Lifetime,
}

/// How values get registers across blocks.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Strategy {
    /// The whole-function allocator (default): Belady's rule over global
    /// next-use distances, registers assigned in the same sweep
    /// (`crate::belady`).
    #[default]
    Global,
    /// Issue 15's allocator: each block's pebble game with
    /// [`Options::local_rule`], values carried across edges, and the
    /// global step ([`Options::global`]).
    Blocks,
}

/// Allocation options.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Options {
    /// Registers per class (`P`).
    pub regs: Regs,
    /// The whole-function allocator, or block games with a global step.
    pub strategy: Strategy,
    /// How each block's game decides spills and registers: document 004's
    /// `Local-Alloc` exactly, or (default) refined by a Belady re-plan
    /// that keeps the cheaper game.
    pub local_rule: LocalRule,
    /// The global step.
    pub global: GlobalStep,
    /// `q`, the registers per class the local allocation uses when the
    /// global step runs; `None` searches it.
    pub local_regs: Option<u32>,
    /// Keep values in registers across edges (fix-ups on edges); `false`
    /// is document 004's model: block boundaries in memory.
    pub carry: bool,
    /// The weight of one loop level: a block at depth `d` counts
    /// `loop_weight^d`.
    pub loop_weight: u64,
    /// Allocate webs rather than vars: a var reused for unrelated values
    /// becomes several names, each with its own live range, register and
    /// home slot ([`crate::webs`]). On by default; `false` allocates the
    /// vars as given.
    pub webs: bool,
    /// Document 004's alternative to fix-up moves on back edges: with a
    /// value `k > 1`, the Keel driver ([`crate::allocate_in_module`],
    /// pebble method) also allocates the function with its innermost
    /// loops unrolled 2..=`k` times and keeps the cheapest per original
    /// iteration (`unroll`, feature `keel`). 1 (the default) never unrolls.
    pub unroll: u32,
    /// The memory budget, in bytes, of the tables that grow with a product
    /// of sizes: the liveness bit matrices ([`cfg_dom::Liveness::matrix_bytes`]
    /// over the blocks and the vars plus definitions, which bound the webs)
    /// are estimated before anything is allocated, and a larger function
    /// is refused with [`AllocError::TooLarge`](crate::AllocError::TooLarge);
    /// the Chaitin-Briggs baseline's interference graph is counted as it
    /// is built ([`AllocError::InterferenceTooLarge`](crate::AllocError::InterferenceTooLarge)).
    /// Default [`DEFAULT_MAX_MEMORY`].
    pub max_memory: u64,
}

/// The default [`Options::max_memory`]: 2 GiB, the Keel CLI's default
/// `--max-memory`.
pub const DEFAULT_MAX_MEMORY: u64 = 2 << 30;

impl Default for Options {
    fn default() -> Options {
        Options {
            regs: Regs::new(16, 16),
            strategy: Strategy::Global,
            local_rule: LocalRule::Searched,
            global: GlobalStep::Weighted,
            local_regs: None,
            carry: true,
            loop_weight: 10,
            webs: true,
            unroll: 1,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl Options {
    /// `p` scalar and `p` vector registers, defaults otherwise.
    pub fn with_regs(p: u32) -> Options {
        Options { regs: Regs::uniform(p), ..Options::default() }
    }
}
