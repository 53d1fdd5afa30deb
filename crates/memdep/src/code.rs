//! The input trait: a function's code as memory accesses, block by block.
//!
//! A compiler implements [`MemCode`] (with [`cfg_dom::Graph`] for its CFG)
//! and gets every analysis of this crate. Per instruction it lists the
//! memory ranges the instruction may touch ([`Access`]: an object, an
//! offset, a size, read or write, certain or only possible) and its
//! [`Effects`] (guarded; may read or write anything). Offsets may be exact
//! numbers, unknown, or *affine in a symbol* ([`Offset::Affine`]): a value
//! the IR can name, typically an SSA value, whose changes the IR reports
//! ([`SymbolChange`]); an induction variable of a loop is a symbol that
//! advances by a constant step on every back edge into its header.
//!
//! The semantics every analysis of the crate implements:
//! - Objects never overlap; locations are elements `0..len` of an object.
//! - An instruction reads, then writes: its reads see what was there
//!   before any of its writes.
//! - A write *kills* (certainly overwrites) exactly when it is certain
//!   ([`Access::may`] false), the instruction is not guarded, and its range
//!   is known: an exact offset and size, or an affine offset and an exact
//!   size, which kills relative to the same symbol.
//! - An access whose offset or size is not known touches some part of its
//!   bounds ([`Access::within`], or the whole object): it is a dependence
//!   of everything it may overlap, and kills nothing.
//! - "Anything" reads every location of every object, and writes any of
//!   them without killing.
//! - A symbol keeps its value between its changes: two offsets affine in
//!   the same symbol, evaluated at two points with no change of the symbol
//!   between them, differ by the difference of their constants.
//!
//! Invariant of a [`MemInput`] (what every entry point builds first): with
//! the graph, the code is well formed — ids in range, each instruction in
//! one block, bounds ordered, symbol changes naming blocks and
//! instructions of the code — and flattened into arrays, so the analyses
//! index by id and never call the trait again.

use cfg_dom::{Graph, GraphError, InstId, Mismatch, Node, Versioned, belongs, check_graph};
use core::fmt;

/// A memory object id: dense, `0..num_objects()`.
pub type ObjectId = u32;

/// A symbol id: dense, `0..num_symbols()`.
pub type SymbolId = u32;

/// Where an access starts, in elements of its object.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Offset {
    /// A known element index.
    Exact(i64),
    /// `scale * value(sym) + add`, with the symbol's value at the access
    /// (all arithmetic wrapping in 64 bits).
    Affine {
        /// The symbol.
        sym: SymbolId,
        /// Its coefficient.
        scale: i64,
        /// The constant.
        add: i64,
    },
    /// Not known.
    Unknown,
}

/// One memory range an instruction may read or write.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Access {
    /// True for a write, false for a read.
    pub write: bool,
    /// The object.
    pub object: ObjectId,
    /// First element.
    pub offset: Offset,
    /// Number of elements; `None` when not known.
    pub size: Option<u64>,
    /// Elements `lo..hi` of the object that the access certainly stays
    /// inside, when the IR knows more than the object's length (a callee's
    /// summary, say). `None`: anywhere in the object.
    pub within: Option<(u64, u64)>,
    /// True when the access only *may* happen even if the instruction
    /// executes (a callee's possible access): it never kills.
    pub may: bool,
}

impl Access {
    /// A certain read of `size` elements of `object` at `offset`.
    pub fn read(object: ObjectId, offset: Offset, size: Option<u64>) -> Access {
        Access { write: false, object, offset, size, within: None, may: false }
    }

    /// A certain write of `size` elements of `object` at `offset`.
    pub fn write(object: ObjectId, offset: Offset, size: Option<u64>) -> Access {
        Access { write: true, object, offset, size, within: None, may: false }
    }

    /// The same access, only possible (it never kills).
    pub fn may(self) -> Access {
        Access { may: true, ..self }
    }

    /// The same access, known to stay inside elements `lo..hi`.
    pub fn within(self, lo: u64, hi: u64) -> Access {
        Access { within: Some((lo, hi)), ..self }
    }

    /// True when offset and size are both known numbers (the document's
    /// *exact* descriptor).
    pub fn is_exact(&self) -> bool {
        matches!(self.offset, Offset::Exact(_)) && self.size.is_some()
    }
}

/// What an instruction does besides its listed accesses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Effects {
    /// The instruction may not execute (predicated): its writes kill
    /// nothing.
    pub guarded: bool,
    /// It may read any location of any object (an opaque call).
    pub reads_anything: bool,
    /// It may write any location of any object (an opaque call).
    pub writes_anything: bool,
}

/// Where a symbol takes a new value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SymbolChange {
    /// After the instruction executes (its own accesses see the old
    /// value), to a value unrelated to the old one.
    Inst(InstId),
    /// On entry to the block, before its first instruction, to an
    /// unrelated value.
    Block(Node),
    /// An induction variable: on entry to `header` along an edge from a
    /// block `header` dominates (a back edge) it advances by `step`; along
    /// any other edge it takes an unrelated value.
    Induction {
        /// The loop header.
        header: Node,
        /// The increment per back edge taken.
        step: i64,
    },
}

/// A function's code, as its memory accesses, for the analyses of this
/// crate.
///
/// Blocks are the nodes of the CFG passed beside it. The accesses of an
/// instruction are numbered `0, 1, ...` in [`MemCode::accesses`] order; the
/// results name an access as `(instruction, number)`.
///
/// Implement [`Versioned`] too (`impl Versioned for MyFunc {}` if the IR
/// has no versions).
pub trait MemCode: Versioned {
    /// Number of blocks; must equal the CFG's node count.
    fn num_blocks(&self) -> usize;

    /// Number of instruction ids: ids are `0..num_insts()`.
    fn num_insts(&self) -> usize;

    /// Number of memory objects: ids are `0..num_objects()`.
    fn num_objects(&self) -> usize;

    /// Length of an object in elements, if known (`None`: unbounded).
    fn object_len(&self, object: ObjectId) -> Option<u64> {
        let _ = object;
        None
    }

    /// Number of symbols: ids are `0..num_symbols()`. None by default.
    fn num_symbols(&self) -> usize {
        0
    }

    /// The instructions of block `b`, in order.
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_;

    /// Appends the accesses of `inst` to `out`, in order, and returns its
    /// other effects.
    fn accesses(&self, inst: InstId, out: &mut Vec<Access>) -> Effects;

    /// Appends where `sym` changes to `out`. Nothing by default: the
    /// symbol never changes during the function (a parameter).
    fn symbol_changes(&self, sym: SymbolId, out: &mut Vec<SymbolChange>) {
        let _ = (sym, out);
    }
}

impl<C: MemCode + ?Sized> MemCode for &C {
    fn num_blocks(&self) -> usize {
        (**self).num_blocks()
    }
    fn num_insts(&self) -> usize {
        (**self).num_insts()
    }
    fn num_objects(&self) -> usize {
        (**self).num_objects()
    }
    fn object_len(&self, object: ObjectId) -> Option<u64> {
        (**self).object_len(object)
    }
    fn num_symbols(&self) -> usize {
        (**self).num_symbols()
    }
    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        (**self).block_insts(b)
    }
    fn accesses(&self, inst: InstId, out: &mut Vec<Access>) -> Effects {
        (**self).accesses(inst, out)
    }
    fn symbol_changes(&self, sym: SymbolId, out: &mut Vec<SymbolChange>) {
        (**self).symbol_changes(sym, out)
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
    /// An instruction id at or above `num_insts()`.
    InstOutOfRange {
        /// The block listing it (`None`: a symbol change names it).
        block: Option<Node>,
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
    /// An access names an object at or above `num_objects()`.
    ObjectOutOfRange {
        /// The instruction.
        inst: InstId,
        /// The object.
        object: ObjectId,
        /// `num_objects()`.
        num_objects: usize,
    },
    /// An access names a symbol at or above `num_symbols()`.
    SymbolOutOfRange {
        /// The instruction.
        inst: InstId,
        /// The symbol.
        sym: SymbolId,
        /// `num_symbols()`.
        num_symbols: usize,
    },
    /// An access's `within` bounds are reversed (`lo > hi`).
    BadBounds {
        /// The instruction.
        inst: InstId,
        /// The access number.
        access: u32,
    },
    /// A symbol change names a block outside the graph or an instruction no
    /// block lists.
    BadSymbolChange {
        /// The symbol.
        sym: SymbolId,
        /// The change.
        change: SymbolChange,
    },
    /// Not malformed, but too large: the interned sets of sites the
    /// analysis builds outgrew its memory budget
    /// ([`Options::max_memory`](crate::Options::max_memory)); no result.
    TooLarge {
        /// Blocks of the code.
        blocks: usize,
        /// Instructions of the code.
        insts: usize,
        /// Bytes the set table would have taken with the set it refused
        /// (a lower bound on what the run needs).
        bytes: u64,
        /// The budget.
        limit: u64,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InputError::Graph(ref e) => write!(f, "bad graph: {e}"),
            InputError::Mismatch(ref e) => e.fmt(f),
            InputError::InstOutOfRange { block: Some(b), inst, num_insts } => {
                write!(f, "block {b} lists instruction {inst}, but the code has {num_insts} instruction ids")
            }
            InputError::InstOutOfRange { block: None, inst, num_insts } => {
                write!(f, "instruction {inst} is out of range: the code has {num_insts} instruction ids")
            }
            InputError::InstListedTwice { inst, block } => {
                write!(f, "instruction {inst} is listed a second time, by block {block}")
            }
            InputError::ObjectOutOfRange { inst, object, num_objects } => {
                write!(f, "instruction {inst} accesses object {object}, but the code has {num_objects} objects")
            }
            InputError::SymbolOutOfRange { inst, sym, num_symbols } => {
                write!(f, "instruction {inst} names symbol {sym}, but the code has {num_symbols} symbols")
            }
            InputError::BadBounds { inst, access } => {
                write!(f, "access {access} of instruction {inst} has bounds whose start is past their end")
            }
            InputError::BadSymbolChange { sym, change } => {
                write!(
                    f,
                    "symbol {sym} changes at {change:?}, which is not a block of the graph or a listed instruction"
                )
            }
            InputError::TooLarge { blocks, insts, bytes, limit } => write!(
                f,
                "too large: the memory dependences of {insts} instructions in {blocks} blocks need at least {bytes} bytes of site sets, over the limit of {limit}"
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

/// Marks "no block" in `u32` arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// The memory of a [`MemInput`]; keep one across functions (the analysis
/// context does) so a warm input allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct InputBuffers {
    block_start: Vec<u32>,
    insts: Vec<InstId>,
    block_of: Vec<u32>,
    /// By instruction id: its accesses `accesses[acc_start[i]..acc_start[i + 1]]`.
    acc_start: Vec<u32>,
    accesses: Vec<Access>,
    effects: Vec<Effects>,
    object_len: Vec<u64>,
    /// Symbol changes, by kind: after an instruction (CSR by instruction),
    /// on block entry (CSR by block), inductions at a header (CSR by block).
    after_start: Vec<u32>,
    after: Vec<SymbolId>,
    entry_start: Vec<u32>,
    entry: Vec<SymbolId>,
    iv_start: Vec<u32>,
    ivs: Vec<(SymbolId, i64)>,
    /// Scratch.
    changes: Vec<SymbolChange>,
    pairs: Vec<(u32, SymbolId)>,
    iv_pairs: Vec<(u32, (SymbolId, i64))>,
    used_syms: Vec<bool>,
}

/// A graph and the memory code on it, checked together and flattened: what
/// every analysis of the crate takes.
#[derive(Debug)]
pub struct MemInput<'a, G> {
    graph: &'a G,
    stamp: Option<u64>,
    b: &'a InputBuffers,
}

impl<G> Clone for MemInput<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for MemInput<'_, G> {}

impl<'a, G: Graph> MemInput<'a, G> {
    /// Checks `code` on its CFG `graph` and flattens it into `buffers`.
    /// The changes of symbols no access names are checked, then dropped
    /// (they matter to no answer).
    pub fn new<C: MemCode>(graph: &'a G, code: &C, buffers: &'a mut InputBuffers) -> Result<Self, InputError> {
        let accept_twice = crate::planted::planted(crate::planted::Bug::AcceptListedTwice);
        check_graph(graph)?;
        let n = graph.num_nodes();
        belongs("the memory code", n, graph.stamp(), code.num_blocks(), code.cfg_stamp())?;
        let b = buffers;
        let (ni, no, ns) = (code.num_insts(), code.num_objects(), code.num_symbols());
        b.block_of.clear();
        b.block_of.resize(ni, NONE);
        b.block_start.clear();
        b.insts.clear();
        for blk in 0..n as Node {
            b.block_start.push(b.insts.len() as u32);
            for inst in code.block_insts(blk) {
                let Some(slot) = b.block_of.get_mut(inst as usize) else {
                    return Err(InputError::InstOutOfRange { block: Some(blk), inst, num_insts: ni });
                };
                if *slot != NONE && !accept_twice {
                    return Err(InputError::InstListedTwice { inst, block: blk });
                }
                *slot = blk;
                b.insts.push(inst);
            }
        }
        b.block_start.push(b.insts.len() as u32);
        b.object_len.clear();
        b.object_len
            .extend((0..no as ObjectId).map(|o| code.object_len(o).unwrap_or(i64::MAX as u64).min(i64::MAX as u64)));
        b.acc_start.clear();
        b.accesses.clear();
        b.effects.clear();
        b.used_syms.clear();
        b.used_syms.resize(ns, false);
        for inst in 0..ni as InstId {
            b.acc_start.push(b.accesses.len() as u32);
            if b.block_of[inst as usize] == NONE {
                b.effects.push(Effects::default());
                continue;
            }
            let from = b.accesses.len();
            let effects = code.accesses(inst, &mut b.accesses);
            b.effects.push(effects);
            for (k, a) in b.accesses[from..].iter().enumerate() {
                if a.object as usize >= no {
                    return Err(InputError::ObjectOutOfRange { inst, object: a.object, num_objects: no });
                }
                if let Offset::Affine { sym, .. } = a.offset {
                    if sym as usize >= ns {
                        return Err(InputError::SymbolOutOfRange { inst, sym, num_symbols: ns });
                    }
                    b.used_syms[sym as usize] = true;
                }
                if a.within.is_some_and(|(lo, hi)| lo > hi) {
                    return Err(InputError::BadBounds { inst, access: k as u32 });
                }
            }
        }
        b.acc_start.push(b.accesses.len() as u32);
        // Symbol changes, checked for every symbol, kept for those some
        // access names.
        b.pairs.clear();
        let mut entry_pairs: Vec<(u32, SymbolId)> = Vec::new();
        b.iv_pairs.clear();
        for sym in 0..ns as SymbolId {
            b.changes.clear();
            code.symbol_changes(sym, &mut b.changes);
            let used = b.used_syms[sym as usize];
            for &change in &b.changes {
                let bad = || InputError::BadSymbolChange { sym, change };
                match change {
                    SymbolChange::Inst(i) => {
                        if b.block_of.get(i as usize).is_none_or(|&blk| blk == NONE) {
                            return Err(bad());
                        }
                        if used {
                            b.pairs.push((i, sym));
                        }
                    }
                    SymbolChange::Block(blk) => {
                        if blk as usize >= n {
                            return Err(bad());
                        }
                        if used {
                            entry_pairs.push((blk, sym));
                        }
                    }
                    SymbolChange::Induction { header, step } => {
                        if header as usize >= n {
                            return Err(bad());
                        }
                        if used {
                            b.iv_pairs.push((header, (sym, step)));
                        }
                    }
                }
            }
        }
        cfg_dom::csr::bucket(ni, &b.pairs, &mut b.after_start, &mut b.after);
        cfg_dom::csr::bucket(n, &entry_pairs, &mut b.entry_start, &mut b.entry);
        cfg_dom::csr::bucket(n, &b.iv_pairs, &mut b.iv_start, &mut b.ivs);
        Ok(MemInput { graph, stamp: code.code_stamp(), b })
    }

    /// A view of buffers filled by an earlier [`MemInput::new`] on `graph`.
    pub(crate) fn view(graph: &'a G, stamp: Option<u64>, b: &'a InputBuffers) -> Self {
        MemInput { graph, stamp, b }
    }

    /// The CFG.
    #[inline]
    pub fn graph(&self) -> &'a G {
        self.graph
    }

    /// The code stamp of the code this input was built from.
    #[inline]
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// Number of blocks.
    #[inline]
    pub fn num_blocks(&self) -> usize {
        self.graph.num_nodes()
    }

    /// Number of instruction ids.
    #[inline]
    pub fn num_insts(&self) -> usize {
        self.b.block_of.len()
    }

    /// Number of objects.
    #[inline]
    pub fn num_objects(&self) -> usize {
        self.b.object_len.len()
    }

    /// The length of an object (`i64::MAX` when unbounded).
    #[inline]
    pub fn object_len(&self, o: ObjectId) -> u64 {
        self.b.object_len.get(o as usize).copied().unwrap_or(i64::MAX as u64)
    }

    /// The instructions of block `b`, in order.
    #[inline]
    pub fn block_insts(&self, b: Node) -> &'a [InstId] {
        cfg_dom::csr::row(&self.b.block_start, &self.b.insts, b as usize)
    }

    /// The block listing `inst`, if any.
    #[inline]
    pub fn block_of(&self, inst: InstId) -> Option<Node> {
        self.b.block_of.get(inst as usize).copied().filter(|&b| b != NONE)
    }

    /// The accesses of `inst`, numbered as in [`MemCode::accesses`].
    #[inline]
    pub fn accesses(&self, inst: InstId) -> &'a [Access] {
        cfg_dom::csr::row(&self.b.acc_start, &self.b.accesses, inst as usize)
    }

    /// The effects of `inst`.
    #[inline]
    pub fn effects(&self, inst: InstId) -> Effects {
        self.b.effects.get(inst as usize).copied().unwrap_or_default()
    }

    /// Symbols that change after `inst` (only symbols some access names).
    #[inline]
    pub fn changes_after(&self, inst: InstId) -> &'a [SymbolId] {
        cfg_dom::csr::row(&self.b.after_start, &self.b.after, inst as usize)
    }

    /// Symbols that change to unrelated values on entry to `b`.
    #[inline]
    pub fn changes_at_entry(&self, b: Node) -> &'a [SymbolId] {
        cfg_dom::csr::row(&self.b.entry_start, &self.b.entry, b as usize)
    }

    /// Induction variables of header `b`: `(symbol, step)`.
    #[inline]
    pub fn inductions(&self, b: Node) -> &'a [(SymbolId, i64)] {
        cfg_dom::csr::row(&self.b.iv_start, &self.b.ivs, b as usize)
    }

    /// True when some instruction, block or header changes a symbol.
    pub fn has_symbol_changes(&self) -> bool {
        !(self.b.after.is_empty() && self.b.entry.is_empty() && self.b.ivs.is_empty())
    }
}
