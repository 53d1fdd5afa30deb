//! How to compile: [`CompileOptions`] and the choices it makes
//! ([`SyncPolicy`], [`AllocatorChoice`]).
//!
//! Invariants: plain data with no behaviour of its own; the default is the
//! full compiler (memdep-placed syncs, double buffering, `regalloc-pebble`,
//! one core) and [`CompileOptions::naive`] issue 17's baseline. This
//! module depends on nothing else in the compiler: the driver and the
//! lowering read it, neither is read by it.

/// How to compile.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Bytes of each NRAM staging buffer (a multiple of 512); `None` picks
    /// the largest of 64 KiB, 32 KiB, ... 512 B that fits beside the
    /// program's own objects.
    pub tile_bytes: Option<u64>,
    /// Run the allocation checkers even in release builds (they always
    /// run in debug builds): `check_allocation`, and for
    /// [`PebbleAllocator`](super::PebbleAllocator) also
    /// `regalloc_pebble::check`.
    pub check: bool,
    /// The register allocator [`compile`](super::compile) uses.
    pub allocator: AllocatorChoice,
    /// Where syncs go: from `memdep`'s dependences (the default) or after
    /// every copy and compute instruction (the naive baseline).
    pub syncs: SyncPolicy,
    /// One staging buffer per tensor slot (the naive baseline), instead of
    /// ping-pong buffers for tile loops `memdep` proves independent.
    pub single_buffer: bool,
    /// Cores to split the kernel over (0 and 1: one core). Up to 4 share a
    /// cluster (local barriers, partials in SRAM); more must be a multiple
    /// of 4 (global barriers, partials in DRAM). See module `split`.
    pub cores: u32,
    /// The memory budget, in bytes, of the dependence analysis behind sync
    /// placement (`memdep::Options::max_memory`); `None` keeps memdep's
    /// default (2 GiB). Over it, compilation stops with
    /// [`CompileError::SyncsTooLarge`](super::CompileError::SyncsTooLarge).
    pub max_memory: Option<u64>,
}

impl CompileOptions {
    /// Issue 17's naive lowering: a sync after every copy and compute
    /// instruction, one buffer per tensor slot (registers still come from
    /// [`CompileOptions::allocator`]).
    pub fn naive() -> CompileOptions {
        CompileOptions { syncs: SyncPolicy::Naive, single_buffer: true, ..CompileOptions::default() }
    }
}

/// Where [`compile`](super::compile) puts syncs.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum SyncPolicy {
    /// Before the first access that `memdep` says depends on an in-flight
    /// copy or compute instruction of another pipe (slice 3, module
    /// `syncs`).
    #[default]
    Dependences,
    /// After every copy and every compute instruction (slice 1's naive
    /// policy).
    Naive,
}

/// Which register allocator [`compile`](super::compile) uses.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum AllocatorChoice {
    /// `regalloc-pebble` ([`PebbleAllocator`](super::PebbleAllocator),
    /// slice 2).
    #[default]
    Pebble,
    /// One home per virtual register
    /// ([`HomeAllocator`](super::HomeAllocator), slice 1): the naive
    /// baseline.
    Home,
}
