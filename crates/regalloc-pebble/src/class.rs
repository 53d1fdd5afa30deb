//! Register classes, physical registers and locations: the vocabulary of
//! every allocation.
//!
//! Invariants: a [`PReg`] is a class and an index below that class's
//! register count ([`Regs`]); a [`Loc`] is a register or a spill slot
//! (dense `u32` ids, numbered by the allocation that made them). Two
//! classes exist, as issue 15 asks: scalar and vector registers are
//! separate files, and a value of one class never sits in the other's.

use core::fmt;

/// The register file a value lives in.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub enum RegClass {
    /// Scalar (general-purpose) registers: `%r0..`.
    #[default]
    Scalar,
    /// Vector registers: `%v0..`.
    Vector,
}

impl RegClass {
    /// Both classes, in index order.
    pub const ALL: [RegClass; 2] = [RegClass::Scalar, RegClass::Vector];

    /// 0 for scalar, 1 for vector.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The prefix of the class's register names: `r` or `v`.
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Scalar => "r",
            RegClass::Vector => "v",
        }
    }
}

/// A physical register: a class and an index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct PReg {
    /// Its register file.
    pub class: RegClass,
    /// Its number in the file.
    pub index: u32,
}

impl PReg {
    /// Register `index` of `class`.
    pub fn new(class: RegClass, index: u32) -> PReg {
        PReg { class, index }
    }

    /// A scalar register.
    pub fn scalar(index: u32) -> PReg {
        PReg::new(RegClass::Scalar, index)
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.class.prefix(), self.index)
    }
}

/// Where a value can be: a register, or a spill slot of the function's
/// spill area.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Loc {
    /// A physical register.
    Reg(PReg),
    /// A spill slot (numbered densely per allocation).
    Slot(u32),
}

impl Loc {
    /// The register, if this is one.
    pub fn reg(self) -> Option<PReg> {
        match self {
            Loc::Reg(r) => Some(r),
            Loc::Slot(_) => None,
        }
    }

    /// The slot, if this is one.
    pub fn slot(self) -> Option<u32> {
        match self {
            Loc::Slot(s) => Some(s),
            Loc::Reg(_) => None,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Reg(r) => r.fmt(f),
            Loc::Slot(s) => write!(f, "[slot {s}]"),
        }
    }
}

/// Register counts per class: the `P` of the pebble game.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Regs(pub [u32; 2]);

impl Regs {
    /// `scalar` scalar registers and `vector` vector registers.
    pub fn new(scalar: u32, vector: u32) -> Regs {
        Regs([scalar, vector])
    }

    /// `p` registers in each class.
    pub fn uniform(p: u32) -> Regs {
        Regs([p, p])
    }

    /// The count of `class`.
    #[inline]
    pub fn get(self, class: RegClass) -> u32 {
        self.0[class.index()]
    }
}
