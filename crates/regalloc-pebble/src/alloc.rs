//! Allocating a whole function: the local pebble game on every block's DAG,
//! values carried in registers across edges, fix-ups on edges, and the
//! global step of source document 004 ("Register allocation and assignment
//! by two-colour (red-blue) pebbling", `docs/references.md`).
//!
//! **Per block** (in reverse postorder, then unreachable blocks by id): the
//! block's DAG ([`crate::BlockDag`]) is played by [`crate::Pebbler`] with
//! the block's local registers. Its sources start where the block's *entry
//! state* says: in memory (their var's home slot) or in a register.
//!
//! **Across edges** (`Options::carry`, on by default; off gives the
//! document 004's model, where every value crosses a block boundary in
//! memory): a block with one processed predecessor starts with the values
//! that predecessor left in registers; a join takes, var by var, the
//! location that costs its processed predecessors the least edge work
//! (weighted by loop depth), keeping a value in a register only when the
//! block (or, at a loop header, the loop) reads it. A sink must end in
//! memory when an already processed successor wants it there, and may stay
//! in a register otherwise. Every edge then gets a *fix-up*: a parallel
//! move from where the predecessor left each live value to where the
//! successor expects it ([`crate::parallel_move`]): moves, loads and
//! stores, at the predecessor's end when it has one successor (and its
//! terminator reads nothing the fix-up writes), at the successor's start
//! when it has one predecessor, else on the edge (the client splits it).
//! A var in different registers at a loop's bottom and top is exactly such
//! a fix-up on the back edge: moves on the edge (document 004's
//! alternative, unrolling the loop under a bound, is not implemented).
//!
//! **The global step** (document 004): the local allocation uses `q` of the
//! `P` registers per class; the `P − q` left go to variables chosen
//! greedily by their local loads + stores (+ fix-up moves) weighted by
//! `loop_weight^depth` ([`GlobalStep::Weighted`]), or by lifetime with
//! ties broken by use count and depth ([`GlobalStep::Lifetime`], the
//! document 004's variant), until registers or candidates run out. A global
//! var owns its register in every block where it is live or referenced
//! (two globals whose blocks are disjoint share a register — our
//! extension); in the other blocks the register is lent to the local
//! allocation. `q` is searched ([`Options::local_regs`] `None`): every
//! `P − g` for `g` in 0, 1, 2, 4, … down to the largest instruction
//! demand, keeping the cheapest weighted allocation.
//!
//! Params arrive free (the entry convention, like an ABI): in registers, in
//! order, while local registers last, and in their home slots after that.
//! Vars read before any definition are undefined there; their home slot
//! stands for them.
//!
//! Invariant: the result passes [`crate::check`] (every test and fuzz run
//! checks it), and it is a pure function of the code and the options.

use crate::belady::{Env, Sweep};
use crate::block_dag::{BlockDag, CodeError};
use crate::class::RegClass;
use crate::error::{AllocError, check_size};
use crate::facts::Facts;
use crate::global::GlobalAssign;
use crate::input::RegCode;
use crate::next_use::NextUse;
use crate::options::{GlobalStep, Options, Strategy};
use crate::output::Allocation;
use crate::pass::{Pass, Work};
use crate::pebble::Pebbler;
use crate::webs::{WebView, Webs};
use cfg_dom::{Graph, Input, InputBuffers, Liveness, LoopForest, Node, VarId};

/// Allocates `code` on its CFG `graph` (a fresh [`Allocator`]).
pub fn allocate<G: Graph, C: RegCode>(graph: &G, code: &C, options: &Options) -> Result<Allocation, AllocError> {
    Allocator::new().compute(graph, code, options)
}

/// A reusable allocation context: keeps its buffers between functions.
#[derive(Debug, Default)]
pub struct Allocator {
    input: InputBuffers,
    liveness: Liveness,
    loops: LoopForest,
    bd: BlockDag,
    pebbler: Pebbler,
    scratch: crate::pass::Scratch,
    next_use: NextUse,
    sweep: Sweep,
}

impl Allocator {
    /// A fresh context.
    pub fn new() -> Allocator {
        Allocator::default()
    }

    /// Allocates `code` on `graph` with `options`.
    pub fn compute<G: Graph, C: RegCode>(
        &mut self,
        graph: &G,
        code: &C,
        options: &Options,
    ) -> Result<Allocation, AllocError> {
        if !options.webs {
            return self.compute_names(graph, code, options);
        }
        // Phis are refused before webs are formed (they would be ordinary
        // definitions there).
        let webs = {
            let input = Input::new(graph, code, &mut self.input)?;
            check_size(&input, options.max_memory)?;
            for b in 0..input.num_blocks() as Node {
                if let Some(&i) = input.block_insts(b).iter().find(|&&i| input.is_phi(i)) {
                    return Err(AllocError::Code(CodeError::Phi { inst: i }));
                }
            }
            Webs::compute_input(&input, options.max_memory)?
        };
        let view = WebView::new(code, &webs);
        let alloc = self.compute_names(graph, &view, options)?;
        let params: Vec<VarId> = code.params().collect();
        Ok(alloc.unweb(&webs, &params))
    }

    /// [`Allocator::compute`] with the code's own vars as the names.
    fn compute_names<G: Graph, C: RegCode>(
        &mut self,
        graph: &G,
        code: &C,
        options: &Options,
    ) -> Result<Allocation, AllocError> {
        let input = Input::new(graph, code, &mut self.input)?;
        check_size(&input, options.max_memory)?;
        self.liveness.compute_input(&input);
        self.loops.compute(graph);
        let fx = Facts::new(&input, &self.liveness, &self.loops, options);
        let p = options.regs;
        let full = [p.get(RegClass::Scalar), p.get(RegClass::Vector)];
        let none = GlobalAssign::none(fx.nvars);
        if options.strategy == Strategy::Global {
            self.next_use.compute(&fx, &input, &self.liveness, &self.loops);
            let env = Env { fx: &fx, input: &input, liveness: &self.liveness, nu: &self.next_use, regs: full };
            let mut pass = self.sweep.run(&env)?;
            let allocation = pass.take_allocation(&fx, &input, None, &none);
            self.sweep.recycle(pass);
            return Ok(allocation);
        }
        let mut work =
            Work { bd: &mut self.bd, pebbler: &mut self.pebbler, scratch: &mut self.scratch, rule: options.local_rule };
        if options.global == GlobalStep::Off {
            let mut pass = work.pass(&fx, &input, &self.liveness, full, &none)?;
            return Ok(pass.take_allocation(&fx, &input, None, &none));
        }
        let mut demand = [0u32; 2];
        for d in &fx.demand {
            demand = [demand[0].max(d[0]), demand[1].max(d[1])];
        }
        // q: the smallest local register count every block can play with
        // (the largest instruction demand), and one and two more — measured
        // on generated programs, the best q is almost always among them.
        let qs: Vec<[u32; 2]> = match options.local_regs {
            Some(q) => vec![[q.min(full[0]), q.min(full[1])]],
            None => {
                let mut v: Vec<[u32; 2]> =
                    (0..3).map(|k| [(demand[0] + k).min(full[0]), (demand[1] + k).min(full[1])]).collect();
                v.dedup();
                v
            }
        };
        let mut best: Option<(Pass, [u32; 2], GlobalAssign)> = None;
        let mut failure: Option<AllocError> = None;
        for qc in qs {
            let (res, globals) = if qc == full {
                (work.pass(&fx, &input, &self.liveness, full, &none), GlobalAssign::none(fx.nvars))
            } else {
                // The counts come from local allocation with q registers
                // alone (the document's order).
                let counted = work.pass(&fx, &input, &self.liveness, qc, &none)?;
                let globals = GlobalAssign::choose(&fx, &counted.var_cost, qc, p, options.global);
                (work.pass(&fx, &input, &self.liveness, qc, &globals), globals)
            };
            match res {
                Ok(r) => {
                    if best.as_ref().is_none_or(|b| r.costs.weighted() < b.0.costs.weighted()) {
                        best = Some((r, qc, globals));
                    }
                }
                Err(e) => failure = Some(e),
            }
        }
        let Some((mut pass, q, globals)) = best else {
            return Err(failure.expect("some q was tried"));
        };
        let q = (q != full).then_some(q[0]);
        Ok(pass.take_allocation(&fx, &input, q, &globals))
    }
}
