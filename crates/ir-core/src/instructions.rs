//! Instruction data: operands, guards, and per-format extra data.
//!
//! Invariants:
//! - Every scalar operand of an instruction, including the offsets and sizes
//!   of its memory descriptors and its phi incoming values, lives in one
//!   operand list in a fixed per-[`Format`] order, so a *use site* is just
//!   `(Inst, operand index)` (plus the guard, [`UseSite::Guard`]).
//! - Every var the instruction writes is in its result list, so a
//!   *definition site* is `(Inst, result index)`.
//! - Lists live in per-function [`ListPool`]s (Cranelift's `EntityList`), so
//!   an [`InstData`] is a small fixed-size record.
//!
//! [`Format`]: crate::Format
//! [`ListPool`]: cranelift_entity::ListPool

use crate::entities::{Block, Const, ExtFuncId, FuncId, IntrinsicName, JumpTable, Mem, Var};
use crate::imm::Imm;
use crate::opcode::{FloatCC, IntCC, Opcode};
use core::fmt;
use cranelift_entity::packed_option::{PackedOption, ReservedValue};
use cranelift_entity::{EntityList, EntityRef};

/// A scalar operand: a var or an immediate from the function's constant
/// pool, packed into 32 bits (the top bit tells which).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Operand(u32);

const IMM_BIT: u32 = 1 << 31;

impl Operand {
    /// A var operand.
    pub fn var(v: Var) -> Operand {
        Operand(v.as_u32())
    }

    /// An immediate operand (a constant-pool entry).
    pub fn constant(c: Const) -> Operand {
        Operand(c.as_u32() | IMM_BIT)
    }

    /// The var, if this operand is one.
    pub fn as_var(self) -> Option<Var> {
        if self.0 & IMM_BIT == 0 { Some(Var::from_u32(self.0)) } else { None }
    }

    /// The constant, if this operand is an immediate.
    pub fn as_const(self) -> Option<Const> {
        if self.0 & IMM_BIT != 0 && self.0 != u32::MAX { Some(Const::from_u32(self.0 & !IMM_BIT)) } else { None }
    }
}

impl EntityRef for Operand {
    fn new(index: usize) -> Operand {
        Operand(index as u32)
    }
    fn index(self) -> usize {
        self.0 as usize
    }
}

impl ReservedValue for Operand {
    fn reserved_value() -> Operand {
        Operand(u32::MAX)
    }
    fn is_reserved_value(&self) -> bool {
        self.0 == u32::MAX
    }
}

impl fmt::Debug for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.as_var(), self.as_const()) {
            (Some(v), _) => write!(f, "{v}"),
            (_, Some(c)) => write!(f, "{c}"),
            _ => f.write_str("<reserved>"),
        }
    }
}

/// A scalar operand as a client writes it: a var or a typed immediate.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Arg {
    /// A var.
    Var(Var),
    /// A typed immediate.
    Imm(Imm),
}

impl From<Var> for Arg {
    fn from(v: Var) -> Arg {
        Arg::Var(v)
    }
}

impl<T: Into<Imm>> From<T> for Arg {
    fn from(v: T) -> Arg {
        Arg::Imm(v.into())
    }
}

/// A predicate guard: the instruction executes only when `var` (an `i1`)
/// is true (or, when `negated`, false). A guarded instruction whose guard
/// fails does nothing, so its results keep their previous values: it
/// defines without killing. In SSA form a guarded instruction names, per
/// result, the value it leaves in place instead (its *fallbacks*, written
/// `... else %x.2`): when the guard fails, result `i` takes fallback `i`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Guard {
    /// The predicate var.
    pub var: Var,
    /// True for `@!%p`.
    pub negated: bool,
}

impl Guard {
    /// `@%p`.
    pub fn when(var: Var) -> Guard {
        Guard { var, negated: false }
    }

    /// `@!%p`.
    pub fn unless(var: Var) -> Guard {
        Guard { var, negated: true }
    }
}

/// The callee of a `call`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A function defined in the module.
    Func(FuncId),
    /// A declared external function.
    Ext(ExtFuncId),
}

/// Which operand of an instruction a use is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum UseSite {
    /// The `i`-th entry of the operand list.
    Operand(u32),
    /// The guard's predicate.
    Guard,
    /// The `i`-th fallback of a guarded instruction: the value result `i`
    /// keeps when the guard fails (`... else %x.2`, SSA form).
    Fallback(u32),
}

/// Per-format data that is not a scalar operand or a result.
#[derive(Clone, Debug)]
pub(crate) enum Extra {
    None,
    IntCC(IntCC),
    FloatCC(FloatCC),
    Jump(Block),
    Branch([Block; 2]),
    Switch(JumpTable),
    Phi(EntityList<Block>),
    Call(Callee),
    Intrinsic(IntrinsicName),
    Mem(Mem),
    /// Memory objects of the descriptor slots, in slot order; bit `i` of
    /// `scalars` is set when slot `i` is a scalar instead of a descriptor.
    Tensor {
        mems: EntityList<Mem>,
        scalars: u8,
    },
}

/// One instruction. Read it through [`crate::Function`]'s accessors; the
/// lists it refers to live in the function's pools.
#[derive(Clone, Debug)]
pub struct InstData {
    pub(crate) opcode: Opcode,
    pub(crate) guard_negated: bool,
    pub(crate) guard: PackedOption<Var>,
    pub(crate) results: EntityList<Var>,
    pub(crate) args: EntityList<Operand>,
    /// Fallbacks of a guarded instruction, parallel to `results`, or empty.
    pub(crate) fallbacks: EntityList<Operand>,
    pub(crate) extra: Extra,
}

impl InstData {
    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// The guard, if any.
    pub fn guard(&self) -> Option<Guard> {
        self.guard.expand().map(|var| Guard { var, negated: self.guard_negated })
    }
}

/// A `switch` table.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct JumpTableData {
    /// Taken when no case matches.
    pub default: Block,
    /// `(value, target)` pairs; values are compared after sign extension of
    /// the switch operand's type, and must be distinct.
    pub cases: Vec<(i64, Block)>,
}

/// A memory descriptor `@M[offset, size]` in elements: exact when both
/// offset and size are immediates, inexact otherwise (digest, section 002).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct MemDesc {
    /// The memory object.
    pub mem: Mem,
    /// First element.
    pub offset: Operand,
    /// Number of elements.
    pub size: Operand,
}

impl MemDesc {
    /// True when a descriptor with these immediate parts (`None` where the
    /// part is a var) is out of bounds whatever the vars hold: a negative
    /// offset or size, or an exact range, offset or size past `len`
    /// elements. The verifier rejects such descriptors (docs/ir.md §8), and
    /// front ends use this to emit a trap instead.
    pub fn statically_out_of_bounds(offset: Option<i64>, size: Option<i64>, len: u64) -> bool {
        match (offset, size) {
            (Some(o), _) if o < 0 => true,
            (_, Some(s)) if s < 0 => true,
            (Some(o), Some(s)) => (o as u64).checked_add(s as u64).is_none_or(|end| end > len),
            (Some(o), None) => o as u64 > len,
            (None, Some(s)) => s as u64 > len,
            (None, None) => false,
        }
    }
}

/// Whether an access reads or writes its descriptor.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Access {
    /// The instruction reads the range.
    Read,
    /// The instruction writes the range.
    Write,
}

/// A tensor operand slot: a descriptor or a broadcast scalar.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Slot {
    /// A memory range.
    Desc(MemDesc),
    /// A scalar broadcast to every element.
    Scalar(Operand),
}
