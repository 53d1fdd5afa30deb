//! Typing: the result type of an operation from its arguments' types, its
//! lift depth and its per-argument flags. The builder, the verifier, the
//! rule engine and the parser all type through [`infer`], so they agree.
//!
//! The base signatures (`T` is any value type, `S` a scalar, `I` an
//! integer scalar), at depth 0:
//!
//! | op | arguments | result |
//! |---|---|---|
//! | unary, binary | `S` (, `S`) in the operation's class | `S` |
//! | `select` | `i1, T, T` | `T` |
//! | `setp.cc` / `fsetp.cc` | `I, I` / `F, F` | `i1` |
//! | conversion | `S` | the node's declared scalar |
//! | `length` | `array<T>` | `i64` |
//! | `sum`, `max` | `array<S>` | `S` |
//! | `any` | `array<i1>` | `i1` |
//! | `index` | `array<T>, I` | `T` |
//! | `broadcast` | `T, I` | `array<T>` |
//! | `concat` | `array<array<T>>` | `array<T>` |
//! | `partition` | `array<T>, array<I>` | `array<array<T>>` |
//! | `assert` | `i1` | `i1` |
//!
//! At depth `k`, a mapped argument has its base type inside `k` arrays and
//! an argument flagged "same in every lane" has exactly its base type; the
//! result is the base result inside `k` arrays. At least one argument must
//! be mapped. A mask is an `i1` array of depth `1..=k` (lanes at that
//! level) or an `i1` scalar. Since the flags are explicit, typing never
//! guesses. A node that does not type is a [`TypeError`] naming the rule
//! it breaks, the primitive, the argument's position and the types
//! involved.

mod error;

pub use error::TypeError;

use crate::graph::{Arg, Graph, MAX_FLAGGED_ARGS, Sym};
use crate::ops::{Op, Prim};
use crate::scalar::{ScalarTy, TypeClass};
use crate::types::{NodeTy, ValTy};

type R<T> = Result<T, TypeError>;

/// The result type of `op` at lift depth `depth` with `args` and `mask`.
/// `target` is the declared scalar of a conversion (ignored otherwise).
pub fn infer(g: &Graph, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>, target: Option<ScalarTy>) -> R<NodeTy> {
    let prim = op.prim();
    if let Some(n) = prim.arity()
        && args.len() != n
    {
        return Err(TypeError::Arity { prim, want: n, got: args.len() });
    }
    if depth > 0 && !op.liftable() {
        return Err(TypeError::NotLiftable(prim));
    }
    if mask.is_some() && !op.maskable() {
        return Err(TypeError::NotMaskable(prim));
    }
    if args.len() > MAX_FLAGGED_ARGS && args.iter().any(|a| a.bcast) {
        return Err(TypeError::TooManyFlagged { args: args.len() });
    }
    match op {
        Op::Param(_) | Op::Lambda(_) => Err(TypeError::NotBuilt(prim)),
        Op::Const(imm) => Ok(NodeTy::Val(ValTy::scalar(imm.ty()))),
        Op::Array(i) => match g.array_const(i).and_then(|v| v.ty()) {
            Some(t) if t.depth > 0 => Ok(NodeTy::Val(t)),
            _ => Err(TypeError::NoSuchArray(i)),
        },
        Op::Map | Op::Apply | Op::If | Op::While => higher_order(g, op, args),
        Op::Get(i) => {
            if args[0].bcast {
                return Err(TypeError::GetFlagged);
            }
            match g.node(args[0].sym).map(|n| &n.ty) {
                Some(NodeTy::Tuple(ts)) => match ts.get(i as usize) {
                    Some(&t) => Ok(NodeTy::Val(t)),
                    None => Err(TypeError::GetOutOfRange { index: i, len: ts.len() }),
                },
                _ => Err(TypeError::GetNotTuple(i)),
            }
        }
        _ => lifted(g, op, depth, args, mask, target).map(NodeTy::Val),
    }
}

/// Typing of the lifted (element and array) operations.
fn lifted(g: &Graph, op: Op, k: u32, args: &[Arg], mask: Option<Sym>, target: Option<ScalarTy>) -> R<ValTy> {
    let prim = op.prim();
    let mut base: smallvec::SmallVec<[ValTy; 4]> = smallvec::SmallVec::new();
    let mut mapped = false;
    for (i, a) in args.iter().enumerate() {
        let Some(t) = g.val_ty(a.sym) else { return Err(TypeError::ArgNotValue { prim, arg: i }) };
        if k == 0 {
            if a.bcast {
                return Err(TypeError::FlagAtDepthZero { prim, arg: i });
            }
            base.push(t);
        } else if a.bcast {
            base.push(t);
        } else {
            let Some(b) = t.unlift(k) else {
                return Err(TypeError::TooShallow { prim, depth: k, arg: i, ty: t });
            };
            mapped = true;
            base.push(b);
        }
    }
    if k > 0 && !mapped {
        return Err(TypeError::NothingMapped { prim, depth: k });
    }
    if let Some(m) = mask {
        match g.val_ty(m) {
            Some(t) if t.scalar == ScalarTy::I1 && t.depth <= k => {}
            Some(t) => return Err(TypeError::BadMask { prim, depth: k, ty: t }),
            None => return Err(TypeError::MaskNotValue(prim)),
        }
    }
    let scalar = |i: usize| -> R<ScalarTy> {
        let t = base[i];
        if t.depth == 0 { Ok(t.scalar) } else { Err(TypeError::NotScalar { prim, arg: i, ty: t }) }
    };
    let class = |t: ScalarTy, c: TypeClass| -> R<()> {
        if c.admits(t) { Ok(()) } else { Err(TypeError::WrongClass { prim, ty: t }) }
    };
    let int = |i: usize| -> R<ScalarTy> {
        let t = scalar(i)?;
        if t.is_int() { Ok(t) } else { Err(TypeError::NotInteger { prim, arg: i, ty: t }) }
    };
    let array = |i: usize| -> R<ValTy> { base[i].element().ok_or(TypeError::NotArray { prim, arg: i, ty: base[i] }) };
    let result = match op {
        Op::Unary(o) => {
            let t = scalar(0)?;
            class(t, o.class())?;
            ValTy::scalar(t)
        }
        Op::Binary(o) => {
            let (a, b) = (scalar(0)?, scalar(1)?);
            if a != b {
                return Err(TypeError::OperandMismatch { prim, left: a, right: b });
            }
            class(a, o.class())?;
            ValTy::scalar(a)
        }
        Op::Setp(_) | Op::Fsetp(_) => {
            let (a, b) = (scalar(0)?, scalar(1)?);
            if a != b {
                return Err(TypeError::OperandMismatch { prim, left: a, right: b });
            }
            class(a, if matches!(op, Op::Setp(_)) { TypeClass::Int } else { TypeClass::Float })?;
            ValTy::scalar(ScalarTy::I1)
        }
        Op::Convert(o) => {
            let src = scalar(0)?;
            let Some(dst) = target else { return Err(TypeError::NoTarget(prim)) };
            if !o.converts(src, dst) {
                return Err(TypeError::BadConversion { prim, from: src, to: dst });
            }
            ValTy::scalar(dst)
        }
        Op::Select => {
            if base[0] != ValTy::scalar(ScalarTy::I1) {
                return Err(TypeError::SelectCondition(base[0]));
            }
            if base[1] != base[2] {
                return Err(TypeError::SelectMismatch { left: base[1], right: base[2] });
            }
            base[1]
        }
        Op::Length => {
            array(0)?;
            ValTy::scalar(ScalarTy::I64)
        }
        Op::Sum | Op::Max => {
            let e = array(0)?;
            if e.depth != 0 {
                return Err(TypeError::NestedReduction { prim, ty: base[0] });
            }
            e
        }
        Op::Any => {
            if base[0] != ValTy::array(ScalarTy::I1, 1) {
                return Err(TypeError::AnyNotBool(base[0]));
            }
            ValTy::scalar(ScalarTy::I1)
        }
        Op::Assert => {
            if base[0] != ValTy::scalar(ScalarTy::I1) {
                return Err(TypeError::AssertNotBool(base[0]));
            }
            ValTy::scalar(ScalarTy::I1)
        }
        Op::Index => {
            let e = array(0)?;
            int(1)?;
            e
        }
        Op::Broadcast => {
            int(1)?;
            base[0].array_of()
        }
        Op::Concat => {
            let e = array(0)?;
            if e.depth == 0 {
                return Err(TypeError::ConcatFlat(base[0]));
            }
            e
        }
        Op::Partition => {
            array(0)?;
            let lens = array(1)?;
            if lens.depth != 0 || !lens.scalar.is_int() {
                return Err(TypeError::PartitionLengths(base[1]));
            }
            base[0].array_of()
        }
        _ => return Err(TypeError::NotLifted(prim)),
    };
    Ok(result.lift(k))
}

/// The lambda named by argument `i`, with its parameter and result types.
fn lambda_sig(g: &Graph, args: &[Arg], i: usize, prim: Prim) -> R<(Vec<ValTy>, Vec<ValTy>)> {
    let Some(a) = args.get(i) else { return Err(TypeError::MissingLambda(prim)) };
    let Some(l) = g.lambda(a.sym) else { return Err(TypeError::NotLambda { prim, arg: i }) };
    if a.bcast {
        return Err(TypeError::LambdaFlagged(prim));
    }
    let params = g.param_types(a.sym);
    let results = g.result_types(a.sym);
    if params.len() != l.params.len() || results.len() != l.results.len() {
        return Err(TypeError::LambdaNotValues(prim));
    }
    Ok((params, results))
}

fn values(g: &Graph, args: &[Arg], prim: Prim) -> R<Vec<ValTy>> {
    args.iter().enumerate().map(|(i, a)| g.val_ty(a.sym).ok_or(TypeError::HigherArgNotValue { prim, arg: i })).collect()
}

fn results_ty(results: Vec<ValTy>) -> NodeTy {
    if results.len() == 1 { NodeTy::Val(results[0]) } else { NodeTy::Tuple(results) }
}

/// The values passed to a lambda match its parameters.
fn same(prim: Prim, got: &[ValTy], want: &[ValTy]) -> R<()> {
    if got.len() != want.len() {
        return Err(TypeError::PassCount { prim, got: got.len(), want: want.len() });
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return Err(TypeError::PassType { prim, param: i, got: got[i], want: want[i] });
    }
    Ok(())
}

fn higher_order(g: &Graph, op: Op, args: &[Arg]) -> R<NodeTy> {
    let prim = op.prim();
    match op {
        Op::Map => {
            let (params, results) = lambda_sig(g, args, 0, prim)?;
            if results.len() != 1 {
                return Err(TypeError::MapResults(results.len()));
            }
            let rest = &args[1..];
            if rest.len() != params.len() {
                return Err(TypeError::MapArity { got: rest.len(), want: params.len() });
            }
            let tys = values(g, rest, prim)?;
            let mut mapped = false;
            for (i, (a, t)) in rest.iter().zip(&tys).enumerate() {
                let want = if a.bcast { params[i] } else { params[i].array_of() };
                mapped |= !a.bcast;
                if *t != want {
                    return Err(TypeError::MapArg { arg: i + 1, got: *t, want });
                }
            }
            if !mapped {
                return Err(TypeError::MapNothingMapped);
            }
            Ok(NodeTy::Val(results[0].array_of()))
        }
        Op::Apply => {
            let (params, results) = lambda_sig(g, args, 0, prim)?;
            no_flags(args, prim)?;
            same(prim, &values(g, &args[1..], prim)?, &params)?;
            Ok(results_ty(results))
        }
        Op::If => {
            no_flags(args, prim)?;
            if args.len() < 3 {
                return Err(TypeError::IfArity);
            }
            if g.val_ty(args[0].sym) != Some(ValTy::scalar(ScalarTy::I1)) {
                return Err(TypeError::IfCondition);
            }
            let (pt, rt) = lambda_sig(g, args, 1, prim)?;
            let (pe, re) = lambda_sig(g, args, 2, prim)?;
            if pt != pe || rt != re {
                return Err(TypeError::IfSignatures);
            }
            same(prim, &values(g, &args[3..], prim)?, &pt)?;
            Ok(results_ty(rt))
        }
        Op::While => {
            no_flags(args, prim)?;
            if args.len() < 2 {
                return Err(TypeError::WhileArity);
            }
            let (pc, rc) = lambda_sig(g, args, 0, prim)?;
            let (pb, rb) = lambda_sig(g, args, 1, prim)?;
            let init = values(g, &args[2..], prim)?;
            same(prim, &init, &pb)?;
            same(prim, &init, &pc)?;
            if rb != pb {
                return Err(TypeError::WhileBody);
            }
            if rc != [ValTy::scalar(ScalarTy::I1)] {
                return Err(TypeError::WhileCondition);
            }
            Ok(results_ty(init))
        }
        _ => Err(TypeError::NotHigherOrder(prim)),
    }
}

fn no_flags(args: &[Arg], prim: Prim) -> R<()> {
    if args.iter().any(|a| a.bcast) { Err(TypeError::Flagged(prim)) } else { Ok(()) }
}

/// The flags ("same in every lane") of a lifted node's arguments, decided
/// from their types: an argument whose depth is its position's base depth
/// is the same in every lane, one with `depth` more levels is mapped. For
/// positions whose base type depends on the result (`select`'s values,
/// `index`'s array, ...), `hint` (the node's result type) decides; without
/// it they are taken as mapped. `None` when a type fits neither.
pub(crate) fn flags_for(g: &Graph, op: Op, depth: u32, args: &[Sym], hint: Option<ValTy>) -> Option<Vec<bool>> {
    if depth == 0 {
        return Some(vec![false; args.len()]);
    }
    let base_result = hint.and_then(|h| h.unlift(depth));
    let mut flags = Vec::with_capacity(args.len());
    for (i, &a) in args.iter().enumerate() {
        let t = g.val_ty(a)?;
        let base = match op {
            Op::Unary(_) | Op::Binary(_) | Op::Setp(_) | Op::Fsetp(_) | Op::Convert(_) | Op::Assert => Some(0),
            Op::Select if i == 0 => Some(0),
            Op::Select => base_result.map(|r| r.depth),
            Op::Sum | Op::Max | Op::Any => Some(1),
            Op::Index if i == 1 => Some(0),
            Op::Index | Op::Concat => base_result.map(|r| r.depth + 1),
            Op::Broadcast if i == 1 => Some(0),
            Op::Broadcast => base_result.and_then(|r| r.depth.checked_sub(1)),
            Op::Partition if i == 1 => Some(1),
            Op::Partition => base_result.and_then(|r| r.depth.checked_sub(1)),
            _ => None,
        };
        flags.push(match base {
            Some(b) if t.depth == b => true,
            Some(b) if t.depth == b + depth => false,
            Some(_) => return None,
            None => false,
        });
    }
    if flags.iter().all(|&f| f) {
        return None;
    }
    Some(flags)
}
