//! Memory placement: every object at an aligned address in its space, in
//! declaration order, and the capacity check.
//!
//! Invariants: objects of one space never overlap; each starts at a
//! multiple of its space's alignment (`vector_align`, WRAM `wram_align`);
//! a space whose objects do not fit is an error listing every object of
//! the space with its size. Algorithm: bump allocation (objects live for
//! the whole kernel, so no reuse is possible without lifetimes, which slice
//! 2's buffer counts bring).

pub use super::placed::{Placed, PlacedKind};

use super::error::CompileError;
use mlu_isa::{MachineConfig, Program, Space};

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
            let objects: Vec<Placed> = placed.iter().filter(|p| p.space == sp).cloned().collect();
            let retry = objects.iter().any(|p| p.kind == PlacedKind::Stage);
            return Err(PlaceError {
                error: CompileError::SpaceOverflow { space: sp, used, capacity: cap, objects },
                retry,
            });
        }
    }
    Ok(placed)
}
