//! The interpreter's memory: one element array per memory object.
//!
//! Invariants: object `m` holds exactly `len(m)` elements; each element is
//! stored as the canonical bits of an [`Imm`] of the object's element type
//! (8 bytes per element, whatever the type: simplicity over density), so a
//! read is `Imm::from_bits(elem, bits)` with no conversion. Sizes are checked
//! against a byte budget before anything is allocated: the objects' storage
//! when the memory is made, and the temporaries a tensor instruction needs
//! (copies of sources that overlap its destination) when it runs, so the
//! budget bounds what the interpreter really allocates for memory. A
//! [`Memory::write`] from outside is all or nothing: a [`WriteError`] names
//! the object and what does not fit, and nothing is written.

use super::trap::{Trap, TrapKind};
use crate::entities::Mem;
use crate::imm::Imm;
use crate::module::Module;
use crate::types::Type;
use core::fmt;
use cranelift_entity::EntityRef;

/// Why [`Memory::write`] refused to write (and wrote nothing).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum WriteError {
    /// The module has no such memory object.
    NoSuchObject(Mem),
    /// More values than the object has elements.
    TooManyValues {
        /// The object.
        mem: Mem,
        /// Values given.
        values: usize,
        /// The object's elements.
        len: usize,
    },
    /// A value of another type than the object's elements.
    WrongType {
        /// The object.
        mem: Mem,
        /// The position of the first such value.
        index: usize,
        /// The object's element type.
        elem: Type,
        /// The value's type.
        given: Type,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WriteError::NoSuchObject(mem) => write!(f, "{mem} does not exist"),
            WriteError::TooManyValues { values, len, .. } => write!(f, "{values} values for {len} elements"),
            WriteError::WrongType { elem, given, .. } => write!(f, "the object holds {elem}, not {given}"),
        }
    }
}

impl std::error::Error for WriteError {}

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

    /// Overwrites the first `values.len()` elements of an object; on an
    /// error nothing is written.
    pub fn write(&mut self, mem: Mem, values: &[Imm]) -> Result<(), WriteError> {
        let Some(&elem) = self.elems.get(mem.index()) else { return Err(WriteError::NoSuchObject(mem)) };
        let obj = &mut self.data[mem.index()];
        if values.len() > obj.len() {
            return Err(WriteError::TooManyValues { mem, values: values.len(), len: obj.len() });
        }
        if let Some(index) = values.iter().position(|v| v.ty() != elem) {
            return Err(WriteError::WrongType { mem, index, elem, given: values[index].ty() });
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
