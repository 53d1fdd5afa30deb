//! Why the checker rejects an allocation ([`CheckError`]), and the parts
//! it names: how the allocation's shape differs from the code's
//! ([`ShapeError`], [`OffsetList`]) and how a block's new order is illegal
//! ([`OrderViolation`]).
//!
//! Invariant: every variant carries the offending entity (block,
//! instruction, operand, var, register, edit, program point) as data;
//! `Display` writes the message.

use crate::class::{Loc, PReg};
use crate::output::{Edit, ProgPoint};
use cfg_dom::{InputError, InstId, Node, VarId};
use core::fmt;

/// What is wrong with an allocation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CheckError {
    /// The code itself is malformed.
    Input(InputError),
    /// The allocation does not have the code's shape (block or
    /// instruction counts, operand lists, slots, classes).
    Shape(ShapeError),
    /// A block's new order is not a legal reordering.
    Order {
        /// The block.
        block: Node,
        /// What is wrong.
        violation: OrderViolation,
    },
    /// A use reads a location that does not hold its value.
    WrongValue {
        /// The block.
        block: Node,
        /// The instruction.
        inst: InstId,
        /// The use's number (`VarCode::uses` order).
        use_index: u32,
        /// Its var.
        var: VarId,
        /// Where it reads.
        loc: Loc,
    },
    /// An edit moves something that is not a value of the var it names
    /// (the rewrite types spill accesses by that var).
    Mislabelled {
        /// Where.
        at: ProgPoint,
        /// The edit.
        edit: Edit,
    },
    /// Two definitions of one instruction write the same register.
    Clash {
        /// The instruction.
        inst: InstId,
    },
    /// The checker's per-block states (every register and slot at every
    /// block's end) would take more than its memory budget; the
    /// allocation is not checked.
    TooLarge {
        /// Blocks of the function.
        blocks: usize,
        /// Registers and spill slots the allocation uses.
        locations: usize,
        /// Bytes the states take (an estimate before the run, or the count
        /// when they outgrew the budget during it).
        bytes: u64,
        /// The budget.
        limit: u64,
    },
}

/// How an allocation's shape differs from the code's ([`CheckError::Shape`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ShapeError {
    /// Another number of blocks.
    BlockCount {
        /// The allocation's.
        allocation: usize,
        /// The code's.
        code: usize,
    },
    /// A CSR offset array that decreases, does not start at 0 or does not
    /// end at its list's length.
    Offsets {
        /// Which array.
        list: OffsetList,
    },
    /// Edits not sorted by program point.
    EditsUnordered,
    /// Operand lists for another number of instructions.
    InstCount {
        /// The allocation's.
        allocation: usize,
        /// The code's.
        code: usize,
    },
    /// An instruction with another number of operand registers than uses
    /// plus definitions.
    OperandCount {
        /// The instruction.
        inst: InstId,
        /// Registers the allocation gives it.
        registers: usize,
        /// Uses plus definitions.
        needs: usize,
    },
    /// An operand register of another class than its var's, or out of
    /// range.
    OperandRegister {
        /// The instruction.
        inst: InstId,
        /// The operand (uses first, then definitions).
        operand: usize,
        /// The register.
        reg: PReg,
        /// The var.
        var: VarId,
    },
    /// An edit naming a register or slot out of range.
    EditLocation {
        /// The edit.
        edit: Edit,
    },
    /// An edit between registers of two classes.
    EditClasses {
        /// The edit.
        edit: Edit,
    },
    /// An edit at a block or instruction index out of range.
    EditPoint {
        /// The edit.
        edit: Edit,
        /// Where it is.
        at: ProgPoint,
    },
    /// An edit on a pair of blocks that is not a CFG edge.
    EditEdge {
        /// The edit.
        edit: Edit,
        /// The edge's source.
        from: Node,
        /// The edge's target.
        to: Node,
    },
    /// An entry location out of range, or for a var out of range.
    EntryLocation {
        /// The var.
        var: VarId,
        /// The location.
        loc: Loc,
    },
}

/// The CSR offset arrays of an [`Allocation`](crate::Allocation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OffsetList {
    /// `order_start`, into the blocks' new orders.
    Order,
    /// `alloc_start`, into the operand registers.
    Allocs,
}

/// What makes a block's new order illegal ([`CheckError::Order`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OrderViolation {
    /// The new order is not a permutation of the block's instructions.
    NotPermutation,
    /// Two effects changed their relative order.
    EffectsReordered,
    /// The terminator moved from the end.
    TerminatorNotLast,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Input(e) => e.fmt(f),
            CheckError::Shape(s) => write!(f, "malformed allocation: {s}"),
            CheckError::Order { block, violation } => write!(f, "block {block}: {violation}"),
            CheckError::WrongValue { block, inst, use_index, var, loc } => write!(
                f,
                "block {block}, instruction {inst}: use {use_index} of var {var} reads {loc}, which does not hold that value"
            ),
            CheckError::Mislabelled { at, edit } => write!(f, "{at:?}: edit {edit} moves no value of var {}", edit.var),
            CheckError::Clash { inst } => write!(f, "instruction {inst} writes two results to one register"),
            CheckError::TooLarge { blocks, locations, bytes, limit } => write!(
                f,
                "too large to check: the checker's states over {blocks} blocks and {locations} registers and slots need {bytes} bytes, over the limit of {limit}"
            ),
        }
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ShapeError::BlockCount { allocation, code } => write!(f, "{allocation} blocks, the code has {code}"),
            ShapeError::Offsets { list } => {
                let name = match list {
                    OffsetList::Order => "order",
                    OffsetList::Allocs => "operand",
                };
                write!(f, "{name} offsets that decrease or do not end at their list's length")
            }
            ShapeError::EditsUnordered => f.write_str("edits not in program-point order"),
            ShapeError::InstCount { allocation, code } => {
                write!(f, "operands for {allocation} instructions, the code has {code}")
            }
            ShapeError::OperandCount { inst, registers, needs } => {
                write!(f, "instruction {inst} has {registers} operand registers, needs {needs}")
            }
            ShapeError::OperandRegister { inst, operand, reg, var } => {
                write!(f, "operand {operand} of instruction {inst}: {reg} for var {var}")
            }
            ShapeError::EditLocation { edit } => write!(f, "edit {edit} names a location out of range"),
            ShapeError::EditClasses { edit } => write!(f, "edit {edit} moves across classes"),
            ShapeError::EditPoint { edit, .. } => write!(f, "edit {edit} at a point out of range"),
            ShapeError::EditEdge { edit, from, to } => write!(f, "edit {edit} on a non-edge {from} -> {to}"),
            ShapeError::EntryLocation { var, loc } => write!(f, "entry location {loc} of var {var}"),
        }
    }
}

impl fmt::Display for OrderViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OrderViolation::NotPermutation => "the new order is not a permutation of the block's instructions",
            OrderViolation::EffectsReordered => "effects are reordered",
            OrderViolation::TerminatorNotLast => "the terminator is not last",
        })
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckError::Input(e) => Some(e),
            CheckError::Shape(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for ShapeError {}
