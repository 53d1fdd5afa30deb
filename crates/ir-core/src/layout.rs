//! The order of blocks in a function and of instructions in blocks.
//!
//! Invariants: blocks in the layout form one doubly-linked list, and the
//! instructions of each block another, so inserting, removing and moving a
//! block or an instruction is O(1) (Cranelift's `ir::Layout`). Data and
//! order are separate: an instruction or block removed from the layout keeps
//! its data and id and can be inserted again. A block removed from the
//! layout keeps its instruction list. Every operation checks its
//! preconditions and returns a [`LayoutError`] instead of corrupting the lists.

use crate::entities::{Block, Inst};
use core::fmt;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

#[derive(Clone, Default, Debug)]
struct BlockNode {
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first: PackedOption<Inst>,
    last: PackedOption<Inst>,
    inserted: bool,
}

#[derive(Clone, Default, Debug)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
}

/// A layout precondition that did not hold.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LayoutError {
    /// The block is already in the layout.
    BlockAlreadyInserted(Block),
    /// The block is not in the layout.
    BlockNotInserted(Block),
    /// The instruction is already in a block.
    InstAlreadyInserted(Inst),
    /// The instruction is not in any block.
    InstNotInserted(Inst),
    /// The entity does not exist in this function.
    UnknownBlock(Block),
    /// The entity does not exist in this function.
    UnknownInst(Inst),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::BlockAlreadyInserted(b) => write!(f, "{b} is already in the layout"),
            LayoutError::BlockNotInserted(b) => write!(f, "{b} is not in the layout"),
            LayoutError::InstAlreadyInserted(i) => write!(f, "{i} is already in a block"),
            LayoutError::InstNotInserted(i) => write!(f, "{i} is not in any block"),
            LayoutError::UnknownBlock(b) => write!(f, "{b} does not exist"),
            LayoutError::UnknownInst(i) => write!(f, "{i} does not exist"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Block and instruction order.
#[derive(Clone, Default, Debug)]
pub struct Layout {
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
    num_blocks: u32,
}

impl Layout {
    pub(crate) fn new() -> Layout {
        Layout::default()
    }

    /// The entry block: the first in the layout.
    pub fn entry_block(&self) -> Option<Block> {
        self.first_block.expand()
    }

    /// The last block in the layout.
    pub fn last_block(&self) -> Option<Block> {
        self.last_block.expand()
    }

    /// Number of blocks in the layout.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks as usize
    }

    /// True when `block` is in the layout.
    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.blocks.get(block).is_some_and(|n| n.inserted)
    }

    /// The block after `block` in the layout.
    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).and_then(|n| n.next.expand())
    }

    /// The block before `block` in the layout.
    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).and_then(|n| n.prev.expand())
    }

    /// Blocks in layout order.
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks { layout: self, next: self.first_block.expand() }
    }

    /// The block holding `inst`, if it is inserted.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.insts.get(inst).and_then(|n| n.block.expand())
    }

    /// First instruction of `block`.
    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.blocks.get(block).and_then(|n| n.first.expand())
    }

    /// Last instruction of `block` (its terminator, in a valid function).
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.blocks.get(block).and_then(|n| n.last.expand())
    }

    /// The instruction after `inst` in its block.
    #[inline]
    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts.get(inst).and_then(|n| n.next.expand())
    }

    /// The instruction before `inst` in its block.
    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts.get(inst).and_then(|n| n.prev.expand())
    }

    /// Instructions of `block` in order.
    pub fn block_insts(&self, block: Block) -> Insts<'_> {
        Insts { layout: self, next: self.first_inst(block) }
    }

    /// Instructions of `block` in order, or none when the block is not
    /// inserted (a removed block keeps its instructions linked).
    pub(crate) fn inserted_block_insts(&self, block: Block) -> Insts<'_> {
        let next = if self.is_block_inserted(block) { self.first_inst(block) } else { None };
        Insts { layout: self, next }
    }

    pub(crate) fn append_block(&mut self, block: Block) -> Result<(), LayoutError> {
        self.check_block_free(block)?;
        let last = self.last_block;
        {
            let node = &mut self.blocks[block];
            node.prev = last;
            node.next = None.into();
            node.inserted = true;
        }
        match last.expand() {
            Some(l) => self.blocks[l].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.last_block = block.into();
        self.num_blocks += 1;
        Ok(())
    }

    pub(crate) fn insert_block_before(&mut self, block: Block, before: Block) -> Result<(), LayoutError> {
        self.check_block_free(block)?;
        if !self.is_block_inserted(before) {
            return Err(LayoutError::BlockNotInserted(before));
        }
        let prev = self.blocks[before].prev;
        {
            let node = &mut self.blocks[block];
            node.prev = prev;
            node.next = before.into();
            node.inserted = true;
        }
        self.blocks[before].prev = block.into();
        match prev.expand() {
            Some(p) => self.blocks[p].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.num_blocks += 1;
        Ok(())
    }

    pub(crate) fn insert_block_after(&mut self, block: Block, after: Block) -> Result<(), LayoutError> {
        match self.next_block(after) {
            Some(next) => self.insert_block_before(block, next),
            None if self.is_block_inserted(after) => self.append_block(block),
            None => Err(LayoutError::BlockNotInserted(after)),
        }
    }

    pub(crate) fn remove_block(&mut self, block: Block) -> Result<(), LayoutError> {
        if !self.is_block_inserted(block) {
            return Err(LayoutError::BlockNotInserted(block));
        }
        let (prev, next) = {
            let n = &mut self.blocks[block];
            n.inserted = false;
            (n.prev.take(), n.next.take())
        };
        match prev {
            Some(p) => self.blocks[p].next = next.into(),
            None => self.first_block = next.into(),
        }
        match next {
            Some(n) => self.blocks[n].prev = prev.into(),
            None => self.last_block = prev.into(),
        }
        self.num_blocks -= 1;
        Ok(())
    }

    pub(crate) fn append_inst(&mut self, inst: Inst, block: Block) -> Result<(), LayoutError> {
        self.check_inst_free(inst)?;
        let last = self.blocks[block].last;
        {
            let node = &mut self.insts[inst];
            node.block = block.into();
            node.prev = last;
            node.next = None.into();
        }
        match last.expand() {
            Some(l) => self.insts[l].next = inst.into(),
            None => self.blocks[block].first = inst.into(),
        }
        self.blocks[block].last = inst.into();
        Ok(())
    }

    pub(crate) fn insert_inst_before(&mut self, inst: Inst, before: Inst) -> Result<(), LayoutError> {
        self.check_inst_free(inst)?;
        let block = self.inst_block(before).ok_or(LayoutError::InstNotInserted(before))?;
        let prev = self.insts[before].prev;
        {
            let node = &mut self.insts[inst];
            node.block = block.into();
            node.prev = prev;
            node.next = before.into();
        }
        self.insts[before].prev = inst.into();
        match prev.expand() {
            Some(p) => self.insts[p].next = inst.into(),
            None => self.blocks[block].first = inst.into(),
        }
        Ok(())
    }

    pub(crate) fn insert_inst_after(&mut self, inst: Inst, after: Inst) -> Result<(), LayoutError> {
        let block = self.inst_block(after).ok_or(LayoutError::InstNotInserted(after))?;
        match self.next_inst(after) {
            Some(next) => self.insert_inst_before(inst, next),
            None => self.append_inst(inst, block),
        }
    }

    pub(crate) fn remove_inst(&mut self, inst: Inst) -> Result<(), LayoutError> {
        let block = self.inst_block(inst).ok_or(LayoutError::InstNotInserted(inst))?;
        let (prev, next) = {
            let n = &mut self.insts[inst];
            n.block = None.into();
            (n.prev.take(), n.next.take())
        };
        match prev {
            Some(p) => self.insts[p].next = next.into(),
            None => self.blocks[block].first = next.into(),
        }
        match next {
            Some(n) => self.insts[n].prev = prev.into(),
            None => self.blocks[block].last = prev.into(),
        }
        Ok(())
    }

    fn check_block_free(&self, block: Block) -> Result<(), LayoutError> {
        if self.is_block_inserted(block) { Err(LayoutError::BlockAlreadyInserted(block)) } else { Ok(()) }
    }

    fn check_inst_free(&self, inst: Inst) -> Result<(), LayoutError> {
        if self.inst_block(inst).is_some() { Err(LayoutError::InstAlreadyInserted(inst)) } else { Ok(()) }
    }
}

/// Iterator over blocks in layout order.
#[derive(Clone, Debug)]
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        let cur = self.next?;
        self.next = self.layout.next_block(cur);
        Some(cur)
    }
}

/// Iterator over a block's instructions in order.
#[derive(Clone, Debug)]
pub struct Insts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
}

impl Iterator for Insts<'_> {
    type Item = Inst;
    #[inline]
    fn next(&mut self) -> Option<Inst> {
        let cur = self.next?;
        self.next = self.layout.next_inst(cur);
        Some(cur)
    }
}
