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
///
/// When the input breaks several rules, the error reported is the first
/// found in this order: the graph; the code's size and stamp; params;
/// block listings (instruction ids in range, each listed once), block by
/// block; phis first, block by block; then, by instruction id, its
/// definitions and then its uses in order.
pub fn check_input(g: &impl Graph, code: &impl VarCode) -> Result<(), InputError> {
    Input::new(g, code, &mut InputBuffers::default()).map(|_| ())
}

/// Per-instruction flags of a flattened input.
const PHI: u8 = 1;
const GUARDED: u8 = 2;
/// Some block lists the instruction.
const LISTED: u8 = 4;

/// The error of a flattened input whose bulk check failed: the first
/// instruction by id (and within it, definitions first, then uses in
/// order) naming a var out of range, or reading at a predecessor's end
/// while not a phi of a block of the graph.
fn first_bad_use_or_def(b: &InputBuffers, nv: usize, n: usize) -> Option<InputError> {
    for inst in 0..b.flags.len() {
        let id = inst as InstId;
        let bad_var = |var: VarId| InputError::VarOutOfRange { inst: Some(id), var, num_vars: nv };
        let (d0, d1) = (b.def_start[inst] as usize, b.def_start[inst + 1] as usize);
        if let Some(&var) = b.defs[d0..d1].iter().find(|&&v| v as usize >= nv) {
            return Some(bad_var(var));
        }
        let phi = b.flags[inst] & PHI != 0;
        let (u0, u1) = (b.use_start[inst] as usize, b.use_start[inst + 1] as usize);
        for u in &b.uses[u0..u1] {
            if u.var as usize >= nv {
                return Some(bad_var(u.var));
            }
            if let Some(pred) = u.pred.filter(|&p| !phi || p as usize >= n) {
                return Some(InputError::BadPhiUse { inst: id, pred });
            }
        }
    }
    None
}

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
        // Pass 1, by block: which instructions, where. It reads only the
        // code's layout; each instruction's own data is read once, in pass
        // 2, in id order (for Keel IR, the order its arena is laid out in:
        // this is what keeps the input layer's memory traffic sequential).
        b.block_of.clear();
        b.block_of.resize(ni, NONE);
        b.flags.clear();
        b.flags.resize(ni, 0);
        b.block_start.clear();
        b.insts.clear();
        for blk in 0..n as Node {
            b.block_start.push(b.insts.len() as u32);
            for inst in code.block_insts(blk) {
                let Some(slot) = b.block_of.get_mut(inst as usize) else {
                    return Err(InputError::InstOutOfRange { block: blk, inst, num_insts: ni });
                };
                if *slot != NONE {
                    return Err(InputError::InstListedTwice { inst, block: blk });
                }
                *slot = blk;
                b.flags[inst as usize] = LISTED;
                b.insts.push(inst);
            }
        }
        b.block_start.push(b.insts.len() as u32);
        // Pass 2, by instruction id: phi or not, definitions, uses, guards.
        // The ids are checked afterwards, in bulk over the flat arrays (a
        // tight loop without a branch per use); only when that finds
        // something wrong does `first_bad_use_or_def` walk instruction by
        // instruction to name the first offender.
        b.def_start.clear();
        b.def_start.resize(ni + 1, 0);
        b.use_start.clear();
        b.use_start.resize(ni + 1, 0);
        b.defs.clear();
        b.uses.clear();
        b.phis = 0;
        let mut phi_preds = 0usize;
        for inst in 0..ni {
            b.def_start[inst] = b.defs.len() as u32;
            b.use_start[inst] = b.uses.len() as u32;
            let flags = b.flags[inst];
            if flags & LISTED == 0 {
                continue;
            }
            let (d0, u0) = (b.defs.len(), b.uses.len());
            let phi = code.is_phi(inst as InstId);
            let guarded = code.append_inst(inst as InstId, &mut b.defs, &mut b.uses);
            if phi {
                b.flags[inst] = flags | PHI;
                b.phis += 1;
                phi_preds += b.uses[u0..].iter().filter(|u| u.pred.is_some()).count();
            } else if guarded && b.defs.len() > d0 {
                // A phi is never guarded (see the module doc); guardedness
                // only matters to instructions that define something.
                b.flags[inst] = flags | GUARDED;
            }
        }
        // Pass 3, by block over the flags (no code read): phis first.
        if b.phis > 0 {
            for blk in 0..n {
                let insts = &b.insts[b.block_start[blk] as usize..b.block_start[blk + 1] as usize];
                let first_other = insts.iter().position(|&i| b.flags[i as usize] & PHI == 0);
                if let Some(k) = first_other
                    && let Some(&inst) = insts[k..].iter().find(|&&i| b.flags[i as usize] & PHI != 0)
                {
                    return Err(InputError::PhiNotFirst { inst, block: blk as Node });
                }
            }
        }
        b.def_start[ni] = b.defs.len() as u32;
        b.use_start[ni] = b.uses.len() as u32;
        let bad_def = b.defs.iter().fold(false, |bad, &v| bad | (v as usize >= nv));
        let (mut bad_use, mut preds) = (false, 0usize);
        for u in &b.uses {
            bad_use |= u.var as usize >= nv;
            if let Some(p) = u.pred {
                preds += 1;
                bad_use |= p as usize >= n;
            }
        }
        if (bad_def || bad_use || preds != phi_preds)
            && let Some(e) = first_bad_use_or_def(b, nv, n)
        {
            return Err(e);
        }
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

#[cfg(test)]
mod tests {
    use super::{InputError, Use, VarCode, VarId, check_input};
    use crate::{CsrGraph, Node, Versioned};

    /// Two blocks (0 → 1), one instruction per entry of `insts`: its block,
    /// whether it is a phi, its definitions and uses.
    struct Code {
        vars: usize,
        insts: Vec<(Node, bool, Vec<VarId>, Vec<Use>)>,
    }

    impl Versioned for Code {}

    impl VarCode for Code {
        fn num_blocks(&self) -> usize {
            2
        }
        fn num_vars(&self) -> usize {
            self.vars
        }
        fn num_insts(&self) -> usize {
            self.insts.len()
        }
        fn params(&self) -> impl Iterator<Item = VarId> + '_ {
            core::iter::empty()
        }
        fn block_insts(&self, b: Node) -> impl Iterator<Item = u32> + '_ {
            (0..self.insts.len() as u32).filter(move |&i| self.insts[i as usize].0 == b)
        }
        fn defs(&self, inst: u32) -> impl Iterator<Item = VarId> + '_ {
            self.insts[inst as usize].2.iter().copied()
        }
        fn uses(&self, inst: u32) -> impl Iterator<Item = Use> + '_ {
            self.insts[inst as usize].3.iter().copied()
        }
        fn is_guarded(&self, _: u32) -> bool {
            false
        }
        fn is_phi(&self, inst: u32) -> bool {
            self.insts[inst as usize].1
        }
    }

    fn first_error(insts: Vec<(Node, bool, Vec<VarId>, Vec<Use>)>) -> Result<(), InputError> {
        let g = CsrGraph::from_edges(2, Some(0), [(0, 1)]).expect("a valid graph");
        check_input(&g, &Code { vars: 3, insts })
    }

    /// The ids are checked in bulk; the error still names the first
    /// offending instruction by id, its definitions before its uses, and
    /// within its uses the first bad one.
    #[test]
    fn the_first_bad_instruction_is_named() {
        let ok = first_error(vec![
            (1, true, vec![0], vec![Use::from_pred(1, 0), Use::at(2)]),
            (1, false, vec![1], vec![Use::at(0)]),
        ]);
        assert_eq!(ok, Ok(()));
        let bad = |inst, var| Err(InputError::VarOutOfRange { inst: Some(inst), var, num_vars: 3 });
        // A bad use at instruction 1 comes before a bad definition at 2.
        let e = first_error(vec![
            (0, false, vec![0], vec![]),
            (0, false, vec![1], vec![Use::at(0), Use::at(7)]),
            (0, false, vec![9], vec![]),
        ]);
        assert_eq!(e, bad(1, 7));
        // Within one instruction, its definitions come first.
        assert_eq!(first_error(vec![(0, false, vec![5], vec![Use::at(6)])]), bad(0, 5));
        // A non-phi reading at a predecessor's end, after a good phi read.
        let e = first_error(vec![
            (1, true, vec![0], vec![Use::from_pred(1, 0)]),
            (1, false, vec![1], vec![Use::at(0), Use::from_pred(0, 0)]),
        ]);
        assert_eq!(e, Err(InputError::BadPhiUse { inst: 1, pred: 0 }));
        // A phi naming a block out of range.
        let e = first_error(vec![(1, true, vec![0], vec![Use::from_pred(1, 4)])]);
        assert_eq!(e, Err(InputError::BadPhiUse { inst: 0, pred: 4 }));
    }
}
