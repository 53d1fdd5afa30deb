//! Emitting Keel code for the lowering: the lowered forms of values
//! ([`LVal`]), the emitter's state ([`Lower`]), lane loops, and the
//! first-order nodes (scalar operations, lifted element-wise operations as
//! tensor instructions or guarded lane loops, row reductions, broadcasts).

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::scalar::{BinaryOp, UnaryOp};
use crate::schedule::Schedule;
use ir_core::{
    Arg, Block, Desc, Function, FunctionBuilder, Imm, IntCC, Mem, MemSpace, Module, Opcode, TensorArg, Type, Var,
};
use rustc_hash::FxHashMap;

use super::error::{LowerError, LowerErrorKind};

/// A lowered value.
#[derive(Clone, Debug)]
pub(super) enum LVal {
    Scalar(Var),
    Lanes(Mem),
    Rows { data: Mem, offsets: Mem },
    Tuple(Vec<LVal>),
}

/// What to do when a lambda's body is done.
#[derive(Debug)]
pub(super) enum Then {
    Top,
    Apply { node: Sym },
    BranchTaken { node: Sym, store: Vec<LVal>, else_lam: Sym, args: Vec<LVal>, else_block: Block, join: Block },
    OtherBranch { node: Sym, store: Vec<LVal>, join: Block },
    LoopTest { node: Sym, state: Vec<LVal>, body_lam: Sym, header: Block, body: Block, exit: Block },
    LoopBody { node: Sym, state: Vec<LVal>, header: Block, exit: Block },
}

pub(super) struct Frame {
    pub(super) lam: Sym,
    pub(super) pos: usize,
    pub(super) then: Then,
}

pub(super) type R<T> = Result<T, LowerError>;

pub(super) fn err<T>(sym: Option<Sym>, kind: LowerErrorKind) -> R<T> {
    Err(LowerError { sym, kind })
}

pub(super) struct Lower<'g> {
    pub(super) g: &'g Graph,
    pub(super) sched: Schedule,
    pub(super) module: Module,
    pub(super) f: Function,
    pub(super) block: Block,
    pub(super) vals: FxHashMap<Sym, LVal>,
    pub(super) lanes: Arg,
    pub(super) lanes_syms: rustc_hash::FxHashSet<Sym>,
    pub(super) capacity: u64,
    /// Bytes of `nram` left for intermediates.
    pub(super) on_chip_left: u64,
    pub(super) temps: usize,
    pub(super) uses: Vec<u32>,
    pub(super) fused: rustc_hash::FxHashSet<Sym>,
    /// Planted bug `LaneLoopSkipsLastLane`, read once per lowering.
    pub(super) skip_last_lane: bool,
    /// Planted bug `TsubSwapsOperands`, read once per lowering.
    pub(super) swap_tsub: bool,
}

fn tensor_op(op: Op) -> Option<Opcode> {
    Some(match op {
        Op::Binary(BinaryOp::Add | BinaryOp::Fadd) => Opcode::Tadd,
        Op::Binary(BinaryOp::Sub | BinaryOp::Fsub) => Opcode::Tsub,
        Op::Binary(BinaryOp::Mul | BinaryOp::Fmul) => Opcode::Tmul,
        Op::Binary(BinaryOp::Sdiv | BinaryOp::Fdiv) => Opcode::Tdiv,
        Op::Binary(BinaryOp::Smin | BinaryOp::Fmin) => Opcode::Tmin,
        Op::Binary(BinaryOp::Smax | BinaryOp::Fmax) => Opcode::Tmax,
        Op::Unary(UnaryOp::Neg | UnaryOp::Fneg) => Opcode::Tneg,
        Op::Unary(UnaryOp::Fabs) => Opcode::Tabs,
        Op::Unary(UnaryOp::Fsqrt) => Opcode::Tsqrt,
        Op::Unary(UnaryOp::Copy) => Opcode::Dma,
        _ => return None,
    })
}

impl Lower<'_> {
    pub(super) fn fb(&mut self) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(&mut self.f);
        b.switch_to_block(self.block);
        b
    }

    pub(super) fn new_block(&mut self) -> Block {
        FunctionBuilder::new(&mut self.f).create_block()
    }

    pub(super) fn var(&mut self, ty: Type) -> Var {
        self.temps += 1;
        let name = format!("v{}", self.temps);
        self.f.add_var(&name, ty)
    }

    /// A new memory object of `len` elements (at least one), named `name`
    /// or, if taken, `name_k`; a length past [`ir_core::MAX_MEM_LEN`] is
    /// refused (`len` is a `u128` so that `lanes + 1` cannot wrap).
    pub(super) fn mem(&mut self, name: &str, elem: Type, len: u128, space: MemSpace) -> R<Mem> {
        let limit = ir_core::MAX_MEM_LEN;
        let Some(len) = u64::try_from(len).ok().filter(|&l| l <= limit) else {
            return err(None, LowerErrorKind::MemTooLong { name: name.to_string(), len, limit });
        };
        let mut n = name.to_string();
        let mut k = 0;
        while self.module.lookup(&n).is_some() {
            k += 1;
            n = format!("{name}_{k}");
        }
        self.module
            .add_mem(&n, elem, len.max(1), space)
            .map_err(|e| LowerError { sym: None, kind: LowerErrorKind::Name(e) })
    }

    pub(super) fn temp(&mut self, elem: Type) -> R<Mem> {
        self.temps += 1;
        let name = format!("t{}", self.temps);
        let space = self.temp_space(elem);
        self.mem(&name, elem, self.capacity.into(), space)
    }

    /// `nram` while the intermediates fit [`super::LowerOptions::on_chip_bytes`],
    /// then `dram`.
    fn temp_space(&mut self, elem: Type) -> MemSpace {
        let bytes = self.capacity.max(1).saturating_mul(u64::from(elem.bytes()));
        if bytes <= self.on_chip_left {
            self.on_chip_left -= bytes;
            MemSpace::Nram
        } else {
            MemSpace::Dram
        }
    }

    /// A per-lane object for node `node`, named after it when it has a name.
    pub(super) fn temp_for(&mut self, node: Sym, elem: Type) -> R<Mem> {
        match self.g.name(node) {
            Some(n) => {
                let n = n.to_string();
                let space = self.temp_space(elem);
                self.mem(&n, elem, self.capacity.into(), space)
            }
            None => self.temp(elem),
        }
    }

    pub(super) fn all(&self, m: Mem) -> Desc {
        Desc::new(m, 0i64, self.lanes)
    }

    pub(super) fn elem(&self, m: Mem) -> Type {
        self.module.mem(m).map_or(Type::I64, |o| o.elem)
    }

    pub(super) fn val(&self, s: Sym) -> R<LVal> {
        self.vals.get(&s).cloned().ok_or(LowerError { sym: Some(s), kind: LowerErrorKind::NotLowered })
    }

    pub(super) fn scalar(&self, s: Sym) -> R<Var> {
        match self.val(s)? {
            LVal::Scalar(v) => Ok(v),
            _ => err(Some(s), LowerErrorKind::ScalarExpected),
        }
    }

    /// `i = 0; while i < lanes { body(i); i += 1 }`: returns `i` and leaves
    /// the cursor in the body; [`Lower::end_loop`] closes it.
    pub(super) fn begin_loop(&mut self, count: Arg) -> (Var, Block, Block) {
        let i = self.var(Type::I64);
        self.fb().ins().copy(i, 0i64);
        let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        self.fb().ins().jump(header);
        self.block = header;
        let more = self.var(Type::I1);
        if self.skip_last_lane {
            let next = self.var(Type::I64);
            self.fb().ins().binary(Opcode::Add, next, i, 1i64);
            self.fb().ins().setp(IntCC::Slt, more, next, count);
        } else {
            self.fb().ins().setp(IntCC::Slt, more, i, count);
        }
        self.fb().ins().br(more, body, exit);
        self.block = body;
        (i, header, exit)
    }

    pub(super) fn end_loop(&mut self, i: Var, header: Block, exit: Block) {
        self.fb().ins().binary(Opcode::Add, i, i, 1i64);
        self.fb().ins().jump(header);
        self.block = exit;
    }

    /// One scalar operation into `dst` (guarded by `mask`: 0 when false).
    pub(super) fn scalar_op(&mut self, node: Sym, op: Op, dst: Var, args: &[Arg], mask: Option<Var>) -> R<()> {
        let ty = self.f.var_type(dst).unwrap_or(Type::I64);
        if mask.is_some() {
            self.fb().ins().copy(dst, Imm::from_bits(ty, 0));
        }
        if op == Op::Assert {
            // Traps unless the condition holds (or the lane is masked off).
            let ok = match mask {
                None => args[0],
                Some(m) => {
                    let nm = self.var(Type::I1);
                    self.fb().ins().unary(Opcode::Not, nm, m);
                    let o = self.var(Type::I1);
                    self.fb().ins().binary(Opcode::Or, o, nm, args[0]);
                    Arg::Var(o)
                }
            };
            let (cont, trap) = (self.new_block(), self.new_block());
            self.fb().ins().br(ok, cont, trap);
            self.block = trap;
            self.fb().ins().trap();
            self.block = cont;
            self.fb().ins().copy(dst, args[0]);
            return Ok(());
        }
        let mut b = self.fb();
        let ins = match mask {
            Some(m) => b.ins().when(m),
            None => b.ins(),
        };
        match op {
            Op::Unary(o) => ins.unary(o.into(), dst, args[0]),
            Op::Binary(o) => ins.binary(o.into(), dst, args[0], args[1]),
            Op::Select => ins.select(dst, args[0], args[1], args[2]),
            Op::Setp(cc) => ins.setp(cc.into(), dst, args[0], args[1]),
            Op::Fsetp(cc) => ins.fsetp(cc.into(), dst, args[0], args[1]),
            Op::Convert(o) => ins.convert(o.into(), dst, args[0]),
            _ => return err(Some(node), LowerErrorKind::NotScalarOp(op.prim())),
        };
        Ok(())
    }

    /// The arguments of a lifted node: per-lane objects (`Err`) and
    /// scalars the same in every lane (`Ok`).
    pub(super) fn lane_args(&self, node: Sym) -> R<Vec<Result<Arg, Mem>>> {
        let n = self.g.data(node);
        self.g
            .args(node)
            .iter()
            .enumerate()
            .map(|(i, &a)| match (self.val(a)?, n.is_bcast(i)) {
                (LVal::Lanes(m), false) => Ok(Err(m)),
                (LVal::Scalar(v), true) => Ok(Ok(Arg::Var(v))),
                _ => err(Some(node), LowerErrorKind::LaneArgument),
            })
            .collect()
    }

    /// A lifted element-wise node over lanes.
    pub(super) fn lanes_op(&mut self, node: Sym) -> R<LVal> {
        let g = self.g;
        let n = g.data(node);
        let ty = n.ty.val().and_then(|t| t.element()).filter(|t| t.depth == 0);
        let Some(out_ty) = ty else { return err(Some(node), LowerErrorKind::NotElementwise) };
        let args = g.args(node);
        let mask = match n.mask {
            None => None,
            Some(m) => match self.val(m)? {
                LVal::Lanes(mm) => Some(mm),
                _ => return err(Some(node), LowerErrorKind::UniformMask),
            },
        };
        let dst = self.temp_for(node, out_ty.scalar.into())?;
        // One tensor instruction where it computes the same bits.
        if mask.is_none()
            && let Some(t) = tensor_op(n.op)
        {
            let float = out_ty.scalar.is_float();
            let unary_ok = t != Opcode::Tabs || float;
            if unary_ok {
                // tfma: a product used only here, as the sum's first operand
                // (or either operand for integers, whose sums commute exactly).
                if t == Opcode::Tadd {
                    for first in [0usize, 1] {
                        if first == 1 && float {
                            break;
                        }
                        let (p, other) = (args[first], args[1 - first]);
                        let pn = g.data(p);
                        if matches!(pn.op, Op::Binary(BinaryOp::Mul | BinaryOp::Fmul))
                            && pn.mask.is_none()
                            && pn.depth == 1
                            && self.uses[p.index()] == 1
                            && self.fused.contains(&p)
                        {
                            let pa = g.args(p);
                            let src = |s: &Self, x: Sym, same: bool| -> R<TensorArg> {
                                Ok(match (s.val(x)?, same) {
                                    (LVal::Lanes(m), false) => TensorArg::Desc(s.all(m)),
                                    (LVal::Scalar(v), true) => TensorArg::Scalar(Arg::Var(v)),
                                    _ => return err(Some(x), LowerErrorKind::BadOperand),
                                })
                            };
                            let a0 = src(self, pa[0], pn.is_bcast(0))?;
                            let a1 = src(self, pa[1], pn.is_bcast(1))?;
                            let c = src(self, other, n.is_bcast(1 - first))?;
                            let d = self.all(dst);
                            self.fb().ins().tensor(Opcode::Tfma, d, &[a0, a1, c]);
                            return Ok(LVal::Lanes(dst));
                        }
                    }
                }
                let lv = self.lane_args(node)?;
                let mut srcs: Vec<TensorArg> = lv
                    .iter()
                    .map(|x| match x {
                        Err(m) => TensorArg::Desc(self.all(*m)),
                        Ok(a) => TensorArg::Scalar(*a),
                    })
                    .collect();
                if t == Opcode::Tsub && self.swap_tsub {
                    srcs.reverse();
                }
                let scalar_ok = srcs.iter().all(|s| matches!(s, TensorArg::Desc(_))) || matches!(n.op, Op::Binary(_));
                if scalar_ok {
                    let d = self.all(dst);
                    self.fb().ins().tensor(t, d, &srcs);
                    return Ok(LVal::Lanes(dst));
                }
            }
        }
        let lv = self.lane_args(node)?;
        // A loop over the lanes.
        let (i, header, exit) = self.begin_loop(self.lanes);
        let mut ops = Vec::with_capacity(lv.len());
        for x in &lv {
            ops.push(match x {
                Ok(a) => *a,
                Err(m) => {
                    let v = self.var(self.elem(*m));
                    self.fb().ins().load(v, *m, i);
                    Arg::Var(v)
                }
            });
        }
        let guard = match mask {
            None => None,
            Some(m) => {
                let v = self.var(Type::I1);
                self.fb().ins().load(v, m, i);
                Some(v)
            }
        };
        let r = self.var(out_ty.scalar.into());
        self.scalar_op(node, n.op, r, &ops, guard)?;
        self.fb().ins().store(dst, i, r);
        self.end_loop(i, header, exit);
        Ok(LVal::Lanes(dst))
    }

    /// A first-order node.
    pub(super) fn first_order(&mut self, node: Sym) -> R<LVal> {
        let g = self.g;
        let n = g.data(node);
        let args = g.args(node);
        match (n.op, n.depth) {
            (Op::Const(imm), _) => {
                let imm = Imm::from(imm);
                let v = self.var(imm.ty());
                self.fb().ins().copy(v, imm);
                Ok(LVal::Scalar(v))
            }
            (Op::Length, 0) => match self.val(args[0])? {
                LVal::Lanes(_) | LVal::Rows { .. } => {
                    let v = self.var(Type::I64);
                    let n = self.lanes;
                    self.fb().ins().copy(v, n);
                    self.lanes_syms.insert(node);
                    Ok(LVal::Scalar(v))
                }
                _ => err(Some(node), LowerErrorKind::LengthNotPerLane),
            },
            (Op::Sum | Op::Max, 0) => match self.val(args[0])? {
                LVal::Lanes(m) => {
                    let v = self.var(self.elem(m));
                    let op = if n.op == Op::Sum { Opcode::Tsum } else { Opcode::Tredmax };
                    let d = self.all(m);
                    self.fb().ins().reduce(op, v, d);
                    Ok(LVal::Scalar(v))
                }
                _ => err(Some(node), LowerErrorKind::ReductionNotPerLane),
            },
            (Op::Any, 0) => match self.val(args[0])? {
                LVal::Lanes(m) => {
                    let acc = self.var(Type::I1);
                    self.fb().ins().copy(acc, Imm::bool(false));
                    let (i, header, exit) = self.begin_loop(self.lanes);
                    let x = self.var(Type::I1);
                    self.fb().ins().load(x, m, i);
                    self.fb().ins().binary(Opcode::Or, acc, acc, x);
                    self.end_loop(i, header, exit);
                    Ok(LVal::Scalar(acc))
                }
                _ => err(Some(node), LowerErrorKind::AnyNotPerLane),
            },
            (Op::Length | Op::Sum | Op::Max | Op::Any, 1) => {
                let LVal::Rows { data, offsets } = self.val(args[0])? else {
                    return err(Some(node), LowerErrorKind::RowReduction);
                };
                let elem = self.elem(data);
                let out_ty = if n.op == Op::Length { Type::I64 } else { n.ty.val().map_or(elem, |t| t.scalar.into()) };
                let dst = self.temp_for(node, out_ty)?;
                let (i, header, exit) = self.begin_loop(self.lanes);
                let (off, end, next, len) =
                    (self.var(Type::I64), self.var(Type::I64), self.var(Type::I64), self.var(Type::I64));
                self.fb().ins().load(off, offsets, i);
                self.fb().ins().binary(Opcode::Add, next, i, 1i64);
                self.fb().ins().load(end, offsets, next);
                self.fb().ins().binary(Opcode::Sub, len, end, off);
                let r = self.var(out_ty);
                match n.op {
                    Op::Length => {
                        self.fb().ins().copy(r, len);
                    }
                    Op::Sum | Op::Max => {
                        let op = if n.op == Op::Sum { Opcode::Tsum } else { Opcode::Tredmax };
                        self.fb().ins().reduce(op, r, Desc::new(data, off, len));
                    }
                    _ => {
                        // any: an inner loop over the row.
                        self.fb().ins().copy(r, Imm::bool(false));
                        let (j, h2, e2) = self.begin_loop(Arg::Var(len));
                        let (k, x) = (self.var(Type::I64), self.var(Type::I1));
                        self.fb().ins().binary(Opcode::Add, k, off, j);
                        self.fb().ins().load(x, data, k);
                        self.fb().ins().binary(Opcode::Or, r, r, x);
                        self.end_loop(j, h2, e2);
                    }
                }
                self.fb().ins().store(dst, i, r);
                self.end_loop(i, header, exit);
                Ok(LVal::Lanes(dst))
            }
            (Op::Broadcast, 0) => {
                let x = self
                    .scalar(args[0])
                    .map_err(|_| LowerError { sym: Some(node), kind: LowerErrorKind::BroadcastNotScalar })?;
                if !self.lanes_syms.contains(&args[1]) {
                    return err(Some(node), LowerErrorKind::BroadcastCount);
                }
                let dst = self.temp_for(node, self.f.var_type(x).unwrap_or(Type::I64))?;
                let d = self.all(dst);
                self.fb().ins().tensor(Opcode::Tfill, d, &[TensorArg::Scalar(Arg::Var(x))]);
                Ok(LVal::Lanes(dst))
            }
            (
                Op::Unary(_) | Op::Binary(_) | Op::Select | Op::Setp(_) | Op::Fsetp(_) | Op::Convert(_) | Op::Assert,
                0,
            ) => {
                let ops: Vec<Arg> = args.iter().map(|&a| self.scalar(a).map(Arg::Var)).collect::<R<_>>()?;
                let mask = match n.mask {
                    None => None,
                    Some(m) => Some(self.scalar(m)?),
                };
                let ty =
                    n.ty.val()
                        .filter(|t| t.depth == 0)
                        .ok_or(LowerError { sym: Some(node), kind: LowerErrorKind::ScalarOpOnArrays })?;
                let dst = self.var(ty.scalar.into());
                self.scalar_op(node, n.op, dst, &ops, mask)?;
                Ok(LVal::Scalar(dst))
            }
            (
                Op::Unary(_) | Op::Binary(_) | Op::Select | Op::Setp(_) | Op::Fsetp(_) | Op::Convert(_) | Op::Assert,
                1,
            ) => self.lanes_op(node),
            _ => err(Some(node), LowerErrorKind::Unsupported { prim: n.op.prim(), depth: n.depth }),
        }
    }
}
