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
//! guesses.

use crate::graph::{Arg, Graph, MAX_FLAGGED_ARGS, Sym};
use crate::ops::Op;
use crate::scalar::{ScalarTy, TypeClass};
use crate::types::{NodeTy, ValTy};

/// Why a node does not type.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TypeError(pub String);

impl core::fmt::Display for TypeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TypeError {}

type R<T> = Result<T, TypeError>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(TypeError(msg.into()))
}

/// The result type of `op` at lift depth `depth` with `args` and `mask`.
/// `target` is the declared scalar of a conversion (ignored otherwise).
pub fn infer(g: &Graph, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>, target: Option<ScalarTy>) -> R<NodeTy> {
    let name = PrimName(op);
    if let Some(n) = op.prim().arity()
        && args.len() != n
    {
        return err(format!("`{name}` takes {n} argument{}, not {}", if n == 1 { "" } else { "s" }, args.len()));
    }
    if depth > 0 && !op.liftable() {
        return err(format!("`{name}` has no lift depth"));
    }
    if mask.is_some() && !op.maskable() {
        return err(format!("`{name}` cannot carry a mask"));
    }
    if args.len() > MAX_FLAGGED_ARGS && args.iter().any(|a| a.bcast) {
        return err(format!("more than {MAX_FLAGGED_ARGS} arguments with flags"));
    }
    match op {
        Op::Param(_) | Op::Lambda(_) => err(format!("`{name}` is not built from arguments")),
        Op::Const(imm) => Ok(NodeTy::Val(ValTy::scalar(imm.ty()))),
        Op::Array(i) => match g.array_const(i).and_then(|v| v.ty()) {
            Some(t) if t.depth > 0 => Ok(NodeTy::Val(t)),
            _ => err(format!("constant array {i} does not exist")),
        },
        Op::Map | Op::Apply | Op::If | Op::While => higher_order(g, op, args),
        Op::Get(i) => {
            if args[0].bcast {
                return err("`get` takes no flags");
            }
            match g.node(args[0].sym).map(|n| &n.ty) {
                Some(NodeTy::Tuple(ts)) => match ts.get(i as usize) {
                    Some(&t) => Ok(NodeTy::Val(t)),
                    None => err(format!("`get.{i}` of a tuple of {}", ts.len())),
                },
                _ => err(format!("`get.{i}` of something that is not a tuple")),
            }
        }
        _ => lifted(g, op, depth, args, mask, target).map(NodeTy::Val),
    }
}

/// A primitive's name, formatted only when an error message needs it.
#[derive(Clone, Copy)]
struct PrimName(Op);

impl core::fmt::Display for PrimName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0.prim())
    }
}

/// Typing of the lifted (element and array) operations.
fn lifted(g: &Graph, op: Op, k: u32, args: &[Arg], mask: Option<Sym>, target: Option<ScalarTy>) -> R<ValTy> {
    let name = PrimName(op);
    let mut base: smallvec::SmallVec<[ValTy; 4]> = smallvec::SmallVec::new();
    let mut mapped = false;
    for (i, a) in args.iter().enumerate() {
        let Some(t) = g.val_ty(a.sym) else { return err(format!("argument {i} of `{name}` is not a value")) };
        if k == 0 {
            if a.bcast {
                return err(format!("argument {i} of `{name}` is flagged `*` at depth 0"));
            }
            base.push(t);
        } else if a.bcast {
            base.push(t);
        } else {
            let Some(b) = t.unlift(k) else {
                return err(format!(
                    "argument {i} of `{name}.{k}` has type {t}, which has fewer than {k} array levels"
                ));
            };
            mapped = true;
            base.push(b);
        }
    }
    if k > 0 && !mapped {
        return err(format!("`{name}.{k}` needs at least one mapped argument"));
    }
    if let Some(m) = mask {
        match g.val_ty(m) {
            Some(t) if t.scalar == ScalarTy::I1 && t.depth <= k => {}
            Some(t) => return err(format!("a mask of `{name}.{k}` must be i1 inside at most {k} arrays, not {t}")),
            None => return err(format!("the mask of `{name}` is not a value")),
        }
    }
    let scalar = |i: usize| -> R<ScalarTy> {
        let t = base[i];
        if t.depth == 0 { Ok(t.scalar) } else { err(format!("argument {i} of `{name}` must be a scalar, not {t}")) }
    };
    let class = |t: ScalarTy, c: TypeClass| -> R<()> {
        if c.admits(t) { Ok(()) } else { err(format!("`{name}` does not apply to {t}")) }
    };
    let int = |i: usize| -> R<ScalarTy> {
        let t = scalar(i)?;
        if t.is_int() { Ok(t) } else { err(format!("argument {i} of `{name}` must be an integer, not {t}")) }
    };
    let array = |i: usize| -> R<ValTy> {
        base[i]
            .element()
            .ok_or_else(|| TypeError(format!("argument {i} of `{name}` must be an array, not {}", base[i])))
    };
    let result = match op {
        Op::Unary(o) => {
            let t = scalar(0)?;
            class(t, o.class())?;
            ValTy::scalar(t)
        }
        Op::Binary(o) => {
            let (a, b) = (scalar(0)?, scalar(1)?);
            if a != b {
                return err(format!("`{name}` of {a} and {b}"));
            }
            class(a, o.class())?;
            ValTy::scalar(a)
        }
        Op::Setp(_) | Op::Fsetp(_) => {
            let (a, b) = (scalar(0)?, scalar(1)?);
            if a != b {
                return err(format!("`{name}` of {a} and {b}"));
            }
            class(a, if matches!(op, Op::Setp(_)) { TypeClass::Int } else { TypeClass::Float })?;
            ValTy::scalar(ScalarTy::I1)
        }
        Op::Convert(o) => {
            let src = scalar(0)?;
            let Some(dst) = target else { return err(format!("`{name}` needs a target type")) };
            if !o.converts(src, dst) {
                return err(format!("`{name}` cannot convert {src} to {dst}"));
            }
            ValTy::scalar(dst)
        }
        Op::Select => {
            if base[0] != ValTy::scalar(ScalarTy::I1) {
                return err(format!("the condition of `select` is {}, not i1", base[0]));
            }
            if base[1] != base[2] {
                return err(format!("`select` between {} and {}", base[1], base[2]));
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
                return err(format!("`{name}` of {}: the elements must be scalars", base[0]));
            }
            e
        }
        Op::Any => {
            if base[0] != ValTy::array(ScalarTy::I1, 1) {
                return err(format!("`any` of {}, not array<i1>", base[0]));
            }
            ValTy::scalar(ScalarTy::I1)
        }
        Op::Assert => {
            if base[0] != ValTy::scalar(ScalarTy::I1) {
                return err(format!("`assert` of {}, not i1", base[0]));
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
                return err(format!("`concat` of {}: the elements must be arrays", base[0]));
            }
            e
        }
        Op::Partition => {
            array(0)?;
            let lens = array(1)?;
            if lens.depth != 0 || !lens.scalar.is_int() {
                return err(format!("the lengths of `partition` are {}, not an array of integers", base[1]));
            }
            base[0].array_of()
        }
        _ => return err(format!("`{name}` is not a lifted operation")),
    };
    Ok(result.lift(k))
}

/// The lambda named by argument `i`, with its parameter and result types.
fn lambda_sig(g: &Graph, args: &[Arg], i: usize, what: &str) -> R<(Vec<ValTy>, Vec<ValTy>)> {
    let Some(a) = args.get(i) else { return err(format!("`{what}` is missing its lambda")) };
    let Some(l) = g.lambda(a.sym) else { return err(format!("argument {i} of `{what}` is not a lambda")) };
    if a.bcast {
        return err(format!("the lambda of `{what}` cannot be flagged"));
    }
    let params = g.param_types(a.sym);
    let results = g.result_types(a.sym);
    if params.len() != l.params.len() || results.len() != l.results.len() {
        return err(format!("the lambda of `{what}` has params or results that are not values"));
    }
    Ok((params, results))
}

fn values(g: &Graph, args: &[Arg], what: &str) -> R<Vec<ValTy>> {
    args.iter()
        .enumerate()
        .map(|(i, a)| g.val_ty(a.sym).ok_or_else(|| TypeError(format!("an argument of `{what}` ({i}) is not a value"))))
        .collect()
}

fn results_ty(results: Vec<ValTy>) -> NodeTy {
    if results.len() == 1 { NodeTy::Val(results[0]) } else { NodeTy::Tuple(results) }
}

fn same(what: &str, got: &[ValTy], want: &[ValTy], of: &str) -> R<()> {
    if got.len() != want.len() {
        return err(format!("`{what}` passes {} values to a lambda of {} {of}", got.len(), want.len()));
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return err(format!("`{what}` passes {} where {of} {i} is {}", got[i], want[i]));
    }
    Ok(())
}

fn higher_order(g: &Graph, op: Op, args: &[Arg]) -> R<NodeTy> {
    match op {
        Op::Map => {
            let (params, results) = lambda_sig(g, args, 0, "map")?;
            if results.len() != 1 {
                return err(format!("the lambda of `map` must return one value, not {}", results.len()));
            }
            let rest = &args[1..];
            if rest.len() != params.len() {
                return err(format!("`map` passes {} arguments to a lambda of {}", rest.len(), params.len()));
            }
            let tys = values(g, rest, "map")?;
            let mut mapped = false;
            for (i, (a, t)) in rest.iter().zip(&tys).enumerate() {
                let want = if a.bcast { params[i] } else { params[i].array_of() };
                mapped |= !a.bcast;
                if *t != want {
                    return err(format!("argument {} of `map` is {t}; the lambda needs {want}", i + 1));
                }
            }
            if !mapped {
                return err("`map` needs at least one mapped argument");
            }
            Ok(NodeTy::Val(results[0].array_of()))
        }
        Op::Apply => {
            let (params, results) = lambda_sig(g, args, 0, "apply")?;
            no_flags(args, "apply")?;
            same("apply", &values(g, &args[1..], "apply")?, &params, "parameter")?;
            Ok(results_ty(results))
        }
        Op::If => {
            no_flags(args, "if")?;
            if args.len() < 3 {
                return err("`if` takes a condition and two lambdas");
            }
            if g.val_ty(args[0].sym) != Some(ValTy::scalar(ScalarTy::I1)) {
                return err("the condition of `if` must be an i1 scalar");
            }
            let (pt, rt) = lambda_sig(g, args, 1, "if")?;
            let (pe, re) = lambda_sig(g, args, 2, "if")?;
            if pt != pe || rt != re {
                return err("the two lambdas of `if` must have the same signature");
            }
            same("if", &values(g, &args[3..], "if")?, &pt, "parameter")?;
            Ok(results_ty(rt))
        }
        Op::While => {
            no_flags(args, "while")?;
            if args.len() < 2 {
                return err("`while` takes two lambdas");
            }
            let (pc, rc) = lambda_sig(g, args, 0, "while")?;
            let (pb, rb) = lambda_sig(g, args, 1, "while")?;
            let init = values(g, &args[2..], "while")?;
            same("while", &init, &pb, "parameter")?;
            same("while", &init, &pc, "parameter")?;
            if rb != pb {
                return err("the body of `while` must return its parameters' types");
            }
            if rc != [ValTy::scalar(ScalarTy::I1)] {
                return err("the condition of `while` must return one i1 scalar");
            }
            Ok(results_ty(init))
        }
        _ => err("not a higher-order operation"),
    }
}

fn no_flags(args: &[Arg], what: &str) -> R<()> {
    if args.iter().any(|a| a.bcast) { err(format!("`{what}` takes no `*` flags")) } else { Ok(()) }
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
