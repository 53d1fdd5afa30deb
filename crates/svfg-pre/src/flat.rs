//! The checked, flattened form of a [`PreCode`] that every entry point
//! builds first ([`Flat`]), and the errors it reports ([`InputError`]).
//!
//! Invariant of a [`Flat`]: with the graph, the code is well formed — the
//! graph keeps its contract and has an entry, ids are in range, each
//! instruction is listed once, each value defined once, phis, copies, pure
//! operations and loads define exactly one value, a copy has an operand,
//! each phi names every distinct predecessor of its block exactly once —
//! and flattened into arrays in layout order, so the passes after it index
//! by position and never call the trait again, except for the memory
//! question. Building it is one pass over the code: O(blocks + edges +
//! instructions + operands). When the input breaks several rules, the
//! error is the first found walking the graph, the parameters, then the
//! blocks in order and each block's instructions in order.

use crate::input::{InstKind, InstOrder, Key, NONE, Operand, PreCode, ValueId};
use cfg_dom::{DomTree, Graph, GraphError, InstId, Mismatch, Node, belongs, check_graph};
use core::fmt;

/// Why a graph and code cannot be transformed. Nothing was changed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InputError {
    /// The graph breaks the [`Graph`] contract.
    Graph(GraphError),
    /// The code and the graph do not belong together.
    Mismatch(Mismatch),
    /// The graph has no entry (a function with no blocks).
    NoEntry,
    /// A block lists an instruction id at or above `num_insts()`.
    InstOutOfRange {
        /// The block.
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
    /// A value id at or above `num_values()`.
    ValueOutOfRange {
        /// The instruction naming it (`None`: a parameter).
        inst: Option<InstId>,
        /// The id.
        value: ValueId,
        /// `num_values()`.
        num_values: usize,
    },
    /// A value defined twice: the code is not in SSA form.
    DefinedTwice {
        /// The value.
        value: ValueId,
        /// The second definition (`None`: a parameter).
        inst: Option<InstId>,
    },
    /// A phi, copy, pure operation or load that does not define exactly
    /// one value.
    ResultCount {
        /// The instruction.
        inst: InstId,
        /// How many it defines.
        found: usize,
    },
    /// A copy with no operand.
    CopyWithoutOperand {
        /// The instruction.
        inst: InstId,
    },
    /// A phi whose operands do not come one from each distinct predecessor
    /// of its block (a missing, repeated or foreign predecessor, or fewer
    /// predecessors named than operands).
    PhiOperands {
        /// The phi.
        inst: InstId,
        /// Its block.
        block: Node,
    },
    /// Not malformed, but too large: the SVFG's expression phis passed
    /// their budget (a multiple of the function's size; module
    /// `construct`). A deep loop nest whose levels each compute an
    /// expression of values defined above the nest gets a phi of each at
    /// every enclosing header: quadratically many.
    TooManyPhis {
        /// Phi operands placed when the budget was passed.
        operands: u64,
        /// The budget.
        budget: u64,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InputError::Graph(ref e) => write!(f, "bad graph: {e}"),
            InputError::Mismatch(ref e) => e.fmt(f),
            InputError::NoEntry => f.write_str("the graph has no entry: the function has no blocks"),
            InputError::InstOutOfRange { block, inst, num_insts } => {
                write!(f, "block {block} lists instruction {inst}, but the function has {num_insts} instruction ids")
            }
            InputError::InstListedTwice { inst, block } => {
                write!(f, "instruction {inst} is listed a second time, by block {block}")
            }
            InputError::ValueOutOfRange { inst: Some(i), value, num_values } => {
                write!(f, "instruction {i} names value {value}, but the function has {num_values} values")
            }
            InputError::ValueOutOfRange { inst: None, value, num_values } => {
                write!(f, "parameter value {value} is out of range: the function has {num_values} values")
            }
            InputError::DefinedTwice { value, inst: Some(i) } => {
                write!(f, "not in SSA form: value {value} is defined again by instruction {i}")
            }
            InputError::DefinedTwice { value, inst: None } => {
                write!(f, "not in SSA form: parameter value {value} is defined twice")
            }
            InputError::ResultCount { inst, found } => {
                write!(f, "instruction {inst} is a phi, copy, pure operation or load but defines {found} values, not 1")
            }
            InputError::CopyWithoutOperand { inst } => write!(f, "copy {inst} has no operand"),
            InputError::PhiOperands { inst, block } => write!(
                f,
                "phi {inst} of block {block} does not take one operand from each distinct predecessor of its block"
            ),
            InputError::TooManyPhis { operands, budget } => write!(
                f,
                "too large: the SVFG's expression phis passed {operands} operands, over the budget of {budget} (32 per block, instruction and edge)"
            ),
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

/// Per position: the operation commutes.
pub(crate) const COMMUTES: u8 = 1;
/// Per position: the operation may trap.
pub(crate) const TRAPS: u8 = 2;

/// The code, checked and flattened in layout order (see the module doc).
/// A *position* is an instruction's index in layout order, block by block.
#[derive(Clone, Debug)]
pub(crate) struct Flat<O, I> {
    pub entry: Node,
    pub params: Vec<ValueId>,
    pub num_values: usize,
    /// The positions of block `b`: `block_start[b]..block_start[b + 1]`.
    pub block_start: Vec<u32>,
    /// Per position: the instruction id, its block, kind and flags.
    pub inst: Vec<InstId>,
    pub block: Vec<Node>,
    pub kind: Vec<InstKind<O>>,
    pub flags: Vec<u8>,
    /// Per position, CSR: its results and its operands (with, parallel to
    /// the operands, a phi operand's predecessor, [`NONE`] elsewhere).
    pub res_start: Vec<u32>,
    pub res: Vec<ValueId>,
    pub opd_start: Vec<u32>,
    pub opd: Vec<Operand<I>>,
    pub pred: Vec<Node>,
    /// Per instruction id: its position, or [`NONE`].
    pub entry_of: Vec<u32>,
    /// Per value: the block defining it (the entry for a parameter), or
    /// [`NONE`].
    pub def: Vec<Node>,
}

impl<O: Key, I: Key> Flat<O, I> {
    /// Checks `code` on `graph` and flattens it (see the module doc).
    pub(crate) fn new<G: Graph, C: PreCode<Op = O, Imm = I>>(graph: &G, code: &C) -> Result<Flat<O, I>, InputError> {
        check_graph(graph)?;
        let n = graph.num_nodes();
        belongs("the code", n, graph.stamp(), code.num_blocks(), code.cfg_stamp())?;
        let entry = graph.entry().ok_or(InputError::NoEntry)?;
        let (nv, ni) = (code.num_values(), code.num_insts());
        let mut def = vec![NONE; nv];
        let mut params = Vec::new();
        for value in code.params() {
            let slot =
                def.get_mut(value as usize).ok_or(InputError::ValueOutOfRange { inst: None, value, num_values: nv })?;
            if *slot != NONE {
                return Err(InputError::DefinedTwice { value, inst: None });
            }
            *slot = entry;
            params.push(value);
        }
        let mut f = Flat {
            entry,
            params,
            num_values: nv,
            block_start: Vec::with_capacity(n + 1),
            inst: Vec::new(),
            block: Vec::new(),
            kind: Vec::new(),
            flags: Vec::new(),
            res_start: vec![0],
            res: Vec::new(),
            opd_start: vec![0],
            opd: Vec::new(),
            pred: Vec::new(),
            entry_of: vec![NONE; ni],
            def,
        };
        // Per node: the phi (by a running stamp) that last marked it as a
        // predecessor to find (`2k`) or found (`2k + 1`).
        let mut mark: Vec<u32> = vec![NONE; n];
        let mut stamp: u32 = 0;
        for b in 0..n as Node {
            f.block_start.push(f.inst.len() as u32);
            for inst in code.block_insts(b) {
                let Some(slot) = f.entry_of.get_mut(inst as usize) else {
                    return Err(InputError::InstOutOfRange { block: b, inst, num_insts: ni });
                };
                if *slot != NONE {
                    return Err(InputError::InstListedTwice { inst, block: b });
                }
                *slot = f.inst.len() as u32;
                f.push_inst(graph, code, b, inst, &mut mark, &mut stamp)?;
            }
        }
        f.block_start.push(f.inst.len() as u32);
        Ok(f)
    }

    fn push_inst<G: Graph, C: PreCode<Op = O, Imm = I>>(
        &mut self,
        graph: &G,
        code: &C,
        b: Node,
        inst: InstId,
        mark: &mut [u32],
        stamp: &mut u32,
    ) -> Result<(), InputError> {
        let nv = self.num_values;
        let kind = code.kind(inst);
        let r0 = self.res.len();
        for value in code.results(inst) {
            let Some(slot) = self.def.get_mut(value as usize) else {
                return Err(InputError::ValueOutOfRange { inst: Some(inst), value, num_values: nv });
            };
            if *slot != NONE {
                return Err(InputError::DefinedTwice { value, inst: Some(inst) });
            }
            *slot = b;
            self.res.push(value);
        }
        let found = self.res.len() - r0;
        if kind != InstKind::Other && found != 1 {
            return Err(InputError::ResultCount { inst, found });
        }
        let o0 = self.opd.len();
        // The operands of an `Other` instruction are never read.
        if kind != InstKind::Other {
            for o in code.operands(inst) {
                if let Operand::Value(value) = o
                    && value as usize >= nv
                {
                    return Err(InputError::ValueOutOfRange { inst: Some(inst), value, num_values: nv });
                }
                self.opd.push(o);
                self.pred.push(NONE);
            }
        }
        let flags = match kind {
            InstKind::Phi => {
                self.phi_preds(graph, code, b, inst, o0, mark, stamp)?;
                0
            }
            InstKind::Copy if self.opd.len() == o0 => return Err(InputError::CopyWithoutOperand { inst }),
            InstKind::Pure(op) => {
                (if code.commutes(op) { COMMUTES } else { 0 }) | if code.may_trap(op) { TRAPS } else { 0 }
            }
            _ => 0,
        };
        self.res_start.push(self.res.len() as u32);
        self.opd_start.push(self.opd.len() as u32);
        self.inst.push(inst);
        self.block.push(b);
        self.kind.push(kind);
        self.flags.push(flags);
        Ok(())
    }

    /// Records the predecessor of each operand of the phi `inst` (operands
    /// from `o0`), checking that they are the distinct predecessors of `b`,
    /// each once.
    #[allow(clippy::too_many_arguments)]
    fn phi_preds<G: Graph, C: PreCode<Op = O, Imm = I>>(
        &mut self,
        graph: &G,
        code: &C,
        b: Node,
        inst: InstId,
        o0: usize,
        mark: &mut [u32],
        stamp: &mut u32,
    ) -> Result<(), InputError> {
        let bad = InputError::PhiOperands { inst, block: b };
        let (to_find, found) = (*stamp, *stamp + 1);
        *stamp = stamp.wrapping_add(2);
        if *stamp >= NONE - 1 {
            // Wrapped: forget the old marks (once per 2^31 phis).
            mark.fill(NONE);
            *stamp = 0;
        }
        let mut distinct = 0usize;
        for p in graph.predecessors(b) {
            if mark[p as usize] != to_find {
                mark[p as usize] = to_find;
                distinct += 1;
            }
        }
        let mut k = o0;
        for p in code.phi_preds(inst) {
            if k >= self.opd.len() || mark.get(p as usize) != Some(&to_find) {
                return Err(bad);
            }
            mark[p as usize] = found;
            self.pred[k] = p;
            k += 1;
        }
        if k != self.opd.len() || k - o0 != distinct {
            return Err(bad);
        }
        Ok(())
    }

    /// Positions (instructions) of all blocks.
    pub(crate) fn len(&self) -> usize {
        self.block_start.last().map_or(0, |&e| e as usize)
    }

    /// The positions of block `b`.
    #[inline]
    pub(crate) fn positions(&self, b: Node) -> core::ops::Range<usize> {
        self.block_start[b as usize] as usize..self.block_start[b as usize + 1] as usize
    }

    /// The results of position `e`.
    #[inline]
    pub(crate) fn results(&self, e: usize) -> &[ValueId] {
        &self.res[self.res_start[e] as usize..self.res_start[e + 1] as usize]
    }

    /// The operands of position `e`.
    #[inline]
    pub(crate) fn operands(&self, e: usize) -> &[Operand<I>] {
        &self.opd[self.opd_start[e] as usize..self.opd_start[e + 1] as usize]
    }

    /// The predecessors of the operands of position `e` (a phi).
    #[inline]
    pub(crate) fn operand_preds(&self, e: usize) -> &[Node] {
        &self.pred[self.opd_start[e] as usize..self.opd_start[e + 1] as usize]
    }

    /// True when position `e` is a candidate computation: a pure operation
    /// or a load (one result, by the invariant).
    #[inline]
    pub(crate) fn is_computation(&self, e: usize) -> bool {
        matches!(self.kind[e], InstKind::Pure(_) | InstKind::Load(_))
    }

    /// The block defining `value`, if any.
    #[inline]
    pub(crate) fn def_node(&self, value: ValueId) -> Option<Node> {
        self.def.get(value as usize).copied().filter(|&d| d != NONE)
    }

    /// The block listing instruction `inst`, if any.
    #[inline]
    pub(crate) fn block_of(&self, inst: InstId) -> Option<Node> {
        let e = *self.entry_of.get(inst as usize)?;
        self.block.get(e as usize).copied()
    }

    /// The instruction order over this code and its dominator tree.
    pub(crate) fn order<'a>(&'a self, dt: &'a DomTree) -> InstOrder<'a> {
        InstOrder::new(dt, &self.entry_of, &self.block)
    }
}
