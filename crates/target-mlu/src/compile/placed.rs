//! What placement produces: each object's address, size and purpose
//! ([`Placed`], [`PlacedKind`]), reported in the compile report and named
//! by a capacity error.
//!
//! Invariant: plain data; this module depends on nothing else in the
//! compiler (module `place` computes these, module `error` names them).

use mlu_isa::Space;

/// What an object is for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PlacedKind {
    /// One of the Keel module's objects.
    Program,
    /// `@keel.args` / `@keel.ret`: the calling convention.
    Abi,
    /// An NRAM staging buffer (one per tensor slot).
    Stage,
    /// A whole-operand `matmul` buffer.
    MatmulBuffer,
    /// A DRAM copy of an object a source may alias.
    AliasCopy,
    /// The register allocator's spill slots.
    Spill,
    /// Multi-core reductions' per-core partial results.
    Partials,
}

impl PlacedKind {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            PlacedKind::Program => "program",
            PlacedKind::Abi => "abi",
            PlacedKind::Stage => "staging buffer",
            PlacedKind::MatmulBuffer => "matmul buffer",
            PlacedKind::AliasCopy => "alias copy",
            PlacedKind::Spill => "spill slots",
            PlacedKind::Partials => "per-core partials",
        }
    }
}

/// One placed object.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Placed {
    /// Its name in the program.
    pub name: String,
    /// Its space.
    pub space: Space,
    /// Its byte address.
    pub addr: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// What it is for.
    pub kind: PlacedKind,
}
