//! Live variables of an `ir-core` function (non-SSA vars; phis allowed), per
//! block: live-in and live-out sets.
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
//! definition of it; [`crate::oracle::live_in`] computes exactly that,
//! naively, and the property tests compare the two.
//!
//! Semantics (see `docs/ir.md` §7, §9, §10):
//! - **Uses** are the var operands and the guard of an instruction
//!   (`Function::uses`); **definitions** are its results. Params are
//!   defined on entry and need nothing special: the entry's live-in set may
//!   hold params and vars used before any definition.
//! - **Within a block**, instructions are processed backward: first the
//!   results are killed, then the uses are added (so `%x = add %x, 1` keeps
//!   `%x` live above it).
//! - **Guards.** An unguarded definition kills. A guarded one (`@%p %x =
//!   …`, `@!%p`) does not: when the guard fails the old value survives, so
//!   the var stays live above it. For liveness a guarded definition neither
//!   generates nor kills its results; its guard and operands are uses as
//!   usual (so the predicate is live above it).
//! - **Phis.** A phi's result is defined at the phi, that is at the top of
//!   its block: it kills there and is not live-in of the block (unlike
//!   Brandner et al., who count phi results as live-in). A phi's incoming
//!   value from predecessor `P` is used at the end of `P`, along the edge
//!   `P → S`: it is live-out of `P`, not live-in of the phi's block `S`.
//!   So `live_out(P) = ∪ over successors S of (live_in(S) ∪ phi_uses(S,
//!   P))`, where `phi_uses(S, P)` are the vars the phis of `S` read for
//!   `P`. An incoming pair naming a block that is not a predecessor (only
//!   in unverified code) is ignored; a guard on a phi (idem) is a use at
//!   the phi.
//! - **Unreachable blocks** are analysed like any other: their live sets
//!   follow from their own instructions and successors (the definition is
//!   path-based and does not care whether the entry reaches the path's
//!   start). They cannot change the sets of reachable blocks, whose
//!   successors are all reachable. Blocks not in the layout have empty
//!   sets.
//!
//! Invariants: sets are bit rows of one flat matrix per family, indexed by
//! var id (`0..func.num_vars()`); vars out of that range (only in malformed
//! functions) are ignored; every query out of range answers "not live". A
//! computed result carries the function's (code) epoch: [`Liveness::check`]
//! fails once any instruction changed. Nothing recurses.

use crate::dataflow::{BitDataflow, Confluence, Direction, Flow, GenKill, Scope, ones};
use crate::graph::{CsrGraph, node};
use crate::stamp::{Stale, check_code};
use ir_core::entity::EntityRef;
use ir_core::{Block, Epoch, Function, Inst, Opcode, Var};

/// The shape of the liveness problem.
const FLOW: Flow = Flow::new(Direction::Backward, Confluence::May).with_scope(Scope::All);

/// Live-in and live-out sets of every block of a function.
///
/// Follows the crate's lifecycle: [`Liveness::new`], [`Liveness::of`],
/// [`Liveness::compute`] (reusing buffers), [`Liveness::clear`].
///
/// ```
/// use cfg_dom::Liveness;
///
/// let src = "func @f(%n: i32) -> i32 {\n    var %i: i32\n    var %c: i1\nbb0:\n    %i = copy %n\n    jump bb1\nbb1:\n    %i = sub %i, 1\n    %c = setp.sgt %i, 0\n    br %c, bb1, bb2\nbb2:\n    ret %i\n}\n";
/// let (module, _) = ir_core::text::parse(src).unwrap();
/// let func = module.function(module.function_by_name("f").unwrap()).unwrap();
/// let live = Liveness::of(func);
/// let [b0, b1] = [0, 1].map(ir_core::Block::from_u32);
/// let [n, i] = ["n", "i"].map(|v| func.var_by_name(v).unwrap());
/// assert_eq!(live.live_in(b0).collect::<Vec<_>>(), [n]);
/// assert_eq!(live.live_in(b1).collect::<Vec<_>>(), [i]); // carried round the loop
/// assert!(live.is_live_out(b1, i));
/// live.check(func).unwrap();
/// ```
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    cfg: CsrGraph,
    problem: GenKill,
    solution: BitDataflow,
    num_vars: usize,
    stamp: Option<Epoch>,
}

impl Liveness {
    /// Empty liveness (no blocks).
    pub fn new() -> Liveness {
        Liveness::default()
    }

    /// The liveness of `func`.
    pub fn of(func: &Function) -> Liveness {
        let mut l = Liveness::new();
        l.compute(func);
        l
    }

    /// Empties the sets, keeping the buffers.
    pub fn clear(&mut self) {
        self.cfg.clear();
        self.problem.clear();
        self.solution.clear();
        self.num_vars = 0;
        self.stamp = None;
    }

    /// Computes the live sets of `func`, reusing buffers: gen and kill of
    /// every block in one backward pass over its instructions, phi operands
    /// as join-gen sets of the predecessors, then the backward fixpoint.
    pub fn compute(&mut self, func: &Function) {
        self.clear();
        self.cfg.compute_function(func);
        self.num_vars = func.num_vars();
        self.problem.reset(FLOW, func.num_blocks(), self.num_vars);
        let layout = func.layout();
        for b in func.blocks() {
            let mut cur = layout.last_inst(b);
            while let Some(inst) = cur {
                self.transfer_inst(func, b, inst);
                cur = layout.prev_inst(inst);
            }
        }
        self.solution.compute(&self.cfg, &self.problem);
        self.stamp = Some(func.epoch());
    }

    /// Folds `inst` of block `b` into the block's gen and kill sets (the
    /// instructions after it already are).
    fn transfer_inst(&mut self, func: &Function, b: Block, inst: Inst) {
        let n = node(b);
        let guard = func.guard(inst);
        if guard.is_none() {
            for &r in func.results(inst) {
                self.problem.remove_gen(n, r.index());
                self.problem.insert_kill(n, r.index());
            }
        }
        if func.opcode(inst) == Opcode::Phi {
            for (pred, value) in func.phi_incoming(inst) {
                let Some(v) = value.as_var() else { continue };
                if self.cfg.succ_slice(node(pred)).contains(&n) {
                    self.problem.insert_join_gen(node(pred), v.index());
                }
            }
            if let Some(g) = guard {
                self.problem.insert_gen(n, g.var.index());
            }
        } else {
            for (_, v) in func.uses(inst) {
                self.problem.insert_gen(n, v.index());
            }
        }
    }

    /// The vars live at the top of `block` (before its phis), in id order.
    pub fn live_in(&self, block: Block) -> impl Iterator<Item = Var> + '_ {
        ones(self.solution.in_words(node(block))).map(Var::new)
    }

    /// The vars live at the bottom of `block` (after its terminator, phi
    /// operands of its successors included), in id order.
    pub fn live_out(&self, block: Block) -> impl Iterator<Item = Var> + '_ {
        ones(self.solution.out_words(node(block))).map(Var::new)
    }

    /// True when `var` is live at the top of `block`.
    pub fn is_live_in(&self, block: Block, var: Var) -> bool {
        self.solution.contains_in(node(block), var.index())
    }

    /// True when `var` is live at the bottom of `block`.
    pub fn is_live_out(&self, block: Block, var: Var) -> bool {
        self.solution.contains_out(node(block), var.index())
    }

    /// Number of blocks of the function (ids `0..num_blocks()`, laid out or
    /// not).
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

    /// The epoch of the function the sets were computed on.
    pub fn stamp(&self) -> Option<Epoch> {
        self.stamp
    }

    /// `Ok` when the sets were computed on `func` as it is now (any change
    /// to its code, not only to its CFG, makes them stale).
    pub fn check(&self, func: &Function) -> Result<(), Stale> {
        check_code(self.stamp, func)
    }
}
