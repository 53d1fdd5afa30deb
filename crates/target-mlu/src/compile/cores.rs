//! The shape of a multi-core kernel, as the lowering hands it to the sync
//! placement: its [`Region`]s, how a split region shares its objects out
//! ([`Partition`]), the core count ([`Cores`]), and the one barrier every
//! core passes ([`barrier_over`]). Module `split` documents the model.
//!
//! Invariants: regions never nest; a region starts with a `nop` that no
//! branch inside it targets; every core passes the same barriers in the
//! same order, so one barrier id serves them all. This module depends on
//! nothing else in the compiler: the emitter records regions, the
//! lowering fills them in, the syncs pass reads them.

use mlu_isa::{Inst, Operand, Scope};

/// A region of multi-core code: instructions `start..end` whose
/// shared-memory accesses other cores must wait for (module `split`);
/// `start` is a `nop` no branch inside the region targets.
#[derive(Clone, Debug)]
pub struct Region {
    /// First instruction (the entry `nop`).
    pub start: u32,
    /// One past the last instruction.
    pub end: u32,
    /// How a split region shares its objects out, when known.
    pub partition: Option<Partition>,
}

/// How a split region shares its objects out: `n` elements in tiles of
/// `te`, core `c` taking the same contiguous run of tiles in every region
/// with the same `n` and `te` (module `split`), of each listed object at
/// its element offset. Two such regions with equal `n` and `te` touch an
/// object at one offset only in the same core's part.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Partition {
    /// Elements.
    pub n: u64,
    /// Elements per tile.
    pub te: u64,
    /// The objects and element offsets the region's tiles access.
    pub objects: Vec<(u32, i64)>,
}

/// Multi-core code: how many cores run it, and its regions (see
/// module `syncs`, which places the barriers between them).
#[derive(Clone, Debug)]
pub(crate) struct Cores {
    /// Cores running the kernel (the barrier count).
    pub count: u32,
    /// The regions.
    pub regions: Vec<Region>,
}

/// The barrier over `cores` cores: local within one cluster, global past
/// it; one id (every core passes the same barriers in the same order).
pub(crate) fn barrier_over(cores: u32) -> Inst {
    let scope = if cores <= 4 { Scope::Local } else { Scope::Global };
    Inst::Barrier { scope, id: Operand::Imm(0), count: Operand::int(i64::from(cores)) }
}
