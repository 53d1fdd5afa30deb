//! The input trait: what a compiler implements to run value numbering, the
//! SVFG and semantic PRE on its own SSA IR.
//!
//! The model is regalloc2's `Function` trait, kept as small as the
//! algorithm allows, beside `cfg_dom::VarCode` and `memdep::MemCode`: the
//! CFG is any [`cfg_dom::Graph`] passed next to the code (blocks are its
//! nodes), and [`PreCode`] answers, per instruction, its [`InstKind`]
//! (phi, copy, pure operation with an opaque operation key, memory read,
//! or anything else), its results and its [`Operand`]s (SSA values or
//! immediates). Per operation key it says whether the operation commutes
//! and whether it may trap; per pair of memory reads it answers the one
//! memory question PRE has ([`PreCode::same_memory`]). Ids are `u32`s;
//! every method answers from the IR without allocating.
//!
//! The semantics the algorithm assumes:
//! - **SSA**: every value is defined once, by a parameter or by one
//!   instruction; a non-phi operand is defined on every path to its use.
//! - A **phi** has one operand per distinct predecessor of its block,
//!   each read at the end of that predecessor ([`PreCode::phi_preds`]).
//! - A **copy** gives its result the value of operand 0 (a constant is a
//!   copy of an immediate).
//! - A **pure** operation's result depends only on its operation key and
//!   its operands' values (the key holds whatever the IR needs for that:
//!   opcode, condition code, result type...). Unless the operation
//!   [may trap](PreCode::may_trap), PRE may compute it on a new path.
//! - A **load** reads memory: two loads with one key and equal operands
//!   read one value only where [`PreCode::same_memory`] says so. Loads are
//!   never inserted.
//! - **Other** instructions (calls, stores, guarded or predicated
//!   instructions, intrinsics, `undef`...) define values nothing else is
//!   known to equal, and are never moved or removed.
//!
//! Invariant: the trait is only read; `flat.rs` checks an implementation's
//! answers against these rules (and [`crate::InputError`] names the first
//! one broken) before any pass runs.

use cfg_dom::{DomTree, InstId, Node, Versioned};
use core::fmt;
use core::hash::Hash;

/// An SSA value id: dense, `0..num_values()`.
pub type ValueId = u32;

/// Marks "none" in `u32` arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// What an operation key or an immediate must be: copied, compared,
/// hashed (value numbering interns them) and printed.
pub trait Key: Copy + Eq + Hash + fmt::Debug {}

impl<T: Copy + Eq + Hash + fmt::Debug> Key for T {}

/// One operand of an instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Operand<I> {
    /// An SSA value.
    Value(ValueId),
    /// An immediate: equal immediates are one value number, so the IR's
    /// immediate type must include whatever tells two constants apart
    /// (Keel's carries its type).
    Imm(I),
}

/// What an instruction is, for value numbering and PRE (see the module doc
/// for the semantics of each).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstKind<O> {
    /// `v = phi(...)`: one operand per distinct predecessor, named by
    /// [`PreCode::phi_preds`].
    Phi,
    /// `v = operand 0`: a copy of a value, or a constant (a copy of an
    /// immediate).
    Copy,
    /// `v = op(operands)`: a pure operation, keyed by `op`.
    Pure(O),
    /// `v = op(operands)` reading memory: a load keyed by `op` (which
    /// names what is read, e.g. the memory object and the type).
    Load(O),
    /// Anything else: calls, stores, guarded or predicated instructions,
    /// intrinsics, `undef`. Its results are opaque values.
    Other,
}

/// The order of instructions on every path, handed to
/// [`PreCode::same_memory`]: built once per run from the flattened code and
/// the dominator tree.
#[derive(Clone, Copy, Debug)]
pub struct InstOrder<'a> {
    dt: &'a DomTree,
    /// Per instruction id: its position in layout order, or [`NONE`].
    entry_of: &'a [u32],
    /// Per position: its block.
    block: &'a [Node],
}

impl<'a> InstOrder<'a> {
    /// The order given by `dt`, the position of each instruction id
    /// (`entry_of`, [`NONE`] for none) and the block of each position.
    pub(crate) fn new(dt: &'a DomTree, entry_of: &'a [u32], block: &'a [Node]) -> InstOrder<'a> {
        InstOrder { dt, entry_of, block }
    }

    /// The block listing `inst`, if any.
    pub fn block_of(&self, inst: InstId) -> Option<Node> {
        let e = *self.entry_of.get(inst as usize)?;
        self.block.get(e as usize).copied()
    }

    /// True when `a` comes strictly before `b` on every path to `b`: earlier
    /// in the same block, or in a block that strictly dominates `b`'s. False
    /// for an instruction no block lists.
    pub fn before(&self, a: InstId, b: InstId) -> bool {
        let (Some(&ea), Some(&eb)) = (self.entry_of.get(a as usize), self.entry_of.get(b as usize)) else {
            return false;
        };
        if ea == NONE || eb == NONE {
            return false;
        }
        let (ba, bb) = (self.block[ea as usize], self.block[eb as usize]);
        if ba == bb { ea < eb } else { self.dt.strictly_dominates(ba, bb) }
    }

    /// True when block `a` dominates block `b`.
    pub fn dominates(&self, a: Node, b: Node) -> bool {
        self.dt.dominates(a, b)
    }
}

/// A function's SSA code as value numbering and PRE see it (see the module
/// doc for the semantics).
///
/// Blocks are the nodes of the CFG passed beside it (`0..num_blocks()`).
/// Pass a graph with one edge per distinct successor (as
/// `cfg_dom::CsrGraph::compute_distinct` builds it): a phi has one operand
/// per predecessor block, and the plan's new phis take one incoming value
/// per predecessor the graph lists.
///
/// Implement [`Versioned`] too (`impl Versioned for MyFunc {}` if the IR
/// has no versions): a [`crate::Plan`] carries the code stamp it was made
/// for.
pub trait PreCode: Versioned {
    /// The operation key of a pure operation or a load: two instructions
    /// with equal keys and operands of equal value compute one value.
    type Op: Key;
    /// An immediate operand.
    type Imm: Key;

    /// Number of blocks; must equal the CFG's node count.
    fn num_blocks(&self) -> usize;

    /// Number of values: ids are `0..num_values()`.
    fn num_values(&self) -> usize;

    /// Number of instruction ids: ids are `0..num_insts()` (some may belong
    /// to no block).
    fn num_insts(&self) -> usize;

    /// The values defined on entry (the parameters), in order.
    fn params(&self) -> impl Iterator<Item = ValueId> + '_;

    /// The instructions of block `b`, in order.
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_;

    /// What `inst` is.
    fn kind(&self, inst: InstId) -> InstKind<Self::Op>;

    /// The values `inst` defines (exactly one for a phi, copy, pure
    /// operation or load).
    fn results(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_;

    /// The operands of `inst`, in order (for a phi, one per predecessor, in
    /// [`PreCode::phi_preds`] order). Asked only for phis, copies, pure
    /// operations and loads.
    fn operands(&self, inst: InstId) -> impl Iterator<Item = Operand<Self::Imm>> + '_;

    /// Every value `inst` reads: its operands and whatever else it reads (a
    /// guard, the values a guarded definition keeps when its guard fails,
    /// the operands of a call or a store). Asked for every instruction, by
    /// the clean-up ([`crate::cleanup`]): a value no read lists may have
    /// its definition deleted, so an IR must list every read here.
    fn reads(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_;

    /// The values block `b` reads outside its instructions (a terminator
    /// the IR does not list as an instruction: a branch condition, a
    /// returned value); nothing when terminators are instructions. Asked
    /// by the clean-up, for the same reason as [`PreCode::reads`].
    fn block_reads(&self, b: Node) -> impl Iterator<Item = ValueId> + '_;

    /// For a phi: the predecessor each operand comes from, parallel to
    /// [`PreCode::operands`]. Asked only for phis; nothing by default.
    fn phi_preds(&self, inst: InstId) -> impl Iterator<Item = Node> + '_ {
        let _ = inst;
        core::iter::empty()
    }

    /// True when `op`'s two operands may be swapped (`add`, `mul`, an
    /// equality compare...): such operands are sorted before numbering.
    /// False by default.
    fn commutes(&self, op: Self::Op) -> bool {
        let _ = op;
        false
    }

    /// True when `op` may trap (a division, a float-to-int conversion) or
    /// must not run on a path that did not compute it for any other reason:
    /// PRE then never inserts it, and removes it only where a computation
    /// of the same value dominates it.
    fn may_trap(&self, op: Self::Op) -> bool;

    /// For two loads with one key and operands of equal value, `earlier`
    /// coming before `later` on every path ([`InstOrder::before`]): true
    /// when no write may change what they read on a path from `earlier` to
    /// `later`, so `later` reads the value `earlier` read. Asked at most
    /// once per load, only about the nearest such `earlier`, and only for
    /// the loads whose key and operands some dominating load shares. False
    /// by default: every load reads its own value.
    fn same_memory(&self, earlier: InstId, later: InstId, order: &InstOrder<'_>) -> bool {
        let _ = (earlier, later, order);
        false
    }
}

impl<C: PreCode + ?Sized> PreCode for &C {
    type Op = C::Op;
    type Imm = C::Imm;
    fn num_blocks(&self) -> usize {
        (**self).num_blocks()
    }
    fn num_values(&self) -> usize {
        (**self).num_values()
    }
    fn num_insts(&self) -> usize {
        (**self).num_insts()
    }
    fn params(&self) -> impl Iterator<Item = ValueId> + '_ {
        (**self).params()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        (**self).block_insts(b)
    }
    fn kind(&self, inst: InstId) -> InstKind<Self::Op> {
        (**self).kind(inst)
    }
    fn results(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        (**self).results(inst)
    }
    fn operands(&self, inst: InstId) -> impl Iterator<Item = Operand<Self::Imm>> + '_ {
        (**self).operands(inst)
    }
    fn reads(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        (**self).reads(inst)
    }

    fn block_reads(&self, b: Node) -> impl Iterator<Item = ValueId> + '_ {
        (**self).block_reads(b)
    }
    fn phi_preds(&self, inst: InstId) -> impl Iterator<Item = Node> + '_ {
        (**self).phi_preds(inst)
    }
    fn commutes(&self, op: Self::Op) -> bool {
        (**self).commutes(op)
    }
    fn may_trap(&self, op: Self::Op) -> bool {
        (**self).may_trap(op)
    }
    fn same_memory(&self, earlier: InstId, later: InstId, order: &InstOrder<'_>) -> bool {
        (**self).same_memory(earlier, later, order)
    }
}
