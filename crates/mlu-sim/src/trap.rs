//! Traps: run-time errors, each naming the core, the instruction and the
//! cycle.
//!
//! Invariant: every trap the simulator raises has a kind, a message, and,
//! when a core raised it, that core's ids, the instruction's position and
//! text, and the cycle (in functional mode, the number of instructions the
//! core had issued).

use core::fmt;
use mlu_isa::Pipe;

/// What went wrong.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TrapKind {
    /// An address breaks its alignment rule, or a vector count breaks the
    /// count rule.
    Misaligned,
    /// An on-chip access past the end of its space (NRAM, WRAM, SRAM).
    Capacity,
    /// A DRAM access outside the program's DRAM objects, or a negative
    /// address.
    OutOfBounds,
    /// A copy between spaces the machine has no direction for.
    UnknownDirection,
    /// Every core still running waits at a barrier that can never
    /// complete.
    Deadlock,
    /// Cores arrived at one barrier with different counts.
    BarrierMismatch,
    /// Integer division by zero or overflow, or an invalid float-to-integer
    /// conversion.
    Arithmetic,
    /// A negative count, size, stride or dimension at run time.
    BadCount,
    /// A `trap` instruction.
    TrapInstruction,
    /// Control ran past the last instruction.
    FellOffEnd,
    /// An instruction the verifier rejects (a type outside its class, a
    /// scalar access to WRAM, a vector operand outside NRAM, ...).
    Malformed,
    /// A data race between pipes or cores (in error mode).
    Hazard,
    /// The fuel ran out.
    Fuel,
    /// The run would take more host memory than
    /// [`SimOptions::max_memory`](crate::SimOptions::max_memory) allows
    /// (the race detector's record of in-flight accesses, or the staging
    /// of a copy whose source overlaps its destination).
    HostMemory,
}

impl TrapKind {
    /// A short name (`misaligned`, `deadlock`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TrapKind::Misaligned => "misaligned",
            TrapKind::Capacity => "capacity",
            TrapKind::OutOfBounds => "out of bounds",
            TrapKind::UnknownDirection => "unknown direction",
            TrapKind::Deadlock => "deadlock",
            TrapKind::BarrierMismatch => "barrier mismatch",
            TrapKind::Arithmetic => "arithmetic",
            TrapKind::BadCount => "bad count",
            TrapKind::TrapInstruction => "trap instruction",
            TrapKind::FellOffEnd => "fell off the end",
            TrapKind::Malformed => "malformed instruction",
            TrapKind::Hazard => "hazard",
            TrapKind::Fuel => "out of fuel",
            TrapKind::HostMemory => "out of host memory",
        }
    }
}

/// A core of the launched grid.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct CoreRef {
    /// Its cluster.
    pub cluster: u32,
    /// Its index in the cluster (`%coreid`).
    pub core: u32,
    /// Its linear index (`%taskid`).
    pub task: u32,
}

impl fmt::Display for CoreRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "core {} (cluster {}, core {})", self.task, self.cluster, self.core)
    }
}

/// One side of a hazard: an access by one pipe of one core.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Access {
    /// The core.
    pub core: CoreRef,
    /// The pipe.
    pub pipe: Pipe,
    /// The instruction's position.
    pub pc: u32,
    /// The instruction's text.
    pub inst: String,
    /// A write (else a read).
    pub write: bool,
}

/// A data race: two accesses to overlapping bytes, at least one a write,
/// by different pipes (of one core or of two), not ordered by a sync or a
/// barrier.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Hazard {
    /// The memory: its space and instance (`nram` of core 3, `sram` of
    /// cluster 1, `dram`).
    pub memory: String,
    /// The overlapping bytes.
    pub bytes: (u64, u64),
    /// The earlier access, still in flight.
    pub first: Access,
    /// The access that collided with it.
    pub second: Access,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rw = |w: bool| if w { "write" } else { "read" };
        write!(
            f,
            "{} of {} bytes {}..{} by {} pipe {} at instruction {} `{}` while {} by {} pipe {} at instruction {} `{}` is in flight (no sync or barrier orders them)",
            rw(self.second.write),
            self.memory,
            self.bytes.0,
            self.bytes.1,
            self.second.core,
            self.second.pipe,
            self.second.pc,
            self.second.inst,
            rw(self.first.write),
            self.first.core,
            self.first.pipe,
            self.first.pc,
            self.first.inst
        )
    }
}

/// A run-time error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    /// What kind.
    pub kind: TrapKind,
    /// The core that raised it (none for whole-run traps).
    pub core: Option<CoreRef>,
    /// The instruction's position.
    pub pc: Option<u32>,
    /// The instruction's text.
    pub inst: Option<String>,
    /// The cycle (functional mode: the core's issued-instruction count).
    pub cycle: u64,
    /// What happened.
    pub message: String,
    /// The race, for [`TrapKind::Hazard`].
    pub hazard: Option<Box<Hazard>>,
}

impl Trap {
    /// A trap with no core.
    pub fn global(kind: TrapKind, message: impl Into<String>) -> Trap {
        Trap { kind, core: None, pc: None, inst: None, cycle: 0, message: message.into(), hazard: None }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.name())?;
        if let Some(c) = self.core {
            write!(f, " on {c}")?;
        }
        if let (Some(pc), Some(inst)) = (self.pc, &self.inst) {
            write!(f, " at instruction {pc} `{inst}`")?;
        }
        write!(f, ", cycle {}: {}", self.cycle, self.message)
    }
}

impl std::error::Error for Trap {}
