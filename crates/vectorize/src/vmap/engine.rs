//! The graph interpreter and the staged evaluator (figures 7 and 8): lambda
//! frames on an explicit stack, the context, rule dispatch, template
//! instantiation with the alignment of arguments, and the helpers every
//! rule shares (lane count, guard, broadcasting, spreading a value along a
//! deeper structure).

use super::stage::{Stage, literal_type};
use super::{Plant, Stats, VectorizeConfig, VectorizeError, VectorizeErrorKind};
use crate::bits::Bits;
use crate::graph::{Arg, Graph, Sym};
use crate::ops::{Op, Prim};
use crate::purity::Purity;
use crate::rules::{RuleBody, RuleSet, Slot, StagedFn, Stager};
use crate::schedule::Schedule;
use crate::types::{NodeTy, ValTy};
use crate::uniform::Uniformity;
use ir_core::{Imm, IntCC, Opcode, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
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

pub(super) struct Engine<'a> {
    pub src: &'a Graph,
    pub sched: &'a Schedule,
    pub purity: &'a Purity,
    pub uni: Uniformity<'a>,
    pub rules: Arc<RuleSet>,
    pub plant: Option<Plant>,
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
            plant: config.plant,
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

    pub fn error(&self, kind: VectorizeErrorKind, node: Option<Sym>, message: impl Into<String>) -> VectorizeError {
        VectorizeError { kind, sym: node, message: message.into() }
    }

    /// Builds a node in the current frame's body.
    pub fn build(&mut self, op: Op, depth: u32, args: &[Arg], mask: Option<Sym>) -> R<Sym> {
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
        target: Option<Type>,
    ) -> R<Sym> {
        self.st.build(scope, op, depth, args, mask, target).map_err(|m| {
            let kind = if m.contains("exceed") { VectorizeErrorKind::Limit } else { VectorizeErrorKind::Rule };
            self.error(kind, None, m)
        })
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
        let lam = src
            .lambda(key.lam)
            .ok_or_else(|| self.error(VectorizeErrorKind::Invalid, Some(key.lam), "not a lambda"))?;
        let types: Vec<ValTy> = lam
            .params
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let t = src.val_ty(p).unwrap_or(ValTy::scalar(Type::I1));
                if key.pattern.contains(i) { t.array_of() } else { t }
            })
            .collect();
        let out = match (key.scope, name) {
            (Some(scope), _) => self.st.g.add_lambda(scope, &types),
            (None, Some(n)) => {
                self.st.g.add_function(n, &types).map_err(|e| self.error(VectorizeErrorKind::Invalid, None, e.0))?
            }
            (None, None) => return Err(self.error(VectorizeErrorKind::Invalid, None, "a lambda with no scope")),
        };
        let out_params = self.st.g.lambda(out).map_or_else(Vec::new, |l| l.params.clone());
        let mask = (key.mode == Mode::Masked).then(|| self.st.g.add_param(out, ValTy::array(Type::I1, 1)));
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
    pub fn lanes(&mut self) -> R<Sym> {
        if let Some(l) = self.frame().lanes {
            return Ok(l);
        }
        let f = self.frame();
        if f.key.mode == Mode::Plain {
            return Err(self.error(VectorizeErrorKind::Rule, None, "a batched value inside a per-element lambda"));
        }
        let l = match f.witness {
            Some(w) => self.build(Op::Length, 0, &[Arg::mapped(w)], None)?,
            None => {
                let out = f.out;
                let p = self.st.g.add_param(out, ValTy::scalar(Type::I64));
                self.frame_mut().lanes_param = true;
                p
            }
        };
        self.frame_mut().lanes = Some(l);
        Ok(l)
    }

    /// True when some lane of the current frame is active (an `i1`);
    /// `None` in a per-element lambda, which runs only when some lane is.
    pub fn guard(&mut self) -> R<Option<Sym>> {
        if let Some(g) = self.frame().guard {
            return Ok(Some(g));
        }
        let g = match (self.frame().key.mode, self.frame().mask) {
            (Mode::Plain, _) => return Ok(None),
            (Mode::Masked, Some(m)) => self.build(Op::Any, 0, &[Arg::mapped(m)], None)?,
            _ => {
                let n = self.lanes()?;
                let zero = self.constant(Imm::int(Type::I64, 0))?;
                self.build(Op::Setp(IntCC::Sgt), 0, &[Arg::mapped(n), Arg::mapped(zero)], None)?
            }
        };
        self.frame_mut().guard = Some(g);
        Ok(Some(g))
    }

    pub fn constant(&mut self, imm: Imm) -> R<Sym> {
        self.build(Op::Const(imm), 0, &[], None)
    }

    /// A value the same in every lane, as one value per lane.
    pub fn materialize(&mut self, v: Sym) -> R<Sym> {
        let n = self.lanes()?;
        self.build(Op::Broadcast, 0, &[Arg::mapped(v), Arg::mapped(n)], None)
    }

    /// `v` (batched, depth 1 over its items) repeated along levels
    /// `2 ..= levels + 1` of `like`, so that it has `like`'s outer
    /// `levels + 1` levels.
    pub fn spread(&mut self, mut v: Sym, like: Sym, levels: u32) -> R<Sym> {
        for i in 1..=levels {
            let n = self.build(Op::Length, i, &[Arg::mapped(like)], None)?;
            v = self.build(Op::Broadcast, i, &[Arg::mapped(v), Arg::mapped(n)], None)?;
        }
        Ok(v)
    }

    /// `and` of two `i1` values lifted to `depth`, the second perhaps a
    /// scalar the same in every lane.
    pub fn and(&mut self, a: Sym, b: Sym, depth: u32) -> R<Sym> {
        let b_same = depth > 0 && self.st.g.val_ty(b).is_some_and(|t| t.depth == 0);
        self.build(Op::Binary(Opcode::And), depth, &[Arg::mapped(a), Arg { sym: b, bcast: b_same }], None)
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
                            .ok_or_else(|| self.error(VectorizeErrorKind::Invalid, Some(node), "no such constant"))?;
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
                    return Err(self.error(
                        VectorizeErrorKind::Invalid,
                        Some(node),
                        "`get` of something that is not a tuple",
                    ));
                };
                if v.batched && self.rules.rule(Prim::Get).is_none() {
                    return Err(self.error(
                        VectorizeErrorKind::NoRule(Prim::Get),
                        Some(node),
                        "no rule for `get`: there is no fallback",
                    ));
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
            return Err(self.error(
                VectorizeErrorKind::NoRule(prim),
                Some(node),
                format!("no rule for `{prim}`: there is no fallback"),
            ));
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
            .map_err(|e| VectorizeError { sym: Some(node), ..e })?;
        self.st.stats.copied += 1;
        self.set(node, VSym { sym: s, batched: false });
        Ok(Step::Done)
    }

    /// The mask a template's trapping nodes carry: the node's own mask
    /// (lifted) and, in a masked frame, the frame's mask if the node may
    /// trap.
    fn template_mask(&mut self, node: Sym) -> R<Option<Sym>> {
        let src = self.src;
        let n = src.data(node);
        let own = match n.mask {
            None => None,
            Some(m) => {
                // A mask the same in every lane becomes one per lane: a
                // scalar mask on a lifted node would blank the whole value.
                let v = self.vsym(m);
                Some(if v.batched { v.sym } else { self.materialize(v.sym)? })
            }
        };
        let frame_mask = if self.frame().key.mode == Mode::Masked && self.purity.node_may_trap(src, node) {
            self.frame().mask
        } else {
            None
        };
        Ok(match (own, frame_mask) {
            (None, None) => None,
            (Some(x), None) => Some(x),
            (None, Some(m)) => Some(m),
            (Some(x), Some(m)) => {
                let j = self.st.g.val_ty(x).map_or(0, |t| t.depth);
                if j == 0 {
                    Some(self.and(m, x, 1)?)
                } else {
                    let spread = self.spread(m, x, j - 1)?;
                    Some(self.and(x, spread, j)?)
                }
            }
        })
    }

    fn template(&mut self, node: Sym, f: &StagedFn, prim: Prim) -> R<()> {
        let mask = self.template_mask(node)?;
        let k = self.src.data(node).depth;
        let mut t = Tpl { eng: self, node, k, mask, slots: SmallVec::new() };
        let out = f(&mut t).and_then(|slot| t.result(slot));
        let v = out.map_err(|m| {
            let text = self.rules.rule(prim).map_or("", |r| r.text.as_str());
            self.error(VectorizeErrorKind::Rule, Some(node), format!("the rule `{text}` failed: {m}"))
        })?;
        self.set(node, v);
        Ok(())
    }
}

/// A value on a template's stack.
#[derive(Clone, Debug)]
enum TVal {
    /// The rule's variable `i`: the node's argument `i`, vectorized.
    Orig(usize),
    /// A node the template built (batched).
    Lifted(Sym),
    /// A node the template built from values the same in every lane: not
    /// lifted (JAX does not batch a primitive with no batched input).
    Same(Sym),
    /// A literal, typed where it is used.
    Lit(String),
}

/// Runs a template for one node.
struct Tpl<'e, 'a> {
    eng: &'e mut Engine<'a>,
    node: Sym,
    k: u32,
    mask: Option<Sym>,
    slots: SmallVec<[TVal; 4]>,
}

/// An argument after alignment.
enum Aligned {
    Mapped(Sym),
    Same(Sym),
    Spread(Sym),
}

impl Tpl<'_, '_> {
    fn push(&mut self, v: TVal) -> Slot {
        self.slots.push(v);
        Slot(self.slots.len() as u32 - 1)
    }

    /// Aligns argument `j` of the original node for its lifted version.
    fn align(&mut self, j: usize) -> Result<Aligned, String> {
        let src = self.eng.src;
        let n = src.data(self.node);
        let a = *src.args(self.node).get(j).ok_or("no such argument")?;
        let same = self.k > 0 && n.is_bcast(j);
        let v = self.eng.vsym(a);
        Ok(match (v.batched, same) {
            (true, false) => Aligned::Mapped(v.sym),
            (true, true) => Aligned::Spread(v.sym),
            (false, true) => Aligned::Same(v.sym),
            (false, false) if self.k == 0 => Aligned::Same(v.sym),
            (false, false) => Aligned::Mapped(self.eng.materialize(v.sym).map_err(|e| e.message)?),
        })
    }

    fn result(&mut self, slot: Slot) -> Result<VSym, String> {
        let src = self.eng.src;
        let want = src.data(self.node).ty.val().ok_or("a rule for a node that is not a value")?;
        let (v, ok) = match self.slots.get(slot.0 as usize).cloned() {
            Some(TVal::Lifted(s)) => {
                let t = self.eng.st.g.val_ty(s);
                (VSym { sym: s, batched: true }, t == Some(want.array_of()))
            }
            Some(TVal::Orig(j)) => {
                let v = self.eng.vsym(src.args(self.node)[j]);
                let t = self.eng.st.g.val_ty(v.sym);
                (v, t == Some(if v.batched { want.array_of() } else { want }))
            }
            Some(TVal::Same(s)) => {
                let t = self.eng.st.g.val_ty(s);
                (VSym { sym: s, batched: false }, t == Some(want))
            }
            _ => return Err("the rule produced a literal".into()),
        };
        if !ok {
            return Err(format!(
                "it produced a {} where a {} was needed",
                self.eng.st.g.val_ty(v.sym).map_or("?".into(), |t| t.to_string()),
                want.array_of()
            ));
        }
        Ok(v)
    }
}

impl Tpl<'_, '_> {
    /// `op` at the node's own depth on values the same in every lane
    /// (guarded if it may trap).
    fn unlifted(&mut self, op: Op, prim: Prim, args: &[Slot], target: Option<Type>) -> Result<Slot, String> {
        let src = self.eng.src;
        let n = src.data(self.node);
        let scalars: Vec<Option<Type>> = args
            .iter()
            .map(|s| match &self.slots[s.0 as usize] {
                TVal::Orig(j) => self.eng.st.g.val_ty(self.eng.vsym(src.args(self.node)[*j]).sym).map(|t| t.scalar),
                TVal::Same(x) | TVal::Lifted(x) => self.eng.st.g.val_ty(*x).map(|t| t.scalar),
                TVal::Lit(_) => None,
            })
            .collect();
        let mut built = Vec::with_capacity(args.len());
        for (i, s) in args.iter().enumerate() {
            built.push(match self.slots[s.0 as usize].clone() {
                TVal::Orig(j) => {
                    Arg { sym: self.eng.vsym(src.args(self.node)[j]).sym, bcast: self.k > 0 && n.is_bcast(j) }
                }
                TVal::Same(x) | TVal::Lifted(x) => Arg::mapped(x),
                TVal::Lit(text) => {
                    let t = literal_type(prim, i, &scalars).ok_or("a literal whose type cannot be inferred")?;
                    let imm = ir_core::parse_literal(&text, t).map_err(|e| e.0)?;
                    let c = self.eng.constant(imm).map_err(|e| e.message)?;
                    Arg { sym: c, bcast: self.k > 0 }
                }
            });
        }
        let mask = if op.traps() && op.maskable() { self.eng.guard().map_err(|e| e.message)? } else { None };
        let scope = self.eng.frame().out;
        let s = self.eng.st.build(scope, op, self.k, &built, mask, target)?;
        Ok(self.push(TVal::Same(s)))
    }
}

impl Stager for Tpl<'_, '_> {
    fn var(&mut self, i: usize) -> Result<Slot, String> {
        Ok(self.push(TVal::Orig(i)))
    }

    fn literal(&mut self, text: &str) -> Result<Slot, String> {
        Ok(self.push(TVal::Lit(text.to_string())))
    }

    fn apply(&mut self, prim: Prim, lift: bool, args: &[Slot], root: bool) -> Result<Slot, String> {
        if !lift {
            return Err("a vectorization rule builds lifted values only".into());
        }
        let src = self.eng.src;
        let n = src.data(self.node);
        let op =
            if prim == n.op.prim() { n.op } else { prim.op().ok_or("this primitive cannot be built by a rule")? };
        let target = match op {
            Op::Convert(_) => n.ty.val().map(|t| t.scalar),
            _ => None,
        };
        // No batched input: build it unlifted (unless the node is batched
        // only through its mask, which its root must then carry).
        let batched = |t: &TVal, e: &Engine<'_>| match t {
            TVal::Orig(j) => e.vsym(src.args(self.node)[*j]).batched,
            TVal::Lifted(_) => true,
            TVal::Same(_) | TVal::Lit(_) => false,
        };
        let mask_batched = n.mask.is_some_and(|m| self.eng.vsym(m).batched);
        if !(args.iter().any(|s| batched(&self.slots[s.0 as usize], self.eng)) || root && mask_batched) {
            return self.unlifted(op, prim, args, target);
        }
        let mut aligned: SmallVec<[Option<Aligned>; 4]> = SmallVec::new();
        for s in args {
            aligned.push(match self.slots[s.0 as usize].clone() {
                TVal::Orig(j) => Some(self.align(j)?),
                TVal::Lifted(x) => Some(Aligned::Mapped(x)),
                TVal::Same(x) if self.k == 0 => Some(Aligned::Same(x)),
                TVal::Same(x) => Some(Aligned::Mapped(self.eng.materialize(x).map_err(|e| e.message)?)),
                TVal::Lit(_) => None,
            });
        }
        // Batched only through its mask: one argument must still be mapped.
        if self.k == 0
            && !aligned.iter().any(|a| matches!(a, Some(Aligned::Mapped(_))))
            && let Some(a) = aligned.iter_mut().find(|a| matches!(a, Some(Aligned::Same(_))))
            && let Some(Aligned::Same(x)) = *a
        {
            *a = Some(Aligned::Mapped(self.eng.materialize(x).map_err(|e| e.message)?));
        }
        let reference = aligned.iter().find_map(|a| match a {
            Some(Aligned::Mapped(x)) => Some(*x),
            _ => None,
        });
        let scalars: SmallVec<[Option<Type>; 4]> = args
            .iter()
            .zip(&aligned)
            .map(|(s, a)| match (a, &self.slots[s.0 as usize]) {
                (Some(Aligned::Mapped(x) | Aligned::Same(x) | Aligned::Spread(x)), _) => {
                    self.eng.st.g.val_ty(*x).map(|t| t.scalar)
                }
                _ => None,
            })
            .collect();
        let mut built: SmallVec<[Arg; 4]> = SmallVec::new();
        for (i, (s, a)) in args.iter().zip(aligned).enumerate() {
            built.push(match a {
                Some(Aligned::Mapped(x)) => Arg::mapped(x),
                Some(Aligned::Same(x)) => Arg::same(x),
                Some(Aligned::Spread(x)) => {
                    let like = reference.ok_or("an unmapped batched argument with nothing mapped to follow")?;
                    Arg::mapped(self.eng.spread(x, like, self.k).map_err(|e| e.message)?)
                }
                None => {
                    let TVal::Lit(text) = self.slots[s.0 as usize].clone() else { return Err("a literal".into()) };
                    let t = literal_type(prim, i, &scalars).ok_or("a literal whose type cannot be inferred")?;
                    let imm = ir_core::parse_literal(&text, t).map_err(|e| e.0)?;
                    let c = self.eng.constant(imm).map_err(|e| e.message)?;
                    Arg { sym: c, bcast: true }
                }
            });
        }
        let traps = op.traps() || (root && (n.mask.is_some() || self.eng.purity.node_may_trap(src, self.node)));
        let mask = if traps && op.maskable() { self.mask } else { None };
        let scope = self.eng.frame().out;
        let s = self.eng.st.build(scope, op, self.k + 1, &built, mask, target)?;
        Ok(self.push(TVal::Lifted(s)))
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
