//! Why the simulator refuses a program before it runs ([`LoadError`]) or
//! refuses values written into one of its objects ([`WriteError`]).
//!
//! Invariants: each variant names the offending entity (the configuration,
//! the label, the instruction with its index and text, the object with its
//! name) and holds the sizes or limits involved; `Display` writes the
//! message; an error wrapping another crate's error keeps it
//! ([`LoadError::Config`]) and returns it from `source()`. What goes wrong
//! while a program runs is a [`Trap`](crate::Trap) instead.

use core::fmt;
use mlu_isa::{ConfigError, LabelId, MemId, Reg, Space};

/// Why [`Simulator::new`](crate::Simulator::new) (or
/// [`Memory::new`](crate::Memory::new)) refused to load a program.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LoadError {
    /// The simulated memories would need more host memory than
    /// [`SimOptions::max_memory`](crate::SimOptions::max_memory) allows.
    HostMemory {
        /// Bytes needed.
        need: u64,
        /// The limit.
        limit: u64,
    },
    /// The configuration does not validate.
    Config {
        /// Its name.
        name: String,
        /// Why.
        error: ConfigError,
    },
    /// A cluster count the machine does not have.
    Clusters {
        /// The configuration's name.
        config: String,
        /// Its cluster count.
        max: u32,
        /// The count asked for.
        asked: u32,
    },
    /// A per-cluster core count the machine does not have.
    CoresPerCluster {
        /// The configuration's name.
        config: String,
        /// Its cores per cluster.
        max: u32,
        /// The count asked for.
        asked: u32,
    },
    /// A label past the end of the program.
    LabelPastEnd {
        /// The label.
        label: LabelId,
        /// Its name.
        name: String,
        /// Its position.
        at: u32,
    },
    /// An instruction naming a register, label or object the machine or
    /// program does not have.
    Instruction {
        /// Its position.
        pc: u32,
        /// Its text.
        text: String,
        /// What it names that does not exist.
        missing: Missing,
    },
    /// The DRAM objects exceed the configuration's DRAM.
    Dram {
        /// Bytes the objects need.
        need: u64,
        /// The configuration's name.
        config: String,
        /// Its DRAM bytes.
        has: u64,
    },
    /// The DRAM objects do not fit this host's address space.
    DramHost {
        /// Bytes the objects need.
        bytes: u64,
    },
    /// An on-chip object past its space's capacity.
    ObjectTooLarge {
        /// Its name.
        name: String,
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// The space's capacity.
        capacity: u64,
        /// The space.
        space: Space,
    },
    /// An object with more initial values than elements.
    TooManyInitialValues {
        /// Its name.
        name: String,
        /// Initial values.
        values: usize,
        /// Elements.
        len: u64,
    },
}

/// What an instruction names that does not exist ([`LoadError::Instruction`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Missing {
    /// A register at or above the configuration's count.
    Register {
        /// The register.
        reg: Reg,
        /// The configuration's GPR count.
        gprs: u32,
    },
    /// A label id the program does not have.
    Label(LabelId),
    /// An object id the program does not have.
    Mem(MemId),
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Missing::Register { reg, gprs } => write!(f, "{reg} is not one of the {gprs} registers"),
            Missing::Label(l) => write!(f, "label {} does not exist", l.0),
            Missing::Mem(m) => write!(f, "memory object {} does not exist", m.0),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::HostMemory { need, limit } => write!(
                f,
                "the simulated memories need {need} bytes of host memory (DRAM objects, and NRAM, WRAM and SRAM \
                 per core and cluster); the limit is {limit} (SimOptions::max_memory, keel sim --max-memory)"
            ),
            LoadError::Config { name, error } => write!(f, "bad configuration {name}: {error}"),
            LoadError::Clusters { config, max, asked } => {
                write!(f, "{config} has 1 to {max} clusters, not {asked}")
            }
            LoadError::CoresPerCluster { config, max, asked } => {
                write!(f, "{config} has 1 to {max} cores per cluster, not {asked}")
            }
            LoadError::LabelPastEnd { label, name, at } => {
                write!(f, "label {} `{name}` is at {at}, past the end", label.0)
            }
            LoadError::Instruction { pc, text, missing } => write!(f, "instruction {pc} `{text}`: {missing}"),
            LoadError::Dram { need, config, has } => {
                write!(f, "the program's DRAM objects need {need} bytes; {config} has {has}")
            }
            LoadError::DramHost { bytes } => write!(f, "{bytes} bytes of DRAM do not fit this host"),
            LoadError::ObjectTooLarge { name, start, end, capacity, space } => {
                write!(f, "@{name} (bytes {start}..{end}) does not fit the {capacity} bytes of {space}")
            }
            LoadError::TooManyInitialValues { name, values, len } => {
                write!(f, "@{name} has {values} initial values for {len} elements")
            }
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Config { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Why [`Simulator::write`](crate::Simulator::write) (or
/// [`Memory::write_object`](crate::Memory::write_object)) refused values.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum WriteError {
    /// The program has no object of that name.
    UnknownObject {
        /// The name asked for (without `@`).
        name: String,
    },
    /// More values than the object has elements.
    TooManyValues {
        /// The object's name.
        name: String,
        /// Its element count.
        len: u64,
        /// Values given.
        given: usize,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::UnknownObject { name } => write!(f, "no memory object @{name}"),
            WriteError::TooManyValues { name, len, given } => {
                write!(f, "@{name} has {len} elements; {given} values given")
            }
        }
    }
}

impl std::error::Error for WriteError {}
