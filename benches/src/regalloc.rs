//! The register-allocation peers on the same functions: `regalloc-pebble`
//! (red-blue pebbling), its Chaitin-Briggs baseline, and regalloc2 0.15.2
//! (the allocator of Cranelift and wasmtime), through an adapter that
//! implements regalloc2's [`Function`] trait for Keel functions.
//!
//! **Same functions.** Every peer starts from the function's SSA form
//! (`ssa::construct`, pruned): regalloc2 takes it as it is (phis become
//! block parameters), the Keel allocators take it out of SSA first
//! (`regalloc_pebble::lower_phis`, as `keel regalloc` does). So the
//! parallel copies of phis are work every peer has to do: moves edits for
//! regalloc2, `copy` instructions for the others.
//!
//! **Same measure** ([`Tally`]): loads + stores + moves, each weighted by
//! `10^depth` of the block where it runs (the loop forest of the SSA
//! function's CFG; an edge counts at the shallower of its ends), over the
//! reachable blocks. A move is a register-to-register edit, or a `copy`
//! instruction whose source and destination registers differ (one whose
//! registers agree is deleted by any emitter); a memory-to-memory edit
//! counts as a load and a store. Unreachable blocks are left out (the
//! adapter does not give them to regalloc2).
//!
//! **The adapter** ([`Ra2Function`]): vregs are the SSA function's vars
//! (class `Int`), plus one per immediate a phi or a fallback passes (defined
//! by a pseudo-instruction where it is needed); blocks are the reachable
//! blocks in reverse postorder, each followed by the blocks that split its
//! critical edges (so regalloc2's loop-depth estimate, which takes an edge
//! to an earlier block for a back edge, sees the loops); the entry starts
//! with a pseudo-instruction defining the params anywhere (`any_def`: they
//! arrive free, as in `regalloc-pebble`'s entry convention); every var an
//! instruction reads is a `reg_use`, every var it writes a `reg_def`, and a
//! guarded definition reuses the register of its fallback
//! (`reg_reuse_def`), which is what "keeps its old value when the guard
//! fails" means for registers. Every allocation is checked by regalloc2's
//! own checker in the quality runs ([`check_ra2`]).

use cfg_dom::{CsrGraph, Dfs, Graph, LoopForest, Node};
use ir_core::{Function, Inst, Opcode, Operand, block, node};
use regalloc_pebble::{Allocation, Loc, ProgPoint};
use regalloc2::{
    Allocation as Ra2Alloc, Block as Ra2Block, Edit as Ra2Edit, Inst as Ra2Inst, InstRange, MachineEnv, Operand as Op,
    Output, PReg as Ra2PReg, PRegSet, RegClass as Ra2Class, VReg,
};

/// The weight of one loop level (as `regalloc_pebble::Options::loop_weight`).
pub const LOOP_WEIGHT: u64 = 10;

/// `LOOP_WEIGHT^depth`, saturating.
fn weight_of(depth: u32) -> u64 {
    LOOP_WEIGHT.saturating_pow(depth.min(18))
}

/// Loads, stores and moves of one allocation, plain and loop-weighted.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Tally {
    /// Memory to register.
    pub loads: u64,
    /// Register to memory.
    pub stores: u64,
    /// Register to register (edits and `copy` instructions not coalesced).
    pub moves: u64,
    /// Each of the above weighted by `10^depth`.
    pub weighted: u64,
    /// The weighted loads, stores and moves apart (their sum is `weighted`).
    pub weighted_split: [u64; 3],
}

impl Tally {
    /// Loads + stores + moves.
    pub fn total(&self) -> u64 {
        self.loads + self.stores + self.moves
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Tally) {
        self.loads += other.loads;
        self.stores += other.stores;
        self.moves += other.moves;
        self.weighted = self.weighted.saturating_add(other.weighted);
        for (sum, one) in self.weighted_split.iter_mut().zip(other.weighted_split) {
            *sum = sum.saturating_add(one);
        }
    }

    fn count(&mut self, load: bool, store: bool, w: u64) {
        let kinds = [load, store, !load && !store];
        for (k, on) in kinds.into_iter().enumerate() {
            if on {
                *[&mut self.loads, &mut self.stores, &mut self.moves][k] += 1;
                self.weighted_split[k] = self.weighted_split[k].saturating_add(w);
                self.weighted = self.weighted.saturating_add(w);
            }
        }
    }
}

/// One function ready for every peer (see the module doc).
#[derive(Debug)]
pub struct Prepared {
    /// The function's name.
    pub name: String,
    /// Its SSA form (regalloc2's input).
    pub ssa: Function,
    /// The SSA form taken out of SSA (the Keel allocators' input).
    pub lowered: Function,
    /// `lowered`'s CFG.
    pub cfg: CsrGraph,
    /// The regalloc2 view of `ssa`.
    pub ra2: Ra2Function,
    /// Instructions in reachable blocks of `ssa` (phis excepted): the
    /// throughput unit.
    pub insts: usize,
    /// Per block of `lowered`: its weight, 0 when unreachable.
    weights: Vec<u64>,
}

impl Prepared {
    /// Prepares `func` (any verified Keel function).
    ///
    /// # Panics
    ///
    /// If SSA construction refuses the function (it never does for a
    /// verified one).
    pub fn new(func: &Function) -> Prepared {
        let mut ssa = func.clone();
        let opts = ssa::Options { policy: ssa::Policy::Pruned, ..ssa::Options::default() };
        ssa::construct(&mut ssa, &opts).expect("a verified function goes into SSA");
        let mut lowered = ssa.clone();
        if regalloc_pebble::needs_destruct(&lowered) {
            regalloc_pebble::lower_phis(&mut lowered);
        }
        let cfg = lowered.cfg();
        let weights = block_weights(&cfg);
        let ra2 = Ra2Function::new(&ssa);
        let insts = ra2.original_insts;
        Prepared { name: func.name().to_string(), ssa, lowered, cfg, ra2, insts, weights }
    }

    /// The measure of a Keel allocation of [`Prepared::lowered`].
    pub fn tally_keel(&self, a: &Allocation) -> Tally {
        let f = &self.lowered;
        let mut t = Tally::default();
        for (p, e) in a.edits() {
            let w = match *p {
                ProgPoint::Before { block, .. } => self.weights[block as usize],
                ProgPoint::OnEdge { from, to } => self.weights[from as usize].min(self.weights[to as usize]),
            };
            if w == 0 {
                continue;
            }
            let load = matches!(e.from, Loc::Slot(_));
            let store = matches!(e.to, Loc::Slot(_));
            t.count(load, store, w);
        }
        for b in f.blocks() {
            let w = self.weights[node(b) as usize];
            if w == 0 {
                continue;
            }
            for i in f.block_insts(b) {
                if is_plain_copy(f, i) {
                    let r = a.allocs(i.as_u32());
                    if r.len() == 2 && r[0] != r[1] {
                        t.count(false, false, w);
                    }
                }
            }
        }
        t
    }
}

/// Per block of `g`: `10^loop depth`, or 0 when unreachable from the entry.
fn block_weights(g: &CsrGraph) -> Vec<u64> {
    let loops = LoopForest::of(g);
    let mut w = vec![0u64; g.num_nodes()];
    for b in Dfs::of(g).reverse_postorder() {
        w[b as usize] = weight_of(loops.loop_depth(b));
    }
    w
}

/// An unguarded `copy` of a var: the instruction a register allocator
/// deletes when source and destination share a register.
fn is_plain_copy(f: &Function, i: Inst) -> bool {
    f.opcode(i) == Opcode::Copy
        && f.guard(i).is_none()
        && f.results(i).len() == 1
        && f.operands(i).first().is_some_and(|o| o.as_var().is_some())
}

/// What an instruction of the regalloc2 view stands for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Origin {
    /// A Keel instruction.
    Keel(Inst),
    /// The params' definition at the entry.
    Params,
    /// An immediate put in a vreg (for a phi or a fallback).
    Constant,
    /// The jump of a block that splits an edge.
    Jump,
}

#[derive(Clone, Debug)]
struct BlockData {
    first: u32,
    end: u32,
    succs: Vec<Ra2Block>,
    preds: Vec<Ra2Block>,
    params: Vec<VReg>,
    /// Per successor: the vregs the branch passes.
    args: Vec<Vec<VReg>>,
    weight: u64,
}

/// A Keel function in SSA form as regalloc2 sees it (module doc).
#[derive(Clone, Debug)]
pub struct Ra2Function {
    blocks: Vec<BlockData>,
    op_start: Vec<u32>,
    ops: Vec<Op>,
    origin: Vec<Origin>,
    is_ret: Vec<bool>,
    is_branch: Vec<bool>,
    num_vregs: usize,
    /// Keel instructions (not pseudo ones) in the view.
    original_insts: usize,
}

/// Builds the instruction list of the view.
struct Builder {
    op_start: Vec<u32>,
    ops: Vec<Op>,
    origin: Vec<Origin>,
    is_ret: Vec<bool>,
    is_branch: Vec<bool>,
    num_vregs: usize,
}

impl Builder {
    fn push(&mut self, ops: &[Op], origin: Origin, is_ret: bool, is_branch: bool) {
        self.ops.extend_from_slice(ops);
        self.op_start.push(self.ops.len() as u32);
        self.origin.push(origin);
        self.is_ret.push(is_ret);
        self.is_branch.push(is_branch);
    }

    fn len(&self) -> u32 {
        self.origin.len() as u32
    }

    /// A vreg for operand `o`: its var, or a fresh vreg defined just here
    /// by a constant pseudo-instruction.
    fn vreg_of(&mut self, o: Operand) -> VReg {
        match o.as_var() {
            Some(v) => VReg::new(v.as_u32() as usize, Ra2Class::Int),
            None => {
                let r = VReg::new(self.num_vregs, Ra2Class::Int);
                self.num_vregs += 1;
                self.push(&[Op::reg_def(r)], Origin::Constant, false, false);
                r
            }
        }
    }
}

impl Ra2Function {
    /// The view of `ssa`, a Keel function in SSA form (phis and fallbacks
    /// allowed).
    pub fn new(ssa: &Function) -> Ra2Function {
        let cfg = ssa.cfg();
        let loops = LoopForest::of(&cfg);
        let rpo: Vec<Node> = Dfs::of(&cfg).reverse_postorder().collect();
        let mut reachable = vec![false; cfg.num_nodes()];
        for &b in &rpo {
            reachable[b as usize] = true;
        }
        // Block numbering: each reachable block in reverse postorder, then
        // the blocks splitting its edges. An edge p -> s is split when s
        // has several (reachable) predecessors and p several successors or
        // a terminator that reads a var (regalloc2 lets no branch with
        // operands or several targets pass block arguments to a join).
        let npreds = |s: Node| cfg.pred_slice(s).iter().filter(|&&p| reachable[p as usize]).count();
        let term_reads = |b: Node| ssa.terminator(block(b)).is_some_and(|t| ssa.uses(t).next().is_some());
        let mut id = vec![u32::MAX; cfg.num_nodes()];
        // (ra2 block, keel block or None, edge (p, s) for split blocks)
        let mut layout: Vec<(Option<Node>, (Node, Node))> = Vec::new();
        let mut split_of: Vec<((Node, Node), u32)> = Vec::new();
        for &b in &rpo {
            id[b as usize] = layout.len() as u32;
            layout.push((Some(b), (b, b)));
            let succs = cfg.succ_slice(b);
            for &s in succs {
                if npreds(s) > 1 && (succs.len() > 1 || term_reads(b)) {
                    split_of.push(((b, s), layout.len() as u32));
                    layout.push((None, (b, s)));
                }
            }
        }
        split_of.sort_unstable();
        let split = |p: Node, s: Node| split_of.binary_search_by_key(&(p, s), |&(e, _)| e).ok().map(|k| split_of[k].1);
        let target = |p: Node, s: Node| split(p, s).unwrap_or(id[s as usize]);
        let nb = layout.len();
        let mut blocks: Vec<BlockData> = (0..nb)
            .map(|_| BlockData {
                first: 0,
                end: 0,
                succs: Vec::new(),
                preds: Vec::new(),
                params: Vec::new(),
                args: Vec::new(),
                weight: 0,
            })
            .collect();
        let mut bld = Builder {
            op_start: vec![0],
            ops: Vec::new(),
            origin: Vec::new(),
            is_ret: Vec::new(),
            is_branch: Vec::new(),
            num_vregs: ssa.num_vars(),
        };
        let vr = |v: ir_core::Var| VReg::new(v.as_u32() as usize, Ra2Class::Int);
        let mut original_insts = 0usize;
        // The phi results of each Keel block are its params; its phis'
        // incoming values per predecessor are the arguments of the branch
        // into it (or of the split block's jump).
        let phis_of = |s: Node| -> Vec<Inst> { ssa.block_insts(block(s)).take_while(|&i| ssa.is_phi(i)).collect() };
        let incoming = |s: Node, p: Node| -> Vec<Operand> {
            phis_of(s)
                .iter()
                .map(|&phi| {
                    ssa.phi_incoming(phi)
                        .find(|&(bp, _)| node(bp) == p)
                        .map(|(_, o)| o)
                        .expect("a pair per predecessor")
                })
                .collect()
        };
        let mut ops: Vec<Op> = Vec::new();
        for (k, &(keel, (p, s))) in layout.iter().enumerate() {
            let bd_first = bld.len();
            let mut succs: Vec<Ra2Block> = Vec::new();
            let mut args: Vec<Vec<VReg>> = Vec::new();
            match keel {
                Some(b) => {
                    blocks[k].weight = weight_of(loops.loop_depth(b));
                    blocks[k].params = phis_of(b).iter().map(|&phi| vr(ssa.results(phi)[0])).collect();
                    if cfg.entry() == Some(b) && !ssa.params().is_empty() {
                        let defs: Vec<Op> = ssa.params().iter().map(|&x| Op::any_def(vr(x))).collect();
                        bld.push(&defs, Origin::Params, false, false);
                    }
                    for i in ssa.block_insts(block(b)) {
                        if ssa.is_phi(i) {
                            continue;
                        }
                        original_insts += 1;
                        let op = ssa.opcode(i);
                        if op.is_terminator() {
                            // The arguments this branch passes directly.
                            for &s2 in cfg.succ_slice(b) {
                                succs.push(Ra2Block::new(target(b, s2) as usize));
                                let a = if split(b, s2).is_some() {
                                    Vec::new()
                                } else {
                                    incoming(s2, b).into_iter().map(|o| bld.vreg_of(o)).collect()
                                };
                                args.push(a);
                            }
                            ops.clear();
                            ops.extend(ssa.uses(i).map(|(_, v)| Op::reg_use(vr(v))));
                            let ret = cfg.succ_slice(b).is_empty();
                            bld.push(&ops, Origin::Keel(i), ret, !ret);
                            continue;
                        }
                        ops.clear();
                        let fallbacks = ssa.fallbacks(i);
                        let mut keep_at: Vec<usize> = Vec::new();
                        let operands: Vec<Operand> = ssa.operands(i).to_vec();
                        for o in operands {
                            if let Some(v) = o.as_var() {
                                ops.push(Op::reg_use(vr(v)));
                            }
                        }
                        if let Some(g) = ssa.guard(i) {
                            ops.push(Op::reg_use(vr(g.var)));
                        }
                        for &o in fallbacks.to_vec().iter() {
                            let r = bld.vreg_of(o);
                            keep_at.push(ops.len());
                            ops.push(Op::reg_use(r));
                        }
                        for (r, &x) in ssa.results(i).iter().enumerate() {
                            match keep_at.get(r) {
                                Some(&at) => ops.push(Op::reg_reuse_def(vr(x), at)),
                                None => ops.push(Op::reg_def(vr(x))),
                            }
                        }
                        bld.push(&ops, Origin::Keel(i), false, false);
                    }
                }
                None => {
                    // The block on edge p -> s: the arguments, and a jump.
                    let wp = weight_of(loops.loop_depth(p));
                    let ws = weight_of(loops.loop_depth(s));
                    blocks[k].weight = wp.min(ws);
                    succs.push(Ra2Block::new(id[s as usize] as usize));
                    args.push(incoming(s, p).into_iter().map(|o| bld.vreg_of(o)).collect());
                    bld.push(&[], Origin::Jump, false, true);
                }
            }
            blocks[k].first = bd_first;
            blocks[k].end = bld.len();
            blocks[k].succs = succs;
            blocks[k].args = args;
        }
        // A block whose last instruction is not a branch or a return (a
        // Keel block always ends in a terminator; this keeps the view well
        // formed whatever the input).
        for b in 0..nb {
            for &s in &blocks[b].succs.clone() {
                blocks[s.index()].preds.push(Ra2Block::new(b));
            }
        }
        Ra2Function {
            blocks,
            op_start: bld.op_start,
            ops: bld.ops,
            origin: bld.origin,
            is_ret: bld.is_ret,
            is_branch: bld.is_branch,
            num_vregs: bld.num_vregs,
            original_insts,
        }
    }

    /// Instructions of the view (pseudo-instructions included).
    pub fn num_view_insts(&self) -> usize {
        self.origin.len()
    }

    /// The measure of regalloc2's output `out` for this view.
    pub fn tally(&self, ssa: &Function, out: &Output) -> Tally {
        let mut t = Tally::default();
        let mut block_of = vec![0u32; self.origin.len()];
        for (b, bd) in self.blocks.iter().enumerate() {
            for i in bd.first..bd.end {
                block_of[i as usize] = b as u32;
            }
        }
        for (point, edit) in &out.edits {
            let Ra2Edit::Move { from, to } = *edit;
            if from == to {
                continue;
            }
            let w = self.blocks[block_of[point.inst().index()] as usize].weight;
            t.count(from.is_stack(), to.is_stack(), w);
        }
        for (i, o) in self.origin.iter().enumerate() {
            if let Origin::Keel(k) = *o
                && is_plain_copy(ssa, k)
            {
                let at = out.inst_alloc_offsets[i] as usize;
                let a: &[Ra2Alloc] = &out.allocs[at..at + 2];
                if a[0] != a[1] {
                    t.count(false, false, self.blocks[block_of[i] as usize].weight);
                }
            }
        }
        t
    }
}

/// regalloc2's machine: `p` allocatable integer registers (all preferred),
/// no dedicated scratch register (it finds one or spills, as
/// `regalloc-pebble` sequences cycles through free registers or memory).
pub fn machine_env(p: u32) -> MachineEnv {
    let mut int = PRegSet::empty();
    for r in 0..p as usize {
        int.add(Ra2PReg::new(r, Ra2Class::Int));
    }
    MachineEnv {
        preferred_regs_by_class: [int, PRegSet::empty(), PRegSet::empty()],
        non_preferred_regs_by_class: [PRegSet::empty(), PRegSet::empty(), PRegSet::empty()],
        scratch_by_class: [None, None, None],
        fixed_stack_slots: Vec::new(),
    }
}

/// Runs regalloc2's checker on `out`.
pub fn check_ra2(f: &Ra2Function, env: &MachineEnv, out: &Output) -> Result<(), String> {
    let mut c = regalloc2::checker::Checker::new(f, env);
    c.prepare(out);
    c.run().map_err(|e| format!("{e:?}"))
}

impl regalloc2::Function for Ra2Function {
    fn num_insts(&self) -> usize {
        self.origin.len()
    }

    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    fn entry_block(&self) -> Ra2Block {
        Ra2Block::new(0)
    }

    fn block_insns(&self, b: Ra2Block) -> InstRange {
        let d = &self.blocks[b.index()];
        InstRange::new(Ra2Inst::new(d.first as usize), Ra2Inst::new(d.end as usize))
    }

    fn block_succs(&self, b: Ra2Block) -> &[Ra2Block] {
        &self.blocks[b.index()].succs
    }

    fn block_preds(&self, b: Ra2Block) -> &[Ra2Block] {
        &self.blocks[b.index()].preds
    }

    fn block_params(&self, b: Ra2Block) -> &[VReg] {
        &self.blocks[b.index()].params
    }

    fn is_ret(&self, i: Ra2Inst) -> bool {
        self.is_ret[i.index()]
    }

    fn is_branch(&self, i: Ra2Inst) -> bool {
        self.is_branch[i.index()]
    }

    fn branch_blockparams(&self, b: Ra2Block, _i: Ra2Inst, succ: usize) -> &[VReg] {
        &self.blocks[b.index()].args[succ]
    }

    fn inst_operands(&self, i: Ra2Inst) -> &[Op] {
        &self.ops[self.op_start[i.index()] as usize..self.op_start[i.index() + 1] as usize]
    }

    fn inst_clobbers(&self, _i: Ra2Inst) -> PRegSet {
        PRegSet::empty()
    }

    fn num_vregs(&self) -> usize {
        self.num_vregs
    }

    fn spillslot_size(&self, _c: Ra2Class) -> usize {
        1
    }
}
