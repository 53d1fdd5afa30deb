//! Global value numbering of an SSA function (source document 001,
//! "Optimization method and system for a computer program", step 1), a
//! public step other passes reuse, on any IR implementing
//! [`crate::PreCode`].
//!
//! Hash-based, pessimistic, in reverse postorder of the CFG (the
//! hash-based GVN of C. Click, "Global code motion / global value
//! numbering", PLDI 1995; the dominator-order numbering of B. Alpern,
//! M. N. Wegman and F. K. Zadeck, "Detecting equality of variables in
//! programs", POPL 1988, without its optimistic partitioning;
//! `docs/references.md` has both): every value gets a
//! [`ValueNumber`], and two values share one only if they are equal at
//! every point where both are defined. The rules:
//!
//! - **immediates**: equal immediates share a number (a constant is a copy
//!   of an immediate, so `const 7` and an operand `7` of one type share);
//! - **copies**: `y = copy a` gives `y` the number of `a`;
//! - **pure operations**: keyed by the IR's operation key and the numbers
//!   of their operands, the two operands sorted when the operation
//!   commutes ([`crate::PreCode::commutes`]);
//! - **phis**: a phi whose operands all have one number gets that number;
//!   phis of one block with the same operand numbers (in predecessor
//!   order) share a number; an operand not numbered yet (a back edge) makes
//!   the phi opaque;
//! - **loads**: a load `L2` gets the number of the nearest load `L1` that
//!   comes before it on every path with the same key and operand numbers,
//!   when the IR says no write may lie between them
//!   ([`crate::PreCode::same_memory`], asked once per such `L2`, only
//!   about that `L1`: a write after it is after every earlier one too);
//!   otherwise its own number;
//! - everything else (parameters, [`crate::InstKind::Other`]: calls,
//!   guarded definitions, `undef`, ...) gets a fresh, opaque number. A
//!   guarded definition makes its value available nowhere: the
//!   conservative choice issue 13 allows.
//!
//! Instructions in unreachable blocks are not numbered (their values get
//! [`ValueNumber::NONE`]).
//!
//! Invariant: numbers are dense `u32` ids in creation order, and the
//! operands of an [`ValueKind::Expr`] are smaller numbers than the
//! expression itself (an expression is numbered after its operands).

use crate::flat::{COMMUTES, Flat, InputError, TRAPS};
use crate::input::{InstKind, InstOrder, Key, Operand, PreCode, ValueId};
use cfg_dom::{Dfs, DomTree, Graph, InstId, Node};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// A value number.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ValueNumber(pub u32);

impl ValueNumber {
    /// "No number": a value of an unreachable block, or one never defined.
    pub const NONE: ValueNumber = ValueNumber(u32::MAX);

    /// The index of this number.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The operands of an expression key: other value numbers.
pub type Args = SmallVec<[ValueNumber; 3]>;

/// The key of an expression's value: the IR's operation key and the
/// operands' numbers (sorted when the operation commutes).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ExprKey<O> {
    /// The operation.
    pub op: O,
    /// The operands' numbers.
    pub args: Args,
}

/// What a value number stands for.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ValueKind<O, I> {
    /// An immediate.
    Const(I),
    /// A pure operation over other numbers.
    Expr(ExprKey<O>),
    /// The phis of `block` whose operands have these numbers, in
    /// predecessor order.
    Phi(Node, Args),
    /// A load with this key: the value read by the load `site` and by the
    /// loads after it that read the same memory (see the module doc).
    Load {
        /// The load's operation and operand numbers.
        key: ExprKey<O>,
        /// The first load of this value, which comes before the others.
        site: InstId,
    },
    /// A value nothing else is known to equal (parameter, call result,
    /// guarded definition, ...): the value that defines it.
    Opaque(ValueId),
}

/// The value numbers of one function (see the module doc).
#[derive(Clone, Debug)]
pub struct ValueNumbers<O, I> {
    of_value: Vec<ValueNumber>,
    kinds: Vec<ValueKind<O, I>>,
    /// Per number: `COMMUTES` and `TRAPS` of an expression's operation.
    flags: Vec<u8>,
    /// Every interned kind (constants, expressions, phis), for the
    /// translations the extension step adds after numbering.
    table: FxHashMap<ValueKind<O, I>, ValueNumber>,
}

impl<O, I> Default for ValueNumbers<O, I> {
    fn default() -> Self {
        ValueNumbers { of_value: Vec::new(), kinds: Vec::new(), flags: Vec::new(), table: FxHashMap::default() }
    }
}

impl<O: Key, I: Key> ValueNumbers<O, I> {
    /// Numbers `code` (SSA form, with its CFG `graph`; see the module doc).
    /// Fails when the input is malformed.
    pub fn of_code<G: Graph, C: PreCode<Op = O, Imm = I>>(graph: &G, code: &C) -> Result<Self, InputError> {
        let flat = Flat::new(graph, code)?;
        let dt = DomTree::of(graph);
        let dfs = Dfs::of(graph);
        let mut v = Self::default();
        v.compute(&flat, dfs.reverse_postorder(), &flat.order(&dt), code);
        Ok(v)
    }

    /// The number of `value`, or [`ValueNumber::NONE`].
    pub fn of_value(&self, value: ValueId) -> ValueNumber {
        self.of_value.get(value as usize).copied().unwrap_or(ValueNumber::NONE)
    }

    /// What `vn` stands for.
    pub fn kind(&self, vn: ValueNumber) -> Option<&ValueKind<O, I>> {
        self.kinds.get(vn.index())
    }

    /// How many numbers there are.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Whether `vn` is an expression PRE may insert: a pure operation that
    /// cannot trap.
    pub fn insertable(&self, vn: ValueNumber) -> bool {
        matches!(self.kinds.get(vn.index()), Some(ValueKind::Expr(_)))
            && self.flags.get(vn.index()).is_some_and(|&f| f & TRAPS == 0)
    }

    /// The operation of the expression `like` over `args`, its operands
    /// sorted as numbering sorts them, and with the flags of `like`.
    fn translated_key(&self, like: ValueNumber, mut args: Args) -> Option<(ExprKey<O>, u8)> {
        let Some(ValueKind::Expr(key)) = self.kinds.get(like.index()) else { return None };
        let flags = self.flags[like.index()];
        if flags & COMMUTES != 0 && args.len() == 2 {
            args.sort();
        }
        Some((ExprKey { op: key.op, args }, flags))
    }

    /// The number of the expression `like` over `args` instead of its
    /// operands (a phi translation, source document 001 step 4): an existing number,
    /// or a fresh one when no computation has it. `None` when `like` is not
    /// an expression.
    ///
    /// # Panics
    ///
    /// Debug builds assert that every operand is an existing number.
    pub(crate) fn intern_translation(&mut self, like: ValueNumber, args: Args) -> Option<ValueNumber> {
        debug_assert!(args.iter().all(|a| a.index() < self.kinds.len()), "operands are existing numbers");
        let (key, flags) = self.translated_key(like, args)?;
        Some(self.intern(ValueKind::Expr(key), flags))
    }

    /// The number of the expression `like` over `args`, if it has one.
    pub(crate) fn lookup_translation(&self, like: ValueNumber, args: Args) -> Option<ValueNumber> {
        let (key, _) = self.translated_key(like, args)?;
        self.table.get(&ValueKind::Expr(key)).copied()
    }

    fn intern(&mut self, kind: ValueKind<O, I>, flags: u8) -> ValueNumber {
        if let Some(&vn) = self.table.get(&kind) {
            return vn;
        }
        let vn = self.fresh(kind.clone(), flags);
        self.table.insert(kind, vn);
        vn
    }

    fn fresh(&mut self, kind: ValueKind<O, I>, flags: u8) -> ValueNumber {
        let vn = ValueNumber(self.kinds.len() as u32);
        self.kinds.push(kind);
        self.flags.push(flags);
        vn
    }

    fn set(&mut self, value: ValueId, vn: ValueNumber) {
        if let Some(slot) = self.of_value.get_mut(value as usize) {
            *slot = vn;
        }
    }

    /// The number of an operand (an immediate's own number).
    fn of_operand(&mut self, o: Operand<I>) -> ValueNumber {
        match o {
            Operand::Value(v) => self.of_value(v),
            Operand::Imm(i) => self.intern(ValueKind::Const(i), 0),
        }
    }

    /// The operands' numbers, or `None` when one has no number.
    fn args_of(&mut self, ops: &[Operand<I>]) -> Option<Args> {
        let mut args = Args::new();
        for &o in ops {
            let a = self.of_operand(o);
            if a == ValueNumber::NONE {
                return None;
            }
            args.push(a);
        }
        Some(args)
    }

    /// Recomputes the numbers of `flat` (the checked code of `code`),
    /// visiting blocks in `rpo` (reverse postorder), reusing buffers.
    pub(crate) fn compute<C: PreCode<Op = O, Imm = I>>(
        &mut self,
        flat: &Flat<O, I>,
        rpo: impl Iterator<Item = Node>,
        order: &InstOrder<'_>,
        code: &C,
    ) {
        self.of_value.clear();
        self.of_value.resize(flat.num_values, ValueNumber::NONE);
        self.kinds.clear();
        self.flags.clear();
        self.table.clear();
        for &p in &flat.params {
            let vn = self.fresh(ValueKind::Opaque(p), 0);
            self.set(p, vn);
        }
        // Per load key: the loads numbered, in walk order (reverse
        // postorder, so one that comes before another is seen first).
        let mut loads: FxHashMap<ExprKey<O>, Vec<(InstId, ValueNumber)>> = FxHashMap::default();
        for b in rpo {
            for e in flat.positions(b) {
                let results = flat.results(e);
                let Some(&r) = results.first() else { continue };
                let vn = match flat.kind[e] {
                    InstKind::Phi => self.number_phi(flat, e, b, r),
                    InstKind::Copy => {
                        let a = self.of_operand(flat.operands(e)[0]);
                        if a == ValueNumber::NONE { self.fresh(ValueKind::Opaque(r), 0) } else { a }
                    }
                    InstKind::Pure(op) => match self.args_of(flat.operands(e)) {
                        Some(mut args) => {
                            let flags = flat.flags[e];
                            if flags & COMMUTES != 0 && args.len() == 2 {
                                args.sort();
                            }
                            self.intern(ValueKind::Expr(ExprKey { op, args }), flags)
                        }
                        None => self.fresh(ValueKind::Opaque(r), 0),
                    },
                    InstKind::Load(op) => match self.args_of(flat.operands(e)) {
                        Some(args) => {
                            let key = ExprKey { op, args };
                            let load = flat.inst[e];
                            let seen = loads.entry(key.clone()).or_default();
                            let earlier = seen.iter().rev().find(|&&(l1, _)| order.before(l1, load)).copied();
                            let vn = match earlier {
                                Some((l1, vn)) if code.same_memory(l1, load, order) => vn,
                                _ => self.fresh(ValueKind::Load { key, site: load }, 0),
                            };
                            seen.push((load, vn));
                            vn
                        }
                        None => self.fresh(ValueKind::Opaque(r), 0),
                    },
                    InstKind::Other => {
                        for &x in results {
                            let vn = self.fresh(ValueKind::Opaque(x), 0);
                            self.set(x, vn);
                        }
                        continue;
                    }
                };
                self.set(r, vn);
            }
        }
    }

    /// The number of the phi at position `e` of block `b`, defining `r`.
    fn number_phi(&mut self, flat: &Flat<O, I>, e: usize, b: Node, r: ValueId) -> ValueNumber {
        // Operands in predecessor order, so that phis listing their pairs
        // differently still match.
        let mut pairs: SmallVec<[(Node, ValueNumber); 3]> = SmallVec::new();
        let mut complete = true;
        for (&o, &p) in flat.operands(e).iter().zip(flat.operand_preds(e)) {
            let a = self.of_operand(o);
            complete &= a != ValueNumber::NONE;
            pairs.push((p, a));
        }
        pairs.sort_unstable_by_key(|&(p, _)| p);
        let args: Args = pairs.iter().map(|&(_, a)| a).collect();
        if !complete {
            self.fresh(ValueKind::Opaque(r), 0)
        } else if !args.is_empty() && args.iter().all(|&a| a == args[0]) {
            args[0]
        } else {
            self.intern(ValueKind::Phi(b, args), 0)
        }
    }
}

/// The number a value of `flat` gets from `vns`, for positions: the
/// number of the first result of position `e`, or [`ValueNumber::NONE`].
pub(crate) fn result_number<O: Key, I: Key>(vns: &ValueNumbers<O, I>, flat: &Flat<O, I>, e: usize) -> ValueNumber {
    flat.results(e).first().map_or(ValueNumber::NONE, |&r| vns.of_value(r))
}
