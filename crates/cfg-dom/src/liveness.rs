//! Live variables per block, live-in and live-out sets, of any code given
//! through [`crate::VarCode`] on any [`crate::Graph`] (non-SSA vars; phis
//! allowed).
//!
//! Algorithm: the classical backward may-problem (Aho, Lam, Sethi and
//! Ullman, *Compilers*, 2nd ed., §9.2.5), `in(B) = gen(B) ∪ (out(B) −
//! kill(B))`, `out(B) = ∪ in(S)` over the successors `S`, with the phi
//! convention of SSA liveness (B. Boissinot et al., "Fast liveness checking
//! for SSA-form programs", CGO 2008; F. Brandner et al., "Computing liveness
//! sets for SSA-form programs", INRIA RR-7503, 2011): gen and kill of every
//! block are built in one backward pass over its instructions, and the
//! system is solved by the bitset solver of [`crate::BitDataflow`]
//! (backward, may, every block). A var is live at a point when some path
//! from that point reaches a use of it without passing an unguarded
//! definition of it; `oracle::live_in` (feature `fuzzing`) computes exactly
//! that, naively, and the property tests compare the two.
//!
//! Semantics (those of [`crate::VarCode`]; Keel's IR: `docs/ir.md` §7, §9,
//! §10):
//! - **Within a block**, instructions are processed backward: first the
//!   definitions are killed, then the uses are added (so `x = x + 1` keeps
//!   `x` live above it). Params need nothing special: the entry's live-in
//!   set may hold params and vars used before any definition.
//! - **Guards.** An unguarded definition kills. A guarded one does not:
//!   when the guard fails the old value survives, so the var stays live
//!   above it. Its uses (its predicate included) are uses as usual.
//! - **Phis.** A phi's result is defined at the top of its block: it kills
//!   there and is not live-in of the block (unlike Brandner et al., who
//!   count phi results as live-in). A phi's incoming value from predecessor
//!   `P` is used at the end of `P`, along the edge `P → S`: it is live-out
//!   of `P`, not live-in of the phi's block `S`. So `live_out(P) = ∪ over
//!   successors S of (live_in(S) ∪ phi_uses(S, P))`. An incoming value
//!   naming a block that is not a predecessor is ignored; a use of a phi at
//!   the phi itself (a guard, in unverified Keel IR) is a use at the phi.
//! - **Unreachable blocks** are analysed like any other: their live sets
//!   follow from their own instructions and successors (the definition is
//!   path-based and does not care whether the entry reaches the path's
//!   start). They cannot change the sets of reachable blocks, whose
//!   successors are all reachable.
//!
//! Invariants: sets are bit rows of one flat matrix per family, indexed by
//! var id (`0..num_vars()`); the input is checked first
//! ([`crate::check_input`]), so every id is in range; queries take block and
//! var ids of the analysed code and answer "not live" for any other id. A
//! computed result carries the code's stamp: [`Liveness::check`] fails once
//! any instruction changed. Nothing recurses.

use crate::code::{Input, InputBuffers, InputError, InstId, VarCode, VarId};
use crate::dataflow::{BitDataflow, Confluence, Direction, Flow, GenKill, Scope, ones};
use crate::graph::{Graph, Node};
use crate::stamp::{Stale, Versioned, check_stamp};

/// The shape of the liveness problem.
const FLOW: Flow = Flow::new(Direction::Backward, Confluence::May).with_scope(Scope::All);

/// Live-in and live-out sets of every block of a function.
///
/// Follows the crate's lifecycle: [`Liveness::new`], [`Liveness::of`],
/// [`Liveness::compute`] (reusing buffers), [`Liveness::clear`].
///
/// ```
/// use cfg_dom::{CsrGraph, Liveness, Use, VarCode, Versioned};
///
/// // A loop counting `i` (var 1) down from `n` (var 0): b0 -> b1 -> {b1, b2}.
/// struct Counter;
/// impl Versioned for Counter {}
/// impl VarCode for Counter {
///     fn num_blocks(&self) -> usize { 3 }
///     fn num_vars(&self) -> usize { 2 }
///     fn num_insts(&self) -> usize { 3 }
///     fn params(&self) -> impl Iterator<Item = u32> + '_ { [0].into_iter() }
///     fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ { [b].into_iter() }
///     // b0: i = n; b1: i = i - 1 (and branch on i); b2: return i.
///     fn defs(&self, i: u32) -> impl Iterator<Item = u32> + '_ { (i < 2).then_some(1).into_iter() }
///     fn uses(&self, i: u32) -> impl Iterator<Item = Use> + '_ { [Use::at(if i == 0 { 0 } else { 1 })].into_iter() }
///     fn is_guarded(&self, _: u32) -> bool { false }
/// }
/// let cfg = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 1), (1, 2)]).unwrap();
/// let live = Liveness::of(&cfg, &Counter).unwrap();
/// assert_eq!(live.live_in(0).collect::<Vec<_>>(), [0]); // n
/// assert_eq!(live.live_in(1).collect::<Vec<_>>(), [1]); // i, carried round the loop
/// assert!(live.is_live_out(1, 1) && !live.is_live_out(2, 1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    problem: GenKill,
    solution: BitDataflow,
    num_vars: usize,
    stamp: Option<u64>,
    /// The flattened input, kept for the next function.
    buffers: InputBuffers,
}

impl Liveness {
    /// Empty liveness (no blocks).
    pub fn new() -> Liveness {
        Liveness::default()
    }

    /// The liveness of `code` on its CFG `g`; an error when the input is
    /// malformed (see [`crate::check_input`]).
    pub fn of(g: &impl Graph, code: &impl VarCode) -> Result<Liveness, InputError> {
        let mut l = Liveness::new();
        l.compute(g, code)?;
        Ok(l)
    }

    /// Empties the sets, keeping the buffers.
    pub fn clear(&mut self) {
        self.problem.clear();
        self.solution.clear();
        self.num_vars = 0;
        self.stamp = None;
    }

    /// Computes the live sets of `code` on its CFG `g`, reusing buffers:
    /// gen and kill of every block in one backward pass over its
    /// instructions, phi operands as join-gen sets of the predecessors, then
    /// the backward fixpoint. On error the sets are left empty.
    pub fn compute(&mut self, g: &impl Graph, code: &impl VarCode) -> Result<(), InputError> {
        self.clear();
        let mut buffers = std::mem::take(&mut self.buffers);
        let done = Input::new(g, code, &mut buffers).map(|input| self.compute_input(&input));
        self.buffers = buffers;
        done
    }

    /// Bytes of the bit matrices [`Liveness::compute`] allocates for
    /// `blocks` blocks and `vars` vars: five `blocks × ⌈vars / 64⌉` word
    /// matrices (gen, kill, join-gen, live-in, live-out). Quadratic when
    /// both grow, so callers facing hostile sizes check it first.
    pub fn matrix_bytes(blocks: usize, vars: usize) -> u64 {
        (blocks as u64).saturating_mul(vars.div_ceil(64) as u64).saturating_mul(5 * 8)
    }

    /// [`Liveness::compute`] on an input already checked.
    pub fn compute_input<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>) {
        self.clear();
        let g = input.graph();
        self.num_vars = input.num_vars();
        self.problem.reset(FLOW, g.num_nodes(), self.num_vars);
        for b in 0..g.num_nodes() as Node {
            for &inst in input.block_insts(b).iter().rev() {
                self.transfer_inst(input, b, inst);
            }
        }
        self.solution.compute(g, &self.problem);
        self.stamp = input.code().code_stamp();
    }

    /// Folds `inst` of block `b` into the block's gen and kill sets (the
    /// instructions after it already are).
    fn transfer_inst<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>, b: Node, inst: InstId) {
        if !input.is_guarded(inst) {
            for &r in input.defs(inst) {
                self.problem.remove_gen(b, r as usize);
                self.problem.insert_kill(b, r as usize);
            }
        }
        for u in input.uses(inst) {
            match u.pred {
                // Read at the end of `p`, if `p -> b` is an edge.
                Some(p) => {
                    if input.graph().successors(p).any(|s| s == b) {
                        self.problem.insert_join_gen(p, u.var as usize);
                    }
                }
                None => {
                    self.problem.insert_gen(b, u.var as usize);
                }
            }
        }
    }

    /// The vars live at the top of `block` (before its phis), in id order.
    pub fn live_in(&self, block: Node) -> impl Iterator<Item = VarId> + '_ {
        ones(self.solution.in_words(block)).map(|v| v as VarId)
    }

    /// The vars live at the bottom of `block` (after its terminator, phi
    /// operands of its successors included), in id order.
    pub fn live_out(&self, block: Node) -> impl Iterator<Item = VarId> + '_ {
        ones(self.solution.out_words(block)).map(|v| v as VarId)
    }

    /// True when `var` is live at the top of `block`.
    pub fn is_live_in(&self, block: Node, var: VarId) -> bool {
        self.solution.contains_in(block, var as usize)
    }

    /// True when `var` is live at the bottom of `block`.
    pub fn is_live_out(&self, block: Node, var: VarId) -> bool {
        self.solution.contains_out(block, var as usize)
    }

    /// Number of blocks of the function (ids `0..num_blocks()`).
    pub fn num_blocks(&self) -> usize {
        self.solution.num_nodes()
    }

    /// Number of vars of the function (ids `0..num_vars()`).
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// Block visits the fixpoint took (at least one per block).
    pub fn visits(&self) -> u64 {
        self.solution.visits()
    }

    /// The code stamp of the function the sets were computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// `Ok` when the sets were computed on `func` as it is now (any change
    /// to its code, not only to its CFG, makes them stale).
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        check_stamp(self.stamp, func.code_stamp())
    }
}
