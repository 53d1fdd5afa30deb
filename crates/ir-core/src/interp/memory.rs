//! The interpreter's memory: one element array per memory object.
//!
//! Invariants: object `m` holds exactly `len(m)` elements; each element is
//! stored as the canonical bits of an [`Imm`] of the object's element type
//! (8 bytes per element, whatever the type: simplicity over density), so a
//! read is `Imm::from_bits(elem, bits)` with no conversion. Sizes are checked
//! against a byte budget before anything is allocated: the objects' storage
//! when the memory is made, and the temporaries a tensor instruction needs
//! (copies of sources that overlap its destination) when it runs, so the
//! budget bounds what the interpreter really allocates for memory.

use super::trap::{Trap, TrapKind};
use crate::entities::Mem;
use crate::imm::Imm;
use crate::module::Module;
use crate::types::Type;
use cranelift_entity::EntityRef;

/// The contents of every memory object of a module.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Memory {
    elems: Vec<Type>,
    data: Vec<Vec<u64>>,
    /// The byte budget, and the bytes the objects take.
    limit_bytes: u64,
    object_bytes: u64,
}

impl Memory {
    /// Memory for `module`, initialised from each object's initial values
    /// (the rest zero). Fails if the objects need more than `limit_bytes`
    /// of interpreter storage (8 bytes per element).
    pub fn new(module: &Module, limit_bytes: u64) -> Result<Memory, Trap> {
        let total: u64 = module.mems().map(|(_, m)| m.len).fold(0u64, u64::saturating_add);
        if total.saturating_mul(8) > limit_bytes {
            return Err(Trap::new(
                TrapKind::MemoryLimit,
                format!(
                    "the memory objects need {} bytes of interpreter storage; the limit is {limit_bytes}",
                    total.saturating_mul(8)
                ),
            ));
        }
        let mut mem =
            Memory { elems: Vec::new(), data: Vec::new(), limit_bytes, object_bytes: total.saturating_mul(8) };
        for (_, obj) in module.mems() {
            let mut v = vec![0u64; obj.len as usize];
            for (slot, init) in v.iter_mut().zip(&obj.init) {
                *slot = init.with_type(obj.elem).bits();
            }
            mem.elems.push(obj.elem);
            mem.data.push(v);
        }
        Ok(mem)
    }

    /// The element type of an object.
    pub fn elem_type(&self, mem: Mem) -> Option<Type> {
        self.elems.get(mem.index()).copied()
    }

    /// Number of elements of an object.
    pub fn len(&self, mem: Mem) -> usize {
        self.data.get(mem.index()).map_or(0, Vec::len)
    }

    /// True when the module has no memory objects.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// One element.
    pub fn get(&self, mem: Mem, index: usize) -> Option<Imm> {
        let bits = *self.data.get(mem.index())?.get(index)?;
        Some(Imm::from_bits(self.elems[mem.index()], bits))
    }

    /// Stores one element; `false` if out of range or of the wrong type.
    pub fn set(&mut self, mem: Mem, index: usize, value: Imm) -> bool {
        match (self.elems.get(mem.index()), self.data.get_mut(mem.index())) {
            (Some(&elem), Some(obj)) if elem == value.ty() && index < obj.len() => {
                obj[index] = value.bits();
                true
            }
            _ => false,
        }
    }

    /// Every element of an object.
    pub fn elements(&self, mem: Mem) -> Vec<Imm> {
        let Some(&elem) = self.elems.get(mem.index()) else { return Vec::new() };
        self.data[mem.index()].iter().map(|&b| Imm::from_bits(elem, b)).collect()
    }

    /// Overwrites the first `values.len()` elements of an object.
    pub fn write(&mut self, mem: Mem, values: &[Imm]) -> Result<(), String> {
        let Some(&elem) = self.elems.get(mem.index()) else { return Err(format!("{mem} does not exist")) };
        let obj = &mut self.data[mem.index()];
        if values.len() > obj.len() {
            return Err(format!("{} values for {} elements", values.len(), obj.len()));
        }
        if let Some(bad) = values.iter().find(|v| v.ty() != elem) {
            return Err(format!("the object holds {elem}, not {}", bad.ty()));
        }
        for (slot, v) in obj.iter_mut().zip(values) {
            *slot = v.bits();
        }
        Ok(())
    }

    /// Checks that a temporary of `elements` elements fits in the budget
    /// beside the objects.
    pub(crate) fn reserve_temporary(&self, elements: usize) -> Result<(), Trap> {
        let bytes = (elements as u64).saturating_mul(8);
        if self.object_bytes.saturating_add(bytes) > self.limit_bytes {
            return Err(Trap::new(
                TrapKind::MemoryLimit,
                format!(
                    "a temporary of {bytes} bytes (an operand overlapping the destination) does not fit beside the \
                     {} bytes of memory objects; the limit is {}",
                    self.object_bytes, self.limit_bytes
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn raw(&self, mem: Mem) -> &[u64] {
        self.data.get(mem.index()).map_or(&[], Vec::as_slice)
    }

    pub(crate) fn raw_mut(&mut self, mem: Mem) -> &mut [u64] {
        self.data.get_mut(mem.index()).map_or(&mut [], Vec::as_mut_slice)
    }
}
