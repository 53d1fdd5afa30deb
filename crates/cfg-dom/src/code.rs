//! The var-level input trait: a function's code as reads and writes of
//! numbered variables, block by block. [`crate::Liveness`] runs on it here;
//! the `ssa` crate's phi placement and renaming and the `defuse` crate's
//! DU/UD chains run on it too, so a compiler implements it once (with
//! [`crate::Graph`] for its CFG) and gets all of them.
//!
//! Why one trait for all of them, beside the graph rather than holding it:
//! a compiler may keep its CFG in a petgraph or a CSR of its own, and
//! Keel's IR keeps no predecessor lists (Cranelift's choice), so the CFG
//! is passed next to the code and the pair is checked to belong together
//! (block count always, stamps when both carry one).
//!
//! The semantics every var-level analysis of Keel implements:
//! - **Params** ([`VarCode::params`]) are defined on entry.
//! - An instruction **uses** its vars ([`VarCode::uses`]) and then
//!   **defines** its results ([`VarCode::defs`]) — `x = x + 1` reads the old
//!   `x`.
//! - A **guarded** definition ([`VarCode::is_guarded`]) may not happen: it
//!   defines without killing, so what reached before still reaches after.
//! - A **phi** ([`VarCode::is_phi`]) stands at the top of its block, before
//!   every other instruction. Each of its uses names the predecessor
//!   ([`Use::pred`]) at whose end it is read, along the edge into the phi's
//!   block; a use naming a block that is not a predecessor takes no part. A
//!   phi is never guarded.
//!
//! Invariant of [`check_input`] (run by every var-level entry point before
//! anything else; it runs [`crate::check_graph`] too): with the graph, the
//! code is well formed — ids in range, each instruction in one block, phis
//! first — so the analyses after it can index by id. A trait's answers must
//! not change between calls.

use crate::graph::{Graph, GraphError, NONE, Node, check_graph_with};
use crate::stamp::{Mismatch, Versioned, belongs};
use core::fmt;

/// A variable id: dense, `0..num_vars()`.
pub type VarId = u32;

/// An instruction id: dense, `0..num_insts()` (some ids may belong to no
/// block, e.g. instructions a pass removed).
pub type InstId = u32;

/// One variable read by an instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Use {
    /// The variable.
    pub var: VarId,
    /// For a phi's incoming value, the predecessor at whose end it is
    /// read; `None` for a use at the instruction itself.
    pub pred: Option<Node>,
}

impl Use {
    /// A use at the instruction.
    pub fn at(var: VarId) -> Use {
        Use { var, pred: None }
    }

    /// A phi's incoming value from `pred`.
    pub fn from_pred(var: VarId, pred: Node) -> Use {
        Use { var, pred: Some(pred) }
    }
}

/// A function's code, as its vars' definitions and uses, for the var-level
/// analyses (liveness, phi placement, SSA renaming, DU/UD chains).
///
/// Blocks are the nodes of the CFG passed beside it (`0..num_blocks()`).
/// Uses of an instruction are numbered `0, 1, ...` in [`VarCode::uses`]
/// order, and its definitions likewise in [`VarCode::defs`] order: the
/// results of the analyses name a use as `(instruction, index)`.
///
/// Implement [`Versioned`] too (`impl Versioned for MyFunc {}` if the IR has
/// no versions) so results can be checked against later edits.
pub trait VarCode: Versioned {
    /// Number of blocks; must equal the CFG's node count.
    fn num_blocks(&self) -> usize;

    /// Number of variables: ids are `0..num_vars()`.
    fn num_vars(&self) -> usize;

    /// Number of instruction ids: ids are `0..num_insts()`.
    fn num_insts(&self) -> usize;

    /// The variables defined on entry (the params), in order.
    fn params(&self) -> impl Iterator<Item = VarId> + '_;

    /// The instructions of block `b`, in order (phis first).
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_;

    /// The variables `inst` defines, in order.
    fn defs(&self, inst: InstId) -> impl Iterator<Item = VarId> + '_;

    /// The variables `inst` reads, in order.
    fn uses(&self, inst: InstId) -> impl Iterator<Item = Use> + '_;

    /// True when `inst` may not execute (predicated): its definitions do
    /// not kill.
    fn is_guarded(&self, inst: InstId) -> bool;

    /// True when `inst` is a phi (see the module doc). By default nothing
    /// is.
    fn is_phi(&self, inst: InstId) -> bool {
        let _ = inst;
        false
    }
}

impl<C: VarCode + ?Sized> VarCode for &C {
    fn num_blocks(&self) -> usize {
        (**self).num_blocks()
    }
    fn num_vars(&self) -> usize {
        (**self).num_vars()
    }
    fn num_insts(&self) -> usize {
        (**self).num_insts()
    }
    fn params(&self) -> impl Iterator<Item = VarId> + '_ {
        (**self).params()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        (**self).block_insts(b)
    }
    fn defs(&self, inst: InstId) -> impl Iterator<Item = VarId> + '_ {
        (**self).defs(inst)
    }
    fn uses(&self, inst: InstId) -> impl Iterator<Item = Use> + '_ {
        (**self).uses(inst)
    }
    fn is_guarded(&self, inst: InstId) -> bool {
        (**self).is_guarded(inst)
    }
    fn is_phi(&self, inst: InstId) -> bool {
        (**self).is_phi(inst)
    }
}

/// Why a graph and code cannot be analysed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InputError {
    /// The graph breaks the [`Graph`] contract.
    Graph(GraphError),
    /// The code and the graph (or an analysis handed over with them) do not
    /// belong together.
    Mismatch(Mismatch),
    /// A variable id at or above `num_vars()`.
    VarOutOfRange {
        /// The instruction naming it (`None`: a param).
        inst: Option<InstId>,
        /// The id.
        var: VarId,
        /// `num_vars()`.
        num_vars: usize,
    },
    /// An instruction id at or above `num_insts()`.
    InstOutOfRange {
        /// The block listing it.
        block: Node,
        /// The id.
        inst: InstId,
        /// `num_insts()`.
        num_insts: usize,
    },
    /// An instruction listed twice (in one block or two).
    InstListedTwice {
        /// The instruction.
        inst: InstId,
        /// The block listing it the second time.
        block: Node,
    },
    /// A phi after a non-phi instruction of its block.
    PhiNotFirst {
        /// The phi.
        inst: InstId,
        /// Its block.
        block: Node,
    },
    /// A use that names a predecessor block in an instruction that is not a
    /// phi, or a block out of range.
    BadPhiUse {
        /// The instruction.
        inst: InstId,
        /// The block it names.
        pred: Node,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InputError::Graph(ref e) => write!(f, "bad graph: {e}"),
            InputError::Mismatch(ref e) => e.fmt(f),
            InputError::VarOutOfRange { inst: Some(i), var, num_vars } => {
                write!(f, "instruction {i} names var {var}, but the function has {num_vars} vars")
            }
            InputError::VarOutOfRange { inst: None, var, num_vars } => {
                write!(f, "param var {var} is out of range: the function has {num_vars} vars")
            }
            InputError::InstOutOfRange { block, inst, num_insts } => {
                write!(f, "block {block} lists instruction {inst}, but the function has {num_insts} instruction ids")
            }
            InputError::InstListedTwice { inst, block } => {
                write!(f, "instruction {inst} is listed a second time, by block {block}")
            }
            InputError::PhiNotFirst { inst, block } => {
                write!(f, "phi {inst} of block {block} follows a non-phi instruction")
            }
            InputError::BadPhiUse { inst, pred } => {
                write!(
                    f,
                    "instruction {inst} reads a value at the end of block {pred}, but it is not a phi of a block of the graph"
                )
            }
        }
    }
}

impl std::error::Error for InputError {}

impl From<Mismatch> for InputError {
    fn from(e: Mismatch) -> InputError {
        InputError::Mismatch(e)
    }
}

impl From<GraphError> for InputError {
    fn from(e: GraphError) -> InputError {
        InputError::Graph(e)
    }
}

/// `Ok` when `g` and `code` can be analysed together: the graph keeps its
/// contract ([`crate::check_graph`]); it has `code.num_blocks()` nodes and, when
/// both carry one, the code's CFG stamp; every var and instruction id is in
/// range; each instruction is in one block; phis come first in their block;
/// only phis read at a predecessor's end. O(size of the code + graph).
///
/// `scratch` is reused (one entry per node, then per instruction id), so
/// callers that check many functions allocate nothing once warm; on
/// success it holds the block of each instruction id (`u32::MAX` for none).
pub fn check_input(g: &impl Graph, code: &impl VarCode, scratch: &mut Vec<u32>) -> Result<(), InputError> {
    check_graph_with(g, scratch)?;
    let owner = scratch;
    let n = g.num_nodes();
    belongs("the code", n, g.stamp(), code.num_blocks(), code.cfg_stamp())?;
    let (nv, ni) = (code.num_vars(), code.num_insts());
    if let Some(var) = code.params().find(|&v| v as usize >= nv) {
        return Err(InputError::VarOutOfRange { inst: None, var, num_vars: nv });
    }
    owner.clear();
    owner.resize(ni, NONE);
    for b in 0..n as Node {
        let mut phis_done = false;
        for inst in code.block_insts(b) {
            let Some(slot) = owner.get_mut(inst as usize) else {
                return Err(InputError::InstOutOfRange { block: b, inst, num_insts: ni });
            };
            if *slot != NONE {
                return Err(InputError::InstListedTwice { inst, block: b });
            }
            *slot = b;
            let phi = code.is_phi(inst);
            if phi && phis_done {
                return Err(InputError::PhiNotFirst { inst, block: b });
            }
            phis_done |= !phi;
            let bad_var = |var: VarId| InputError::VarOutOfRange { inst: Some(inst), var, num_vars: nv };
            if let Some(var) = code.defs(inst).find(|&v| v as usize >= nv) {
                return Err(bad_var(var));
            }
            for u in code.uses(inst) {
                if u.var as usize >= nv {
                    return Err(bad_var(u.var));
                }
                if let Some(pred) = u.pred.filter(|&p| !phi || p as usize >= n) {
                    return Err(InputError::BadPhiUse { inst, pred });
                }
            }
        }
    }
    Ok(())
}

/// A graph and the code on it, checked together by [`check_input`]: the
/// proof the var-level analyses take, so that a pipeline of them (facts,
/// placement, renaming, chains) checks its input once. It also knows the
/// block of every instruction.
#[derive(Debug)]
pub struct Input<'a, G, C> {
    graph: &'a G,
    code: &'a C,
    /// The block of each instruction id, `u32::MAX` for none.
    block_of: &'a [u32],
}

impl<G, C> Clone for Input<'_, G, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G, C> Copy for Input<'_, G, C> {}

impl<'a, G: Graph, C: VarCode> Input<'a, G, C> {
    /// Checks `code` on its CFG `graph` ([`check_input`]). `scratch` holds
    /// the block of each instruction for as long as the input lives; keep
    /// it to reuse its memory for the next function.
    pub fn new(graph: &'a G, code: &'a C, scratch: &'a mut Vec<u32>) -> Result<Input<'a, G, C>, InputError> {
        check_input(graph, code, scratch)?;
        Ok(Input { graph, code, block_of: scratch })
    }

    /// The CFG.
    #[inline]
    pub fn graph(&self) -> &'a G {
        self.graph
    }

    /// The code.
    #[inline]
    pub fn code(&self) -> &'a C {
        self.code
    }

    /// Number of blocks (nodes of the graph).
    #[inline]
    pub fn num_blocks(&self) -> usize {
        self.graph.num_nodes()
    }

    /// Number of vars.
    #[inline]
    pub fn num_vars(&self) -> usize {
        self.code.num_vars()
    }

    /// Number of instruction ids.
    #[inline]
    pub fn num_insts(&self) -> usize {
        self.block_of.len()
    }

    /// The block listing `inst`; `None` for an id no block lists (or out of
    /// range).
    #[inline]
    pub fn block_of(&self, inst: InstId) -> Option<Node> {
        self.block_of.get(inst as usize).copied().filter(|&b| b != NONE)
    }

    /// `Ok` when an analysis covering `blocks` blocks and `vars` vars, with
    /// code stamp `stamp`, was computed on this input.
    pub fn owns(&self, what: &'static str, blocks: usize, vars: usize, stamp: Option<u64>) -> Result<(), Mismatch> {
        belongs(what, self.num_blocks(), self.code.code_stamp(), blocks, stamp)?;
        if vars != self.num_vars() {
            return Err(Mismatch::Vars { what, expected: self.num_vars(), found: vars });
        }
        Ok(())
    }
}
