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
//! break them and reports a trap instead. A declaration that would break
//! them is a [`DeclError`] naming the object or label.

use crate::inst::{Inst, LabelId, MemId};
use crate::types::{Space, Ty};
use core::fmt;
use rustc_hash::FxHashMap;

/// Why [`Program::add_mem`] or [`Program::add_label`] (or their [`Names`]
/// forms) refused a declaration.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DeclError {
    /// An object name that is not a plain name.
    NotPlainName {
        /// The name.
        name: String,
    },
    /// An object name already declared.
    DuplicateMem {
        /// The name.
        name: String,
    },
    /// More initial values than elements.
    TooManyInitialValues {
        /// The object's name.
        name: String,
        /// Initial values given.
        values: usize,
        /// Elements declared.
        len: u64,
    },
    /// A label name already defined.
    DuplicateLabel {
        /// The name.
        name: String,
    },
}

impl fmt::Display for DeclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclError::NotPlainName { name } => write!(f, "`{name}` is not a plain name ([A-Za-z0-9_.]+)"),
            DeclError::DuplicateMem { name } => write!(f, "memory object @{name} is declared twice"),
            DeclError::TooManyInitialValues { name, values, len } => {
                write!(f, "@{name} has {values} initial values for {len} elements")
            }
            DeclError::DuplicateLabel { name } => write!(f, "label `{name}` is defined twice"),
        }
    }
}

impl std::error::Error for DeclError {}

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
    /// O(objects) per call; [`Names::add_mem`] is the O(1) form for
    /// programs with many objects.
    pub fn add_mem(
        &mut self,
        name: &str,
        ty: Ty,
        len: u64,
        space: Space,
        addr: Option<u64>,
        init: Vec<u64>,
    ) -> Result<MemId, DeclError> {
        let taken = self.mem_by_name(name).is_some();
        let extent = self.extent(space);
        self.push_mem(taken, extent, MemDecl { name: name.to_string(), ty, len, space, addr: 0, init }, addr)
    }

    /// The checks and placement of [`Program::add_mem`], given whether the
    /// name is taken and the extent of the object's space.
    fn push_mem(&mut self, taken: bool, extent: u64, mut m: MemDecl, addr: Option<u64>) -> Result<MemId, DeclError> {
        if !is_plain_name(&m.name) {
            return Err(DeclError::NotPlainName { name: m.name });
        }
        if taken {
            return Err(DeclError::DuplicateMem { name: m.name });
        }
        if m.init.len() as u64 > m.len {
            return Err(DeclError::TooManyInitialValues { name: m.name, values: m.init.len(), len: m.len });
        }
        m.addr = addr.unwrap_or_else(|| {
            let align = default_align(m.space);
            extent.div_ceil(align).saturating_mul(align)
        });
        for b in &mut m.init {
            *b = m.ty.canonical(*b);
        }
        self.mems.push(m);
        Ok(MemId(self.mems.len() as u32 - 1))
    }

    /// Adds a label at position `at`; fails on a duplicate name. Labels
    /// must be added in position order to keep the invariant. O(labels)
    /// per call; [`Names::add_label`] is the O(1) form.
    pub fn add_label(&mut self, name: &str, at: u32) -> Result<LabelId, DeclError> {
        if self.label_by_name(name).is_some() {
            return Err(DeclError::DuplicateLabel { name: name.to_string() });
        }
        self.labels.push(Label { name: name.to_string(), at });
        Ok(LabelId(self.labels.len() as u32 - 1))
    }

    /// Appends an instruction; returns its position.
    pub fn push(&mut self, inst: Inst) -> u32 {
        self.insts.push(inst);
        self.insts.len() as u32 - 1
    }

    /// The object named `name` (without `@`). A linear scan; [`Names`]
    /// indexes a program for many lookups.
    pub fn mem_by_name(&self, name: &str) -> Option<MemId> {
        self.mems.iter().position(|m| m.name == name).map(|i| MemId(i as u32))
    }

    /// The label named `name`. A linear scan, like
    /// [`Program::mem_by_name`].
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

/// A hash index of a program's object and label names and of each space's
/// extent: O(1) lookups and declarations where [`Program`]'s own are linear
/// scans, so that the assembler and generators stay linear in the program
/// (10^5 labels or objects). It describes the program it was built from
/// or declared into, and goes stale if that program is changed otherwise.
#[derive(Clone, Debug, Default)]
pub struct Names {
    mems: FxHashMap<String, MemId>,
    labels: FxHashMap<String, LabelId>,
    extent: [u64; Space::ALL.len()],
}

impl Names {
    /// The index of `p` as it is now. Where a name occurs twice (a program
    /// that breaks the invariants), the first occurrence wins, as in
    /// [`Program::mem_by_name`].
    pub fn of(p: &Program) -> Names {
        let mut n = Names::default();
        for (i, m) in p.mems.iter().enumerate() {
            n.mems.entry(m.name.clone()).or_insert(MemId(i as u32));
            let e = &mut n.extent[m.space.index()];
            *e = (*e).max(m.end());
        }
        for (i, l) in p.labels.iter().enumerate() {
            n.labels.entry(l.name.clone()).or_insert(LabelId(i as u32));
        }
        n
    }

    /// [`Program::add_mem`] in O(1) (amortised) on `p`, which this index
    /// describes. (The arguments mirror [`Program::add_mem`]'s, plus the
    /// program.)
    #[allow(clippy::too_many_arguments)]
    pub fn add_mem(
        &mut self,
        p: &mut Program,
        name: &str,
        ty: Ty,
        len: u64,
        space: Space,
        addr: Option<u64>,
        init: Vec<u64>,
    ) -> Result<MemId, DeclError> {
        let taken = self.mems.contains_key(name);
        let decl = MemDecl { name: name.to_string(), ty, len, space, addr: 0, init };
        let id = p.push_mem(taken, self.extent[space.index()], decl, addr)?;
        let m = &p.mems[id.index()];
        self.mems.insert(m.name.clone(), id);
        let e = &mut self.extent[space.index()];
        *e = (*e).max(m.end());
        Ok(id)
    }

    /// [`Program::add_label`] in O(1) (amortised) on `p`, which this index
    /// describes.
    pub fn add_label(&mut self, p: &mut Program, name: &str, at: u32) -> Result<LabelId, DeclError> {
        if self.labels.contains_key(name) {
            return Err(DeclError::DuplicateLabel { name: name.to_string() });
        }
        p.labels.push(Label { name: name.to_string(), at });
        let id = LabelId(p.labels.len() as u32 - 1);
        self.labels.insert(name.to_string(), id);
        Ok(id)
    }

    /// The object named `name` (without `@`).
    pub fn mem(&self, name: &str) -> Option<MemId> {
        self.mems.get(name).copied()
    }

    /// The label named `name`.
    pub fn label(&self, name: &str) -> Option<LabelId> {
        self.labels.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_declarations_name_the_entity() {
        let mut p = Program::new();
        let mut n = Names::default();
        p.add_mem("a", Ty::F32, 4, Space::Nram, None, vec![]).unwrap();
        assert_eq!(
            p.add_mem("a", Ty::F32, 4, Space::Nram, None, vec![]),
            Err(DeclError::DuplicateMem { name: "a".into() })
        );
        let e = p.add_mem("b c", Ty::F32, 4, Space::Nram, None, vec![]).unwrap_err();
        assert_eq!(e.to_string(), "`b c` is not a plain name ([A-Za-z0-9_.]+)");
        let e = n.add_mem(&mut p, "d", Ty::I8, 1, Space::Dram, None, vec![1, 2]).unwrap_err();
        assert_eq!(e, DeclError::TooManyInitialValues { name: "d".into(), values: 2, len: 1 });
        assert_eq!(e.to_string(), "@d has 2 initial values for 1 elements");
        n.add_label(&mut p, "l", 0).unwrap();
        let e = n.add_label(&mut p, "l", 0).unwrap_err();
        assert_eq!(e.to_string(), "label `l` is defined twice");
        assert_eq!(p.add_label("l", 0), Err(DeclError::DuplicateLabel { name: "l".into() }));
    }
}
