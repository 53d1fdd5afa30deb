//! Scalar types and memory spaces.
//!
//! Invariant: the set is closed and small, so a [`Type`] is one byte and an
//! `Option<Type>` is one byte too. Integers carry no signedness; operations
//! that care (`sdiv` vs `udiv`, `setp.slt` vs `setp.ult`) say so, as in
//! LLVM and Cranelift.

use core::fmt;

/// A scalar type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Type {
    /// A one-bit integer; predicates and branch conditions.
    I1,
    /// An 8-bit integer.
    I8,
    /// A 16-bit integer.
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// An IEEE 754 binary32 float.
    F32,
    /// An IEEE 754 binary64 float.
    F64,
}

impl Type {
    /// Every type, in declaration order.
    pub const ALL: [Type; 7] = [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64, Type::F32, Type::F64];

    /// A dense index, `0..Type::ALL.len()`, in `Type::ALL` order (for side
    /// tables keyed by type).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 => 64,
        }
    }

    /// Size in bytes of one element of this type in memory (`i1` takes a byte).
    pub const fn bytes(self) -> u32 {
        match self {
            Type::I1 | Type::I8 => 1,
            Type::I16 => 2,
            Type::I32 | Type::F32 => 4,
            Type::I64 | Type::F64 => 8,
        }
    }

    /// True for `i1` through `i64`.
    pub const fn is_int(self) -> bool {
        !self.is_float()
    }

    /// True for `f32` and `f64`.
    pub const fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// The text-format name (`i32`, `f64`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Type::I1 => "i1",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }

    /// Parses a text-format type name.
    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a memory object lives on an MLU-style accelerator (see the digest's
/// accelerator section). The IR itself treats all spaces alike; the target
/// restricts which units may touch which space.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum MemSpace {
    /// Off-chip DRAM (DDR) on the board.
    Dram,
    /// A cluster's shared on-chip SRAM.
    Sram,
    /// A core's neuron RAM: inputs, outputs, intermediates.
    Nram,
    /// A core's weight RAM.
    Wram,
}

impl MemSpace {
    /// Every space, in declaration order.
    pub const ALL: [MemSpace; 4] = [MemSpace::Dram, MemSpace::Sram, MemSpace::Nram, MemSpace::Wram];

    /// The text-format name.
    pub const fn name(self) -> &'static str {
        match self {
            MemSpace::Dram => "dram",
            MemSpace::Sram => "sram",
            MemSpace::Nram => "nram",
            MemSpace::Wram => "wram",
        }
    }

    /// Parses a text-format space name.
    pub fn from_name(name: &str) -> Option<MemSpace> {
        MemSpace::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
