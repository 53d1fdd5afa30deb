//! The basic blocks and CFG of a compiled (virtual or physical) program,
//! and the leaders they are cut at ([`leaders`]), shared by the register
//! allocators' input ([`super::pebble::MluCode`]), the allocation checker
//! ([`super::checker`]) and the sync placement ([`super::syncs`]).
//!
//! Invariants: blocks start at the program's leaders (the entry, every
//! label, every instruction after a jump, branch, `exit` or `trap`) and
//! cover `0..n` in order; a label at `n` (the end) gets an empty last
//! block; successors are the taken target first, then the fall-through;
//! the graph is a `cfg_dom::CsrGraph` rooted at block 0.

use super::error::CompileError;
use cfg_dom::{CsrGraph, Node};
use mlu_isa::{Inst, Program};

/// A program cut into blocks, with its CFG.
#[derive(Debug)]
pub(crate) struct Blocks {
    /// Block `b` holds instructions `starts[b] .. starts[b + 1]`.
    pub starts: Vec<u32>,
    /// The CFG over the blocks.
    pub graph: CsrGraph,
}

impl Blocks {
    /// Cuts `p` into blocks; an error names a jump to a missing label.
    pub fn new(p: &Program) -> Result<Blocks, CompileError> {
        let n = p.insts.len();
        let leader = leaders(p);
        let mut starts: Vec<u32> = (0..n as u32).filter(|&k| leader[k as usize]).collect();
        if starts.is_empty() || p.labels.iter().any(|l| l.at as usize == n) {
            starts.push(n as u32);
        }
        let nb = starts.len();
        starts.push(n as u32);
        let mut edges = Vec::with_capacity(nb * 2);
        for b in 0..nb {
            let (lo, hi) = (starts[b] as usize, starts[b + 1] as usize);
            let last = if hi > lo { p.insts.get(hi - 1) } else { None };
            if let Some(i) = last
                && let Some(t) = i.target()
            {
                let Some(l) = p.labels.get(t.index()) else {
                    return Err(CompileError::MissingLabel { inst: (hi - 1) as u32 });
                };
                edges.push((b as Node, block_containing(&starts[..nb], l.at) as Node));
            }
            if !last.is_some_and(Inst::ends_flow) && b + 1 < nb {
                edges.push((b as Node, b as Node + 1));
            }
        }
        let graph = CsrGraph::from_edges(nb, Some(0), edges).map_err(CompileError::MalformedCfg)?;
        Ok(Blocks { starts, graph })
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The instructions of block `b`.
    pub fn range(&self, b: Node) -> std::ops::Range<u32> {
        self.starts[b as usize]..self.starts[b as usize + 1]
    }

    /// The block holding instruction `at` (the block starting at the label
    /// position `at`).
    pub fn block_of(&self, at: u32) -> usize {
        block_containing(&self.starts[..self.len()], at)
    }
}

/// The block whose first instruction is the last of `starts` at or before
/// `at` (`starts` sorted, one per block).
fn block_containing(starts: &[u32], at: u32) -> usize {
    starts.partition_point(|&s| s <= at).saturating_sub(1)
}

/// The block leaders of `program`: the entry, every label, and every
/// instruction after a jump, a branch, `exit` or `trap` (one entry per
/// instruction, and one for the end).
pub(crate) fn leaders(program: &Program) -> Vec<bool> {
    let n = program.insts.len();
    let mut leader = vec![false; n + 1];
    leader[0] = true;
    for l in &program.labels {
        if let Some(x) = leader.get_mut(l.at as usize) {
            *x = true;
        }
    }
    for (k, i) in program.insts.iter().enumerate() {
        if i.target().is_some() || i.ends_flow() {
            leader[k + 1] = true;
        }
    }
    leader
}
