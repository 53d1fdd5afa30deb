//! The in-memory program: memory objects, labels and instructions.
//!
//! Every core runs the same program (SPMD); a memory object in NRAM or
//! WRAM exists once per core, in SRAM once per cluster, in DRAM once. An
//! object has a fixed byte address in its space, which instructions use
//! through `SPACE[@name + ...]`, and optional initial values (the rest is
//! zero).
//!
//! Invariants of a well-formed program (the verifier checks them; the
//! builder methods keep them): object names are unique plain names and
//! labels are unique, in position order (ties in creation order), each at
//! a position `0..=insts.len()`; every [`MemId`] and [`LabelId`] an
//! instruction names exists. The simulator also accepts programs that
//! break them and reports a trap instead.

use crate::inst::{Inst, LabelId, MemId};
use crate::types::{Space, Ty};

/// A memory object: `.mem @name: T[len] space at ADDR = [values]`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MemDecl {
    /// Its name (without `@`).
    pub name: String,
    /// Element type.
    pub ty: Ty,
    /// Element count.
    pub len: u64,
    /// Space.
    pub space: Space,
    /// Byte address in the space.
    pub addr: u64,
    /// Initial values of the first elements, as canonical bits of `ty`.
    pub init: Vec<u64>,
}

impl MemDecl {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len.saturating_mul(self.ty.bytes())
    }

    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.addr.saturating_add(self.bytes())
    }
}

/// A label: a name for an instruction position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Label {
    /// Its name.
    pub name: String,
    /// The position it names (`insts.len()` is the end of the program).
    pub at: u32,
}

/// A program: what the assembler produces and the simulator runs.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Program {
    /// Memory objects, in declaration order.
    pub mems: Vec<MemDecl>,
    /// Labels, in position order.
    pub labels: Vec<Label>,
    /// Instructions; execution starts at the first.
    pub insts: Vec<Inst>,
}

/// Alignment the assembler uses to place objects without an address: the
/// ISA's vector alignment (WRAM: its operand alignment).
pub fn default_align(space: Space) -> u64 {
    if space == Space::Wram { 64 } else { 128 }
}

/// Whether `name` is a plain name: one or more of `[A-Za-z0-9_.]`.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

impl Program {
    /// An empty program.
    pub fn new() -> Program {
        Program::default()
    }

    /// Declares a memory object. Without an address it is placed after the
    /// last object of its space, aligned to [`default_align`]. Fails on a
    /// duplicate or non-plain name, or on more initial values than elements.
    pub fn add_mem(
        &mut self,
        name: &str,
        ty: Ty,
        len: u64,
        space: Space,
        addr: Option<u64>,
        init: Vec<u64>,
    ) -> Result<MemId, String> {
        if !is_plain_name(name) {
            return Err(format!("`{name}` is not a plain name ([A-Za-z0-9_.]+)"));
        }
        if self.mem_by_name(name).is_some() {
            return Err(format!("memory object @{name} is declared twice"));
        }
        if init.len() as u64 > len {
            return Err(format!("@{name} has {} initial values for {len} elements", init.len()));
        }
        let addr = match addr {
            Some(a) => a,
            None => {
                let align = default_align(space);
                self.extent(space).div_ceil(align).saturating_mul(align)
            }
        };
        let init = init.into_iter().map(|b| ty.canonical(b)).collect();
        self.mems.push(MemDecl { name: name.to_string(), ty, len, space, addr, init });
        Ok(MemId(self.mems.len() as u32 - 1))
    }

    /// Adds a label at position `at`; fails on a duplicate name. Labels
    /// must be added in position order to keep the invariant.
    pub fn add_label(&mut self, name: &str, at: u32) -> Result<LabelId, String> {
        if self.label_by_name(name).is_some() {
            return Err(format!("label `{name}` is defined twice"));
        }
        self.labels.push(Label { name: name.to_string(), at });
        Ok(LabelId(self.labels.len() as u32 - 1))
    }

    /// Appends an instruction; returns its position.
    pub fn push(&mut self, inst: Inst) -> u32 {
        self.insts.push(inst);
        self.insts.len() as u32 - 1
    }

    /// The object named `name` (without `@`).
    pub fn mem_by_name(&self, name: &str) -> Option<MemId> {
        self.mems.iter().position(|m| m.name == name).map(|i| MemId(i as u32))
    }

    /// The label named `name`.
    pub fn label_by_name(&self, name: &str) -> Option<LabelId> {
        self.labels.iter().position(|l| l.name == name).map(|i| LabelId(i as u32))
    }

    /// An object's declaration.
    pub fn mem(&self, id: MemId) -> Option<&MemDecl> {
        self.mems.get(id.index())
    }

    /// A label's declaration.
    pub fn label(&self, id: LabelId) -> Option<&Label> {
        self.labels.get(id.index())
    }

    /// One past the last byte of any object in `space` (0 if none).
    pub fn extent(&self, space: Space) -> u64 {
        self.mems.iter().filter(|m| m.space == space).map(MemDecl::end).max().unwrap_or(0)
    }
}
