//! Lowering: a vectorized graph function to a Keel function whose arrays
//! are memory objects and whose element-wise work is tensor instructions
//! over descriptors, so that `ir-core`'s interpreter (and later the MLU
//! backend) runs it.
//!
//! The data model of the lowered code:
//! - a value the same in every lane is a Keel var (a scalar);
//! - a batched value (one scalar per lane: `array<S>` of the batch's
//!   length) is a memory object of `S` holding `lanes` elements: the
//!   inputs and results in `dram`, the intermediates in `nram`;
//! - a batched array parameter (`array<array<S>>`: one array per lane) is
//!   two objects, the lanes' elements one after another (`@x_data`) and
//!   the offsets of each lane's first element (`@x_offsets`, `lanes + 1`
//!   `i64`s), the segmented layout of [`crate::Array`].
//!
//! With [`Lanes::Fixed`] every descriptor is exact (`@t[0, 64]`); with
//! [`Lanes::Dynamic`] the lane count is the function's first parameter and
//! descriptors are `@t[0, %lanes]` over objects of the given capacity.
//!
//! Lifted element-wise nodes become one tensor instruction each where one
//! computes exactly the same bits: `add`/`fadd` → `tadd`, `sub` → `tsub`,
//! `mul` → `tmul`, `sdiv`/`fdiv` → `tdiv`, `smin`/`fmin` → `tmin`,
//! `smax`/`fmax` → `tmax`, `neg`/`fneg` → `tneg`, `fabs` → `tabs`, `fsqrt`
//! → `tsqrt`, `copy` → `dma`, a product used once as the first operand of a
//! sum → `tfma` (unfused, as `tfma` is), a same-in-every-lane operand → a
//! scalar slot, a broadcast → `tfill`, a row `sum`/`max` → `tsum`/`tredmax`
//! per row (left to right, the scalar program's order). The others
//! (compares, `select`, bit operations, conversions, masked operations, row
//! lengths, `any`) become a loop over the lanes of scalar `load`/op/`store`,
//! a masked one guarding its operation (`@%m`, the lane's result 0 when the
//! guard fails, as a masked node's is). `apply` is inlined; `if` on a value
//! the same in every lane becomes a diamond, `while` a loop, with loop
//! state in vars and objects.
//!
//! Anything else (arrays that are not one value per lane, `map`, `index`,
//! `concat`, `partition`, constant arrays, masks the same in every lane on
//! lifted nodes) is a [`LowerError`] naming the node. The vectorizer's
//! output for first-order scalar programs, `if`s and `while`s, and for
//! `mean` over an array, is in the subset.
//!
//! Invariants: never panics; no recursion (lambda bodies are inlined from
//! an explicit stack of frames, like the vectorizer's); the lowered function
//! verifies.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::Schedule;
use crate::value::{Array, Value};
use ir_core::interp::{Config, Interpreter, Trap, TrapKind};
use ir_core::{
    Arg, Block, Desc, FuncId, Function, FunctionBuilder, Imm, IntCC, Mem, MemSpace, Module, Opcode, Signature,
    TensorArg, Type, Var,
};
use rustc_hash::FxHashMap;

/// How many lanes the lowered function handles.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Lanes {
    /// Exactly this many (exact descriptors).
    Fixed(u64),
    /// Any number up to `capacity`, passed as the first parameter.
    Dynamic {
        /// Size of each per-lane object.
        capacity: u64,
    },
}

/// Options of [`lower`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LowerOptions {
    /// The lanes.
    pub lanes: Lanes,
    /// Size of the data object of each `array<array<S>>` parameter (the
    /// most elements all lanes' arrays may hold together).
    pub elements: u64,
}

/// Why a graph cannot be lowered.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LowerError {
    /// The node at fault, if any.
    pub sym: Option<Sym>,
    /// What is not supported.
    pub message: String,
}

impl core::fmt::Display for LowerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LowerError {}

/// Where a parameter of the graph function went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoweredParam {
    /// A parameter of the Keel function (its index).
    Scalar(usize),
    /// A per-lane object.
    Lanes(Mem),
    /// Per-lane arrays: data and offsets.
    Rows {
        /// The elements.
        data: Mem,
        /// `lanes + 1` offsets.
        offsets: Mem,
    },
}

/// Where a result of the graph function went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoweredResult {
    /// A returned value (its index).
    Scalar(usize),
    /// A per-lane object.
    Lanes(Mem),
}

/// A lowered function.
#[derive(Debug)]
pub struct Lowered {
    /// The module: the function and its memory objects.
    pub module: Module,
    /// The function.
    pub func: FuncId,
    /// Where each parameter went.
    pub params: Vec<LoweredParam>,
    /// Where each result went.
    pub results: Vec<LoweredResult>,
    /// The options it was lowered with.
    pub options: LowerOptions,
}

/// A lowered value.
#[derive(Clone, Debug)]
enum LVal {
    Scalar(Var),
    Lanes(Mem),
    Rows { data: Mem, offsets: Mem },
    Tuple(Vec<LVal>),
}

/// What to do when a lambda's body is done.
#[derive(Debug)]
enum Then {
    Top,
    Apply { node: Sym },
    BranchTaken { node: Sym, store: Vec<LVal>, else_lam: Sym, args: Vec<LVal>, else_block: Block, join: Block },
    OtherBranch { node: Sym, store: Vec<LVal>, join: Block },
    LoopTest { node: Sym, state: Vec<LVal>, body_lam: Sym, header: Block, body: Block, exit: Block },
    LoopBody { node: Sym, state: Vec<LVal>, header: Block, exit: Block },
}

struct Frame {
    lam: Sym,
    pos: usize,
    then: Then,
}

type R<T> = Result<T, LowerError>;

fn err<T>(sym: Option<Sym>, message: impl Into<String>) -> R<T> {
    Err(LowerError { sym, message: message.into() })
}

struct Lower<'g> {
    g: &'g Graph,
    sched: Schedule,
    module: Module,
    f: Function,
    block: Block,
    vals: FxHashMap<Sym, LVal>,
    lanes: Arg,
    lanes_syms: rustc_hash::FxHashSet<Sym>,
    capacity: u64,
    temps: usize,
    uses: Vec<u32>,
    fused: rustc_hash::FxHashSet<Sym>,
}

fn tensor_op(op: Op) -> Option<Opcode> {
    Some(match op {
        Op::Binary(Opcode::Add | Opcode::Fadd) => Opcode::Tadd,
        Op::Binary(Opcode::Sub | Opcode::Fsub) => Opcode::Tsub,
        Op::Binary(Opcode::Mul | Opcode::Fmul) => Opcode::Tmul,
        Op::Binary(Opcode::Sdiv | Opcode::Fdiv) => Opcode::Tdiv,
        Op::Binary(Opcode::Smin | Opcode::Fmin) => Opcode::Tmin,
        Op::Binary(Opcode::Smax | Opcode::Fmax) => Opcode::Tmax,
        Op::Unary(Opcode::Neg | Opcode::Fneg) => Opcode::Tneg,
        Op::Unary(Opcode::Fabs) => Opcode::Tabs,
        Op::Unary(Opcode::Fsqrt) => Opcode::Tsqrt,
        Op::Unary(Opcode::Copy) => Opcode::Dma,
        _ => return None,
    })
}

impl Lower<'_> {
    fn fb(&mut self) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(&mut self.f);
        b.switch_to_block(self.block);
        b
    }

    fn new_block(&mut self) -> Block {
        FunctionBuilder::new(&mut self.f).create_block()
    }

    fn var(&mut self, ty: Type) -> Var {
        self.temps += 1;
        let name = format!("v{}", self.temps);
        self.f.add_var(&name, ty)
    }

    fn mem(&mut self, name: &str, elem: Type, len: u64, space: MemSpace) -> R<Mem> {
        let mut n = name.to_string();
        let mut k = 0;
        while self.module.lookup(&n).is_some() {
            k += 1;
            n = format!("{name}_{k}");
        }
        self.module.add_mem(&n, elem, len.max(1), space).map_err(|e| LowerError { sym: None, message: e.to_string() })
    }

    fn temp(&mut self, elem: Type) -> R<Mem> {
        self.temps += 1;
        let name = format!("t{}", self.temps);
        self.mem(&name, elem, self.capacity, MemSpace::Nram)
    }

    /// A per-lane object for node `node`, named after it when it has a name.
    fn temp_for(&mut self, node: Sym, elem: Type) -> R<Mem> {
        match self.g.name(node) {
            Some(n) => {
                let n = n.to_string();
                self.mem(&n, elem, self.capacity, MemSpace::Nram)
            }
            None => self.temp(elem),
        }
    }

    fn all(&self, m: Mem) -> Desc {
        Desc::new(m, 0i64, self.lanes)
    }

    fn elem(&self, m: Mem) -> Type {
        self.module.mem(m).map_or(Type::I64, |o| o.elem)
    }

    fn val(&self, s: Sym) -> R<LVal> {
        self.vals
            .get(&s)
            .cloned()
            .ok_or(LowerError { sym: Some(s), message: "a value used before it is lowered".into() })
    }

    fn scalar(&self, s: Sym) -> R<Var> {
        match self.val(s)? {
            LVal::Scalar(v) => Ok(v),
            _ => err(Some(s), "a scalar was expected"),
        }
    }

    /// `i = 0; while i < lanes { body(i); i += 1 }`: returns `i` and leaves
    /// the cursor in the body; [`Lower::end_loop`] closes it.
    fn begin_loop(&mut self, count: Arg) -> (Var, Block, Block) {
        let i = self.var(Type::I64);
        self.fb().ins().copy(i, 0i64);
        let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        self.fb().ins().jump(header);
        self.block = header;
        let more = self.var(Type::I1);
        self.fb().ins().setp(IntCC::Slt, more, i, count);
        self.fb().ins().br(more, body, exit);
        self.block = body;
        (i, header, exit)
    }

    fn end_loop(&mut self, i: Var, header: Block, exit: Block) {
        self.fb().ins().binary(Opcode::Add, i, i, 1i64);
        self.fb().ins().jump(header);
        self.block = exit;
    }

    /// One scalar operation into `dst` (guarded by `mask`: 0 when false).
    fn scalar_op(&mut self, node: Sym, op: Op, dst: Var, args: &[Arg], mask: Option<Var>) -> R<()> {
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
            Op::Unary(o) => ins.unary(o, dst, args[0]),
            Op::Binary(o) => ins.binary(o, dst, args[0], args[1]),
            Op::Select => ins.select(dst, args[0], args[1], args[2]),
            Op::Setp(cc) => ins.setp(cc, dst, args[0], args[1]),
            Op::Fsetp(cc) => ins.fsetp(cc, dst, args[0], args[1]),
            Op::Convert(o) => ins.convert(o, dst, args[0]),
            _ => return err(Some(node), format!("`{}` is not a scalar operation", op.prim())),
        };
        Ok(())
    }

    /// The arguments of a lifted node: per-lane objects (`Err`) and
    /// scalars the same in every lane (`Ok`).
    fn lane_args(&self, node: Sym) -> R<Vec<Result<Arg, Mem>>> {
        let n = self.g.data(node);
        self.g
            .args(node)
            .iter()
            .enumerate()
            .map(|(i, &a)| match (self.val(a)?, n.is_bcast(i)) {
                (LVal::Lanes(m), false) => Ok(Err(m)),
                (LVal::Scalar(v), true) => Ok(Ok(Arg::Var(v))),
                _ => err(Some(node), "an argument that is neither per lane nor a scalar"),
            })
            .collect()
    }

    /// A lifted element-wise node over lanes.
    fn lanes_op(&mut self, node: Sym) -> R<LVal> {
        let g = self.g;
        let n = g.data(node);
        let ty = n.ty.val().and_then(|t| t.element()).filter(|t| t.depth == 0);
        let Some(out_ty) = ty else { return err(Some(node), "only lifted operations over scalars are lowered") };
        let args = g.args(node);
        let mask = match n.mask {
            None => None,
            Some(m) => match self.val(m)? {
                LVal::Lanes(mm) => Some(mm),
                _ => return err(Some(node), "a mask the same in every lane on a lifted node is not lowered"),
            },
        };
        let dst = self.temp_for(node, out_ty.scalar)?;
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
                        if matches!(pn.op, Op::Binary(Opcode::Mul | Opcode::Fmul))
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
                                    _ => return err(Some(x), "a bad operand"),
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
                let srcs: Vec<TensorArg> = lv
                    .iter()
                    .map(|x| match x {
                        Err(m) => TensorArg::Desc(self.all(*m)),
                        Ok(a) => TensorArg::Scalar(*a),
                    })
                    .collect();
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
        let r = self.var(out_ty.scalar);
        self.scalar_op(node, n.op, r, &ops, guard)?;
        self.fb().ins().store(dst, i, r);
        self.end_loop(i, header, exit);
        Ok(LVal::Lanes(dst))
    }

    /// A first-order node.
    fn first_order(&mut self, node: Sym) -> R<LVal> {
        let g = self.g;
        let n = g.data(node);
        let args = g.args(node);
        match (n.op, n.depth) {
            (Op::Const(imm), _) => {
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
                _ => err(Some(node), "`length` of something that is not per lane"),
            },
            (Op::Sum | Op::Max, 0) => match self.val(args[0])? {
                LVal::Lanes(m) => {
                    let v = self.var(self.elem(m));
                    let op = if n.op == Op::Sum { Opcode::Tsum } else { Opcode::Tredmax };
                    let d = self.all(m);
                    self.fb().ins().reduce(op, v, d);
                    Ok(LVal::Scalar(v))
                }
                _ => err(Some(node), "a reduction of something that is not per lane"),
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
                _ => err(Some(node), "`any` of something that is not per lane"),
            },
            (Op::Length | Op::Sum | Op::Max | Op::Any, 1) => {
                let LVal::Rows { data, offsets } = self.val(args[0])? else {
                    return err(Some(node), "a row reduction of something that is not a per-lane array parameter");
                };
                let elem = self.elem(data);
                let out_ty = if n.op == Op::Length { Type::I64 } else { n.ty.val().map_or(elem, |t| t.scalar) };
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
                    .map_err(|_| LowerError { sym: Some(node), message: "only scalars are broadcast".into() })?;
                if !self.lanes_syms.contains(&args[1]) {
                    return err(Some(node), "a broadcast to another count than the lanes");
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
                        .ok_or(LowerError { sym: Some(node), message: "a scalar operation on arrays".into() })?;
                let dst = self.var(ty.scalar);
                self.scalar_op(node, n.op, dst, &ops, mask)?;
                Ok(LVal::Scalar(dst))
            }
            (
                Op::Unary(_) | Op::Binary(_) | Op::Select | Op::Setp(_) | Op::Fsetp(_) | Op::Convert(_) | Op::Assert,
                1,
            ) => self.lanes_op(node),
            _ => err(Some(node), format!("`{}` at depth {} is not lowered", n.op.prim(), n.depth)),
        }
    }

    /// Storage for values of these lowered forms (fresh vars and objects).
    fn storage(&mut self, like: &[LVal]) -> R<Vec<LVal>> {
        like.iter()
            .map(|v| match v {
                LVal::Scalar(x) => Ok(LVal::Scalar(self.var(self.f.var_type(*x).unwrap_or(Type::I64)))),
                LVal::Lanes(m) => Ok(LVal::Lanes(self.temp(self.elem(*m))?)),
                _ => err(None, "loop or branch values must be scalars or per lane"),
            })
            .collect()
    }

    /// Copies `from` into `to` (all read before any is written).
    fn assign(&mut self, to: &[LVal], from: &[LVal]) -> R<()> {
        // Through temporaries when a source is also a destination.
        let clash =
            from.iter().enumerate().any(|(i, f)| to.iter().enumerate().any(|(j, t)| i != j && same_storage(f, t)));
        let from: Vec<LVal> = if clash {
            let tmp = self.storage(from)?;
            self.copy_all(&tmp, from)?;
            tmp
        } else {
            from.to_vec()
        };
        self.copy_all(to, &from)
    }

    fn copy_all(&mut self, to: &[LVal], from: &[LVal]) -> R<()> {
        for (t, f) in to.iter().zip(from) {
            match (t, f) {
                (LVal::Scalar(a), LVal::Scalar(b)) if a != b => {
                    self.fb().ins().copy(*a, *b);
                }
                (LVal::Lanes(a), LVal::Lanes(b)) if a != b => {
                    let (d, s) = (self.all(*a), self.all(*b));
                    self.fb().ins().tensor(Opcode::Dma, d, &[TensorArg::Desc(s)]);
                }
                (LVal::Scalar(_), LVal::Scalar(_)) | (LVal::Lanes(_), LVal::Lanes(_)) => {}
                _ => return err(None, "a value of another form"),
            }
        }
        Ok(())
    }

    fn bind(&mut self, lam: Sym, args: &[LVal]) -> R<()> {
        let params = self.g.lambda(lam).map_or_else(Vec::new, |l| l.params.clone());
        if params.len() != args.len() {
            return err(Some(lam), "a call with the wrong number of arguments");
        }
        for (p, a) in params.into_iter().zip(args) {
            self.vals.insert(p, a.clone());
        }
        Ok(())
    }

    fn results(&self, lam: Sym) -> R<Vec<LVal>> {
        let rs = self.g.lambda(lam).map_or_else(Vec::new, |l| l.results.clone());
        rs.iter().map(|&r| self.val(r)).collect()
    }

    fn run(&mut self, func: Sym) -> R<Vec<LVal>> {
        let g = self.g;
        let mut frames = vec![Frame { lam: func, pos: 0, then: Then::Top }];
        loop {
            let Some(top) = frames.last_mut() else { return err(None, "no frame") };
            let body = self.sched.body(g, top.lam);
            let Some(&node) = body.get(top.pos) else {
                let frame = frames.pop().expect("a frame");
                let results = self.results(frame.lam)?;
                match frame.then {
                    Then::Top => return Ok(results),
                    Then::Apply { node } => {
                        self.vals.insert(node, pack(results));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                    Then::BranchTaken { node, store, else_lam, args, else_block, join } => {
                        self.assign(&store, &results)?;
                        self.fb().ins().jump(join);
                        self.block = else_block;
                        self.bind(else_lam, &args)?;
                        frames.push(Frame { lam: else_lam, pos: 0, then: Then::OtherBranch { node, store, join } });
                    }
                    Then::OtherBranch { node, store, join } => {
                        self.assign(&store, &results)?;
                        self.fb().ins().jump(join);
                        self.block = join;
                        self.vals.insert(node, pack(store));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                    Then::LoopTest { node, state, body_lam, header, body, exit } => {
                        let Some(LVal::Scalar(c)) = results.first() else {
                            return err(Some(node), "a condition that is not a scalar");
                        };
                        self.fb().ins().br(*c, body, exit);
                        self.block = body;
                        self.bind(body_lam, &state)?;
                        frames.push(Frame {
                            lam: body_lam,
                            pos: 0,
                            then: Then::LoopBody { node, state, header, exit },
                        });
                    }
                    Then::LoopBody { node, state, header, exit } => {
                        self.assign(&state, &results)?;
                        self.fb().ins().jump(header);
                        self.block = exit;
                        self.vals.insert(node, pack(state));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                }
                continue;
            };
            let n = g.data(node);
            let args = g.args(node);
            match n.op {
                Op::Lambda(_) | Op::Param(_) => {}
                Op::Get(i) => {
                    let v = match self.val(args[0])? {
                        LVal::Tuple(t) => t.get(i as usize).cloned(),
                        _ => None,
                    };
                    let v = v.ok_or(LowerError { sym: Some(node), message: "`get` of a non-tuple".into() })?;
                    self.vals.insert(node, v);
                }
                Op::Apply => {
                    let vals: Vec<LVal> = args[1..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    self.bind(args[0], &vals)?;
                    frames.push(Frame { lam: args[0], pos: 0, then: Then::Apply { node } });
                    continue;
                }
                Op::If => {
                    let c = self.scalar(args[0])?;
                    let vals: Vec<LVal> = args[3..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    let like = self.result_forms(node, args[1])?;
                    let store = self.storage(&like)?;
                    let (then_b, else_b, join) = (self.new_block(), self.new_block(), self.new_block());
                    self.fb().ins().br(c, then_b, else_b);
                    self.block = then_b;
                    self.bind(args[1], &vals)?;
                    let then =
                        Then::BranchTaken { node, store, else_lam: args[2], args: vals, else_block: else_b, join };
                    frames.push(Frame { lam: args[1], pos: 0, then });
                    continue;
                }
                Op::While => {
                    let init: Vec<LVal> = args[2..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    let state = self.storage(&init)?;
                    self.copy_all(&state, &init)?;
                    let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
                    self.fb().ins().jump(header);
                    self.block = header;
                    self.bind(args[0], &state)?;
                    let then = Then::LoopTest { node, state, body_lam: args[1], header, body, exit };
                    frames.push(Frame { lam: args[0], pos: 0, then });
                    continue;
                }
                _ if self.fused.contains(&node) => {}
                _ => {
                    let v = self.first_order(node)?;
                    self.vals.insert(node, v);
                }
            }
            frames.last_mut().expect("a frame").pos += 1;
        }
    }

    /// The forms of a lambda's results, from their types.
    fn result_forms(&mut self, node: Sym, lam: Sym) -> R<Vec<LVal>> {
        let tys = self.g.result_types(lam);
        tys.iter()
            .map(|t| match t.depth {
                0 => Ok(LVal::Scalar(self.var(t.scalar))),
                1 => Ok(LVal::Lanes(self.temp(t.scalar)?)),
                _ => err(Some(node), "a branch result that is not a scalar or per lane"),
            })
            .collect()
    }
}

fn same_storage(a: &LVal, b: &LVal) -> bool {
    match (a, b) {
        (LVal::Scalar(x), LVal::Scalar(y)) => x == y,
        (LVal::Lanes(x), LVal::Lanes(y)) => x == y,
        _ => false,
    }
}

fn pack(mut v: Vec<LVal>) -> LVal {
    if v.len() == 1 { v.pop().expect("one value") } else { LVal::Tuple(v) }
}

/// Lowers function `func` of `g` (a verified graph; see the module doc).
pub fn lower(g: &Graph, func: Sym, options: LowerOptions) -> Result<Lowered, LowerError> {
    if let Err(e) = crate::verify(g) {
        return err(None, format!("the graph does not verify: {}", e[0]));
    }
    let Some(name) = g.function_name(func) else { return err(Some(func), "not a function") };
    let sched = Schedule::new(g).map_err(|s| LowerError { sym: Some(s), message: "a cycle".into() })?;
    let (lanes_param, capacity, lanes) = match options.lanes {
        Lanes::Fixed(n) => (false, n, Arg::Imm(Imm::int(Type::I64, n as i64))),
        Lanes::Dynamic { capacity } => (true, capacity, Arg::Imm(Imm::int(Type::I64, 0))),
    };
    let ptys = g.param_types(func);
    let rtys = g.result_types(func);
    let mut sig_params = Vec::new();
    let mut names: Vec<String> = Vec::new();
    if lanes_param {
        sig_params.push(Type::I64);
        names.push("lanes".into());
    }
    let params = g.lambda(func).map_or_else(Vec::new, |l| l.params.clone());
    for (i, t) in ptys.iter().enumerate() {
        if t.depth == 0 {
            sig_params.push(t.scalar);
            names.push(g.name(params[i]).map_or(format!("p{i}"), str::to_string));
        }
    }
    let returns: Vec<Type> = rtys.iter().filter(|t| t.depth == 0).map(|t| t.scalar).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut f = Function::new(name, Signature::new(sig_params, returns), &name_refs);
    let entry = FunctionBuilder::new(&mut f).create_block();
    let mut uses = vec![0u32; g.len()];
    for s in g.syms() {
        for &a in g.args(s) {
            uses[a.index()] += 1;
        }
        if let Some(m) = g.data(s).mask {
            uses[m.index()] += 1;
        }
    }
    for l in g.lambdas() {
        for &r in &l.results {
            uses[r.index()] += 1;
        }
    }
    let mut lw = Lower {
        g,
        sched,
        module: Module::new(),
        f,
        block: entry,
        vals: FxHashMap::default(),
        lanes,
        lanes_syms: Default::default(),
        capacity,
        temps: 0,
        uses,
        fused: Default::default(),
    };
    if lanes_param {
        lw.lanes = Arg::Var(lw.f.params()[0]);
    }
    // Products that a sum reads first (and nothing else reads) become tfma.
    for s in g.syms() {
        let n = g.data(s);
        if matches!(n.op, Op::Binary(Opcode::Add | Opcode::Fadd)) && n.depth == 1 && n.mask.is_none() {
            let float = n.ty.val().is_some_and(|t| t.scalar.is_float());
            for (i, &a) in g.args(s).iter().enumerate() {
                if n.is_bcast(i) || (float && i == 1) {
                    continue;
                }
                let an = g.data(a);
                if matches!(an.op, Op::Binary(Opcode::Mul | Opcode::Fmul))
                    && an.depth == 1
                    && an.mask.is_none()
                    && lw.uses[a.index()] == 1
                {
                    lw.fused.insert(a);
                }
            }
        }
    }
    let mut lparams = Vec::new();
    let mut next_scalar = usize::from(lanes_param);
    for (i, (&p, t)) in params.iter().zip(&ptys).enumerate() {
        let pname = g.name(p).map_or(format!("p{i}"), str::to_string);
        let v = match t.depth {
            0 => {
                let v = lw.f.params()[next_scalar];
                lparams.push(LoweredParam::Scalar(next_scalar));
                next_scalar += 1;
                LVal::Scalar(v)
            }
            1 => {
                let m = lw.mem(&pname, t.scalar, capacity, MemSpace::Dram)?;
                lparams.push(LoweredParam::Lanes(m));
                LVal::Lanes(m)
            }
            2 => {
                let data = lw.mem(&format!("{pname}_data"), t.scalar, options.elements, MemSpace::Dram)?;
                let offsets = lw.mem(&format!("{pname}_offsets"), Type::I64, capacity + 1, MemSpace::Dram)?;
                lparams.push(LoweredParam::Rows { data, offsets });
                LVal::Rows { data, offsets }
            }
            _ => return err(Some(p), "parameters deeper than two arrays are not lowered"),
        };
        lw.vals.insert(p, v);
    }
    let results = lw.run(func)?;
    let mut lresults = Vec::new();
    let mut rets = Vec::new();
    let mut taken: Vec<Mem> = lparams
        .iter()
        .flat_map(|p| match p {
            LoweredParam::Lanes(m) => vec![*m],
            LoweredParam::Rows { data, offsets } => vec![*data, *offsets],
            LoweredParam::Scalar(_) => vec![],
        })
        .collect();
    for (r, v) in results.iter().enumerate() {
        match v {
            LVal::Scalar(x) => {
                lresults.push(LoweredResult::Scalar(rets.len()));
                rets.push(Arg::Var(*x));
            }
            LVal::Lanes(m) => {
                let out = if taken.contains(m) {
                    let o = lw.mem(&format!("{name}_out{r}"), lw.elem(*m), capacity, MemSpace::Dram)?;
                    let (d, s) = (lw.all(o), lw.all(*m));
                    lw.fb().ins().tensor(Opcode::Dma, d, &[TensorArg::Desc(s)]);
                    o
                } else {
                    *m
                };
                taken.push(out);
                lresults.push(LoweredResult::Lanes(out));
            }
            _ => return err(None, "a result that is not a scalar or per lane"),
        }
    }
    lw.fb().ins().ret(&rets);
    let Lower { mut module, f, .. } = lw;
    let fid = module.push_function(f).map_err(|e| LowerError { sym: None, message: e.to_string() })?;
    let lowered = Lowered { module, func: fid, params: lparams, results: lresults, options };
    if let Err(e) = ir_core::verify_module(&lowered.module, &ir_core::VerifyOptions::default()) {
        return err(None, format!("the lowered function does not verify: {}", e.0[0].message));
    }
    Ok(lowered)
}

impl Lowered {
    /// Runs the lowered function on the graph function's arguments (per-lane
    /// arrays written into their objects) with `ir-core`'s interpreter, and
    /// reads the results back as values.
    pub fn run(&self, args: &[Value], config: Config) -> Result<Vec<Value>, Trap> {
        let bad = |m: String| Trap { kind: TrapKind::BadArguments, func: None, inst: None, message: m };
        let mut interp = Interpreter::new(&self.module, config)?;
        let mut scalars = Vec::new();
        let mut lanes: Option<usize> = None;
        let mut set_lanes = |n: usize| -> Result<(), Trap> {
            match lanes {
                Some(m) if m != n => Err(bad(format!("per-lane arguments of {m} and {n} lanes"))),
                _ => {
                    lanes = Some(n);
                    Ok(())
                }
            }
        };
        if args.len() != self.params.len() {
            return Err(bad(format!("{} arguments for {} parameters", args.len(), self.params.len())));
        }
        for (p, a) in self.params.iter().zip(args) {
            match (p, a) {
                (LoweredParam::Scalar(_), Value::Scalar(x)) => scalars.push(*x),
                (LoweredParam::Lanes(m), Value::Array(arr)) if arr.depth() == 1 => {
                    set_lanes(arr.len())?;
                    interp.memory_mut().write(*m, &arr.scalars().collect::<Vec<_>>()).map_err(bad)?;
                }
                (LoweredParam::Rows { data, offsets }, Value::Array(arr)) if arr.depth() == 2 => {
                    set_lanes(arr.len())?;
                    interp.memory_mut().write(*data, &arr.scalars().collect::<Vec<_>>()).map_err(bad)?;
                    let offs: Vec<Imm> = arr.offsets(0).iter().map(|&o| Imm::int(Type::I64, i64::from(o))).collect();
                    interp.memory_mut().write(*offsets, &offs).map_err(bad)?;
                }
                _ => return Err(bad("an argument of another form than its parameter".into())),
            }
        }
        let n = match self.options.lanes {
            Lanes::Fixed(n) => {
                if lanes.is_some_and(|l| l as u64 != n) {
                    return Err(bad(format!("the function was lowered for {n} lanes")));
                }
                n as usize
            }
            Lanes::Dynamic { capacity } => {
                let l = lanes.unwrap_or(0);
                if l as u64 > capacity {
                    return Err(bad(format!("{l} lanes exceed the capacity {capacity}")));
                }
                scalars.insert(0, Imm::int(Type::I64, l as i64));
                l
            }
        };
        let rets = interp.call(self.func, &scalars)?;
        let memory = interp.memory();
        self.results
            .iter()
            .map(|r| match r {
                LoweredResult::Scalar(i) => {
                    rets.get(*i).copied().map(Value::Scalar).ok_or_else(|| bad("a missing result".into()))
                }
                LoweredResult::Lanes(m) => {
                    let elems = memory.elements(*m);
                    let elem = memory.elem_type(*m).unwrap_or(Type::I64);
                    Ok(Value::from(Array::from_imms(elem, &elems[..n.min(elems.len())]).map_err(bad)?))
                }
            })
            .collect()
    }
}
