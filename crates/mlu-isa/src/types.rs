//! The ISA's small vocabulary: value types, memory spaces, registers,
//! special registers and pipes.
//!
//! Invariants: every enum lists its members in `ALL` in a fixed order, and
//! `name`/`from_name` are inverse on that list (the assembly text spells
//! each member with its `name`). A register value of type [`Ty`] is held in
//! a 64-bit GPR in the canonical form Keel's IR uses for its immediates
//! (`ir_core::Imm::bits`): `i1` as 0 or 1, `i8`..`i64` sign-extended to 64
//! bits, `f32` as its IEEE bits in the low 32 bits (upper bits zero), `f64`
//! as its bits.

use core::fmt;

/// A value type: the type suffix of scalar, vector and matrix instructions
/// (`add.i32`, `vadd.f32`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Ty {
    /// One-bit integer (predicates); one byte in memory.
    I1,
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64.
    F64,
}

impl Ty {
    /// Every type, in a fixed order.
    pub const ALL: [Ty; 7] = [Ty::I1, Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::F32, Ty::F64];

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
        }
    }

    /// Size in memory, in bytes (`i1` takes one byte).
    pub fn bytes(self) -> u64 {
        match self {
            Ty::I1 | Ty::I8 => 1,
            Ty::I16 => 2,
            Ty::I32 | Ty::F32 => 4,
            Ty::I64 | Ty::F64 => 8,
        }
    }

    /// `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// `i1` .. `i64`.
    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    /// The spelling in the text format.
    pub fn name(self) -> &'static str {
        match self {
            Ty::I1 => "i1",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }

    /// The type spelled `name`.
    pub fn from_name(name: &str) -> Option<Ty> {
        Ty::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The canonical register form of `bits` read as this type (see the
    /// module doc): integers sign-extended from their width (`i1` masked to
    /// one bit), `f32` masked to 32 bits.
    pub fn canonical(self, bits: u64) -> u64 {
        match self {
            Ty::I1 => bits & 1,
            Ty::I8 => bits as u8 as i8 as i64 as u64,
            Ty::I16 => bits as u16 as i16 as i64 as u64,
            Ty::I32 => bits as u32 as i32 as i64 as u64,
            Ty::F32 => bits & 0xffff_ffff,
            Ty::I64 | Ty::F64 => bits,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A memory space. Per core: NRAM and WRAM; per cluster: SRAM; global: DRAM
/// (the board's DDR, BANG's GDRAM).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Space {
    /// Neuron RAM: a core's scratchpad for vector and matrix operands.
    Nram,
    /// Weight RAM: a core's scratchpad for the matrix unit's right operand.
    Wram,
    /// A cluster's shared SRAM.
    Sram,
    /// Off-chip DRAM shared by every core.
    Dram,
}

impl Space {
    /// Every space, in a fixed order.
    pub const ALL: [Space; 4] = [Space::Nram, Space::Wram, Space::Sram, Space::Dram];

    /// The spelling in the text format (`nram[...]`).
    pub fn name(self) -> &'static str {
        match self {
            Space::Nram => "nram",
            Space::Wram => "wram",
            Space::Sram => "sram",
            Space::Dram => "dram",
        }
    }

    /// The space spelled `name`.
    pub fn from_name(name: &str) -> Option<Space> {
        Space::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Index in [`Space::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// NRAM, WRAM and SRAM are on chip; DRAM is not.
    pub fn on_chip(self) -> bool {
        self != Space::Dram
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A general-purpose register `%rN` (64 bits; the configuration says how
/// many exist).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Reg(pub u16);

impl Reg {
    /// The register number as an index.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%r{}", self.0)
    }
}

/// A special register, read with `sreg %rD, %NAME` (BANG's built-in
/// variables `taskId`, `coreId`, ...; MLISA reads them with `mv.gpr.sreg`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Sreg {
    /// The task's linear id: `clusterid * coredim + coreid`.
    TaskId,
    /// Number of tasks: `clusterdim * coredim`.
    TaskDim,
    /// The core's index in its cluster.
    CoreId,
    /// Cores per cluster.
    CoreDim,
    /// The cluster's index.
    ClusterId,
    /// Clusters launched.
    ClusterDim,
}

impl Sreg {
    /// Every special register, in a fixed order.
    pub const ALL: [Sreg; 6] =
        [Sreg::TaskId, Sreg::TaskDim, Sreg::CoreId, Sreg::CoreDim, Sreg::ClusterId, Sreg::ClusterDim];

    /// The spelling after `%` in the text format.
    pub fn name(self) -> &'static str {
        match self {
            Sreg::TaskId => "taskid",
            Sreg::TaskDim => "taskdim",
            Sreg::CoreId => "coreid",
            Sreg::CoreDim => "coredim",
            Sreg::ClusterId => "clusterid",
            Sreg::ClusterDim => "clusterdim",
        }
    }

    /// The special register spelled `name` (without `%`).
    pub fn from_name(name: &str) -> Option<Sreg> {
        Sreg::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Sreg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.name())
    }
}

/// A core's instruction pipes (BANG C developer guide §3.3.3: ALU, VFU/TFU,
/// IO-DMA, Move-DMA). Instructions are issued in program order and each runs
/// on one pipe; pipes run concurrently.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Pipe {
    /// Front end and scalar ALU: scalar arithmetic, loads and stores,
    /// branches, syncs and barriers.
    Scalar,
    /// Vector and matrix units.
    Compute,
    /// IO-DMA: copies with an off-chip (DRAM) end.
    Io,
    /// Move-DMA: copies between on-chip memories.
    Move,
}

impl Pipe {
    /// Every pipe, in a fixed order.
    pub const ALL: [Pipe; 4] = [Pipe::Scalar, Pipe::Compute, Pipe::Io, Pipe::Move];

    /// A short name (`scalar`, `compute`, `io`, `move`).
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Scalar => "scalar",
            Pipe::Compute => "compute",
            Pipe::Io => "io",
            Pipe::Move => "move",
        }
    }

    /// Index in [`Pipe::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Ty::ALL {
            assert_eq!(Ty::from_name(t.name()), Some(t));
        }
        for s in Space::ALL {
            assert_eq!(Space::from_name(s.name()), Some(s));
            assert_eq!(Space::ALL[s.index()], s);
        }
        for s in Sreg::ALL {
            assert_eq!(Sreg::from_name(s.name()), Some(s));
        }
        for p in Pipe::ALL {
            assert_eq!(Pipe::ALL[p.index()], p);
        }
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(Ty::I8.canonical(0xff), u64::MAX);
        assert_eq!(Ty::I8.canonical(0x17f), 0x7f);
        assert_eq!(Ty::I1.canonical(3), 1);
        assert_eq!(Ty::F32.canonical(u64::MAX), 0xffff_ffff);
        assert_eq!(Ty::I32.canonical(0x8000_0000), 0xffff_ffff_8000_0000);
    }
}
