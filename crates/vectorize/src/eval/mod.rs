//! The reference evaluator: the graph interpreter run on values, the oracle
//! every vectorization is judged by (`eval(/p/, xs) == [eval(p, x) for x
//! in xs]`).
//!
//! Semantics: calling a lambda binds its params and evaluates *every* node
//! of its body once, in dependence order (strict: a node nothing uses still
//! runs, and still traps), then returns its results. `map` calls its
//! lambda once per element, in index order; `if` calls one branch; `while`
//! alternates its condition and body. Primitives are `prims.rs`.
//!
//! Invariants: no recursion, whatever the nesting of lambdas: calls push
//! `Frame`s on an explicit stack, and a frame waiting for a callee keeps
//! what it needs in its `Pending` state. Values live in one table indexed
//! by symbol (a lambda is never active twice at once: lambdas cannot call
//! themselves, see [`crate::Graph`]). Every run is bounded: one unit of
//! fuel per node, call and lane, and a cap on the size of any array; a
//! trap (division by zero, index out of bounds, shape mismatch, failed
//! `assert`, fuel, size) is an [`EvalError`] naming the node, never a
//! panic; a graph that does not verify is refused up front. The error type
//! lives in `error.rs` ([`EvalErrorKind`], [`Malformed`]).

mod error;
mod prims;

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::Schedule;
pub use crate::trap::TrapKind;
use crate::value::{ArrayBuilder, Value};
pub use error::{EvalError, EvalErrorKind, Malformed};
use prims::{Budget, LiftArg};

/// Limits of one evaluation.
#[derive(Copy, Clone, Debug)]
pub struct EvalConfig {
    /// Work allowed: one unit per node evaluated, lambda called and lane or
    /// element processed.
    pub fuel: u64,
    /// Largest array (scalars plus offsets) any node may build.
    pub max_elements: u64,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig { fuel: 1 << 32, max_elements: 1 << 28 }
    }
}

/// A frame waiting for a callee.
#[derive(Debug)]
enum Pending {
    /// `apply` or `if`: the callee's results are the node's value.
    Call,
    /// `map`: element `next` is running; results so far in `out`.
    Map { lam: Sym, args: Vec<(Value, bool)>, n: usize, next: usize, out: ArrayBuilder },
    /// `while`: the condition (`in_cond`) or the body is running.
    While { cond: Sym, body: Sym, state: Vec<Value>, in_cond: bool },
}

/// An active lambda.
#[derive(Debug)]
struct Frame {
    lam: Sym,
    pos: usize,
    pending: Option<Pending>,
}

/// An evaluator for one graph: its schedule, the value table and the
/// budget, reused across calls.
#[derive(Debug)]
pub struct Evaluator<'g> {
    graph: &'g Graph,
    sched: Schedule,
    env: Vec<Option<Value>>,
    config: EvalConfig,
    fuel_used: u64,
}

type R<T> = Result<T, EvalError>;

fn fail(kind: impl Into<EvalErrorKind>, sym: Option<Sym>) -> EvalError {
    EvalError { sym, prim: None, kind: kind.into() }
}

impl<'g> Evaluator<'g> {
    /// An evaluator for `graph`, which is verified first: a graph that does
    /// not verify is a `Malformed` error naming its first problem.
    pub fn new(graph: &'g Graph, config: EvalConfig) -> R<Evaluator<'g>> {
        if let Err(mut e) = crate::verify::verify(graph) {
            let first = e.swap_remove(0);
            return Err(fail(EvalErrorKind::Unverified(first.kind), first.sym));
        }
        let sched = Schedule::new(graph).map_err(|s| fail(Malformed::Cycle, Some(s)))?;
        Ok(Evaluator { graph, sched, env: vec![None; graph.len()], config, fuel_used: 0 })
    }

    /// Fuel spent by all calls so far.
    pub fn fuel_used(&self) -> u64 {
        self.fuel_used
    }

    /// Calls function (or any lambda) `func` on `args`, with a fresh fuel
    /// budget.
    pub fn call(&mut self, func: Sym, args: &[Value]) -> R<Vec<Value>> {
        let g = self.graph;
        let Some(lam) = g.lambda(func) else { return Err(fail(EvalErrorKind::NotCallable, Some(func))) };
        let want = g.param_types(func);
        let got: Vec<_> = args.iter().map(Value::ty).collect();
        if got.len() != want.len() || got.iter().zip(&want).any(|(g, w)| *g != Some(*w)) {
            return Err(fail(EvalErrorKind::ArgumentTypes { want, got }, Some(func)));
        }
        for (&p, a) in lam.params.iter().zip(args) {
            self.env[p.index()] = Some(a.clone());
        }
        let mut budget = Budget { max_elements: self.config.max_elements, fuel: self.config.fuel };
        let out = self.run(func, &mut budget);
        self.fuel_used += self.config.fuel - budget.fuel;
        out
    }

    fn value(&self, s: Sym) -> R<&Value> {
        self.env.get(s.index()).and_then(Option::as_ref).ok_or_else(|| fail(Malformed::Unready, Some(s)))
    }

    fn bind(&mut self, lam: Sym, args: impl IntoIterator<Item = Value>) -> R<()> {
        let Some(l) = self.graph.lambda(lam) else { return Err(fail(Malformed::NotALambda, Some(lam))) };
        let mut n = 0;
        for (&p, a) in l.params.iter().zip(args) {
            self.env[p.index()] = Some(a);
            n += 1;
        }
        if n != l.params.len() {
            return Err(fail(Malformed::CallArity, Some(lam)));
        }
        Ok(())
    }

    fn results(&self, lam: Sym) -> R<Vec<Value>> {
        let l = self.graph.lambda(lam).ok_or_else(|| fail(Malformed::NotALambda, Some(lam)))?;
        l.results.iter().map(|&r| self.value(r).cloned()).collect()
    }

    fn pack(results: Vec<Value>) -> Value {
        if results.len() == 1 {
            results.into_iter().next().unwrap_or(Value::i64(0))
        } else {
            Value::Tuple(results.into())
        }
    }

    fn run(&mut self, func: Sym, budget: &mut Budget) -> R<Vec<Value>> {
        let g = self.graph;
        let mut frames = vec![Frame { lam: func, pos: 0, pending: None }];
        let mut returned: Option<Vec<Value>> = None;
        loop {
            let Some(top) = frames.last_mut() else { return Err(fail(Malformed::NoFrame, None)) };
            let body = self.sched.body(g, top.lam);
            if let Some(results) = returned.take() {
                let node = body[top.pos];
                let call = match top.pending.take() {
                    Some(Pending::Call) => {
                        self.env[node.index()] = Some(Self::pack(results));
                        top.pos += 1;
                        None
                    }
                    Some(Pending::Map { lam, args, n, next, mut out }) => {
                        let r = results.into_iter().next().ok_or_else(|| fail(Malformed::NoResult, Some(node)))?;
                        if !out.push(&r) {
                            return Err(fail(Malformed::MapResultType, Some(node)));
                        }
                        if out.len() as u64 > budget.max_elements {
                            let kind =
                                EvalErrorKind::MapTooLarge { elements: out.len() as u64, limit: budget.max_elements };
                            return Err(fail(kind, Some(node)));
                        }
                        if next + 1 < n {
                            let elems: Vec<Value> = args
                                .iter()
                                .map(|(v, whole)| if *whole { v.clone() } else { element(v, next + 1) })
                                .collect();
                            top.pending = Some(Pending::Map { lam, args, n, next: next + 1, out });
                            Some((lam, elems))
                        } else {
                            self.env[node.index()] = Some(Value::from(out.finish()));
                            top.pos += 1;
                            None
                        }
                    }
                    Some(Pending::While { cond, body: lb, state, in_cond }) => {
                        if in_cond {
                            let go = results.first().and_then(Value::scalar).is_some_and(|c| c.bits() != 0);
                            if go {
                                top.pending =
                                    Some(Pending::While { cond, body: lb, state: state.clone(), in_cond: false });
                                Some((lb, state))
                            } else {
                                self.env[node.index()] = Some(Self::pack(state));
                                top.pos += 1;
                                None
                            }
                        } else {
                            top.pending =
                                Some(Pending::While { cond, body: lb, state: results.clone(), in_cond: true });
                            Some((cond, results))
                        }
                    }
                    None => return Err(fail(Malformed::NoCaller, Some(node))),
                };
                if let Some((callee, args)) = call {
                    budget.burn(1).map_err(|k| fail(k, Some(node)))?;
                    self.bind(callee, args)?;
                    frames.push(Frame { lam: callee, pos: 0, pending: None });
                }
                continue;
            }
            let Some(&sym) = body.get(top.pos) else {
                let lam = top.lam;
                frames.pop();
                let results = self.results(lam)?;
                if frames.is_empty() {
                    return Ok(results);
                }
                returned = Some(results);
                continue;
            };
            budget.burn(1).map_err(|k| fail(k, Some(sym)))?;
            let n = g.data(sym);
            let args = g.args(sym);
            let lam_arg = |i: usize| args.get(i).copied().ok_or_else(|| fail(Malformed::MissingLambda, Some(sym)));
            let call: Option<(Sym, Vec<Value>, Pending)> = match n.op {
                Op::Lambda(_) | Op::Param(_) => {
                    top.pos += 1;
                    continue;
                }
                Op::Const(imm) => {
                    self.env[sym.index()] = Some(Value::Scalar(imm));
                    top.pos += 1;
                    continue;
                }
                Op::Array(i) => {
                    let v = g.array_const(i).cloned().ok_or_else(|| fail(Malformed::NoSuchConstant(i), Some(sym)))?;
                    self.env[sym.index()] = Some(v);
                    top.pos += 1;
                    continue;
                }
                Op::Apply => {
                    let vals = self.values(&args[1..])?;
                    Some((lam_arg(0)?, vals, Pending::Call))
                }
                Op::If => {
                    let c = self.value(args[0])?.scalar().ok_or_else(|| fail(Malformed::Condition, Some(sym)))?;
                    let branch = if c.bits() != 0 { lam_arg(1)? } else { lam_arg(2)? };
                    let vals = self.values(&args[3..])?;
                    Some((branch, vals, Pending::Call))
                }
                Op::While => {
                    let (cond, lb) = (lam_arg(0)?, lam_arg(1)?);
                    let state = self.values(&args[2..])?;
                    Some((cond, state.clone(), Pending::While { cond, body: lb, state, in_cond: true }))
                }
                Op::Map => {
                    let lam = lam_arg(0)?;
                    let mut margs = Vec::with_capacity(args.len() - 1);
                    let mut len: Option<usize> = None;
                    for (i, &a) in args.iter().enumerate().skip(1) {
                        let v = self.value(a)?.clone();
                        let whole = n.is_bcast(i);
                        if !whole {
                            let l =
                                v.array().map(|x| x.len()).ok_or_else(|| fail(Malformed::MapOfNonArray, Some(sym)))?;
                            match len {
                                None => len = Some(l),
                                Some(m) if m == l => {}
                                Some(m) => {
                                    return Err(fail(EvalErrorKind::MapLengths { first: m, other: l }, Some(sym)));
                                }
                            }
                        }
                        margs.push((v, whole));
                    }
                    let count = len.unwrap_or(0);
                    let Some(item) = n.ty.val().and_then(|t| t.element()) else {
                        return Err(fail(Malformed::MapType, Some(sym)));
                    };
                    if count == 0 {
                        self.env[sym.index()] = Some(Value::zero(item.array_of()));
                        top.pos += 1;
                        continue;
                    }
                    let first: Vec<Value> =
                        margs.iter().map(|(v, whole)| if *whole { v.clone() } else { element(v, 0) }).collect();
                    Some((
                        lam,
                        first,
                        Pending::Map { lam, args: margs, n: count, next: 0, out: ArrayBuilder::new(item) },
                    ))
                }
                Op::Get(i) => {
                    let v = match self.value(args[0])? {
                        Value::Tuple(t) => t.get(i as usize).cloned(),
                        _ => None,
                    };
                    let v = v.ok_or_else(|| fail(Malformed::GetOfNonTuple, Some(sym)))?;
                    self.env[sym.index()] = Some(v);
                    top.pos += 1;
                    continue;
                }
                op => {
                    let Some(result) = n.ty.val() else {
                        return Err(fail(Malformed::NonValuePrimitive, Some(sym)));
                    };
                    let vals: Vec<Value> = self.values(args)?;
                    let largs: Vec<LiftArg<'_>> =
                        vals.iter().enumerate().map(|(i, v)| LiftArg { value: v, same: n.is_bcast(i) }).collect();
                    let mask = match n.mask {
                        Some(m) => Some(self.value(m)?.clone()),
                        None => None,
                    };
                    let v = prims::lifted(op, n.depth, &largs, mask.as_ref(), result, budget)
                        .map_err(|kind| EvalError { sym: Some(sym), prim: Some((op.prim(), n.depth)), kind })?;
                    if v.ty() != Some(result) {
                        return Err(fail(Malformed::WrongResult(result), Some(sym)));
                    }
                    self.env[sym.index()] = Some(v);
                    top.pos += 1;
                    continue;
                }
            };
            if let Some((callee, vals, pending)) = call {
                budget.burn(1).map_err(|k| fail(k, Some(sym)))?;
                let top = frames.last_mut().expect("the caller");
                top.pending = Some(pending);
                self.bind(callee, vals)?;
                frames.push(Frame { lam: callee, pos: 0, pending: None });
            }
        }
    }

    fn values(&self, syms: &[Sym]) -> R<Vec<Value>> {
        syms.iter().map(|&s| self.value(s).cloned()).collect()
    }
}

fn element(v: &Value, i: usize) -> Value {
    match v {
        Value::Array(a) => a.item(1, i),
        other => other.clone(),
    }
}

/// Evaluates function `func` of `graph` on `args` (a fresh evaluator).
pub fn eval(graph: &Graph, func: Sym, args: &[Value], config: EvalConfig) -> Result<Vec<Value>, EvalError> {
    Evaluator::new(graph, config)?.call(func, args)
}
