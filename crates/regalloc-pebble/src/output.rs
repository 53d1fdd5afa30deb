//! The product of an allocation, as plain data over `u32` ids: nothing of
//! any IR. regalloc2's `Output` is the model — per-operand registers in CSR
//! form, and a sorted list of inserted moves at program points — with one
//! addition the pebble game needs: each block's instructions in their new
//! order (the game reorders a block within its dependences).
//!
//! Invariants:
//! - `order` lists every instruction of every block exactly once, in the
//!   order it runs; effects keep their relative order, the terminator is
//!   last;
//! - `allocs` gives, per instruction id, one register per use (in
//!   `VarCode::uses` order, duplicates included) and then one per
//!   definition (in `VarCode::defs` order);
//! - `edits` is sorted by [`ProgPoint`]; an edit at `Before { block, index
//!   }` runs before the `index`-th instruction of the block's new order
//!   (`index == len` is the block's end, only for a block without a
//!   terminator), one at `OnEdge { from, to }` runs on that edge (the client
//!   splits it: neither end could hold it);
//! - a load is a [`Edit`] from a slot to a register, a store the reverse, a
//!   move register to register;
//! - params arrive where `param_locs` says (the entry convention, free:
//!   "the ABI put them there"); `entry_locs` lists every var live into the
//!   entry block with its location at the start (params, and vars read
//!   before any definition, which are undefined there).
//!
//! [`crate::check`] verifies an allocation against the code symbolically.

use crate::class::{Loc, PReg};
use cfg_dom::{InstId, Node, VarId, csr};
use core::fmt;

/// A point between instructions.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum ProgPoint {
    /// Before the `index`-th instruction of `block`'s new order.
    Before {
        /// The block.
        block: Node,
        /// The position in [`Allocation::order`]`(block)`.
        index: u32,
    },
    /// On the CFG edge `from -> to`, which the client must split.
    OnEdge {
        /// The predecessor.
        from: Node,
        /// The successor.
        to: Node,
    },
}

/// An inserted data movement: `to <- from`, carrying `var`'s value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Edit {
    /// The source.
    pub from: Loc,
    /// The destination.
    pub to: Loc,
    /// The variable whose value moves.
    pub var: VarId,
}

impl Edit {
    /// What kind of movement this is.
    pub fn kind(&self) -> EditKind {
        match (self.from, self.to) {
            (Loc::Slot(_), Loc::Reg(_)) => EditKind::Load,
            (Loc::Reg(_), Loc::Slot(_)) => EditKind::Store,
            (Loc::Reg(_), Loc::Reg(_)) => EditKind::Move,
            (Loc::Slot(_), Loc::Slot(_)) => EditKind::MemMove,
        }
    }
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} <- {} (var {})", self.to, self.from, self.var)
    }
}

/// The kind of an [`Edit`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EditKind {
    /// Slot to register.
    Load,
    /// Register to slot.
    Store,
    /// Register to register.
    Move,
    /// Slot to slot (never produced; a client's edit list may hold one).
    MemMove,
}

/// Counts of inserted edits, plain and weighted by loop depth.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Costs {
    /// Loads inserted.
    pub loads: u64,
    /// Stores inserted.
    pub stores: u64,
    /// Register-to-register moves inserted.
    pub moves: u64,
    /// Loads, each weighted by its block's (or edge's) loop weight.
    pub weighted_loads: u64,
    /// Stores, weighted.
    pub weighted_stores: u64,
    /// Moves, weighted.
    pub weighted_moves: u64,
}

impl Costs {
    /// Loads + stores + moves.
    pub fn total(&self) -> u64 {
        self.loads + self.stores + self.moves
    }

    /// Weighted loads + stores + moves: what the allocators compete on.
    pub fn weighted(&self) -> u64 {
        self.weighted_loads.saturating_add(self.weighted_stores).saturating_add(self.weighted_moves)
    }

    /// Adds one edit of `kind` at loop weight `w`.
    pub fn add(&mut self, kind: EditKind, w: u64) {
        match kind {
            EditKind::Load => {
                self.loads += 1;
                self.weighted_loads = self.weighted_loads.saturating_add(w);
            }
            EditKind::Store => {
                self.stores += 1;
                self.weighted_stores = self.weighted_stores.saturating_add(w);
            }
            EditKind::Move | EditKind::MemMove => {
                self.moves += 1;
                self.weighted_moves = self.weighted_moves.saturating_add(w);
            }
        }
    }
}

/// One spill slot: the var it is the home of (`None` for a temporary slot
/// of intermediate values), and the vars whose values it holds at some
/// point (for sizing).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SlotInfo {
    /// The var whose home this is.
    pub home_of: Option<VarId>,
    /// Every var stored into it, sorted.
    pub vars: Vec<VarId>,
}

/// A function's allocation (see the module doc).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Allocation {
    pub(crate) order_start: Vec<u32>,
    pub(crate) order: Vec<InstId>,
    pub(crate) alloc_start: Vec<u32>,
    pub(crate) allocs: Vec<PReg>,
    pub(crate) edits: Vec<(ProgPoint, Edit)>,
    pub(crate) param_locs: Vec<Option<Loc>>,
    pub(crate) entry_locs: Vec<(VarId, Loc)>,
    pub(crate) slots: Vec<SlotInfo>,
    pub(crate) regs_used: [u32; 2],
    /// What the edits cost.
    pub costs: Costs,
    /// Vars held in global registers (var, register), sorted by var.
    pub globals: Vec<(VarId, PReg)>,
    /// Registers per class the local allocation used (`q` of document 004),
    /// when the global step ran.
    pub local_regs: Option<u32>,
}

impl Allocation {
    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.order_start.len().saturating_sub(1)
    }

    /// The instructions of `block` in the order they run.
    pub fn order(&self, block: Node) -> &[InstId] {
        csr::row(&self.order_start, &self.order, block as usize)
    }

    /// The registers of `inst`'s uses (in `VarCode::uses` order) followed
    /// by those of its definitions.
    pub fn allocs(&self, inst: InstId) -> &[PReg] {
        csr::row(&self.alloc_start, &self.allocs, inst as usize)
    }

    /// Every inserted edit, sorted by program point.
    pub fn edits(&self) -> &[(ProgPoint, Edit)] {
        &self.edits
    }

    /// The edits at `point`, in the order they run.
    pub fn edits_at(&self, point: ProgPoint) -> &[(ProgPoint, Edit)] {
        let lo = self.edits.partition_point(|(p, _)| *p < point);
        let hi = self.edits.partition_point(|(p, _)| *p <= point);
        &self.edits[lo..hi]
    }

    /// The edits placed in `block` (not on its edges), in order.
    pub fn edits_at_block(&self, block: Node) -> &[(ProgPoint, Edit)] {
        let lo = self.edits.partition_point(|(p, _)| *p < ProgPoint::Before { block, index: 0 });
        let hi = self.edits.partition_point(|(p, _)| *p < ProgPoint::Before { block: block + 1, index: 0 });
        &self.edits[lo..hi]
    }

    /// Where each param arrives (`None`: nothing reads it).
    pub fn param_locs(&self) -> &[Option<Loc>] {
        &self.param_locs
    }

    /// Where each var live into the entry block is when the function
    /// starts, sorted by var: params where they arrive, and vars read
    /// before any definition (undefined there) wherever the allocation
    /// chose.
    pub fn entry_locs(&self) -> &[(VarId, Loc)] {
        &self.entry_locs
    }

    /// The spill slots.
    pub fn slots(&self) -> &[SlotInfo] {
        &self.slots
    }

    /// Registers used per class (one more than the highest index).
    pub fn regs_used(&self) -> [u32; 2] {
        self.regs_used
    }

    /// Maps an allocation computed on `webs`' renamed code back to the
    /// code's vars (`params`: the code's params, in order).
    pub(crate) fn unweb(mut self, webs: &crate::webs::Webs, params: &[VarId]) -> Allocation {
        for (_, e) in &mut self.edits {
            e.var = webs.var_of(e.var);
        }
        for s in &mut self.slots {
            s.home_of = s.home_of.map(|w| webs.var_of(w));
            for x in &mut s.vars {
                *x = webs.var_of(*x);
            }
            s.vars.sort_unstable();
            s.vars.dedup();
        }
        for (x, _) in &mut self.entry_locs {
            *x = webs.var_of(*x);
        }
        self.entry_locs.sort_unstable();
        self.param_locs =
            params.iter().map(|&p| self.entry_locs.iter().find(|&&(x, _)| x == p).map(|&(_, l)| l)).collect();
        for (x, _) in &mut self.globals {
            *x = webs.var_of(*x);
        }
        self.globals.sort_unstable();
        self
    }

    /// The edges that must be split, in order.
    pub fn split_edges(&self) -> impl Iterator<Item = (Node, Node)> + '_ {
        let mut last = None;
        self.edits.iter().filter_map(move |(p, _)| match *p {
            ProgPoint::OnEdge { from, to } if last != Some((from, to)) => {
                last = Some((from, to));
                Some((from, to))
            }
            _ => None,
        })
    }
}
