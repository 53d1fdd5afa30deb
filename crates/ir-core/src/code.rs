//! How `cfg-dom`'s analyses (and the `ssa` and `defuse` crates built on
//! them) see a Keel function: its CFG as a [`cfg_dom::CsrGraph`]
//! ([`Function::cfg`]), its versions ([`cfg_dom::Versioned`]: the CFG epoch
//! and the code epoch) and its code as defs and uses of vars
//! ([`cfg_dom::VarCode`]).
//!
//! Invariants: block `bbN` is node `N` ([`node`], [`block`]); one node per
//! block ever created, so blocks not in the layout are isolated nodes with
//! no instructions; an edge from each laid-out block to each distinct
//! laid-out successor of its terminator, in terminator order (phis have one
//! incoming value per predecessor block, not per edge); the entry block is
//! the entry. Var ids and instruction ids are the entities' indices. Uses
//! of an instruction are numbered in [`Function::uses`] order (operands,
//! guard, fallbacks): [`Function::use_site`] maps the number back. A phi's
//! var operand `i` is read at the end of `phi_blocks(inst)[i]`; a phi is
//! never guarded for the analyses (a guard on one, only in unverified IR,
//! is a use at the phi).
//!
//! Why `Function` does not implement `cfg_dom::Graph` itself (issue 10
//! asked for it): a `Graph` answers `predecessors(n)` in O(degree), and a
//! Keel function keeps no predecessor lists — its edges live in the
//! terminators. Answering from the terminators would cost O(blocks) per
//! call and make every analysis quadratic. So the function's graph is the
//! [`CsrGraph`] that [`Function::cfg`] builds in one O(blocks + edges) pass
//! (or [`Function::compute_cfg`] into reused buffers), stamped with the
//! CFG epoch so a stale graph is caught; every `cfg-dom` analysis takes it.

use crate::entities::{Block, Inst};
use crate::function::Function;
use crate::instructions::{Extra, Operand, UseSite};
use crate::opcode::Opcode;
use cfg_dom::{CsrGraph, InstId, Node, Use, VarCode, VarId, Versioned};

/// The CFG node of a block: block `bbN` is node `N`.
#[inline]
pub fn node(b: Block) -> Node {
    b.as_u32()
}

/// The block of a CFG node of [`Function::cfg`].
#[inline]
pub fn block(n: Node) -> Block {
    Block::from_u32(n)
}

impl Function {
    /// The CFG (see the module invariants), stamped with the CFG epoch so
    /// analyses of it can be checked against later edits.
    pub fn cfg(&self) -> CsrGraph {
        let mut g = CsrGraph::new();
        self.compute_cfg(&mut g);
        g
    }

    /// [`Function::cfg`] into `graph`, reusing its buffers.
    pub fn compute_cfg(&self, graph: &mut CsrGraph) {
        let layout = self.layout();
        self.stream_inst_arena();
        let built = graph.compute_distinct(
            self.num_blocks(),
            self.entry_block().map(node),
            Some(self.cfg_epoch().as_u64()),
            self.blocks().map(node),
            |b| self.block_successors(block(b)).filter(|&s| layout.is_block_inserted(s)).map(node),
        );
        // Laid-out blocks and successors are blocks of this function, so
        // every node is below `num_blocks`.
        debug_assert!(built.is_ok(), "{built:?}");
    }

    /// Reads the instruction arena once, front to back, so that what
    /// follows finds it in cache. The CFG below reads each block's
    /// terminator in layout order: on a cold function (a whole-module pass
    /// meets each function's IR once) those reads are scattered cache
    /// misses, one per block, while a sequential read is prefetched by the
    /// hardware, and `cfg_dom::Input::new` reads the whole arena next
    /// anyway. Measured on sql-wasm's whole module, DU chains end to end:
    /// about 4% faster for both methods; within noise on smaller modules,
    /// +0.4% instructions (`docs/benchmarks-defuse.md`, run 9).
    /// Reading the layout's instruction list the same way gained nothing
    /// measurable, so it is not read here.
    fn stream_inst_arena(&self) {
        let touched = self.insts.values().fold(0u8, |acc, d| acc ^ d.opcode as u8);
        std::hint::black_box(touched);
    }

    /// The use site of use number `k` of `inst` (in [`Function::uses`]
    /// order, the numbering of [`cfg_dom::VarCode::uses`]).
    pub fn use_site(&self, inst: Inst, k: u32) -> Option<UseSite> {
        self.uses(inst).nth(k as usize).map(|(site, _)| site)
    }

    /// The number of the use at `site` of `inst` (the inverse of
    /// [`Function::use_site`]).
    pub fn use_number(&self, inst: Inst, site: UseSite) -> Option<u32> {
        self.uses(inst).position(|(s, _)| s == site).map(|k| k as u32)
    }
}

impl Versioned for Function {
    fn cfg_stamp(&self) -> Option<u64> {
        Some(self.cfg_epoch().as_u64())
    }

    fn code_stamp(&self) -> Option<u64> {
        Some(self.epoch().as_u64())
    }
}

impl VarCode for Function {
    fn num_blocks(&self) -> usize {
        Function::num_blocks(self)
    }

    fn num_vars(&self) -> usize {
        Function::num_vars(self)
    }

    fn num_insts(&self) -> usize {
        Function::num_insts(self)
    }

    fn params(&self) -> impl Iterator<Item = VarId> + '_ {
        Function::params(self).iter().map(|v| v.as_u32())
    }

    #[inline]
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        // Blocks out of the layout have no code (they are isolated nodes).
        self.layout().inserted_block_insts(block(b)).map(|i| i.as_u32())
    }

    fn defs(&self, inst: InstId) -> impl Iterator<Item = VarId> + '_ {
        self.results(Inst::from_u32(inst)).iter().map(|v| v.as_u32())
    }

    fn uses(&self, inst: InstId) -> impl Iterator<Item = Use> + '_ {
        // One lookup of the instruction for everything: this runs for
        // every instruction in every var-level pass.
        let (ops, guard, keeps, preds): (&[Operand], _, &[Operand], &[Block]) = match self.inst(Inst::from_u32(inst)) {
            Some(d) => (
                d.args.as_slice(&self.operand_pool),
                d.guard.expand(),
                d.fallbacks.as_slice(&self.operand_pool),
                match &d.extra {
                    Extra::Phi(list) => list.as_slice(&self.block_pool),
                    _ => &[],
                },
            ),
            None => (&[], None, &[], &[]),
        };
        let ops = ops
            .iter()
            .enumerate()
            .filter_map(move |(i, op)| Some(Use { var: op.as_var()?.as_u32(), pred: preds.get(i).map(|&b| node(b)) }));
        let keeps = keeps.iter().filter_map(|op| Some(Use::at(op.as_var()?.as_u32())));
        ops.chain(guard.map(|g| Use::at(g.as_u32()))).chain(keeps)
    }

    fn is_guarded(&self, inst: InstId) -> bool {
        self.inst(Inst::from_u32(inst)).is_some_and(|d| d.guard.is_some() && d.opcode != Opcode::Phi)
    }

    #[inline]
    fn is_phi(&self, inst: InstId) -> bool {
        Function::is_phi(self, Inst::from_u32(inst))
    }

    #[inline]
    fn append_inst(&self, inst: InstId, defs: &mut Vec<VarId>, uses: &mut Vec<Use>) -> bool {
        // One lookup for results, operands, guard, fallbacks and phi blocks;
        // this runs once per instruction for every var-level analysis, so
        // the common case (no phi, no fallbacks) takes the short path.
        let Some(d) = self.inst(Inst::from_u32(inst)) else { return false };
        defs.extend(d.results.as_slice(&self.var_pool).iter().map(|v| v.as_u32()));
        let args = d.args.as_slice(&self.operand_pool);
        uses.reserve(args.len() + 1);
        if let Extra::Phi(list) = &d.extra {
            let preds = list.as_slice(&self.block_pool);
            for (i, op) in args.iter().enumerate() {
                if let Some(v) = op.as_var() {
                    uses.push(Use { var: v.as_u32(), pred: preds.get(i).map(|&b| node(b)) });
                }
            }
        } else {
            for op in args {
                if let Some(v) = op.as_var() {
                    uses.push(Use::at(v.as_u32()));
                }
            }
        }
        let guard = d.guard.expand();
        if let Some(g) = guard {
            uses.push(Use::at(g.as_u32()));
        }
        if !d.fallbacks.is_empty() {
            uses.extend(
                d.fallbacks.as_slice(&self.operand_pool).iter().filter_map(|op| Some(Use::at(op.as_var()?.as_u32()))),
            );
        }
        guard.is_some() && d.opcode != Opcode::Phi
    }
}

impl Function {
    /// True when `inst` is a phi of this function.
    #[inline]
    pub fn is_phi(&self, inst: Inst) -> bool {
        self.inst(inst).is_some_and(|d| d.opcode == Opcode::Phi)
    }
}
