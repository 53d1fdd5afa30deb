//! The generator's node kinds: one method per kind of node (scalar
//! operations, compares, selects, conversions, array operations, `index`,
//! `concat`/`partition`, `map`, `apply`, `if`, `while`, lifted and masked
//! user operations), each drawing its operands from the body's pool of
//! typed values or building them.

use super::config::{Features, GenConfig};
use super::source::{Source, below, chance};
use super::values::{SCALARS, random_scalar};
use crate::builder::Builder;
use crate::graph::{Arg, Graph, Sym};
use crate::ops::Op;
use crate::scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, ScalarTy, TypeClass, UnaryOp};
use crate::types::ValTy;

pub(crate) struct Gen<'s> {
    pub(crate) g: Graph,
    pub(crate) s: &'s mut dyn Source,
    pub(crate) cfg: GenConfig,
    pub(crate) features: Features,
}

/// A body being generated: its lambda and the values it can use.
pub(crate) struct Body {
    pub(crate) scope: Sym,
    pub(crate) pool: Vec<(Sym, ValTy)>,
    pub(crate) depth: u32,
    /// Values computed by `map`, `apply`, `if` and `while`: results prefer
    /// them, so that the control flow matters to what a graph returns.
    pub(crate) structured: Vec<Sym>,
}

/// The operations of the class of `t` (integer or float), in table order.
fn class_ops<O: Copy>(all: &[O], class: impl Fn(O) -> TypeClass, t: ScalarTy) -> Vec<O> {
    let want = if t.is_float() { TypeClass::Float } else { TypeClass::Int };
    all.iter().copied().filter(|&o| class(o) == want).collect()
}

impl Gen<'_> {
    fn b(&mut self, scope: Sym) -> Builder<'_> {
        Builder::new(&mut self.g, scope)
    }

    fn pick_scalar(&mut self) -> ScalarTy {
        SCALARS[below(self.s, SCALARS.len())]
    }

    pub(crate) fn pick_ty(&mut self) -> ValTy {
        let scalar = self.pick_scalar();
        if !self.cfg.arrays {
            return ValTy::scalar(scalar);
        }
        let depth = match below(self.s, 10) {
            0..=5 => 0,
            6..=8 => 1,
            _ => 2,
        };
        ValTy::array(scalar, depth)
    }

    /// A parameter's type: [`Gen::pick_ty`], or in `rows` mode sometimes
    /// `array<S>`.
    pub(crate) fn pick_param_ty(&mut self) -> ValTy {
        let t = self.pick_ty();
        if !self.cfg.arrays && self.cfg.rows && chance(self.s, 40) { ValTy::array(t.scalar, 1) } else { t }
    }

    /// True when a value of type `t` may be passed to a lambda, selected or
    /// returned: always, except the rows of `rows` mode (used whole by row
    /// reductions only). (`select` and lambda arguments inline the same
    /// test, to borrow only the flag.)
    pub(crate) fn passable(&self, t: ValTy) -> bool {
        self.cfg.arrays || t.depth == 0
    }

    /// `rows` mode: a reduction of an array parameter.
    fn row_reduction(&mut self, body: &mut Body) {
        let Some(xs) = self.find(body, |t| t.depth == 1) else { return self.binary(body) };
        let t = self.g.val_ty(xs).expect("a value").scalar;
        let op = match below(self.s, 4) {
            0 => Op::Length,
            1 if t == ScalarTy::I1 => Op::Any,
            1 => Op::Max,
            _ => Op::Sum,
        };
        let r = self.b(body.scope).node(op, 0, &[Arg::mapped(xs)], None).expect("reduction");
        self.add(body, r);
    }

    fn add(&mut self, body: &mut Body, s: Sym) -> Sym {
        if let Some(t) = self.g.val_ty(s) {
            if t.depth >= 2 {
                self.features.nested += 1;
            }
            body.pool.push((s, t));
        }
        s
    }

    /// A pool value satisfying `want`, preferring recent ones.
    fn find(&mut self, body: &Body, want: impl Fn(ValTy) -> bool) -> Option<Sym> {
        let cands: Vec<Sym> = body.pool.iter().filter(|(_, t)| want(*t)).map(|&(s, _)| s).collect();
        if cands.is_empty() {
            return None;
        }
        // Bias toward the most recent half.
        let i = below(self.s, cands.len());
        let j = cands.len() - 1 - below(self.s, cands.len().div_ceil(2));
        Some(cands[if chance(self.s, 50) { j } else { i }])
    }

    fn constant(&mut self, body: &mut Body, t: ScalarTy) -> Sym {
        let v = random_scalar(t, self.s);
        let c = self.b(body.scope).constant(v);
        self.add(body, c)
    }

    /// A value of type `ty`: from the pool, or built.
    fn value_of(&mut self, body: &mut Body, ty: ValTy) -> Sym {
        if chance(self.s, 80)
            && let Some(s) = self.find(body, |t| t == ty)
        {
            return s;
        }
        self.synth(body, ty)
    }

    fn synth(&mut self, body: &mut Body, ty: ValTy) -> Sym {
        if ty.depth == 0 {
            return self.constant(body, ty.scalar);
        }
        let item = ty.element().expect("an array");
        let x = self.value_of(body, item);
        let n = self.small_count(body);
        let r = self.b(body.scope).broadcast(x, n).expect("broadcast types");
        self.add(body, r)
    }

    /// An `i64` in `0..=3`, from the pool when possible (so often batched).
    fn small_count(&mut self, body: &mut Body) -> Sym {
        let v = self.value_of(body, ValTy::scalar(ScalarTy::I64));
        let three = self.b(body.scope).constant(Imm::int(ScalarTy::I64, 3));
        let r = self.b(body.scope).binary(BinaryOp::And, v, three).expect("and");
        self.add(body, r)
    }

    fn scalar_value(&mut self, body: &mut Body) -> Sym {
        match self.find(body, |t| t.depth == 0) {
            Some(s) if chance(self.s, 85) => s,
            _ => {
                let t = self.pick_scalar();
                self.constant(body, t)
            }
        }
    }

    /// A divisor that is never zero or -1 (unless trapping is allowed and
    /// the dice say so).
    fn divisor(&mut self, body: &mut Body, b: Sym, t: ScalarTy, depth: u32) -> Sym {
        if self.cfg.trapping && chance(self.s, 10) {
            return b;
        }
        let (m, one) = (Imm::int(t, 63), Imm::int(t, 1));
        let (mc, oc) = (self.b(body.scope).constant(m), self.b(body.scope).constant(one));
        let flags = |x: Sym, c: Sym| [Arg::mapped(x), if depth > 0 { Arg::same(c) } else { Arg::mapped(c) }];
        let masked = self.b(body.scope).node(Op::Binary(BinaryOp::And), depth, &flags(b, mc), None).expect("and");
        self.b(body.scope).node(Op::Binary(BinaryOp::Or), depth, &flags(masked, oc), None).expect("or")
    }

    pub(crate) fn step(&mut self, body: &mut Body, budget: usize) {
        let nested = body.depth < self.cfg.depth;
        let kinds = 20;
        match below(self.s, kinds) {
            0 => {
                let t = self.pick_scalar();
                self.constant(body, t);
            }
            1 | 2 => self.unary(body),
            3..=5 => self.binary(body),
            6 => self.compare(body),
            7 => self.select(body),
            8 => self.convert(body),
            9 if self.cfg.arrays => self.array_op(body),
            9 if self.cfg.rows && body.depth == 0 => self.row_reduction(body),
            10 if self.cfg.arrays => self.index(body),
            11 if self.cfg.arrays => self.nest(body),
            12 | 13 if nested && self.cfg.arrays => self.map(body, budget),
            14 if nested => self.apply(body, budget),
            15 | 16 if nested => self.branch(body, budget),
            17 if nested && self.cfg.loops => self.repeat(body, budget),
            18 | 19 if self.cfg.lifted && self.cfg.arrays => self.lifted(body),
            _ => self.binary(body),
        }
    }

    fn unary(&mut self, body: &mut Body) {
        let a = self.scalar_value(body);
        let t = self.g.val_ty(a).expect("a value").scalar;
        let mut ops = class_ops(UnaryOp::ALL, UnaryOp::class, t);
        ops.push(UnaryOp::Copy);
        let op = ops[below(self.s, ops.len())];
        let r = self.b(body.scope).unary(op, a).expect("unary");
        self.add(body, r);
    }

    fn binary(&mut self, body: &mut Body) {
        let a = self.scalar_value(body);
        let t = self.g.val_ty(a).expect("a value").scalar;
        let b = self.value_of(body, ValTy::scalar(t));
        let ops = class_ops(BinaryOp::ALL, BinaryOp::class, t);
        let op = ops[below(self.s, ops.len())];
        let b = if op.traps() { self.divisor(body, b, t, 0) } else { b };
        let r = self.b(body.scope).binary(op, a, b).expect("binary");
        self.add(body, r);
    }

    fn compare(&mut self, body: &mut Body) {
        let a = self.scalar_value(body);
        let t = self.g.val_ty(a).expect("a value").scalar;
        let b = self.value_of(body, ValTy::scalar(t));
        let r = if t.is_float() {
            let cc = FloatCC::ALL[below(self.s, FloatCC::ALL.len())];
            self.b(body.scope).fsetp(cc, a, b)
        } else {
            let cc = IntCC::ALL[below(self.s, IntCC::ALL.len())];
            self.b(body.scope).setp(cc, a, b)
        };
        let r = r.expect("compare");
        self.add(body, r);
    }

    fn condition(&mut self, body: &mut Body) -> Sym {
        match self.find(body, |t| t == ValTy::scalar(ScalarTy::I1)) {
            Some(c) if chance(self.s, 70) => c,
            _ => {
                self.compare(body);
                body.pool.last().expect("a compare").0
            }
        }
    }

    fn select(&mut self, body: &mut Body) {
        let c = self.condition(body);
        let all = self.cfg.arrays;
        let ty = match self.find(body, |t| all || t.depth == 0) {
            Some(s) => self.g.val_ty(s).expect("a value"),
            None => self.pick_ty(),
        };
        let a = self.value_of(body, ty);
        let b = self.value_of(body, ty);
        let r = self.b(body.scope).select(c, a, b).expect("select");
        self.add(body, r);
    }

    fn convert(&mut self, body: &mut Body) {
        let a = self.scalar_value(body);
        let src = self.g.val_ty(a).expect("a value").scalar;
        let ops: Vec<(ConvertOp, ScalarTy)> = ConvertOp::ALL
            .iter()
            .flat_map(|&o| SCALARS.iter().map(move |&d| (o, d)))
            .filter(|&(o, d)| o.converts(src, d))
            .filter(|&(o, _)| self.cfg.trapping || !o.traps())
            .collect();
        if ops.is_empty() {
            return;
        }
        let (o, d) = ops[below(self.s, ops.len())];
        let r = self.b(body.scope).convert(o, a, d).expect("convert");
        self.add(body, r);
    }

    fn array_op(&mut self, body: &mut Body) {
        match below(self.s, 5) {
            0 => {
                if let Some(xs) = self.find(body, |t| t.depth > 0) {
                    let r = self.b(body.scope).length(xs).expect("length");
                    self.add(body, r);
                }
            }
            1 | 2 => {
                let t = self.pick_scalar();
                let xs = self.value_of(body, ValTy::array(t, 1));
                let op = match (below(self.s, 3), t) {
                    (_, ScalarTy::I1) if chance(self.s, 50) => Op::Any,
                    (0, _) => Op::Max,
                    _ => Op::Sum,
                };
                let r = self.b(body.scope).node(op, 0, &[Arg::mapped(xs)], None).expect("reduction");
                self.add(body, r);
            }
            3 => {
                let ty = self.pick_ty();
                if ty.depth < 2 {
                    let x = self.value_of(body, ty);
                    let n = self.small_count(body);
                    let r = self.b(body.scope).broadcast(x, n).expect("broadcast");
                    self.add(body, r);
                }
            }
            _ => {
                if let Some(xss) = self.find(body, |t| t.depth == 2) {
                    let r = self.b(body.scope).concat(xss).expect("concat");
                    self.add(body, r);
                }
            }
        }
    }

    /// `index xs, i` with `i` taken modulo `max(length xs, 1)`.
    fn index(&mut self, body: &mut Body) {
        let Some(xs) = self.find(body, |t| t.depth > 0) else { return };
        let v = self.value_of(body, ValTy::scalar(ScalarTy::I64));
        let mut b = self.b(body.scope);
        let n = b.length(xs).expect("length");
        let zero = b.constant(Imm::int(ScalarTy::I64, 0));
        let one = b.constant(Imm::int(ScalarTy::I64, 1));
        let pos = b.setp(IntCC::Sgt, n, zero).expect("setp");
        let safe = b.select(pos, n, one).expect("select");
        let i = b.binary(BinaryOp::Urem, v, safe).expect("urem");
        let r = b.index(xs, i).expect("index");
        self.features.indexes += 1;
        self.add(body, r);
    }

    /// `concat` and `partition` of a nested array, by its own lengths.
    fn nest(&mut self, body: &mut Body) {
        let Some(xss) = self.find(body, |t| t.depth == 2) else {
            self.array_op(body);
            return;
        };
        let mut b = self.b(body.scope);
        let lens = b.node(Op::Length, 1, &[Arg::mapped(xss)], None).expect("length.1");
        let flat = b.concat(xss).expect("concat");
        let r = b.partition(flat, lens).expect("partition");
        self.features.lifted += 1;
        self.add(body, r);
    }

    /// A lambda with params of `params`' types, whose body returns values
    /// of `results`.
    fn lambda(&mut self, body: &Body, params: &[ValTy], results: &[ValTy], budget: usize) -> Sym {
        let (l, ps) = self.b(body.scope).lambda(params);
        let mut inner = Body {
            scope: l,
            pool: ps.iter().copied().zip(params.iter().copied()).collect(),
            depth: body.depth + 1,
            structured: Vec::new(),
        };
        for _ in 0..budget {
            self.step(&mut inner, budget / 2);
        }
        let rs: Vec<Sym> = results
            .iter()
            .map(|&t| {
                // Prefer the most recent value of the type.
                match inner.pool.iter().rev().find(|(_, u)| *u == t) {
                    Some(&(s, _)) if chance(self.s, 80) => s,
                    _ => self.synth(&mut inner, t),
                }
            })
            .collect();
        self.g.set_results(l, &rs);
        l
    }

    fn args(&mut self, body: &mut Body, n: usize) -> Vec<Sym> {
        let all = self.cfg.arrays;
        (0..n)
            .map(|_| match self.find(body, |t| all || t.depth == 0) {
                Some(s) => s,
                None => {
                    let t = self.pick_ty();
                    self.synth(body, t)
                }
            })
            .collect()
    }

    fn map(&mut self, body: &mut Body, budget: usize) {
        let xs = match self.find(body, |t| t.depth > 0) {
            Some(x) => x,
            None => {
                let t = self.pick_scalar();
                self.synth(body, ValTy::array(t, 1))
            }
        };
        let xt = self.g.val_ty(xs).expect("a value");
        let mut args = vec![Arg::mapped(xs)];
        let mut params = vec![xt.element().expect("an array")];
        if chance(self.s, 40) {
            // A second mapped array of the same length.
            let other = if chance(self.s, 50) {
                xs
            } else {
                let s = self.scalar_value(body);
                let n = self.b(body.scope).length(xs).expect("length");
                self.b(body.scope).broadcast(s, n).expect("broadcast")
            };
            params.push(self.g.val_ty(other).expect("a value").element().expect("an array"));
            args.push(Arg::mapped(other));
        }
        if chance(self.s, 50) {
            let w = self.args(body, 1)[0];
            params.push(self.g.val_ty(w).expect("a value"));
            args.push(Arg::same(w));
        }
        let rt = self.pick_ty();
        let rt = if rt.depth > 1 { ValTy::scalar(rt.scalar) } else { rt };
        let l = self.lambda(body, &params, &[rt], budget);
        let r = self.b(body.scope).map(l, &args).expect("map");
        self.features.maps += 1;
        self.add(body, r);
        body.structured.push(r);
    }

    fn tuple(&mut self, body: &mut Body, r: Sym, n: usize) {
        if n == 1 {
            self.add(body, r);
            body.structured.push(r);
            return;
        }
        for j in 0..n as u32 {
            let x = self.b(body.scope).get(r, j).expect("get");
            self.add(body, x);
            body.structured.push(x);
        }
    }

    fn result_types(&mut self, args: &[Sym]) -> Vec<ValTy> {
        let n = 1 + below(self.s, 2);
        (0..n)
            .map(|_| {
                if !args.is_empty() && chance(self.s, 60) {
                    self.g.val_ty(args[below(self.s, args.len())]).expect("a value")
                } else {
                    self.pick_ty()
                }
            })
            .collect()
    }

    fn apply(&mut self, body: &mut Body, budget: usize) {
        let n = 1 + below(self.s, 3);
        let args = self.args(body, n);
        let params: Vec<ValTy> = args.iter().map(|&a| self.g.val_ty(a).expect("a value")).collect();
        let rts = self.result_types(&args);
        let l = self.lambda(body, &params, &rts, budget);
        let r = self.b(body.scope).apply(l, &args).expect("apply");
        self.features.applies += 1;
        self.tuple(body, r, rts.len());
    }

    fn branch(&mut self, body: &mut Body, budget: usize) {
        let c = self.condition(body);
        let n = 1 + below(self.s, 3);
        let args = self.args(body, n);
        let params: Vec<ValTy> = args.iter().map(|&a| self.g.val_ty(a).expect("a value")).collect();
        let rts = self.result_types(&args);
        let lt = self.lambda(body, &params, &rts, budget);
        let le = self.lambda(body, &params, &rts, budget);
        let r = self.b(body.scope).if_(c, lt, le, &args).expect("if");
        self.features.ifs += 1;
        self.tuple(body, r, rts.len());
    }

    /// Some scalar of the pool as an `i64` (so a loop bound often depends
    /// on a batched parameter).
    fn as_i64(&mut self, body: &mut Body) -> Sym {
        let a = self.scalar_value(body);
        let t = self.g.val_ty(a).expect("a value").scalar;
        let mut b = self.b(body.scope);
        let r = match t {
            ScalarTy::I64 => Ok(a),
            ScalarTy::F32 | ScalarTy::F64 => b.convert(ConvertOp::FptosiSat, a, ScalarTy::I64),
            _ => b.convert(ConvertOp::Sext, a, ScalarTy::I64),
        };
        r.expect("a conversion to i64")
    }

    /// `while i < n`: `n = and(v, 7)`, `i` counts up from 0 or from a
    /// value in 0..=3; the body updates one or two other values.
    fn repeat(&mut self, body: &mut Body, budget: usize) {
        let v = self.as_i64(body);
        let seven = self.b(body.scope).constant(Imm::int(ScalarTy::I64, 7));
        let bound = self.b(body.scope).binary(BinaryOp::And, v, seven).expect("and");
        let start = if chance(self.s, 50) {
            self.b(body.scope).constant(Imm::int(ScalarTy::I64, 0))
        } else {
            self.small_count(body)
        };
        let extra = 1 + below(self.s, 2);
        let mut init = vec![start, bound];
        init.extend(self.args(body, extra));
        let tys: Vec<ValTy> = init.iter().map(|&a| self.g.val_ty(a).expect("a value")).collect();
        // Condition: i < n.
        let (lc, pc) = self.b(body.scope).lambda(&tys);
        let c = self.b(lc).setp(IntCC::Slt, pc[0], pc[1]).expect("setp");
        self.g.set_results(lc, &[c]);
        // Body: i + 1, n unchanged, the rest from a generated body.
        let (lb, pb) = self.b(body.scope).lambda(&tys);
        let mut inner = Body {
            scope: lb,
            pool: pb.iter().copied().zip(tys.iter().copied()).collect(),
            depth: body.depth + 1,
            structured: Vec::new(),
        };
        for _ in 0..budget {
            self.step(&mut inner, budget / 2);
        }
        let one = self.b(lb).constant(Imm::int(ScalarTy::I64, 1));
        let next = self.b(lb).binary(BinaryOp::Add, pb[0], one).expect("add");
        let mut rs = vec![next, pb[1]];
        for &t in &tys[2..] {
            let s = match inner.pool.iter().rev().find(|(_, u)| *u == t) {
                Some(&(s, _)) if chance(self.s, 80) => s,
                _ => self.synth(&mut inner, t),
            };
            rs.push(s);
        }
        self.g.set_results(lb, &rs);
        let w = self.b(body.scope).while_(lc, lb, &init).expect("while");
        self.features.whiles += 1;
        self.tuple(body, w, tys.len());
    }

    /// User-written lifted operations: element-wise over an array with a
    /// `*` scalar, lifted reductions, a gather, masked division.
    fn lifted(&mut self, body: &mut Body) {
        let Some(xs) = self.find(body, |t| t.depth == 1) else {
            self.binary(body);
            return;
        };
        let xt = self.g.val_ty(xs).expect("a value");
        let t = xt.scalar;
        self.features.lifted += 1;
        let r = match below(self.s, 4) {
            0 if t != ScalarTy::I1 => {
                // xs op *s, or xs op xs.
                let s = self.value_of(body, ValTy::scalar(t));
                // No division here: the lane holding zero would trap.
                let ops: Vec<BinaryOp> =
                    class_ops(BinaryOp::ALL, BinaryOp::class, t).into_iter().filter(|&o| !o.traps()).collect();
                let op = ops[below(self.s, ops.len())];
                let other = if chance(self.s, 50) { Arg::same(s) } else { Arg::mapped(xs) };
                self.b(body.scope).node(Op::Binary(op), 1, &[Arg::mapped(xs), other], None).expect("binary.1")
            }
            1 => {
                let v = random_scalar(t, self.s);
                let c = self.b(body.scope).constant(v);
                let cmp = if t.is_float() { Op::Fsetp(FloatCC::Lt) } else { Op::Setp(IntCC::Slt) };
                let cs = self.b(body.scope).node(cmp, 1, &[Arg::mapped(xs), Arg::same(c)], None).expect("compare.1");
                let other = self.value_of(body, ValTy::scalar(t));
                self.b(body.scope)
                    .node(Op::Select, 1, &[Arg::mapped(cs), Arg::mapped(xs), Arg::same(other)], None)
                    .expect("select.1")
            }
            2 if t.is_int() && t != ScalarTy::I1 => {
                // @m q = sdiv.1 xs, *d  with m = xs != 0.
                let zero = self.b(body.scope).constant(Imm::int(t, 0));
                let m = self
                    .b(body.scope)
                    .node(Op::Setp(IntCC::Ne), 1, &[Arg::mapped(xs), Arg::same(zero)], None)
                    .expect("setp.1");
                let d = self.value_of(body, ValTy::scalar(t));
                let d = self.divisor(body, d, t, 0);
                self.features.masked += 1;
                self.b(body.scope)
                    .node(Op::Binary(BinaryOp::Srem), 1, &[Arg::mapped(xs), Arg::same(d)], Some(m))
                    .expect("srem.1")
            }
            _ => {
                // A gather: index.1 *ys, is  with is in range of ys.
                let ys = self.find(body, |t| t.depth >= 1).unwrap_or(xs);
                let ints = self.value_of(body, ValTy::array(ScalarTy::I64, 1));
                self.features.indexes += 1;
                let mut b = self.b(body.scope);
                let n = b.length(ys).expect("length");
                let zero = b.constant(Imm::int(ScalarTy::I64, 0));
                let one = b.constant(Imm::int(ScalarTy::I64, 1));
                let pos = b.setp(IntCC::Sgt, n, zero).expect("setp");
                let safe = b.select(pos, n, one).expect("select");
                let is =
                    b.node(Op::Binary(BinaryOp::Urem), 1, &[Arg::mapped(ints), Arg::same(safe)], None).expect("urem.1");
                b.node(Op::Index, 1, &[Arg::same(ys), Arg::mapped(is)], None).expect("index.1")
            }
        };
        self.add(body, r);
    }
}
