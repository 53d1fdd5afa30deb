//! The machine's memories: NRAM and WRAM per core, SRAM per cluster, DRAM
//! once, as byte arrays (little-endian).
//!
//! Invariants: on-chip memories have their configuration's full capacity
//! (zero-filled, so the operating system maps pages lazily); DRAM holds the
//! program's DRAM objects (`Program::extent(Dram)` bytes). Every access is
//! checked before it touches a byte: a negative address or a DRAM access
//! past the objects is out of bounds, an on-chip access past the capacity
//! is a capacity overflow. Initial values are written at creation, every
//! instance of a per-core or per-cluster object getting the same values.

use crate::error::{LoadError, WriteError};
use crate::trap::TrapKind;
use mlu_isa::{MachineConfig, MemDecl, Program, Space, Ty};

/// Which copy of a space: a core's NRAM or WRAM, a cluster's SRAM, or DRAM.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Instance {
    /// A core's (by task id).
    Core(u32),
    /// A cluster's.
    Cluster(u32),
    /// DRAM.
    Global,
}

/// All memories of a launched grid.
#[derive(Clone, Debug)]
pub struct Memory {
    nram: Vec<Vec<u8>>,
    wram: Vec<Vec<u8>>,
    sram: Vec<Vec<u8>>,
    dram: Vec<u8>,
    cores_per_cluster: u32,
}

impl Memory {
    /// Memories for `clusters` clusters of `per_cluster` cores of `config`,
    /// holding `program`'s initial values. Fails if an object does not fit
    /// its space or has more initial values than elements.
    pub fn new(
        config: &MachineConfig,
        program: &Program,
        clusters: u32,
        per_cluster: u32,
    ) -> Result<Memory, LoadError> {
        let cores = clusters as usize * per_cluster as usize;
        let dram = program.extent(Space::Dram);
        if dram > config.dram_bytes {
            return Err(LoadError::Dram { need: dram, config: config.name.clone(), has: config.dram_bytes });
        }
        let dram_len = usize::try_from(dram).map_err(|_| LoadError::DramHost { bytes: dram })?;
        let cap = |s: Space| usize::try_from(config.capacity(s)).unwrap_or(usize::MAX);
        for m in &program.mems {
            if m.space != Space::Dram && m.end() > config.capacity(m.space) {
                return Err(LoadError::ObjectTooLarge {
                    name: m.name.clone(),
                    start: m.addr,
                    end: m.end(),
                    capacity: config.capacity(m.space),
                    space: m.space,
                });
            }
            // Initial values past the last element would be written past
            // the object (and, at a space's end, past the memory).
            if m.init.len() as u64 > m.len {
                return Err(LoadError::TooManyInitialValues { name: m.name.clone(), values: m.init.len(), len: m.len });
            }
        }
        // One zeroed allocation each (not clones of one), so the operating
        // system maps pages only when they are touched.
        let zeroed = |n: usize, len: usize| -> Vec<Vec<u8>> { (0..n).map(|_| vec![0; len]).collect() };
        let mut mem = Memory {
            nram: zeroed(cores, cap(Space::Nram)),
            wram: zeroed(cores, cap(Space::Wram)),
            sram: zeroed(clusters as usize, cap(Space::Sram)),
            dram: vec![0; dram_len],
            cores_per_cluster: per_cluster,
        };
        for m in &program.mems {
            for inst in mem.instances(m.space) {
                let bytes = mem.instance_mut(m.space, inst);
                for (i, &v) in m.init.iter().enumerate() {
                    let at = m.addr as usize + i * m.ty.bytes() as usize;
                    store_bits(&mut bytes[at..at + m.ty.bytes() as usize], m.ty, v);
                }
            }
        }
        Ok(mem)
    }

    /// The instances of `space` in this grid, in order.
    pub fn instances(&self, space: Space) -> Vec<Instance> {
        match space {
            Space::Nram | Space::Wram => (0..self.nram.len() as u32).map(Instance::Core).collect(),
            Space::Sram => (0..self.sram.len() as u32).map(Instance::Cluster).collect(),
            Space::Dram => vec![Instance::Global],
        }
    }

    /// The bytes of one instance of a space (empty if it does not exist).
    pub fn instance(&self, space: Space, inst: Instance) -> &[u8] {
        let v = match (space, inst) {
            (Space::Nram, Instance::Core(c)) => self.nram.get(c as usize),
            (Space::Wram, Instance::Core(c)) => self.wram.get(c as usize),
            (Space::Sram, Instance::Cluster(k)) => self.sram.get(k as usize),
            (Space::Dram, Instance::Global) => Some(&self.dram),
            _ => None,
        };
        v.map_or(&[], Vec::as_slice)
    }

    fn instance_mut(&mut self, space: Space, inst: Instance) -> &mut [u8] {
        let v = match (space, inst) {
            (Space::Nram, Instance::Core(c)) => self.nram.get_mut(c as usize),
            (Space::Wram, Instance::Core(c)) => self.wram.get_mut(c as usize),
            (Space::Sram, Instance::Cluster(k)) => self.sram.get_mut(k as usize),
            (Space::Dram, Instance::Global) => Some(&mut self.dram),
            _ => None,
        };
        v.map_or(&mut [], Vec::as_mut_slice)
    }

    /// The instance of `space` that core `core` (task id) reaches.
    pub fn instance_of(&self, space: Space, core: u32) -> Instance {
        match space {
            Space::Nram | Space::Wram => Instance::Core(core),
            Space::Sram => Instance::Cluster(core / self.cores_per_cluster),
            Space::Dram => Instance::Global,
        }
    }

    /// The buffer of `space` that core `core` reaches.
    pub(crate) fn buf(&self, space: Space, core: u32) -> &[u8] {
        self.instance(space, self.instance_of(space, core))
    }

    /// The mutable buffer of `space` that core `core` reaches.
    pub(crate) fn buf_mut(&mut self, space: Space, core: u32) -> &mut Vec<u8> {
        match space {
            Space::Nram => &mut self.nram[core as usize],
            Space::Wram => &mut self.wram[core as usize],
            Space::Sram => &mut self.sram[(core / self.cores_per_cluster) as usize],
            Space::Dram => &mut self.dram,
        }
    }

    /// Checks an access of `len` bytes at `addr` (a 64-bit pattern read as
    /// signed) in the `space` core `core` reaches; returns the start.
    pub(crate) fn check(&self, space: Space, core: u32, addr: u64, len: u64) -> Result<usize, (TrapKind, String)> {
        let size = self.buf(space, core).len() as u64;
        if (addr as i64) < 0 {
            return Err((TrapKind::OutOfBounds, format!("{space} address {} is negative", addr as i64)));
        }
        match addr.checked_add(len) {
            Some(end) if end <= size => Ok(addr as usize),
            _ => {
                let end = addr.saturating_add(len);
                Err(if space == Space::Dram {
                    (
                        TrapKind::OutOfBounds,
                        format!("dram bytes {addr}..{end} are outside the program's DRAM objects (0..{size})"),
                    )
                } else {
                    (TrapKind::Capacity, format!("{space} bytes {addr}..{end} exceed its capacity of {size} bytes"))
                })
            }
        }
    }

    /// Copies `len` bytes from (`src_space`, `src`) to (`dst_space`, `dst`),
    /// both reached by core `core` and already checked; overlap within one
    /// buffer behaves as if copied through a temporary.
    pub(crate) fn copy(&mut self, core: u32, dst_space: Space, dst: usize, src_space: Space, src: usize, len: usize) {
        if dst_space == src_space {
            self.buf_mut(dst_space, core).copy_within(src..src + len, dst);
        } else {
            let taken = std::mem::take(self.buf_mut(dst_space, core));
            let mut out = taken;
            out[dst..dst + len].copy_from_slice(&self.buf(src_space, core)[src..src + len]);
            *self.buf_mut(dst_space, core) = out;
        }
    }

    /// An object's values (canonical bits) in one instance.
    pub fn read_object(&self, m: &MemDecl, inst: Instance) -> Vec<u64> {
        self.read_object_range(m, inst, 0, usize::MAX)
    }

    /// At most `count` values of an object in one instance, from element
    /// `start`.
    pub fn read_object_range(&self, m: &MemDecl, inst: Instance, start: usize, count: usize) -> Vec<u64> {
        let bytes = self.instance(m.space, inst);
        let w = m.ty.bytes() as usize;
        let len = m.len as usize;
        let end = start.saturating_add(count).min(len);
        (start.min(end)..end)
            .map(|i| {
                let at = m.addr as usize + i * w;
                bytes.get(at..at + w).map_or(0, |b| load_bits(b, m.ty))
            })
            .collect()
    }

    /// Writes `values` (bits, canonicalized) to the first elements of an
    /// object in every instance of its space. Fails if there are more
    /// values than elements.
    pub fn write_object(&mut self, m: &MemDecl, values: &[u64]) -> Result<(), WriteError> {
        if values.len() as u64 > m.len {
            return Err(WriteError::TooManyValues { name: m.name.clone(), len: m.len, given: values.len() });
        }
        let w = m.ty.bytes() as usize;
        for inst in self.instances(m.space) {
            let bytes = self.instance_mut(m.space, inst);
            for (i, &v) in values.iter().enumerate() {
                let at = m.addr as usize + i * w;
                if let Some(slot) = bytes.get_mut(at..at + w) {
                    store_bits(slot, m.ty, m.ty.canonical(v));
                }
            }
        }
        Ok(())
    }
}

/// Reads a value of `ty` (little-endian) as canonical bits.
pub(crate) fn load_bits(b: &[u8], ty: Ty) -> u64 {
    let mut raw = [0u8; 8];
    raw[..b.len()].copy_from_slice(b);
    ty.canonical(u64::from_le_bytes(raw))
}

/// Writes the low `bytes(ty)` bytes of `v` (little-endian); `i1` as 0 or 1.
pub(crate) fn store_bits(b: &mut [u8], ty: Ty, v: u64) {
    let v = if ty == Ty::I1 { v & 1 } else { v };
    let n = b.len();
    b.copy_from_slice(&v.to_le_bytes()[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_placed_and_checked() {
        let (p, _) = mlu_isa::text::parse(
            ".mem @d: i16[4] dram = [1, -1]\n.mem @n: f32[2] nram = [2.5]\n.mem @s: i8[3] sram = [7]\n    exit\n",
        )
        .unwrap();
        let c = MachineConfig::mlu370();
        let m = Memory::new(&c, &p, 2, 4).unwrap();
        assert_eq!(m.read_object(&p.mems[0], Instance::Global), [1, u64::MAX, 0, 0]);
        assert_eq!(m.read_object(&p.mems[1], Instance::Core(7)), [u64::from(2.5f32.to_bits()), 0]);
        assert_eq!(m.read_object(&p.mems[2], Instance::Cluster(1)), [7, 0, 0]);
        assert_eq!(m.check(Space::Dram, 0, 6, 2), Ok(6));
        assert_eq!(m.check(Space::Dram, 0, 7, 2).unwrap_err().0, TrapKind::OutOfBounds);
        assert_eq!(m.check(Space::Nram, 3, 768 * 1024 - 4, 8).unwrap_err().0, TrapKind::Capacity);
        assert_eq!(m.check(Space::Sram, 0, u64::MAX, 1).unwrap_err().0, TrapKind::OutOfBounds);
    }
}
