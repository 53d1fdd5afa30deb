//! The graph interpreter and the staged evaluator (source document 003,
//! figures 7 and 8; `docs/references.md`): lambda frames on an explicit
//! stack, the context, rule dispatch, template instantiation with the
//! alignment of arguments, and the helpers every rule shares (lane count,
//! guard, broadcasting, spreading a value along a deeper structure).

use super::config::{Stats, VectorizeConfig};
use super::error::{VectorizeError, VectorizeErrorKind};
use super::stage::Stage;
use crate::bits::Bits;
use crate::graph::{Arg, Graph, Sym};
use crate::ops::{Op, Prim};
use crate::planted::{Bug, planted};
use crate::purity::Purity;
use crate::rules::{RuleBody, RuleSet, StageError};
use crate::scalar::{BinaryOp, Imm, IntCC, ScalarTy};
use crate::schedule::Schedule;
use crate::types::{NodeTy, ValTy};
use crate::uniform::Uniformity;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A vectorized value: its symbol in the output graph, and whether it is
/// batched (one value per lane) or the same in every lane.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) struct VSym {
    pub sym: Sym,
    pub batched: bool,
}

/// How a lambda is vectorized.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum Mode {
    /// Every lane active; lanes > 0 guards nodes the same in every lane.
    Lanes,
    /// A mask param after the original params says which lanes are
    /// active.
    Masked,
    /// Not a lane level: a lambda called per element by a `map` that is
    /// the same in every lane (which runs only when some lane is active),
    /// copied as it is.
    Plain,
}

/// What identifies a vectorized lambda.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) struct LamKey {
    pub lam: Sym,
    /// The output lambda whose body will hold `/l/` (`None`: the root).
    pub scope: Option<Sym>,
    pub pattern: Bits,
    pub mode: Mode,
    /// Results that must be batched (broadcast if the same in every lane).
    pub force: Bits,
}

/// A vectorized lambda.
#[derive(Clone, Debug)]
pub(super) struct LamDone {
    pub out: Sym,
    pub mode: Mode,
    pub results: Bits,
    pub nresults: usize,
    pub lanes_param: bool,
}

/// A lambda being vectorized.
#[derive(Debug)]
pub(super) struct Frame {
    pub key: LamKey,
    pub out: Sym,
    pub pos: usize,
    pub mask: Option<Sym>,
    lanes: Option<Sym>,
    guard: Option<Sym>,
    pub lanes_param: bool,
    witness: Option<Sym>,
    /// Lambdas a strategy created for the node in progress.
    pub wrappers: Vec<Sym>,
}

/// The outcome of one attempt at a node.
pub(super) enum Step {
    Done,
    Need(LamKey),
}

pub(super) type R<T> = Result<T, VectorizeError>;

/// Node construction's result: [`StageError`] until a node of the input
/// graph is named (strategies lift it into a [`VectorizeError`] with `?`;
/// templates report it inside the rule's error).
pub(super) type B<T> = Result<T, StageError>;

pub(super) struct Engine<'a> {
    pub src: &'a Graph,
    pub sched: &'a Schedule,
    pub purity: &'a Purity,
    pub uni: Uniformity<'a>,
    pub rules: Arc<RuleSet>,
    /// Planted bug [`Bug::LoopRunsFinishedLanes`], read once per run.
    pub run_finished_lanes: bool,
    /// Planted bug [`Bug::SelectSwapsBranches`], read once per run.
    pub swap_branches: bool,
    pub st: Stage,
    ctx: Vec<VSym>,
    tuples: FxHashMap<Sym, Vec<VSym>>,
    memo: FxHashMap<LamKey, LamDone>,
    pub frames: Vec<Frame>,
}

/// Arguments of `op` that hold values (not lambdas).
pub(super) fn value_args(op: Op, args: &[Sym]) -> impl Iterator<Item = Sym> + '_ {
    let (head, rest): (&[Sym], &[Sym]) = match op {
        Op::Map | Op::Apply => (&[], &args[1..]),
        Op::If => (&args[..1], &args[3..]),
        Op::While => (&[], &args[2..]),
        _ => (&[], args),
    };
    head.iter().chain(rest).copied()
}

impl<'a> Engine<'a> {
    pub fn new(
        src: &'a Graph,
        sched: &'a Schedule,
        purity: &'a Purity,
        uni: Uniformity<'a>,
        rules: Arc<RuleSet>,
        config: &VectorizeConfig,
    ) -> Engine<'a> {
        Engine {
            src,
            sched,
            purity,
            uni,
            st: Stage::new(Arc::clone(&rules), config.max_rewrites, config.max_nodes, src.len() + src.len() / 4),
            rules,
            run_finished_lanes: planted(Bug::LoopRunsFinishedLanes),
            swap_branches: planted(Bug::SelectSwapsBranches),
            ctx: vec![VSym { sym: Sym::from_index(0), batched: false }; src.len()],
            tuples: FxHashMap::default(),
            memo: FxHashMap::default(),
            frames: Vec::new(),
        }
    }

    pub fn stats(&self) -> Stats {
        self.st.stats.clone()
    }

    pub fn into_graph(self) -> Graph {
        self.st.g
    }

    pub fn error(&self, kind: VectorizeErrorKind, node: Option<Sym>) -> VectorizeError {
        VectorizeError { kind, sym: node }
    }

    /// Builds a node in the current frame's body.
    pub fn build(&mut self, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>) -> B<Sym> {
        let scope = self.frame().out;
        self.build_in(scope, op, depth, args, mask, None)
    }

    /// Builds a node in the body of `scope`.
    pub fn build_in(
        &mut self,
        scope: Sym,
        op: Op,
        depth: u32,
        args: &[Arg],
        mask: Option<Sym>,
        target: Option<ScalarTy>,
    ) -> B<Sym> {
        self.st.build(scope, op, depth, args, mask, target)
    }

    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("a frame is open")
    }

    fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame is open")
    }

    pub fn vsym(&self, s: Sym) -> VSym {
        self.ctx[s.index()]
    }

    pub fn set(&mut self, s: Sym, v: VSym) {
        self.ctx[s.index()] = v;
        // Keep the original's name on a fresh node of this body.
        if let Some(name) = self.src.name(s) {
            let out = self.frame().out;
            if self.st.g.name(v.sym).is_none()
                && self.st.g.node(v.sym).is_some_and(|n| n.scope == Some(out) && !matches!(n.op, Op::Param(_)))
            {
                let _ = self.st.g.set_name(v.sym, name);
            }
        }
    }

    pub fn set_tuple(&mut self, s: Sym, parts: Vec<VSym>) {
        if parts.len() == 1 {
            self.set(s, parts[0]);
        } else {
            self.tuples.insert(s, parts);
        }
    }

    /// The memoized vectorized lambda for `key`, if built.
    pub fn done(&self, key: &LamKey) -> Option<LamDone> {
        self.memo.get(key).cloned()
    }

    /// Vectorizes function `func` under `in_axes`; returns `/p/`.
    pub fn run(&mut self, func: Sym, name: &str, in_axes: &[bool]) -> R<Sym> {
        let nresults = self.src.lambda(func).map_or(0, |l| l.results.len());
        let key = LamKey {
            lam: func,
            scope: None,
            pattern: Bits::from_flags(in_axes.iter().copied()),
            mode: Mode::Lanes,
            force: Bits::all(nresults),
        };
        self.push_frame(key, Some(name))?;
        loop {
            let (lam, pos) = (self.frame().key.lam, self.frame().pos);
            let body = self.sched.body(self.src, lam);
            let Some(&node) = body.get(pos) else {
                let done = self.finish_frame()?;
                if self.frames.is_empty() {
                    return Ok(done.out);
                }
                continue;
            };
            match self.step(node)? {
                Step::Done => {
                    let f = self.frame_mut();
                    f.pos += 1;
                    f.wrappers.clear();
                }
                Step::Need(key) => self.push_frame(key, None)?,
            }
        }
    }

    fn push_frame(&mut self, key: LamKey, name: Option<&str>) -> R<()> {
        let src = self.src;
        let lam = src.lambda(key.lam).ok_or_else(|| self.error(VectorizeErrorKind::NotALambda, Some(key.lam)))?;
        let types: Vec<ValTy> = lam
            .params
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let t = src.val_ty(p).unwrap_or(ValTy::scalar(ScalarTy::I1));
                if key.pattern.contains(i) { t.array_of() } else { t }
            })
            .collect();
        let out = match (key.scope, name) {
            (Some(scope), _) => self.st.g.add_lambda(scope, &types),
            (None, Some(n)) => {
                self.st.g.add_function(n, &types).map_err(|e| self.error(VectorizeErrorKind::Name(e), None))?
            }
            (None, None) => return Err(self.error(VectorizeErrorKind::NoScope, None)),
        };
        let out_params = self.st.g.lambda(out).map_or_else(Vec::new, |l| l.params.clone());
        let mask = (key.mode == Mode::Masked).then(|| self.st.g.add_param(out, ValTy::array(ScalarTy::I1, 1)));
        let mut witness = None;
        for (i, (&p, &q)) in lam.params.iter().zip(&out_params).enumerate() {
            let batched = key.pattern.contains(i);
            if batched && witness.is_none() {
                witness = Some(q);
            }
            self.ctx[p.index()] = VSym { sym: q, batched };
            if let Some(n) = src.name(p) {
                let _ = self.st.g.set_name(q, n);
            }
        }
        self.st.stats.lambdas += 1;
        self.frames.push(Frame {
            key,
            out,
            pos: 0,
            mask,
            lanes: None,
            guard: None,
            lanes_param: false,
            witness: mask.or(witness),
            wrappers: Vec::new(),
        });
        Ok(())
    }

    fn finish_frame(&mut self) -> R<LamDone> {
        let key = self.frame().key.clone();
        let results = self.src.lambda(key.lam).map_or_else(Vec::new, |l| l.results.clone());
        let mut syms = Vec::with_capacity(results.len());
        let mut flags = Vec::with_capacity(results.len());
        for (j, &r) in results.iter().enumerate() {
            let mut v = self.vsym(r);
            if key.force.contains(j) && !v.batched {
                v = VSym { sym: self.materialize(v.sym)?, batched: true };
            }
            syms.push(v.sym);
            flags.push(v.batched);
        }
        let f = self.frames.pop().expect("a frame");
        self.st.g.set_results(f.out, &syms);
        let done = LamDone {
            out: f.out,
            mode: key.mode,
            results: Bits::from_flags(flags),
            nresults: results.len(),
            lanes_param: f.lanes_param,
        };
        self.memo.insert(key, done.clone());
        Ok(done)
    }

    /// The number of lanes of the current frame (an `i64`).
    pub fn lanes(&mut self) -> B<Sym> {
        if let Some(l) = self.frame().lanes {
            return Ok(l);
        }
        let f = self.frame();
        if f.key.mode == Mode::Plain {
            return Err(StageError::BatchedInPlainLambda);
        }
        let l = match f.witness {
            Some(w) => self.build(Op::Length, 0, &[Arg::mapped(w)], None)?,
            None => {
                let out = f.out;
                let p = self.st.g.add_param(out, ValTy::scalar(ScalarTy::I64));
                self.frame_mut().lanes_param = true;
                p
            }
        };
        self.frame_mut().lanes = Some(l);
        Ok(l)
    }

    /// True when some lane of the current frame is active (an `i1`);
    /// `None` in a per-element lambda, which runs only when some lane is.
    pub fn guard(&mut self) -> B<Option<Sym>> {
        if let Some(g) = self.frame().guard {
            return Ok(Some(g));
        }
        let g = match (self.frame().key.mode, self.frame().mask) {
            (Mode::Plain, _) => return Ok(None),
            (Mode::Masked, Some(m)) => self.build(Op::Any, 0, &[Arg::mapped(m)], None)?,
            _ => {
                let n = self.lanes()?;
                let zero = self.constant(Imm::int(ScalarTy::I64, 0))?;
                self.build(Op::Setp(IntCC::Sgt), 0, &[Arg::mapped(n), Arg::mapped(zero)], None)?
            }
        };
        self.frame_mut().guard = Some(g);
        Ok(Some(g))
    }

    pub fn constant(&mut self, imm: Imm) -> B<Sym> {
        self.build(Op::Const(imm), 0, &[], None)
    }

    /// A value the same in every lane, as one value per lane.
    pub fn materialize(&mut self, v: Sym) -> B<Sym> {
        let n = self.lanes()?;
        self.build(Op::Broadcast, 0, &[Arg::mapped(v), Arg::mapped(n)], None)
    }

    /// `v` (batched, depth 1 over its items) repeated along levels
    /// `2 ..= levels + 1` of `like`, so that it has `like`'s outer
    /// `levels + 1` levels.
    pub fn spread(&mut self, mut v: Sym, like: Sym, levels: u32) -> B<Sym> {
        for i in 1..=levels {
            let n = self.build(Op::Length, i, &[Arg::mapped(like)], None)?;
            v = self.build(Op::Broadcast, i, &[Arg::mapped(v), Arg::mapped(n)], None)?;
        }
        Ok(v)
    }

    /// `and` of two `i1` values lifted to `depth`, the second perhaps a
    /// scalar the same in every lane.
    pub fn and(&mut self, a: Sym, b: Sym, depth: u32) -> B<Sym> {
        let b_same = depth > 0 && self.st.g.val_ty(b).is_some_and(|t| t.depth == 0);
        self.build(Op::Binary(BinaryOp::And), depth, &[Arg::mapped(a), Arg { sym: b, bcast: b_same }], None)
    }

    /// One attempt at `node`.
    fn step(&mut self, node: Sym) -> R<Step> {
        let src = self.src;
        let n = src.data(node);
        let args = src.args(node);
        match n.op {
            Op::Lambda(_) | Op::Param(_) => return Ok(Step::Done),
            Op::Const(_) | Op::Array(_) => {
                let op = match n.op {
                    Op::Array(i) => {
                        let v = src
                            .array_const(i)
                            .cloned()
                            .ok_or_else(|| self.error(VectorizeErrorKind::NoSuchConstant(i), Some(node)))?;
                        Op::Array(self.st.g.add_array_const(v))
                    }
                    op => op,
                };
                let s = self.build(op, 0, &[], None)?;
                self.st.stats.copied += 1;
                self.set(node, VSym { sym: s, batched: false });
                return Ok(Step::Done);
            }
            Op::Get(i) => {
                let parts = self.tuples.get(&args[0]).cloned();
                let Some(v) = parts.and_then(|p| p.get(i as usize).copied()) else {
                    return Err(self.error(VectorizeErrorKind::GetOfNonTuple, Some(node)));
                };
                if v.batched && self.rules.rule(Prim::Get).is_none() {
                    return Err(self.error(VectorizeErrorKind::NoRule(Prim::Get), Some(node)));
                }
                self.set(node, v);
                return Ok(Step::Done);
            }
            _ => {}
        }
        let batched =
            value_args(n.op, args).any(|a| self.vsym(a).batched) || n.mask.is_some_and(|m| self.vsym(m).batched);
        if !batched {
            return self.uniform(node);
        }
        let prim = n.op.prim();
        let Some(rule) = self.rules.rule(prim) else {
            return Err(self.error(VectorizeErrorKind::NoRule(prim), Some(node)));
        };
        let body = rule.body.clone();
        match body {
            RuleBody::Template(f) => {
                self.st.stats.rules_applied += 1;
                self.template(node, &f, prim)?;
                Ok(Step::Done)
            }
            RuleBody::Strategy(s) => {
                let step = self.strategy(node, s)?;
                if matches!(step, Step::Done) {
                    self.st.stats.rules_applied += 1;
                }
                Ok(step)
            }
        }
    }

    /// A node whose inputs are all the same in every lane: copied
    /// (guarded if it may trap), or its lambdas vectorized unbatched.
    fn uniform(&mut self, node: Sym) -> R<Step> {
        let src = self.src;
        let n = src.data(node);
        match n.op {
            Op::Map => return self.uniform_map(node),
            Op::Apply => return self.call(node),
            Op::If => return self.branch(node, false),
            Op::While => return self.repeat(node),
            _ => {}
        }
        let args: Vec<Arg> = src
            .args(node)
            .iter()
            .enumerate()
            .map(|(i, &a)| Arg { sym: self.vsym(a).sym, bcast: n.is_bcast(i) })
            .collect();
        let mut mask = n.mask.map(|m| self.vsym(m).sym);
        if self.purity.node_may_trap(src, node)
            && let Some(g) = self.guard()?
        {
            mask = Some(match mask {
                None => g,
                Some(m) => {
                    let j = self.st.g.val_ty(m).map_or(0, |t| t.depth);
                    self.and(m, g, j)?
                }
            });
        }
        let target = n.ty.val().map(|t| t.scalar);
        let scope = self.frame().out;
        let s = self
            .build_in(scope, n.op, n.depth, &args, mask, target)
            .map_err(|e| VectorizeError::new(VectorizeErrorKind::Build(e), Some(node)))?;
        self.st.stats.copied += 1;
        self.set(node, VSym { sym: s, batched: false });
        Ok(Step::Done)
    }
}

impl NodeTy {
    /// The number of values a node of this type holds (tuples: several).
    pub(crate) fn arity(&self) -> usize {
        match self {
            NodeTy::Tuple(t) => t.len(),
            _ => 1,
        }
    }
}
