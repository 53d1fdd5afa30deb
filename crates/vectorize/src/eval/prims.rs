//! What each first-order primitive computes: at depth 0 on values
//! ([`base`]), and lifted to depth `k` over the lanes of its mapped
//! arguments ([`lifted`]).
//!
//! The scalar operations are the scalar layer's (`scalar/semantics.rs`,
//! Keel IR's semantics bit for bit), so a graph and the Keel program it
//! came from or lowers to compute the same bits. `sum` and `max` fold left
//! from the first element, exactly as Keel's `tsum` and `tredmax` do; a
//! lifted fold runs the same fold per lane, so vectorizing never reorders
//! a reduction.
//!
//! Lifting (the definition the vectorizer must meet): at depth `k` every
//! mapped argument must have the same outer `k` levels (else a
//! `ShapeMismatch` trap); lane `l` of the result is the base operation on
//! lane `l` of each mapped argument and the whole of each argument that is
//! the same in every lane. With a mask of depth `j <= k`, a level-`j` lane
//! whose mask is false is not computed (it cannot trap) and holds the zero
//! of its type: scalar zero or an empty array. A scalar mask is the
//! level-0 case: false gives the zero of the whole result.
//!
//! Invariants: no panics on any input (the verifier's typing is re-checked
//! where a wrong type could index out of range: every mismatch is a
//! `Malformed` trap); no allocation larger than the element budget; fast
//! paths (flat loops over `data`) and the generic per-lane path compute
//! the same thing, and the tests compare them.

use super::error::{EvalErrorKind, Malformed};
use crate::ops::Op;
use crate::scalar::semantics as scalar;
use crate::scalar::{Imm, ScalarTy};
use crate::types::ValTy;
use crate::value::{Array, ArrayBuilder, Container, Value};
use std::rc::Rc;

/// A trap before the evaluator adds the node and the primitive.
type R<T> = Result<T, EvalErrorKind>;

fn malformed<T>(what: Malformed) -> R<T> {
    Err(EvalErrorKind::Malformed(what))
}

/// Limits and counters shared by one evaluation.
#[derive(Debug)]
pub(crate) struct Budget {
    /// Most scalars plus offsets any one array may hold.
    pub max_elements: u64,
    /// Work left: one unit per node, call and lane processed.
    pub fuel: u64,
}

impl Budget {
    pub(crate) fn burn(&mut self, n: u64) -> R<()> {
        if self.fuel < n {
            self.fuel = 0;
            return Err(EvalErrorKind::OutOfFuel);
        }
        self.fuel -= n;
        Ok(())
    }

    fn room(&self, n: u64) -> R<()> {
        if n > self.max_elements {
            return Err(EvalErrorKind::TooLarge { elements: n, limit: self.max_elements });
        }
        Ok(())
    }
}

fn imm(v: &Value) -> R<Imm> {
    v.scalar().map_or_else(|| malformed(Malformed::ScalarExpected), Ok)
}

fn arr(v: &Value) -> R<&Array> {
    v.array().map_or_else(|| malformed(Malformed::ArrayExpected), Ok)
}

fn truth(v: Imm) -> bool {
    v.bits() != 0
}

/// Number of scalars and offsets in a value (its footprint).
fn footprint(v: &Value) -> u64 {
    match v {
        Value::Scalar(_) => 1,
        Value::Array(a) => {
            a.data().len() as u64 + (0..a.depth() as usize - 1).map(|l| a.offsets(l).len() as u64).sum::<u64>()
        }
        Value::Tuple(t) => t.iter().map(footprint).sum(),
    }
}

/// A scalar operation on scalars (unary, binary, compares, conversions,
/// `select` of scalars, `assert`).
fn scalar_op(op: Op, a: &[Imm], target: ScalarTy) -> R<Imm> {
    let get = |i: usize| a.get(i).copied().map_or_else(|| malformed(Malformed::MissingOperand), Ok);
    let r = match op {
        Op::Unary(o) => scalar::unary(o, get(0)?),
        Op::Binary(o) => scalar::binary(o, get(0)?, get(1)?),
        Op::Setp(cc) => scalar::int_compare(cc, get(0)?, get(1)?),
        Op::Fsetp(cc) => scalar::float_compare(cc, get(0)?, get(1)?),
        Op::Convert(o) => scalar::convert(o, get(0)?, target),
        Op::Select => Ok(if truth(get(0)?) { get(1)? } else { get(2)? }),
        Op::Assert => {
            let c = get(0)?;
            return if truth(c) { Ok(c) } else { Err(EvalErrorKind::AssertionFailed) };
        }
        _ => return malformed(Malformed::NotScalarOp(op.prim())),
    };
    r.map_err(EvalErrorKind::Scalar)
}

fn is_scalar_op(op: Op) -> bool {
    matches!(op, Op::Unary(_) | Op::Binary(_) | Op::Setp(_) | Op::Fsetp(_) | Op::Convert(_) | Op::Select | Op::Assert)
}

fn fold(a: &[u64], elem: ScalarTy, op: Op) -> R<Imm> {
    let mut it = a.iter().map(|&b| Imm::from_bits(elem, b));
    match op {
        Op::Any => Ok(Imm::bool(a.iter().any(|&b| b != 0))),
        Op::Sum | Op::Max => {
            let Some(first) = it.next() else {
                return Ok(if op == Op::Sum { scalar::zero(elem) } else { scalar::lowest(elem) });
            };
            let step = if op == Op::Sum { scalar::sum_step } else { scalar::max_step };
            it.try_fold(first, step).map_err(EvalErrorKind::Scalar)
        }
        _ => malformed(Malformed::NotReduction(op.prim())),
    }
}

/// The primitive at depth 0 on whole values.
pub(crate) fn base(op: Op, args: &[&Value], result: ValTy, budget: &mut Budget) -> R<Value> {
    if is_scalar_op(op) && (op != Op::Select || result.depth == 0) {
        let a: Vec<Imm> = args.iter().map(|v| imm(v)).collect::<R<_>>()?;
        return scalar_op(op, &a, result.scalar).map(Value::Scalar);
    }
    let arg = |i: usize| args.get(i).copied().map_or_else(|| malformed(Malformed::MissingArgument), Ok);
    match op {
        Op::Select => Ok(if truth(imm(arg(0)?)?) { arg(1)?.clone() } else { arg(2)?.clone() }),
        Op::Length => Ok(Value::i64(arr(arg(0)?)?.len() as i64)),
        Op::Sum | Op::Max | Op::Any => {
            let a = arr(arg(0)?)?;
            if a.depth() != 1 {
                return malformed(Malformed::NestedReduction);
            }
            budget.burn(a.len() as u64)?;
            fold(a.data(), a.elem(), op).map(Value::Scalar)
        }
        Op::Index => {
            let a = arr(arg(0)?)?;
            let i = scalar::signed(imm(arg(1)?)?);
            if i < 0 || i as u64 >= a.len() as u64 {
                return Err(EvalErrorKind::IndexOutOfBounds { index: i, len: a.len() });
            }
            Ok(a.item(1, i as usize))
        }
        Op::Broadcast => {
            let x = arg(0)?;
            let n = scalar::signed(imm(arg(1)?)?);
            if n < 0 {
                return Err(EvalErrorKind::NegativeCount(n));
            }
            budget.room((n as u64).saturating_mul(footprint(x)).saturating_add(n as u64))?;
            budget.burn(n as u64)?;
            let Some(item) = x.ty() else { return malformed(Malformed::BroadcastTuple) };
            let mut b = ArrayBuilder::new(item);
            for _ in 0..n {
                b.push(x);
            }
            Ok(Value::from(b.finish()))
        }
        Op::Concat => {
            let a = arr(arg(0)?)?;
            if a.depth() < 2 {
                return malformed(Malformed::ConcatFlat);
            }
            let offsets: Vec<Vec<u32>> = (1..a.depth() as usize - 1).map(|l| a.offsets(l).to_vec()).collect();
            Array::from_parts(a.elem(), a.depth() - 1, offsets, a.data().to_vec())
                .map(Value::from)
                .map_err(|e| EvalErrorKind::Malformed(Malformed::Parts(e)))
        }
        Op::Partition => {
            let a = arr(arg(0)?)?;
            let lens = arr(arg(1)?)?;
            if lens.depth() != 1 || !lens.elem().is_int() {
                return malformed(Malformed::PartitionLengths);
            }
            let mut cut = Vec::with_capacity(lens.len() + 1);
            cut.push(0u32);
            let mut total = 0u64;
            for x in lens.scalars() {
                let n = scalar::signed(x);
                if n < 0 {
                    return Err(EvalErrorKind::NegativeRow(n));
                }
                total = total.saturating_add(n as u64);
                if total > a.len() as u64 {
                    break;
                }
                cut.push(total as u32);
            }
            if total != a.len() as u64 {
                return Err(EvalErrorKind::PartitionTotal { elements: a.len(), total });
            }
            let mut offsets = vec![cut];
            offsets.extend((0..a.depth() as usize - 1).map(|l| a.offsets(l).to_vec()));
            Array::from_parts(a.elem(), a.depth() + 1, offsets, a.data().to_vec())
                .map(Value::from)
                .map_err(|e| EvalErrorKind::Malformed(Malformed::Parts(e)))
        }
        _ => malformed(Malformed::NotFirstOrder(op.prim())),
    }
}

/// An argument of a lifted operation.
pub(crate) struct LiftArg<'a> {
    pub value: &'a Value,
    /// The same in every lane.
    pub same: bool,
}

/// The primitive at depth `k` (see the module doc).
pub(crate) fn lifted(
    op: Op,
    k: u32,
    args: &[LiftArg<'_>],
    mask: Option<&Value>,
    result: ValTy,
    budget: &mut Budget,
) -> R<Value> {
    if let Some(m) = mask {
        match m {
            Value::Scalar(c) => {
                if !truth(*c) {
                    return Ok(Value::zero(result));
                }
                return lifted(op, k, args, None, result, budget);
            }
            Value::Array(ma) if ma.depth() <= k && ma.elem() == ScalarTy::I1 => {
                return masked(op, k, args, ma, result, budget);
            }
            _ => return malformed(Malformed::Mask),
        }
    }
    if k == 0 {
        let vals: Vec<&Value> = args.iter().map(|a| a.value).collect();
        return base(op, &vals, result, budget);
    }
    let container = container_of(args, k)?;
    let lanes = container.lanes();
    budget.burn(lanes as u64)?;
    let Some(item_ty) = result.unlift(k) else { return malformed(Malformed::NotLifted) };
    if let Some(out) = fast(op, k, args, None, &container, item_ty, budget)? {
        return Ok(out);
    }
    generic(op, k, args, None, &container, item_ty, budget)
}

/// The common outer `k` levels of the mapped arguments.
fn container_of(args: &[LiftArg<'_>], k: u32) -> R<Container> {
    let mut first: Option<&Array> = None;
    for a in args.iter().filter(|a| !a.same) {
        let x = arr(a.value)?;
        if x.depth() < k {
            return malformed(Malformed::ShallowArgument { depth: x.depth(), levels: k });
        }
        match first {
            None => first = Some(x),
            Some(f) if f.same_container(x, k) => {}
            Some(f) => {
                return Err(EvalErrorKind::LaneShapes { levels: k, first: f.len(), other: x.len() });
            }
        }
    }
    first.map(|f| f.container(k)).map_or_else(|| malformed(Malformed::NothingMapped), Ok)
}

/// The result of a mask with no true value: shaped like the mask (its
/// levels), each of its level-`j` lanes the zero of `item` (scalar zero or
/// an empty array).
fn mask_zero(m: &Array, item: ValTy) -> Value {
    let mut b = ArrayBuilder::new(item);
    for _ in 0..m.data().len() {
        b.push_zero();
    }
    Value::from(m.container(m.depth()).assemble(b.finish()))
}

/// A mask of depth `j >= 1`, applied level by level from the outside:
/// a lane (or the whole value) whose part of the mask holds no true value
/// is not examined at all and holds zeros shaped like that part of the
/// mask; otherwise the mapped arguments must have as many lanes as the
/// mask there, and the walk goes down; at level `j` a lane whose bit is
/// true is computed (the operation lifted `k - j` deep on its items) and
/// one whose bit is false holds the zero of its type. So arguments are
/// compared only along lanes that are computed, and lifting a masked node
/// (mask and mapped arguments one level deeper) computes, lane by lane,
/// exactly what the node computes. Iterative: one stack entry per open
/// level.
fn masked(op: Op, k: u32, args: &[LiftArg<'_>], m: &Array, result: ValTy, budget: &mut Budget) -> R<Value> {
    let Some(item_ty) = result.unlift(k) else { return malformed(Malformed::NotLifted) };
    let j = m.depth();
    let zero_item = item_ty.lift(k - j);
    budget.burn(m.data().len() as u64)?;
    if m.data().iter().all(|&b| b == 0) {
        return Ok(mask_zero(m, zero_item));
    }
    if j == 1 && k == 1 {
        let container = container_of(args, 1)?;
        if container.lanes() != m.len() {
            return Err(EvalErrorKind::MaskLanes { mask: m.len(), lanes: container.lanes() });
        }
        if let Some(out) = fast(op, k, args, Some(m), &container, item_ty, budget)? {
            return Ok(out);
        }
        return generic(op, k, args, Some(m), &container, item_ty, budget);
    }
    struct Level {
        args: Vec<Value>,
        mask: Array,
        next: usize,
        out: ArrayBuilder,
        /// The operation's depth left for this level's lanes.
        depth: u32,
    }
    let same: Vec<bool> = args.iter().map(|a| a.same).collect();
    let lanes_of = |vals: &[Value], n: usize| -> R<()> {
        for (v, &s) in vals.iter().zip(&same) {
            if !s && arr(v)?.len() != n {
                return Err(EvalErrorKind::MaskShape);
            }
        }
        Ok(())
    };
    let top: Vec<Value> = args.iter().map(|a| a.value.clone()).collect();
    lanes_of(&top, m.len())?;
    let mut stack = vec![Level {
        args: top,
        mask: m.clone(),
        next: 0,
        out: ArrayBuilder::new(result.unlift(1).unwrap_or(result)),
        depth: k - 1,
    }];
    let mut size = 0u64;
    loop {
        let Some(level) = stack.last_mut() else { return malformed(Malformed::MaskStack) };
        if level.next == level.mask.len() {
            let done = stack.pop().map(|l| l.out.finish()).ok_or(EvalErrorKind::Malformed(Malformed::MaskStack))?;
            match stack.last_mut() {
                Some(parent) => {
                    parent.out.push(&Value::from(done));
                    continue;
                }
                None => return Ok(Value::from(done)),
            }
        }
        let i = level.next;
        level.next += 1;
        let lane = level.mask.item(1, i);
        let active = match &lane {
            Value::Scalar(bit) => bit.bits() != 0,
            Value::Array(sub) => sub.data().iter().any(|&b| b != 0),
            Value::Tuple(_) => return malformed(Malformed::TupleMask),
        };
        if !active {
            match &lane {
                Value::Array(sub) => {
                    level.out.push(&mask_zero(sub, zero_item));
                }
                _ => level.out.push_zero(),
            }
            continue;
        }
        let items: Vec<Value> = level
            .args
            .iter()
            .zip(&same)
            .map(|(v, &s)| if s { Ok(v.clone()) } else { arr(v).map(|x| x.item(1, i)) })
            .collect::<R<_>>()?;
        match lane {
            Value::Scalar(_) => {
                let sub: Vec<LiftArg<'_>> =
                    items.iter().zip(&same).map(|(v, &s)| LiftArg { value: v, same: s }).collect();
                let ty = item_ty.lift(level.depth);
                let r = lifted(op, level.depth, &sub, None, ty, budget)?;
                size = size.saturating_add(r.array().map_or(1, |a| a.data().len() as u64));
                budget.room(size)?;
                level.out.push(&r);
            }
            Value::Array(sub) => {
                lanes_of(&items, sub.len())?;
                let depth = level.depth - 1;
                let out = ArrayBuilder::new(item_ty.lift(depth));
                stack.push(Level { args: items, mask: (*sub).clone(), next: 0, out, depth });
            }
            Value::Tuple(_) => return malformed(Malformed::TupleMask),
        }
    }
}

fn lane_on(mask: Option<&Array>, lane: usize) -> bool {
    mask.is_none_or(|m| m.data()[lane] != 0)
}

/// Flat loops for scalar operations and segment reductions; `None` when
/// the generic path must run.
fn fast(
    op: Op,
    k: u32,
    args: &[LiftArg<'_>],
    mask: Option<&Array>,
    container: &Container,
    item_ty: ValTy,
    budget: &mut Budget,
) -> R<Option<Value>> {
    let lanes = container.lanes();
    if is_scalar_op(op) && item_ty.depth == 0 {
        // Every mapped argument holds exactly one scalar per lane.
        let mut cols: Vec<Result<&[u64], Imm>> = Vec::with_capacity(args.len());
        let mut elems = Vec::with_capacity(args.len());
        for a in args {
            if a.same {
                let x = imm(a.value)?;
                elems.push(x.ty());
                cols.push(Err(x));
            } else {
                let x = arr(a.value)?;
                if x.depth() != k {
                    return malformed(Malformed::ScalarDepth);
                }
                elems.push(x.elem());
                cols.push(Ok(x.data()));
            }
        }
        let mut data = Vec::with_capacity(lanes);
        let mut ops = Vec::with_capacity(args.len());
        for lane in 0..lanes {
            if !lane_on(mask, lane) {
                data.push(0);
                continue;
            }
            ops.clear();
            for (c, &e) in cols.iter().zip(&elems) {
                ops.push(match c {
                    Ok(d) => Imm::from_bits(e, d[lane]),
                    Err(x) => *x,
                });
            }
            data.push(scalar_op(op, &ops, item_ty.scalar)?.bits());
        }
        let flat = Array::from_bits(item_ty.scalar, data);
        return Ok(Some(Value::from(container.assemble(flat))));
    }
    if matches!(op, Op::Sum | Op::Max | Op::Any | Op::Length) {
        let x = arr(args[0].value)?;
        if x.depth() < k + 1 {
            return malformed(Malformed::ReductionDepth);
        }
        let seg = x.offsets(k as usize - 1);
        let mut data = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            if !lane_on(mask, lane) {
                data.push(0);
                continue;
            }
            let (a, b) = (seg[lane] as usize, seg[lane + 1] as usize);
            data.push(if op == Op::Length {
                (b - a) as u64
            } else {
                if x.depth() != k + 1 {
                    return malformed(Malformed::NestedReduction);
                }
                budget.burn((b - a) as u64)?;
                fold(&x.data()[a..b], x.elem(), op)?.bits()
            });
        }
        let flat = Array::from_bits(item_ty.scalar, data);
        return Ok(Some(Value::from(container.assemble(flat))));
    }
    Ok(None)
}

/// One base operation per lane, on copied-out items.
fn generic(
    op: Op,
    k: u32,
    args: &[LiftArg<'_>],
    mask: Option<&Array>,
    container: &Container,
    item_ty: ValTy,
    budget: &mut Budget,
) -> R<Value> {
    let lanes = container.lanes();
    let mut out = ArrayBuilder::new(item_ty);
    let mut size = 0u64;
    for lane in 0..lanes {
        if !lane_on(mask, lane) {
            out.push_zero();
            continue;
        }
        let vals: Vec<Value> = args
            .iter()
            .map(|a| if a.same { Ok(a.value.clone()) } else { arr(a.value).map(|x| x.item(k, lane)) })
            .collect::<R<_>>()?;
        let refs: Vec<&Value> = vals.iter().collect();
        let r = base(op, &refs, item_ty, budget)?;
        size = size.saturating_add(footprint(&r));
        budget.room(size)?;
        if !out.push(&r) {
            return malformed(Malformed::LaneResult);
        }
    }
    Ok(Value::Array(Rc::new(container.assemble(out.finish()))))
}
