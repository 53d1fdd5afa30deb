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
//! Invariant of an [`Input`] (what every var-level entry point builds
//! before anything else; building it runs [`crate::check_graph`] too): with
//! the graph, the code is well formed — ids in range, each instruction in
//! one block, phis first — and flattened into arrays, so the analyses after
//! it index by id and never call the trait again. The trait is walked once.

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

    /// Appends the variables `inst` defines to `defs` and its uses to
    /// `uses`, in order, and says whether it is guarded: all an [`Input`]
    /// reads of an instruction. Provided: it calls [`VarCode::defs`],
    /// [`VarCode::uses`] and [`VarCode::is_guarded`]; an IR that can answer
    /// the three from one lookup of the instruction may override it (Keel's
    /// does), and must answer exactly as they do.
    fn append_inst(&self, inst: InstId, defs: &mut Vec<VarId>, uses: &mut Vec<Use>) -> bool {
        defs.extend(self.defs(inst));
        uses.extend(self.uses(inst));
        self.is_guarded(inst)
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
    fn append_inst(&self, inst: InstId, defs: &mut Vec<VarId>, uses: &mut Vec<Use>) -> bool {
        (**self).append_inst(inst, defs, uses)
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
/// contract ([`crate::check_graph`]); it has `code.num_blocks()` nodes and,
/// when both carry one, the code's CFG stamp; every var and instruction id
/// is in range; each instruction is in one block; phis come first in their
/// block; only phis read at a predecessor's end. O(size of the code +
/// graph). This is [`Input::new`] without keeping the input.
pub fn check_input(g: &impl Graph, code: &impl VarCode) -> Result<(), InputError> {
    Input::new(g, code, &mut InputBuffers::default()).map(|_| ())
}

/// Per-instruction flags of a flattened input.
const PHI: u8 = 1;
const GUARDED: u8 = 2;

/// The memory of an [`Input`]: the code, checked and flattened into
/// arrays. Keep one across functions (analysis contexts do) so that a
/// warm input allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct InputBuffers {
    /// The graph check's counters.
    counts: Vec<u32>,
    params: Vec<VarId>,
    /// Each block's instructions: `insts[block_start[b]..block_start[b + 1]]`.
    block_start: Vec<u32>,
    insts: Vec<InstId>,
    /// By instruction id: its block (`NONE` for none) and its flags.
    block_of: Vec<u32>,
    flags: Vec<u8>,
    /// By instruction id, in CSR form: its definitions
    /// `defs[def_start[i]..def_start[i + 1]]` and uses likewise (ids no
    /// block lists have none).
    def_start: Vec<u32>,
    defs: Vec<VarId>,
    use_start: Vec<u32>,
    uses: Vec<Use>,
    /// Number of phis.
    phis: usize,
}

/// A graph and the code on it, checked together and flattened: the proof
/// the var-level analyses take. Building it walks the [`VarCode`] once —
/// checking every id (see [`check_input`]) while copying each block's
/// instructions, and each instruction's definitions, uses and flags by
/// instruction id, into flat arrays — so a pipeline of analyses (facts,
/// placement, renaming, chains) checks once and then reads arrays instead
/// of calling the trait again.
#[derive(Debug)]
pub struct Input<'a, G, C> {
    graph: &'a G,
    code: &'a C,
    b: &'a InputBuffers,
}

impl<G, C> Clone for Input<'_, G, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G, C> Copy for Input<'_, G, C> {}

impl<'a, G: Graph, C: VarCode> Input<'a, G, C> {
    /// Checks `code` on its CFG `graph` and flattens it into `buffers`
    /// (reused: keep them for the next function).
    pub fn new(graph: &'a G, code: &'a C, buffers: &'a mut InputBuffers) -> Result<Input<'a, G, C>, InputError> {
        let b = buffers;
        check_graph_with(graph, &mut b.counts)?;
        let n = graph.num_nodes();
        belongs("the code", n, graph.stamp(), code.num_blocks(), code.cfg_stamp())?;
        let (nv, ni) = (code.num_vars(), code.num_insts());
        b.params.clear();
        for var in code.params() {
            if var as usize >= nv {
                return Err(InputError::VarOutOfRange { inst: None, var, num_vars: nv });
            }
            b.params.push(var);
        }
        // Pass 1, by block: which instructions, where, phis first.
        b.block_of.clear();
        b.block_of.resize(ni, NONE);
        b.flags.clear();
        b.flags.resize(ni, 0);
        b.block_start.clear();
        b.insts.clear();
        b.phis = 0;
        for blk in 0..n as Node {
            b.block_start.push(b.insts.len() as u32);
            let mut phis_done = false;
            for inst in code.block_insts(blk) {
                let Some(slot) = b.block_of.get_mut(inst as usize) else {
                    return Err(InputError::InstOutOfRange { block: blk, inst, num_insts: ni });
                };
                if *slot != NONE {
                    return Err(InputError::InstListedTwice { inst, block: blk });
                }
                *slot = blk;
                b.insts.push(inst);
                if code.is_phi(inst) {
                    if phis_done {
                        return Err(InputError::PhiNotFirst { inst, block: blk });
                    }
                    b.flags[inst as usize] = PHI;
                    b.phis += 1;
                } else {
                    phis_done = true;
                }
            }
        }
        b.block_start.push(b.insts.len() as u32);
        // Pass 2, by instruction id: definitions, uses, guards.
        b.def_start.clear();
        b.use_start.clear();
        b.defs.clear();
        b.uses.clear();
        for inst in 0..ni as InstId {
            b.def_start.push(b.defs.len() as u32);
            b.use_start.push(b.uses.len() as u32);
            if b.block_of[inst as usize] == NONE {
                continue;
            }
            let phi = b.flags[inst as usize] == PHI;
            let (d0, u0) = (b.defs.len(), b.uses.len());
            let guarded = code.append_inst(inst, &mut b.defs, &mut b.uses);
            let bad_var = |var: VarId| InputError::VarOutOfRange { inst: Some(inst), var, num_vars: nv };
            if let Some(&var) = b.defs[d0..].iter().find(|&&v| v as usize >= nv) {
                return Err(bad_var(var));
            }
            for u in &b.uses[u0..] {
                if u.var as usize >= nv {
                    return Err(bad_var(u.var));
                }
                if let Some(pred) = u.pred.filter(|&p| !phi || p as usize >= n) {
                    return Err(InputError::BadPhiUse { inst, pred });
                }
            }
            // A phi is never guarded (see the module doc); guardedness only
            // matters to instructions that define something.
            if !phi && b.defs.len() > d0 && guarded {
                b.flags[inst as usize] = GUARDED;
            }
        }
        b.def_start.push(b.defs.len() as u32);
        b.use_start.push(b.uses.len() as u32);
        Ok(Input { graph, code, b })
    }

    /// Number of phis in the code (0 for most inputs: analyses skip their
    /// phi-specific work then).
    #[inline]
    pub fn num_phis(&self) -> usize {
        self.b.phis
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
        self.b.block_of.len()
    }

    /// The params, in order.
    #[inline]
    pub fn params(&self) -> &'a [VarId] {
        &self.b.params
    }

    /// The instructions of block `b`, in order (empty out of range).
    #[inline]
    pub fn block_insts(&self, b: Node) -> &'a [InstId] {
        crate::csr::row(&self.b.block_start, &self.b.insts, b as usize)
    }

    /// The block listing `inst`; `None` for an id no block lists (or out of
    /// range).
    #[inline]
    pub fn block_of(&self, inst: InstId) -> Option<Node> {
        self.b.block_of.get(inst as usize).copied().filter(|&b| b != NONE)
    }

    /// The variables `inst` defines (empty for an id no block lists).
    #[inline]
    pub fn defs(&self, inst: InstId) -> &'a [VarId] {
        crate::csr::row(&self.b.def_start, &self.b.defs, inst as usize)
    }

    /// The uses of `inst`, numbered as in [`VarCode::uses`] (empty for an
    /// id no block lists).
    #[inline]
    pub fn uses(&self, inst: InstId) -> &'a [Use] {
        crate::csr::row(&self.b.use_start, &self.b.uses, inst as usize)
    }

    /// Every definition, by instruction id then result order (the rows of
    /// [`Input::defs`] end to end), and where each instruction's start:
    /// `all_defs()[def_starts()[i]..def_starts()[i + 1]]`.
    #[inline]
    pub fn all_defs(&self) -> &'a [VarId] {
        &self.b.defs
    }

    /// The offsets of [`Input::all_defs`] by instruction id, plus the end.
    #[inline]
    pub fn def_starts(&self) -> &'a [u32] {
        &self.b.def_start
    }

    /// Every use, by instruction id then use number (the rows of
    /// [`Input::uses`] end to end).
    #[inline]
    pub fn all_uses(&self) -> &'a [Use] {
        &self.b.uses
    }

    /// The offsets of [`Input::all_uses`] by instruction id, plus the end.
    #[inline]
    pub fn use_starts(&self) -> &'a [u32] {
        &self.b.use_start
    }

    /// True when `inst` is a phi.
    #[inline]
    pub fn is_phi(&self, inst: InstId) -> bool {
        self.b.flags.get(inst as usize).is_some_and(|&f| f & PHI != 0)
    }

    /// True when `inst` is guarded and defines something (its definitions
    /// do not kill; a guard on an instruction without results changes no
    /// var-level answer).
    #[inline]
    pub fn is_guarded(&self, inst: InstId) -> bool {
        self.b.flags.get(inst as usize).is_some_and(|&f| f & GUARDED != 0)
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
