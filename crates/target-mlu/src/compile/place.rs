//! Memory placement: every object at an aligned address in its space, in
//! declaration order, and the capacity check.
//!
//! Invariants: objects of one space never overlap; each starts at a
//! multiple of its space's alignment (`vector_align`, WRAM `wram_align`);
//! a space whose objects do not fit is an error listing every object of
//! the space with its size. Algorithm: bump allocation (objects live for
//! the whole kernel, so no reuse is possible without lifetimes, which slice
//! 2's buffer counts bring).

use super::error::CompileError;
use mlu_isa::{MachineConfig, Program, Space};

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

/// A placement failure; `retry` when smaller staging buffers could help.
#[derive(Debug)]
pub(crate) struct PlaceError {
    pub error: CompileError,
    pub retry: bool,
}

/// Assigns every object's address (objects past `kinds` are spill slots).
pub(crate) fn place(
    program: &mut Program,
    config: &MachineConfig,
    kinds: &[PlacedKind],
) -> Result<Vec<Placed>, PlaceError> {
    let kind = |i: usize| kinds.get(i).copied().unwrap_or(PlacedKind::Spill);
    let mut cursor = [0u64; 4];
    let mut placed = Vec::with_capacity(program.mems.len());
    for (i, m) in program.mems.iter_mut().enumerate() {
        let align = config.align(m.space).max(1);
        let c = &mut cursor[m.space.index()];
        let addr = c.div_ceil(align).saturating_mul(align);
        m.addr = addr;
        *c = addr.saturating_add(m.bytes());
        placed.push(Placed { name: m.name.clone(), space: m.space, addr, bytes: m.bytes(), kind: kind(i) });
    }
    for sp in Space::ALL {
        let cap = config.capacity(sp);
        let used = cursor[sp.index()];
        if used > cap {
            let list: Vec<String> = placed
                .iter()
                .filter(|p| p.space == sp)
                .map(|p| format!("@{} ({} bytes, {})", p.name, p.bytes, p.kind.name()))
                .collect();
            let retry = placed.iter().any(|p| p.space == sp && p.kind == PlacedKind::Stage);
            let scope = match sp {
                Space::Nram | Space::Wram => "per core",
                Space::Sram => "per cluster",
                Space::Dram => "on the chip",
            };
            return Err(PlaceError {
                error: CompileError::new(format!(
                    "{sp} overflows: the objects need {used} bytes, the machine has {cap} {scope}: {}",
                    list.join(", ")
                )),
                retry,
            });
        }
    }
    Ok(placed)
}
