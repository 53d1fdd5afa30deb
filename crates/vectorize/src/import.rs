//! Import: a scalar Keel function as a graph-IR function, so that it can be
//! vectorized.
//!
//! Supported: acyclic control flow (straight-line code, if/else diamonds,
//! any acyclic branching, `switch`, several `ret`s, `trap`), phis, guarded
//! instructions, every scalar operation of `docs/ir.md` §6.1–6.4, `load`
//! from a memory object, and `tsum`/`tredmax` over `@M[0, %n]`.
//! Everything else (loops, stores, tensor maps, calls) is an
//! [`ImportError`] naming the instruction.
//!
//! The method is if-conversion: blocks are visited in reverse postorder,
//! each under a predicate (`true` at the entry; at a block, the `or` of its
//! incoming edges' predicates; along `br c`, the block's predicate `and`
//! `c` or `not c`). A value that differs along the incoming edges of a join
//! becomes a chain of `select`s on the edges' predicates (exactly one of
//! them holds whenever the join runs). Operations that may trap (division,
//! trapping conversions, `load`) are masked with their block's predicate
//! (and their guard), so they run only where the Keel program runs them;
//! everything else runs unconditionally. A guarded definition is the
//! operation and a `select` on its guard. `trap` becomes `assert(not P)`.
//!
//! Memory objects the function reads become array parameters, after the
//! scalar ones, in module order. A scalar parameter used as the size of
//! `@M[0, %n]` is `M`'s length: it is dropped from the parameters and
//! computed as `length` of the array, so `@mean(%n)` over `@arr` imports as
//! `mean(arr) = sum(arr) / sitofp(length(arr))`, the digest's program.
//! Calling the import on `(x.., arr)` computes what the Keel function
//! computes on `x..` with `arr` written at the start of `@M` and `%n =
//! length(arr)`, for every input on which the Keel program reads no
//! undefined value (the importer rejects a read of a var that may be
//! undefined, since the graph has no undefined values).
//!
//! Invariant: never panics, on any function (verified or not); no
//! recursion (the DFS is iterative).

use crate::builder::Builder;
use crate::graph::{Arg, Graph, Sym};
use crate::ops::Op;
use crate::types::ValTy;
use ir_core::entity::EntityRef;
use ir_core::{Block, Format, FuncId, Imm, Inst, IntCC, Mem, Module, Opcode, Operand, Slot, Type, Var};
use rustc_hash::{FxHashMap, FxHashSet};

/// Why a function cannot be imported.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportError {
    /// The instruction at fault, if any.
    pub inst: Option<Inst>,
    /// What is not supported or not well-formed.
    pub message: String,
}

impl core::fmt::Display for ImportError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ImportError {}

/// Where a parameter of the imported function comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ImportedParam {
    /// A scalar parameter of the Keel function.
    Scalar(Var),
    /// A memory object the function reads; `length` is the Keel parameter
    /// that holds its length, if one does.
    Array {
        /// The object.
        mem: Mem,
        /// The parameter it replaces.
        length: Option<Var>,
    },
}

/// An imported function.
#[derive(Debug)]
pub struct Imported {
    /// A graph holding the function (named like the Keel function).
    pub graph: Graph,
    /// The function.
    pub func: Sym,
    /// Where each of its parameters comes from.
    pub params: Vec<ImportedParam>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum VState {
    Undef,
    Maybe(Sym),
    Def(Sym),
}

type R<T> = Result<T, ImportError>;

fn err<T>(inst: Option<Inst>, message: impl Into<String>) -> R<T> {
    Err(ImportError { inst, message: message.into() })
}

struct Importer<'m> {
    f: &'m ir_core::Function,
    g: Graph,
    func: Sym,
    env: Vec<VState>,
    arrays: FxHashMap<Mem, Sym>,
    lengths: FxHashMap<Var, Mem>,
    used_names: FxHashSet<String>,
    consts: FxHashMap<Imm, Sym>,
}

fn may_trap(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem | Opcode::Fptosi | Opcode::Fptoui | Opcode::Load
    )
}

impl Importer<'_> {
    fn b(&mut self) -> Builder<'_> {
        Builder::new(&mut self.g, self.func)
    }

    fn typed(&self, r: Result<Sym, crate::infer::TypeError>, inst: Option<Inst>) -> R<Sym> {
        r.map_err(|e| ImportError { inst, message: format!("ill-typed: {e}") })
    }

    fn constant(&mut self, imm: Imm) -> Sym {
        if let Some(&s) = self.consts.get(&imm) {
            return s;
        }
        let s = self.b().constant(imm);
        self.consts.insert(imm, s);
        s
    }

    fn name(&mut self, s: Sym, base: &str) {
        if self.g.name(s).is_some() || matches!(self.g.op(s), Some(Op::Param(_) | Op::Const(_))) {
            return;
        }
        let mut name = base.to_string();
        let mut n = 0;
        while self.used_names.contains(&name) || !crate::graph::valid_name(&name) {
            n += 1;
            name = format!("{base}.{n}");
            if n > 1000 {
                return;
            }
        }
        if self.g.set_name(s, &name).is_ok() {
            self.used_names.insert(name);
        }
    }

    fn read(&mut self, op: Operand, inst: Inst) -> R<Sym> {
        if let Some(v) = op.as_var() {
            return match self.env.get(v.index()) {
                Some(VState::Def(s)) => Ok(*s),
                Some(_) => err(Some(inst), format!("`%{}` may be read before it is defined", self.f.var_name(v))),
                None => err(Some(inst), "a var that does not exist"),
            };
        }
        match self.f.arg(op) {
            Some(ir_core::Arg::Imm(i)) => Ok(self.constant(i)),
            _ => err(Some(inst), "an operand that does not exist"),
        }
    }

    fn and(&mut self, a: Option<Sym>, b: Sym) -> R<Sym> {
        match a {
            None => Ok(b),
            Some(a) => {
                let r = self.b().binary(Opcode::And, a, b);
                self.typed(r, None)
            }
        }
    }

    fn not(&mut self, c: Sym) -> R<Sym> {
        let r = self.b().unary(Opcode::Not, c);
        self.typed(r, None)
    }

    fn or_all(&mut self, preds: &[Option<Sym>]) -> R<Option<Sym>> {
        if preds.iter().any(Option::is_none) {
            return Ok(None);
        }
        let mut acc: Option<Sym> = None;
        for &p in preds {
            let p = p.expect("checked above");
            acc = Some(match acc {
                None => p,
                Some(a) => {
                    let r = self.b().binary(Opcode::Or, a, p);
                    self.typed(r, None)?
                }
            });
        }
        Ok(acc)
    }

    /// `select` chain: the value of the first incoming edge whose
    /// predicate holds (the last one by default).
    fn chain(&mut self, incoming: &[(Option<Sym>, Sym)]) -> R<Sym> {
        let (_, mut acc) = *incoming.last().ok_or(ImportError { inst: None, message: "no value".into() })?;
        for &(p, v) in incoming[..incoming.len() - 1].iter().rev() {
            if v == acc {
                continue;
            }
            acc = match p {
                None => v,
                Some(p) => {
                    let r = self.b().select(p, v, acc);
                    self.typed(r, None)?
                }
            };
        }
        Ok(acc)
    }

    fn merge(&mut self, states: &[(Option<Sym>, VState)]) -> R<VState> {
        let first = states[0].1;
        if states.iter().all(|s| s.1 == first) {
            return Ok(first);
        }
        if states.iter().any(|s| matches!(s.1, VState::Undef)) {
            let any = states.iter().find_map(|s| match s.1 {
                VState::Def(x) | VState::Maybe(x) => Some(x),
                VState::Undef => None,
            });
            return Ok(any.map_or(VState::Undef, VState::Maybe));
        }
        let vals: Vec<(Option<Sym>, Sym)> = states
            .iter()
            .map(|&(p, s)| match s {
                VState::Def(x) | VState::Maybe(x) => (p, x),
                VState::Undef => (p, Sym::from_index(0)),
            })
            .collect();
        let v = self.chain(&vals)?;
        Ok(if states.iter().any(|s| matches!(s.1, VState::Maybe(_))) { VState::Maybe(v) } else { VState::Def(v) })
    }

    /// One instruction under block predicate `p`; returns the edges it
    /// ends the block with, or the values it returns.
    fn inst(&mut self, inst: Inst, p: Option<Sym>, module: &Module) -> R<Option<Term>> {
        let f = self.f;
        let op = f.opcode(inst);
        let guard = match f.guard(inst) {
            None => None,
            Some(gd) => {
                let g = self.read(Operand::var(gd.var), inst)?;
                Some(if gd.negated { self.not(g)? } else { g })
            }
        };
        let mask = if may_trap(op) {
            match guard {
                Some(g) => Some(self.and(p, g)?),
                None => p,
            }
        } else {
            None
        };
        let ops = f.operands(inst).to_vec();
        let results = f.results(inst).to_vec();
        let result_ty = |i: usize| results.get(i).and_then(|&r| f.var_type(r));
        let value: Option<VState> = match op.format() {
            Format::Const | Format::Unary if op == Opcode::Const || op == Opcode::Copy => {
                match ops.first().and_then(|o| o.as_var()) {
                    Some(v) => Some(
                        *self.env.get(v.index()).ok_or(ImportError { inst: Some(inst), message: "bad var".into() })?,
                    ),
                    None => {
                        let o = *ops.first().ok_or(ImportError { inst: Some(inst), message: "no operand".into() })?;
                        let c = self.read(o, inst)?;
                        // A constant takes its result's type.
                        let c = match (result_ty(0), self.f.arg(o)) {
                            (Some(t), Some(ir_core::Arg::Imm(i))) if i.ty() != t => self.constant(i.with_type(t)),
                            _ => c,
                        };
                        Some(VState::Def(c))
                    }
                }
            }
            Format::Undef => Some(VState::Undef),
            Format::Unary | Format::Binary | Format::Select | Format::Compare | Format::Convert => {
                let args: Vec<Arg> = ops.iter().map(|&o| self.read(o, inst).map(Arg::mapped)).collect::<R<_>>()?;
                let gop = match op.format() {
                    Format::Unary => Op::Unary(op),
                    Format::Binary => Op::Binary(op),
                    Format::Select => Op::Select,
                    Format::Compare if op == Opcode::Setp => Op::Setp(f.int_cc(inst).unwrap_or(IntCC::Eq)),
                    Format::Compare => Op::Fsetp(f.float_cc(inst).unwrap_or(ir_core::FloatCC::Eq)),
                    _ => Op::Convert(op),
                };
                let r = Builder::new(&mut self.g, self.func).node_to(gop, 0, &args, mask, result_ty(0));
                Some(VState::Def(self.typed(r, Some(inst))?))
            }
            Format::Load => {
                let mem = f.scalar_mem(inst).ok_or(ImportError { inst: Some(inst), message: "no object".into() })?;
                let elem = module.mem(mem).map(|m| m.elem);
                if result_ty(0) != elem {
                    return err(Some(inst), "a wide or ill-typed load is not imported");
                }
                let xs = self.arrays[&mem];
                let i = self.read(ops[0], inst)?;
                let r =
                    Builder::new(&mut self.g, self.func).node(Op::Index, 0, &[Arg::mapped(xs), Arg::mapped(i)], mask);
                Some(VState::Def(self.typed(r, Some(inst))?))
            }
            Format::TensorReduce => {
                let Some(Slot::Desc(d)) = f.tensor_slots(inst).first().copied() else {
                    return err(Some(inst), "a reduction without a descriptor");
                };
                let whole = f.arg(d.offset) == Some(ir_core::Arg::Imm(Imm::int(Type::I64, 0)))
                    || matches!(f.arg(d.offset), Some(ir_core::Arg::Imm(i)) if i.as_i64() == 0);
                if !whole || d.size.as_var().and_then(|v| self.lengths.get(&v)) != Some(&d.mem) {
                    return err(
                        Some(inst),
                        "only `tsum`/`tredmax` over `@M[0, %n]` with `%n` a parameter are imported",
                    );
                }
                let xs = self.arrays[&d.mem];
                let gop = if op == Opcode::Tsum { Op::Sum } else { Op::Max };
                let r = Builder::new(&mut self.g, self.func).node(gop, 0, &[Arg::mapped(xs)], None);
                Some(VState::Def(self.typed(r, Some(inst))?))
            }
            Format::Jump => {
                return Ok(Some(Term::Edges(vec![(f.successors(inst).next().unwrap_or(Block::from_u32(0)), p)])));
            }
            Format::Branch => {
                let c = self.read(ops[0], inst)?;
                let targets: Vec<Block> = f.successors(inst).collect();
                if targets.len() != 2 {
                    return err(Some(inst), "a malformed branch");
                }
                if targets[0] == targets[1] {
                    return Ok(Some(Term::Edges(vec![(targets[0], p)])));
                }
                let t = self.and(p, c)?;
                let nc = self.not(c)?;
                let e = self.and(p, nc)?;
                return Ok(Some(Term::Edges(vec![(targets[0], Some(t)), (targets[1], Some(e))])));
            }
            Format::Switch => {
                let v = self.read(ops[0], inst)?;
                let vt = self.g.val_ty(v).map_or(Type::I64, |t| t.scalar);
                let table = f
                    .switch_table(inst)
                    .cloned()
                    .ok_or(ImportError { inst: Some(inst), message: "no table".into() })?;
                let mut per_target: Vec<(Block, Vec<Sym>)> = Vec::new();
                let mut all = Vec::new();
                for &(k, target) in &table.cases {
                    let kc = self.constant(Imm::int(vt, k));
                    let r = self.b().setp(IntCC::Eq, v, kc);
                    let eq = self.typed(r, Some(inst))?;
                    all.push(Some(eq));
                    match per_target.iter_mut().find(|(b, _)| *b == target) {
                        Some((_, v)) => v.push(eq),
                        None => per_target.push((target, vec![eq])),
                    }
                }
                let mut edges = Vec::new();
                let any = self.or_all(&all)?;
                let default = match any {
                    None => p,
                    Some(a) => {
                        let na = self.not(a)?;
                        Some(self.and(p, na)?)
                    }
                };
                let mut default_added = false;
                for (target, eqs) in per_target {
                    let any_t = self.or_all(&eqs.iter().map(|&e| Some(e)).collect::<Vec<_>>())?.expect("some case");
                    let mut pred = Some(self.and(p, any_t)?);
                    if target == table.default {
                        let d = default.expect("a default predicate");
                        let r = self.b().binary(Opcode::Or, pred.expect("a predicate"), d);
                        pred = Some(self.typed(r, Some(inst))?);
                        default_added = true;
                    }
                    edges.push((target, pred));
                }
                if !default_added {
                    edges.push((table.default, default));
                }
                return Ok(Some(Term::Edges(edges)));
            }
            Format::Ret => {
                let vals = ops.iter().map(|&o| self.read(o, inst)).collect::<R<Vec<_>>>()?;
                return Ok(Some(Term::Ret(p, vals)));
            }
            Format::Trap => {
                let fired = match p {
                    None => {
                        let t = self.constant(Imm::bool(true));
                        self.not(t)?
                    }
                    Some(p) => self.not(p)?,
                };
                let r = self.b().assert(fired);
                self.typed(r, Some(inst))?;
                return Ok(Some(Term::Edges(Vec::new())));
            }
            Format::Phi => return err(Some(inst), "a phi after the start of its block"),
            _ => {
                return err(
                    Some(inst),
                    format!("`{op}` is not imported (only scalar code, loads and whole-array reductions)"),
                );
            }
        };
        let Some(new) = value else { return Ok(None) };
        let Some(&x) = results.first() else { return err(Some(inst), "no result") };
        let state = match (guard, new) {
            (None, v) => v,
            (Some(g), VState::Def(r)) => match self.env[x.index()] {
                VState::Def(old) => {
                    let s = self.b().select(g, r, old);
                    VState::Def(self.typed(s, Some(inst))?)
                }
                VState::Maybe(old) => {
                    let s = self.b().select(g, r, old);
                    VState::Maybe(self.typed(s, Some(inst))?)
                }
                VState::Undef => VState::Maybe(r),
            },
            (Some(_), other) => match (self.env[x.index()], other) {
                (VState::Def(o) | VState::Maybe(o), _) => VState::Maybe(o),
                (VState::Undef, v) => v,
            },
        };
        if let VState::Def(s) | VState::Maybe(s) = state {
            let name = f.var_name(x).to_string();
            self.name(s, &name);
        }
        self.env[x.index()] = state;
        Ok(None)
    }
}

/// The edges into a block: predicate, the vars' states, the source.
type Incoming = Vec<(Option<Sym>, Vec<VState>, Block)>;

/// How a block ends.
enum Term {
    Edges(Vec<(Block, Option<Sym>)>),
    Ret(Option<Sym>, Vec<Sym>),
}

/// Imports function `func` of `module` (see the module doc).
pub fn import_function(module: &Module, func: FuncId) -> Result<Imported, ImportError> {
    let Some(f) = module.function(func) else { return err(None, "no such function") };
    let Some(entry) = f.entry_block() else { return err(None, "the function has no blocks") };
    // Length parameters and the objects read.
    let mut lengths: FxHashMap<Var, Mem> = FxHashMap::default();
    let mut read: Vec<Mem> = Vec::new();
    for b in f.blocks() {
        for i in f.block_insts(b) {
            match f.opcode(i).format() {
                Format::TensorReduce => {
                    if let Some(Slot::Desc(d)) = f.tensor_slots(i).first() {
                        if let Some(v) = d.size.as_var().filter(|v| f.params().contains(v)) {
                            match lengths.insert(v, d.mem) {
                                Some(m) if m != d.mem => {
                                    return err(Some(i), format!("`%{}` is the length of two objects", f.var_name(v)));
                                }
                                _ => {}
                            }
                        }
                        read.push(d.mem);
                    }
                }
                Format::Load => read.extend(f.scalar_mem(i)),
                _ => {}
            }
        }
    }
    read.sort();
    read.dedup();
    let mut params = Vec::new();
    let mut tys = Vec::new();
    for &p in f.params() {
        if !lengths.contains_key(&p) {
            params.push(ImportedParam::Scalar(p));
            tys.push(ValTy::scalar(f.var_type(p).unwrap_or(Type::I64)));
        }
    }
    for &m in &read {
        let length = lengths.iter().find(|(_, mm)| **mm == m).map(|(v, _)| *v);
        params.push(ImportedParam::Array { mem: m, length });
        tys.push(ValTy::array(module.mem(m).map_or(Type::I64, |o| o.elem), 1));
    }
    let mut g = Graph::new();
    let gf = g.add_function(f.name(), &tys).map_err(|e| ImportError { inst: None, message: e.0 })?;
    let gparams = g.lambda(gf).map_or_else(Vec::new, |l| l.params.clone());
    let mut imp = Importer {
        f,
        g,
        func: gf,
        env: vec![VState::Undef; f.num_vars()],
        arrays: FxHashMap::default(),
        lengths: lengths.clone(),
        used_names: FxHashSet::default(),
        consts: FxHashMap::default(),
    };
    for (p, &s) in params.iter().zip(&gparams) {
        match *p {
            ImportedParam::Scalar(v) => {
                imp.env[v.index()] = VState::Def(s);
                let n = f.var_name(v).to_string();
                if imp.g.set_name(s, &n).is_ok() {
                    imp.used_names.insert(n);
                }
            }
            ImportedParam::Array { mem, .. } => {
                imp.arrays.insert(mem, s);
                let n = module.mem(mem).map_or("arr".into(), |o| o.name.to_string());
                if imp.g.set_name(s, &n).is_ok() {
                    imp.used_names.insert(n);
                }
            }
        }
    }
    for (&v, &m) in &lengths {
        let xs = imp.arrays[&m];
        let r = imp.b().length(xs);
        let mut n = imp.typed(r, None)?;
        if f.var_type(v) != Some(Type::I64) {
            let t = f.var_type(v).unwrap_or(Type::I64);
            let r = imp.b().convert(Opcode::Trunc, n, t);
            n = imp.typed(r, None)?;
        }
        imp.env[v.index()] = VState::Def(n);
        let name = f.var_name(v).to_string();
        imp.name(n, &name);
    }
    // Reverse postorder, rejecting cycles.
    let mut order = Vec::new();
    let mut state: FxHashMap<Block, u8> = FxHashMap::default();
    let mut stack: Vec<(Block, Vec<Block>, usize)> = vec![(entry, f.block_successors(entry).collect(), 0)];
    state.insert(entry, 1);
    while let Some(top) = stack.last_mut() {
        if let Some(&s) = top.1.get(top.2) {
            top.2 += 1;
            match state.get(&s) {
                Some(1) => {
                    return err(
                        f.terminator(top.0),
                        "a loop: loops are not imported (write them as `while` in the graph IR)",
                    );
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    let succ = f.block_successors(s).collect();
                    stack.push((s, succ, 0));
                }
            }
        } else {
            let (b, _, _) = stack.pop().expect("a block");
            state.insert(b, 2);
            order.push(b);
        }
    }
    order.reverse();
    // If-conversion.
    let mut incoming: FxHashMap<Block, Incoming> = FxHashMap::default();
    let mut rets: Vec<(Option<Sym>, Vec<Sym>)> = Vec::new();
    for (bi, &b) in order.iter().enumerate() {
        let pred = if bi == 0 {
            None
        } else {
            let ins = incoming.remove(&b).unwrap_or_default();
            if ins.is_empty() {
                continue;
            }
            let preds: Vec<Option<Sym>> = ins.iter().map(|i| i.0).collect();
            let p = imp.or_all(&preds)?;
            for v in 0..imp.env.len() {
                let states: Vec<(Option<Sym>, VState)> = ins.iter().map(|i| (i.0, i.1[v])).collect();
                imp.env[v] = imp.merge(&states)?;
            }
            // Phis: their values per incoming edge.
            for i in f.block_insts(b) {
                if f.opcode(i) != Opcode::Phi {
                    break;
                }
                let mut vals = Vec::new();
                for (pb, o) in f.phi_incoming(i) {
                    let Some(edge) = ins.iter().find(|e| e.2 == pb) else { continue };
                    let saved = std::mem::replace(&mut imp.env, edge.1.clone());
                    let v = imp.read(o, i);
                    imp.env = saved;
                    vals.push((edge.0, v?));
                }
                if vals.is_empty() {
                    return err(Some(i), "a phi with no reachable incoming value");
                }
                let s = imp.chain(&vals)?;
                if let Some(&x) = f.results(i).first() {
                    imp.env[x.index()] = VState::Def(s);
                }
            }
            p
        };
        for i in f.block_insts(b) {
            if f.opcode(i) == Opcode::Phi {
                continue;
            }
            match imp.inst(i, pred, module)? {
                None => {}
                Some(Term::Ret(p, vals)) => rets.push((p, vals)),
                Some(Term::Edges(edges)) => {
                    for (t, p) in edges {
                        incoming.entry(t).or_default().push((p, imp.env.clone(), b));
                    }
                }
            }
        }
    }
    if rets.is_empty() {
        return err(None, "no `ret` is reachable");
    }
    let n = f.signature().returns.len();
    let mut results = Vec::with_capacity(n);
    for r in 0..n {
        let vals: Vec<(Option<Sym>, Sym)> = rets.iter().map(|(p, v)| (*p, v.get(r).copied().unwrap_or(v[0]))).collect();
        results.push(imp.chain(&vals)?);
    }
    imp.g.set_results(gf, &results);
    Ok(Imported { graph: imp.g, func: gf, params })
}
