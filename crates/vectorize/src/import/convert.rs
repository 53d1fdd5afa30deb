//! The importer's per-instruction work: reading operands (refusing vars
//! that may be undefined), predicates and their `and`/`or`/`not`, `select`
//! chains at joins, and each instruction under its block's predicate.

use super::error::{ImportError, ImportErrorKind};
use crate::builder::Builder;
use crate::graph::{Arg, Graph, Sym};
use crate::ops::Op;
use crate::scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, ScalarTy, UnaryOp};
use ir_core::entity::EntityRef;
use ir_core::{Block, Format, Inst, Mem, Module, Opcode, Operand, Slot, Var};
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum VState {
    Undef,
    Maybe(Sym),
    Def(Sym),
}

pub(super) type R<T> = Result<T, ImportError>;

pub(super) fn err<T>(inst: Option<Inst>, kind: ImportErrorKind) -> R<T> {
    Err(ImportError { inst, kind })
}

pub(super) struct Importer<'m> {
    pub(super) f: &'m ir_core::Function,
    pub(super) g: Graph,
    pub(super) func: Sym,
    pub(super) env: Vec<VState>,
    pub(super) arrays: FxHashMap<Mem, Sym>,
    pub(super) lengths: FxHashMap<Var, Mem>,
    pub(super) used_names: FxHashSet<String>,
    /// The next suffix to try for each base name.
    pub(super) next_suffix: FxHashMap<String, u32>,
    pub(super) consts: FxHashMap<Imm, Sym>,
    /// Planted bug `JoinSelectSwapped`, read once per import.
    pub(super) swap_joins: bool,
    /// Planted bug `TrapsUnmasked`, read once per import.
    pub(super) unmask_traps: bool,
}

fn may_trap(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem | Opcode::Fptosi | Opcode::Fptoui | Opcode::Load
    )
}

impl Importer<'_> {
    pub(super) fn b(&mut self) -> Builder<'_> {
        Builder::new(&mut self.g, self.func)
    }

    pub(super) fn typed(&self, r: Result<Sym, crate::infer::TypeError>, inst: Option<Inst>) -> R<Sym> {
        r.map_err(|e| ImportError { inst, kind: ImportErrorKind::IllTyped(e) })
    }

    pub(super) fn constant(&mut self, imm: Imm) -> Sym {
        if let Some(&s) = self.consts.get(&imm) {
            return s;
        }
        let s = self.b().constant(imm);
        self.consts.insert(imm, s);
        s
    }

    pub(super) fn name(&mut self, s: Sym, base: &str) {
        if self.g.name(s).is_some() || matches!(self.g.op(s), Some(Op::Param(_) | Op::Const(_))) {
            return;
        }
        // No suffix makes a name with other characters valid.
        if !crate::graph::valid_name(&format!("{base}.0")) {
            return;
        }
        // Suffixes continue from the last one given to this base, so a var
        // defined k times costs O(k) probes in all, not O(k^2).
        let first = self.next_suffix.get(base).copied().unwrap_or(0);
        let mut n = first;
        let mut name = if n == 0 { base.to_string() } else { format!("{base}.{n}") };
        while self.used_names.contains(&name) || !crate::graph::valid_name(&name) {
            n += 1;
            name = format!("{base}.{n}");
            if n > first + 1000 {
                return;
            }
        }
        self.next_suffix.insert(base.to_string(), n + 1);
        if self.g.set_name(s, &name).is_ok() {
            self.used_names.insert(name);
        }
    }

    pub(super) fn read(&mut self, op: Operand, inst: Inst) -> R<Sym> {
        if let Some(v) = op.as_var() {
            return match self.env.get(v.index()) {
                Some(VState::Def(s)) => Ok(*s),
                Some(_) => err(Some(inst), ImportErrorKind::MaybeUndefined(self.f.var_name(v).to_string())),
                None => err(Some(inst), ImportErrorKind::NoSuchVar),
            };
        }
        match self.f.arg(op) {
            Some(ir_core::Arg::Imm(i)) => Ok(self.constant(i.into())),
            _ => err(Some(inst), ImportErrorKind::NoSuchOperand),
        }
    }

    pub(super) fn and(&mut self, a: Option<Sym>, b: Sym) -> R<Sym> {
        match a {
            None => Ok(b),
            Some(a) => {
                let r = self.b().binary(BinaryOp::And, a, b);
                self.typed(r, None)
            }
        }
    }

    pub(super) fn not(&mut self, c: Sym) -> R<Sym> {
        let r = self.b().unary(UnaryOp::Not, c);
        self.typed(r, None)
    }

    pub(super) fn or_all(&mut self, preds: &[Option<Sym>]) -> R<Option<Sym>> {
        if preds.iter().any(Option::is_none) {
            return Ok(None);
        }
        let mut acc: Option<Sym> = None;
        for &p in preds {
            let p = p.expect("checked above");
            acc = Some(match acc {
                None => p,
                Some(a) => {
                    let r = self.b().binary(BinaryOp::Or, a, p);
                    self.typed(r, None)?
                }
            });
        }
        Ok(acc)
    }

    /// `select` chain: the value of the first incoming edge whose
    /// predicate holds (the last one by default).
    pub(super) fn chain(&mut self, incoming: &[(Option<Sym>, Sym)]) -> R<Sym> {
        let (_, mut acc) = *incoming.last().ok_or(ImportError { inst: None, kind: ImportErrorKind::NoValue })?;
        for &(p, v) in incoming[..incoming.len() - 1].iter().rev() {
            if v == acc {
                continue;
            }
            acc = match p {
                None => v,
                Some(p) => {
                    let r = if self.swap_joins { self.b().select(p, acc, v) } else { self.b().select(p, v, acc) };
                    self.typed(r, None)?
                }
            };
        }
        Ok(acc)
    }

    pub(super) fn merge(&mut self, states: &[(Option<Sym>, VState)]) -> R<VState> {
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
    pub(super) fn inst(&mut self, inst: Inst, p: Option<Sym>, module: &Module) -> R<Option<Term>> {
        let f = self.f;
        let op = f.opcode(inst);
        let guard = match f.guard(inst) {
            None => None,
            Some(gd) => {
                let g = self.read(Operand::var(gd.var), inst)?;
                Some(if gd.negated { self.not(g)? } else { g })
            }
        };
        let mask = if may_trap(op) && !self.unmask_traps {
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
                        *self
                            .env
                            .get(v.index())
                            .ok_or(ImportError { inst: Some(inst), kind: ImportErrorKind::NoSuchVar })?,
                    ),
                    None => {
                        let o = *ops
                            .first()
                            .ok_or(ImportError { inst: Some(inst), kind: ImportErrorKind::MissingOperand })?;
                        let c = self.read(o, inst)?;
                        // A constant takes its result's type.
                        let c = match (result_ty(0), self.f.arg(o)) {
                            (Some(t), Some(ir_core::Arg::Imm(i))) if i.ty() != t => {
                                self.constant(Imm::from(i).with_type(t.into()))
                            }
                            _ => c,
                        };
                        Some(VState::Def(c))
                    }
                }
            }
            Format::Undef => Some(VState::Undef),
            Format::Unary | Format::Binary | Format::Select | Format::Compare | Format::Convert => {
                let args: Vec<Arg> = ops.iter().map(|&o| self.read(o, inst).map(Arg::mapped)).collect::<R<_>>()?;
                let not_graph = |_| ImportError { inst: Some(inst), kind: ImportErrorKind::NoGraphOp(op) };
                let gop = match op.format() {
                    Format::Unary => Op::Unary(UnaryOp::try_from(op).map_err(not_graph)?),
                    Format::Binary => Op::Binary(BinaryOp::try_from(op).map_err(not_graph)?),
                    Format::Select => Op::Select,
                    Format::Compare if op == Opcode::Setp => Op::Setp(f.int_cc(inst).map_or(IntCC::Eq, IntCC::from)),
                    Format::Compare => Op::Fsetp(f.float_cc(inst).map_or(FloatCC::Eq, FloatCC::from)),
                    _ => Op::Convert(ConvertOp::try_from(op).map_err(not_graph)?),
                };
                let target = result_ty(0).map(ScalarTy::from);
                let r = Builder::new(&mut self.g, self.func).node_to(gop, 0, &args, mask, target);
                Some(VState::Def(self.typed(r, Some(inst))?))
            }
            Format::Load => {
                let mem =
                    f.scalar_mem(inst).ok_or(ImportError { inst: Some(inst), kind: ImportErrorKind::NoObject })?;
                let elem = module.mem(mem).map(|m| m.elem);
                if result_ty(0) != elem {
                    return err(Some(inst), ImportErrorKind::WideLoad);
                }
                let xs = self.arrays[&mem];
                let i = self.read(ops[0], inst)?;
                let r =
                    Builder::new(&mut self.g, self.func).node(Op::Index, 0, &[Arg::mapped(xs), Arg::mapped(i)], mask);
                Some(VState::Def(self.typed(r, Some(inst))?))
            }
            Format::TensorReduce => {
                let Some(Slot::Desc(d)) = f.tensor_slots(inst).first().copied() else {
                    return err(Some(inst), ImportErrorKind::NoDescriptor);
                };
                let whole = f.arg(d.offset) == Some(ir_core::Arg::Imm(ir_core::Imm::int(ir_core::Type::I64, 0)))
                    || matches!(f.arg(d.offset), Some(ir_core::Arg::Imm(i)) if i.as_i64() == 0);
                if !whole || d.size.as_var().and_then(|v| self.lengths.get(&v)) != Some(&d.mem) {
                    return err(Some(inst), ImportErrorKind::PartialReduction);
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
                    return err(Some(inst), ImportErrorKind::MalformedBranch);
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
                let vt = self.g.val_ty(v).map_or(ScalarTy::I64, |t| t.scalar);
                let table = f
                    .switch_table(inst)
                    .cloned()
                    .ok_or(ImportError { inst: Some(inst), kind: ImportErrorKind::NoSwitchTable })?;
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
                        let r = self.b().binary(BinaryOp::Or, pred.expect("a predicate"), d);
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
            Format::Phi => return err(Some(inst), ImportErrorKind::LatePhi),
            _ => return err(Some(inst), ImportErrorKind::Unsupported(op)),
        };
        let Some(new) = value else { return Ok(None) };
        let Some(&x) = results.first() else { return err(Some(inst), ImportErrorKind::NoResult) };
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

/// How a block ends.
pub(super) enum Term {
    Edges(Vec<(Block, Option<Sym>)>),
    Ret(Option<Sym>, Vec<Sym>),
}
