//! What phi placement needs to know about a function's vars: where each is
//! defined, and which are *non-local* (Briggs, Cooper, Harvey and Simpson, "Practical improvements
//! to the construction and destruction of SSA form", SPE 1998; the DU-chain
//! document's `global_prs`): read in some block before any definition in
//! that block, so a value must flow into the block from elsewhere.
//!
//! Invariants: one pass over the instructions of the reachable blocks, in
//! order. A guarded definition defines (it makes a new version) but does not
//! kill, so a later use in the same block still sees values from outside and
//! its var is non-local. A param is defined at the entry. An input phi's
//! operands are uses at the end of their predecessors: local when that
//! predecessor has an unguarded definition of the var (the value read is
//! the block's own), non-local otherwise. (Counting every phi operand as
//! non-local made SSA construction of SSA input place a phi per version at
//! every join: 10^4 versions into a 10^4-way phi cost 10^8 operands.) Runs
//! on any [`cfg_dom::VarCode`], through a checked [`Input`].

use cfg_dom::{DomTree, Graph, Input, Mismatch, Node, VarCode, VarId, belongs, csr};
use fixedbitset::FixedBitSet;

/// Defining blocks per var and the non-local set.
///
/// Lifecycle: [`VarFacts::new`], then [`VarFacts::compute`] per function
/// (reusing every buffer), or [`VarFacts::of`] for a one-off.
#[derive(Clone, Debug, Default)]
pub struct VarFacts {
    /// The input's size and code stamp, to check later users against.
    blocks: usize,
    vars: usize,
    stamp: Option<u64>,
    /// CSR: the distinct reachable blocks defining var `v` are
    /// `def_blocks[start[v]..start[v + 1]]`, in block order.
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
    /// Scratch: (var, block) of every unguarded definition, and (var,
    /// predecessor) of every input-phi operand, both sorted at the end.
    kills: Vec<(u32, Node)>,
    phi_reads: Vec<(u32, Node)>,
}

impl VarFacts {
    /// Empty facts.
    pub fn new() -> VarFacts {
        VarFacts::default()
    }

    /// The facts of the input, considering only blocks reachable in `dt`
    /// (an error when `dt` is of another graph).
    pub fn of<G: Graph, C: VarCode>(input: &Input<'_, G, C>, dt: &DomTree) -> Result<VarFacts, Mismatch> {
        let mut facts = VarFacts::new();
        facts.compute(input, dt)?;
        Ok(facts)
    }

    /// Empties the facts, keeping buffers.
    pub fn clear(&mut self) {
        self.blocks = 0;
        self.vars = 0;
        self.stamp = None;
        self.start.clear();
        self.def_blocks.clear();
        self.non_local.clear();
        self.defined.clear();
    }

    /// Computes the facts of the input (only blocks reachable in `dt`),
    /// reusing buffers; an error (and empty facts) when `dt` is of another
    /// graph.
    pub fn compute<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>, dt: &DomTree) -> Result<(), Mismatch> {
        self.clear();
        let (g, code) = (input.graph(), input.code());
        belongs("the dominator tree", g.num_nodes(), g.stamp(), dt.num_nodes(), dt.stamp())?;
        let nv = code.num_vars();
        self.non_local.grow(nv);
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
        let (kills, phi_reads) = (&mut self.kills, &mut self.phi_reads);
        kills.clear();
        phi_reads.clear();
        if let Some(entry) = dt.root() {
            for &p in input.params() {
                last_def[p as usize] = entry;
                defined.insert(p as usize);
                pairs.push((p, entry));
            }
        }
        let has_phis = input.num_phis() > 0;
        // Reachable blocks in id order (the input is checked: ids in range).
        for b in (0..g.num_nodes() as Node).filter(|&b| dt.is_reachable(b)) {
            for &inst in input.block_insts(b) {
                for u in input.uses(inst) {
                    match u.pred {
                        // Decided below, once every block's kills are known.
                        Some(p) => phi_reads.push((u.var, p)),
                        None if killed[u.var as usize] != b => {
                            non_local.insert(u.var as usize);
                        }
                        None => {}
                    }
                }
                let guarded = input.is_guarded(inst);
                for &r in input.defs(inst) {
                    let i = r as usize;
                    defined.insert(i);
                    if !guarded {
                        if has_phis && killed[i] != b {
                            kills.push((r, b));
                        }
                        killed[i] = b;
                    }
                    if last_def[i] != b {
                        last_def[i] = b;
                        pairs.push((r, b));
                    }
                }
            }
        }
        // A phi operand read at the end of a predecessor that kills the var
        // (or of an unreachable one, which no value flows from) is local.
        if !phi_reads.is_empty() {
            kills.sort_unstable();
        }
        for &(v, p) in phi_reads.iter() {
            let reachable = (p as usize) < g.num_nodes() && dt.is_reachable(p);
            if reachable && kills.binary_search(&(v, p)).is_err() {
                non_local.insert(v as usize);
            }
        }
        // Stable by var: each var's blocks stay in block order.
        csr::bucket(nv, pairs, &mut self.start, &mut self.def_blocks);
        self.blocks = g.num_nodes();
        self.vars = nv;
        self.stamp = code.code_stamp();
        Ok(())
    }

    /// `Ok` when these facts were computed on `input`.
    pub fn check_owner<G: Graph, C: VarCode>(&self, input: &Input<'_, G, C>) -> Result<(), Mismatch> {
        input.owns("the var facts", self.blocks, self.num_vars(), self.stamp)
    }

    /// Number of vars covered (the bit sets may be longer: their buffers
    /// are kept from larger functions).
    pub fn num_vars(&self) -> usize {
        self.vars
    }

    /// The distinct reachable blocks that define `v` (params: the entry).
    pub fn def_blocks(&self, v: VarId) -> &[Node] {
        csr::row(&self.start, &self.def_blocks, v as usize)
    }

    /// True when `v` is read in some block before any (unguarded) definition
    /// of it in that block.
    pub fn is_non_local(&self, v: VarId) -> bool {
        self.non_local.contains(v as usize)
    }

    /// True when `v` has a definition in reachable code (or is a param).
    pub fn is_defined(&self, v: VarId) -> bool {
        self.defined.contains(v as usize)
    }
}
