//! Global value numbering of an SSA function (digest §001, step 1), a
//! public step other passes reuse.
//!
//! Hash-based, pessimistic, in reverse postorder of the CFG (Click's
//! "hash-based GVN" / the dominator-order numbering of Alpern, Wegman and
//! Zadeck without the optimistic partitioning): every var gets a
//! [`ValueNumber`], and two vars share one only if they hold the same value
//! at every point where both are defined. The rules:
//!
//! - **constants**: `const 7` and an immediate operand `7` of the same type
//!   share the number of the immediate;
//! - **copies**: `%y = copy %a` gives `%y` the number of `%a`;
//! - **expressions**: an unguarded pure operation (binary, unary, compare,
//!   convert, select) is keyed by its opcode, condition code, result type
//!   and the numbers of its operands, sorted for commutative opcodes (`add`,
//!   `mul`, `and`, `or`, `xor`, the integer min/max, `fadd`, `fmul`, and
//!   `setp`/`fsetp` `eq`/`ne`);
//! - **phis**: a phi whose operands all have one number gets that number;
//!   phis of one block with the same operand numbers share a number;
//!   an operand not numbered yet (a back edge) makes the phi opaque;
//! - **loads** take part only through `memdep` ([`ValueNumbers::compute_with`]
//!   given the function's [`memdep::MemDeps`]): a load `L2` gets the number
//!   of a load `L1` of the same object, index number and type when `L1`
//!   dominates `L2` and no definition that `memdep` says may reach `L2` is
//!   dominated by `L1` (such a definition is the only way a write can lie
//!   on a path from `L1` to `L2` that does not pass `L1` again; a path that
//!   does pass it again makes that later `L1` the one that counts). Only
//!   the nearest dominating load of the same key is asked: a write after
//!   it is after every earlier one too. Without memory dependences every
//!   load is its own number;
//! - everything else (params, calls, intrinsics, reductions, guarded
//!   definitions, `undef`) gets a fresh, opaque number. A guarded
//!   definition makes its value available nowhere: the conservative choice
//!   the issue allows.
//!
//! Instructions in unreachable blocks are not numbered (their vars get
//! [`ValueNumber::NONE`]).
//!
//! Invariant: numbers are dense `u32` ids in creation order, and the
//! operands of an [`ValueKind::Expr`] are smaller numbers than the
//! expression itself (an expression is numbered after its operands).

use cfg_dom::{CsrGraph, Dfs, DomTree, Graph, Node, Stale};
use ir_core::entity::EntityRef;
use ir_core::{Block, Format, Function, Imm, Inst, Opcode, Operand, Type, Var, block, node};
use memdep::MemDeps;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// A value number.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ValueNumber(pub u32);

impl ValueNumber {
    /// "No number": a var of an unreachable block, or one never defined.
    pub const NONE: ValueNumber = ValueNumber(u32::MAX);

    /// The index of this number.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An operand of an expression key: another value number.
pub type Args = SmallVec<[ValueNumber; 3]>;

/// The key of an expression's value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ExprKey {
    /// The opcode.
    pub opcode: Opcode,
    /// The condition code of a compare (`IntCC`/`FloatCC` as an index), or 0.
    pub cc: u8,
    /// The result type.
    pub ty: Type,
    /// The operands' numbers (sorted when the opcode commutes).
    pub args: Args,
}

/// What a value number stands for.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ValueKind {
    /// An immediate.
    Const(Imm),
    /// A pure operation over other numbers.
    Expr(ExprKey),
    /// The phis of `block` whose operands have these numbers, in phi order.
    Phi(Block, Args),
    /// A load of `mem` at an index number: the value read by the load
    /// `site` and by the loads it dominates with no possible write between
    /// (see the module doc).
    Load {
        /// The memory object, as its index.
        mem: u32,
        /// The index's number.
        index: ValueNumber,
        /// The loaded type.
        ty: Type,
        /// The first load of this value, which dominates the others.
        site: Inst,
    },
    /// A value nothing else is known to equal (param, call result, guarded
    /// definition, ...): the var that defines it.
    Opaque(Var),
}

/// The value numbers of one function (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct ValueNumbers {
    of_var: Vec<ValueNumber>,
    kinds: Vec<ValueKind>,
    /// Every interned kind (constants, expressions, phis), for
    /// [`ValueNumbers::intern_expr`] after numbering.
    table: FxHashMap<ValueKind, ValueNumber>,
    /// Plants a bug for the oracle tests: `sub` is taken as commutative.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) plant_sub_commutes: bool,
    /// Plants a bug for the oracle tests: loads ignore memdep's writes.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) plant_loads_ignore_writes: bool,
}

/// Whether `op` commutes (for compares, whether the condition code makes
/// the comparison symmetric is checked separately).
pub fn commutes(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Add | Mul | And | Or | Xor | Smin | Smax | Umin | Umax | Fadd | Fmul)
}

/// Whether an operation may trap (so it is never inserted on a new path).
pub fn can_trap(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Sdiv | Udiv | Srem | Urem | Fptosi | Fptoui | Load)
}

/// The condition code of a compare as a small integer, and whether it is
/// symmetric (`eq`, `ne`, and for floats `ord`/`uno`).
fn cc_of(func: &Function, inst: Inst) -> (u8, bool) {
    if let Some(cc) = func.int_cc(inst) {
        let i = ir_core::IntCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8;
        (i, matches!(cc, ir_core::IntCC::Eq | ir_core::IntCC::Ne))
    } else if let Some(cc) = func.float_cc(inst) {
        use ir_core::FloatCC::*;
        let i = ir_core::FloatCC::ALL.iter().position(|&c| c == cc).unwrap_or(0) as u8;
        (i, matches!(cc, Eq | Ne | Ord | Uno))
    } else {
        (0, false)
    }
}

/// Whether the compare `op` with condition-code index `cc` is symmetric
/// (`eq`, `ne`, and for floats `ord`/`uno`), so its operands may be sorted.
fn symmetric_cc(op: Opcode, cc: u8) -> bool {
    if op == Opcode::Setp {
        matches!(ir_core::IntCC::ALL.get(cc as usize), Some(ir_core::IntCC::Eq | ir_core::IntCC::Ne))
    } else if op.format() == Format::Compare {
        use ir_core::FloatCC::*;
        matches!(ir_core::FloatCC::ALL.get(cc as usize), Some(Eq | Ne | Ord | Uno))
    } else {
        false
    }
}

/// Whether `inst` is a candidate computation: an unguarded pure operation
/// with one result (binary, non-copy unary, compare, convert, select) or
/// an unguarded load.
pub fn is_computation(func: &Function, inst: Inst) -> bool {
    let op = func.opcode(inst);
    func.guard(inst).is_none()
        && func.results(inst).len() == 1
        && match op.format() {
            Format::Binary | Format::Compare | Format::Convert | Format::Select | Format::Load => true,
            Format::Unary => op != Opcode::Copy,
            _ => false,
        }
}

impl ValueNumbers {
    /// Numbers `func` (SSA form; see the module doc).
    pub fn of(func: &Function) -> ValueNumbers {
        let mut v = ValueNumbers::default();
        v.compute(func);
        v
    }

    /// The number of `var`, or [`ValueNumber::NONE`].
    pub fn of_var(&self, var: Var) -> ValueNumber {
        self.of_var.get(var.index()).copied().unwrap_or(ValueNumber::NONE)
    }

    /// What `vn` stands for.
    pub fn kind(&self, vn: ValueNumber) -> Option<&ValueKind> {
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

    /// The number of an operand (an immediate's own number).
    pub fn of_operand(
        &mut self,
        func: &Function,
        op: Operand,
        table: &mut FxHashMap<ValueKind, ValueNumber>,
    ) -> ValueNumber {
        match op.as_var() {
            Some(v) => self.of_var(v),
            None => match op.as_const().and_then(|c| func.imm(c)) {
                Some(imm) => self.intern(ValueKind::Const(imm), table),
                None => ValueNumber::NONE,
            },
        }
    }

    #[cfg(any(test, feature = "fuzzing"))]
    fn planted_commutes(&self, op: Opcode) -> bool {
        self.plant_sub_commutes && op == Opcode::Sub
    }

    #[cfg(not(any(test, feature = "fuzzing")))]
    fn planted_commutes(&self, _op: Opcode) -> bool {
        false
    }

    #[cfg(any(test, feature = "fuzzing"))]
    fn planted_loads_ignore_writes(&self) -> bool {
        self.plant_loads_ignore_writes
    }

    #[cfg(not(any(test, feature = "fuzzing")))]
    fn planted_loads_ignore_writes(&self) -> bool {
        false
    }

    /// The number of the expression `key` after numbering: its operands are
    /// sorted as numbering sorts them (commutative opcodes, symmetric
    /// compares), and a key no computation has gets a fresh number (the
    /// extension step's phi-translated values, digest §001 step 4).
    ///
    /// # Panics
    ///
    /// Debug builds assert that every operand is an existing number.
    pub fn intern_expr(&mut self, mut key: ExprKey) -> ValueNumber {
        debug_assert!(key.args.iter().all(|a| a.index() < self.kinds.len()), "operands are existing numbers");
        let swap = commutes(key.opcode) || symmetric_cc(key.opcode, key.cc) || self.planted_commutes(key.opcode);
        if swap && key.args.len() == 2 {
            key.args.sort();
        }
        let mut table = std::mem::take(&mut self.table);
        let vn = self.intern(ValueKind::Expr(key), &mut table);
        self.table = table;
        vn
    }

    /// The number of the expression `key` (operands sorted as numbering
    /// sorts them), if it has one.
    pub fn lookup_expr(&self, key: &ExprKey) -> Option<ValueNumber> {
        let mut key = key.clone();
        let swap = commutes(key.opcode) || symmetric_cc(key.opcode, key.cc) || self.planted_commutes(key.opcode);
        if swap && key.args.len() == 2 {
            key.args.sort();
        }
        self.table.get(&ValueKind::Expr(key)).copied()
    }

    fn intern(&mut self, kind: ValueKind, table: &mut FxHashMap<ValueKind, ValueNumber>) -> ValueNumber {
        if let Some(&vn) = table.get(&kind) {
            return vn;
        }
        let vn = self.fresh(kind.clone());
        table.insert(kind, vn);
        vn
    }

    fn fresh(&mut self, kind: ValueKind) -> ValueNumber {
        let vn = ValueNumber(self.kinds.len() as u32);
        self.kinds.push(kind);
        vn
    }

    fn set(&mut self, var: Var, vn: ValueNumber) {
        if let Some(slot) = self.of_var.get_mut(var.index()) {
            *slot = vn;
        }
    }

    /// Numbers `func` (SSA form), with its loads numbered through the
    /// memory dependences `memory` of the same function (see the module
    /// doc). Fails when `memory` was computed for another function or an
    /// earlier state of this one.
    pub fn of_with_memory(func: &Function, memory: &MemDeps) -> Result<ValueNumbers, Stale> {
        let mut v = ValueNumbers::default();
        v.compute_with(func, Some(memory))?;
        Ok(v)
    }

    /// Recomputes the numbers of `func`, reusing buffers; every load is its
    /// own number ([`ValueNumbers::compute_with`] numbers loads).
    pub fn compute(&mut self, func: &Function) {
        let _ = self.compute_with(func, None);
    }

    /// Recomputes the numbers of `func`, reusing buffers, with loads
    /// numbered through `memory` when given. Fails (numbering nothing)
    /// when `memory` is stale for `func`.
    pub fn compute_with(&mut self, func: &Function, memory: Option<&MemDeps>) -> Result<(), Stale> {
        if let Some(m) = memory {
            m.check(func)?;
        }
        self.compute_inner(func, memory);
        Ok(())
    }

    fn compute_inner(&mut self, func: &Function, memory: Option<&MemDeps>) {
        self.of_var.clear();
        self.of_var.resize(func.num_vars(), ValueNumber::NONE);
        self.kinds.clear();
        let mut table = std::mem::take(&mut self.table);
        table.clear();
        for &p in func.params() {
            let vn = self.fresh(ValueKind::Opaque(p));
            self.set(p, vn);
        }
        let cfg = func.cfg();
        let dfs = Dfs::of(&cfg);
        let mut loads = memory.map(|m| Loads::new(func, &cfg, m, self.planted_loads_ignore_writes()));
        let order: Vec<u32> = dfs.reverse_postorder().collect();
        for n in order {
            if cfg.entry().is_none() {
                break;
            }
            let b = block(n);
            for inst in func.block_insts(b) {
                let op = func.opcode(inst);
                let results = func.results(inst);
                if results.is_empty() {
                    continue;
                }
                let r = results[0];
                let vn = if op == Opcode::Phi {
                    // Operands in predecessor-block order, so that phis
                    // listing their pairs differently still match.
                    let mut pairs: SmallVec<[(Block, ValueNumber); 3]> = SmallVec::new();
                    let mut complete = true;
                    for (&pb, &o) in func.phi_blocks(inst).iter().zip(func.operands(inst)) {
                        let a = self.of_operand(func, o, &mut table);
                        complete &= a != ValueNumber::NONE;
                        pairs.push((pb, a));
                    }
                    pairs.sort_unstable_by_key(|&(pb, _)| pb);
                    let args: Args = pairs.iter().map(|&(_, a)| a).collect();
                    if !complete {
                        self.fresh(ValueKind::Opaque(r))
                    } else if !args.is_empty() && args.iter().all(|&a| a == args[0]) {
                        args[0]
                    } else {
                        self.intern(ValueKind::Phi(b, args), &mut table)
                    }
                } else if func.guard(inst).is_some() || results.len() != 1 {
                    for &x in results {
                        let vn = self.fresh(ValueKind::Opaque(x));
                        self.set(x, vn);
                    }
                    continue;
                } else {
                    self.number_simple(func, inst, r, loads.as_mut(), &mut table)
                };
                self.set(r, vn);
            }
        }
        self.table = table;
    }

    fn number_simple(
        &mut self,
        func: &Function,
        inst: Inst,
        r: Var,
        loads: Option<&mut Loads<'_>>,
        table: &mut FxHashMap<ValueKind, ValueNumber>,
    ) -> ValueNumber {
        let op = func.opcode(inst);
        let ops = func.operands(inst);
        match op.format() {
            Format::Const | Format::Unary if op == Opcode::Const || op == Opcode::Copy => {
                let a = ops.first().map_or(ValueNumber::NONE, |&o| self.of_operand(func, o, table));
                if a == ValueNumber::NONE { self.fresh(ValueKind::Opaque(r)) } else { a }
            }
            Format::Load => {
                let index = ops.first().map_or(ValueNumber::NONE, |&o| self.of_operand(func, o, table));
                match (func.scalar_mem(inst), func.var_type(r), loads) {
                    (Some(m), Some(ty), Some(loads)) if index != ValueNumber::NONE => {
                        let key = (m.as_u32(), index, ty);
                        if let Some(vn) = loads.same_value(key, inst) {
                            loads.record(key, inst, vn);
                            return vn;
                        }
                        let vn = self.fresh(ValueKind::Load { mem: m.as_u32(), index, ty, site: inst });
                        loads.record(key, inst, vn);
                        vn
                    }
                    _ => self.fresh(ValueKind::Opaque(r)),
                }
            }
            Format::Binary | Format::Compare | Format::Convert | Format::Select | Format::Unary => {
                let mut args = Args::new();
                for &o in ops {
                    let a = self.of_operand(func, o, table);
                    if a == ValueNumber::NONE {
                        return self.fresh(ValueKind::Opaque(r));
                    }
                    args.push(a);
                }
                let (cc, symmetric) = cc_of(func, inst);
                let swap = commutes(op) || (op.format() == Format::Compare && symmetric) || self.planted_commutes(op);
                if swap && args.len() == 2 {
                    args.sort();
                }
                let Some(ty) = func.var_type(r) else {
                    return self.fresh(ValueKind::Opaque(r));
                };
                self.intern(ValueKind::Expr(ExprKey { opcode: op, cc, ty, args }), table)
            }
            _ => self.fresh(ValueKind::Opaque(r)),
        }
    }
}

/// The loads numbered so far, for the memory rule (see the module doc).
struct Loads<'m> {
    memory: &'m MemDeps,
    dt: DomTree,
    /// Per instruction: its position in its block.
    pos: Vec<u32>,
    /// Per instruction: its block (as a node), or `u32::MAX`.
    block_of: Vec<Node>,
    /// Per (object, index number, type): the loads numbered, in walk
    /// order (reverse postorder, so a dominator comes first), with their
    /// numbers.
    seen: FxHashMap<(u32, ValueNumber, Type), Vec<(Inst, ValueNumber)>>,
    /// A planted bug (tests only): skip the writes check.
    ignore_writes: bool,
}

impl<'m> Loads<'m> {
    fn new(func: &Function, cfg: &CsrGraph, memory: &'m MemDeps, ignore_writes: bool) -> Loads<'m> {
        let n = func.num_insts();
        let (mut pos, mut block_of) = (vec![0u32; n], vec![u32::MAX; n]);
        for b in func.blocks() {
            for (k, inst) in func.block_insts(b).enumerate() {
                if let (Some(p), Some(o)) = (pos.get_mut(inst.index()), block_of.get_mut(inst.index())) {
                    *p = k as u32;
                    *o = node(b);
                }
            }
        }
        Loads { memory, dt: DomTree::of(cfg), pos, block_of, seen: FxHashMap::default(), ignore_writes }
    }

    /// Whether instruction `a` comes strictly before `b` on every path to
    /// `b`: earlier in the same block, or in a strictly dominating block.
    fn before(&self, a: u32, b: u32) -> bool {
        let (Some(&ba), Some(&bb)) = (self.block_of.get(a as usize), self.block_of.get(b as usize)) else {
            return false;
        };
        if ba == u32::MAX || bb == u32::MAX {
            return false;
        }
        if ba == bb { self.pos[a as usize] < self.pos[b as usize] } else { self.dt.strictly_dominates(ba, bb) }
    }

    /// The number of the nearest dominating load of `key` if no write may
    /// lie between it and `load`.
    fn same_value(&self, key: (u32, ValueNumber, Type), load: Inst) -> Option<ValueNumber> {
        let l2 = load.as_u32();
        let &(l1, vn) = self.seen.get(&key)?.iter().rev().find(|&&(l1, _)| self.before(l1.as_u32(), l2))?;
        let l1 = l1.as_u32();
        let uses = self.memory.sites().uses_of_inst(l2);
        if uses.is_empty() {
            return None; // memdep does not know this read: assume the worst
        }
        if self.ignore_writes {
            return Some(vn);
        }
        for &u in uses {
            for d in self.memory.defs_of_iter(u) {
                match self.memory.sites().def_site(d) {
                    Some(site) if !self.before(l1, site.inst) => {}
                    _ => return None,
                }
            }
        }
        Some(vn)
    }

    fn record(&mut self, key: (u32, ValueNumber, Type), load: Inst, vn: ValueNumber) {
        self.seen.entry(key).or_default().push((load, vn));
    }
}
