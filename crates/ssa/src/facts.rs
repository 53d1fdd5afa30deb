//! What phi placement needs to know about a function's vars: where each is
//! defined, and which are *non-local* (Briggs et al.; the DU-chain
//! document's `global_prs`): read in some block before any definition in
//! that block, so a value must flow into the block from elsewhere.
//!
//! Invariants: one pass over the instructions of the reachable blocks, in
//! order. A guarded definition defines (it makes a new version) but does not
//! kill, so a later use in the same block still sees values from outside and
//! its var is non-local. A param is defined at the entry. An input phi's
//! operands are uses at the end of their predecessors, which makes their
//! vars non-local (they cross a block boundary by construction).

use cfg_dom::{DomTree, Node, node};
use fixedbitset::FixedBitSet;
use ir_core::entity::EntityRef;
use ir_core::{Function, Opcode, Var, csr};

/// Defining blocks per var and the non-local set.
///
/// Lifecycle: [`VarFacts::new`], then [`VarFacts::compute`] per function
/// (reusing every buffer), or [`VarFacts::of`] for a one-off.
#[derive(Clone, Debug, Default)]
pub struct VarFacts {
    /// CSR: the distinct reachable blocks defining var `v` are
    /// `def_blocks[start[v]..start[v + 1]]`, in layout order.
    start: Vec<u32>,
    def_blocks: Vec<Node>,
    non_local: FixedBitSet,
    defined: FixedBitSet,
    /// Scratch: `killed[v] == b` when an unguarded definition of v was seen
    /// in block b; `last_def[v] == b` once b was recorded as defining v;
    /// (var, block) pairs.
    killed: Vec<u32>,
    last_def: Vec<u32>,
    pairs: Vec<(u32, Node)>,
}

impl VarFacts {
    /// Empty facts.
    pub fn new() -> VarFacts {
        VarFacts::default()
    }

    /// The facts of `func`, considering only blocks reachable in `dt`.
    pub fn of(func: &Function, dt: &DomTree) -> VarFacts {
        let mut facts = VarFacts::new();
        facts.compute(func, dt);
        facts
    }

    /// Empties the facts, keeping buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.def_blocks.clear();
        self.non_local.clear();
        self.defined.clear();
    }

    /// Computes the facts of `func` (only blocks reachable in `dt`), reusing
    /// buffers.
    pub fn compute(&mut self, func: &Function, dt: &DomTree) {
        let nv = func.num_vars();
        self.non_local.clear();
        self.non_local.grow(nv);
        self.defined.clear();
        self.defined.grow(nv);
        let (non_local, defined) = (&mut self.non_local, &mut self.defined);
        let killed = &mut self.killed;
        killed.clear();
        killed.resize(nv, u32::MAX);
        let last_def = &mut self.last_def;
        last_def.clear();
        last_def.resize(nv, u32::MAX);
        let pairs = &mut self.pairs;
        pairs.clear();
        if let Some(entry) = func.entry_block().filter(|&e| dt.is_reachable(node(e))) {
            for &p in func.params() {
                last_def[p.index()] = node(entry);
                defined.insert(p.index());
                pairs.push((p.as_u32(), node(entry)));
            }
        }
        for b in func.blocks().filter(|&b| dt.is_reachable(node(b))) {
            let bn = node(b);
            for inst in func.block_insts(b) {
                let is_phi = func.opcode(inst) == Opcode::Phi;
                for (_, v) in func.uses(inst) {
                    if v.index() < nv && (is_phi || killed[v.index()] != bn) {
                        non_local.insert(v.index());
                    }
                }
                let guarded = func.guard(inst).is_some();
                for &r in func.results(inst) {
                    let Some(i) = Some(r.index()).filter(|&i| i < nv) else { continue };
                    defined.insert(i);
                    if !guarded {
                        killed[i] = bn;
                    }
                    if last_def[i] != bn {
                        last_def[i] = bn;
                        pairs.push((r.as_u32(), bn));
                    }
                }
            }
        }
        // Stable by var: each var's blocks stay in layout order.
        csr::bucket(nv, pairs, &mut self.start, &mut self.def_blocks);
    }

    /// The distinct reachable blocks that define `v` (params: the entry).
    pub fn def_blocks(&self, v: Var) -> &[Node] {
        csr::row(&self.start, &self.def_blocks, v.index())
    }

    /// True when `v` is read in some block before any (unguarded) definition
    /// of it in that block.
    pub fn is_non_local(&self, v: Var) -> bool {
        self.non_local.contains(v.index())
    }

    /// True when `v` has a definition in reachable code (or is a param).
    pub fn is_defined(&self, v: Var) -> bool {
        self.defined.contains(v.index())
    }
}
