//! Node construction for the vectorized graph: every node the vectorizer
//! builds goes through [`Stage::build`], which types it, applies the
//! optimisation rules to it *before* it exists (source document 003's
//! figure 11, `docs/references.md`: `rewrite(newsym)` on each new node),
//! and shares it with an identical node already built (hash-consing).
//!
//! Rewriting: the rules rooted at the node's primitive are tried in file
//! order; the first whose pattern matches the candidate and the existing
//! nodes below it, and whose output has the candidate's type, replaces the
//! candidate (its output nodes are built through `build` too, so they are
//! rewritten in turn). An output of another type is rolled back, as if the
//! rule had not matched. Masked nodes are never rewritten or matched.
//! Rewriting nests at most [`MAX_REWRITE_DEPTH`] deep and at most
//! [`crate::VectorizeConfig::max_rewrites`] times per vectorization (the
//! runner limits of egg, M. Willsey et al., "egg: fast and extensible
//! equality saturation", POPL 2021; `docs/references.md`); past either
//! limit nodes are built as they are and
//! [`crate::Stats::rewrite_limit_hit`] records the stop.
//!
//! Invariants: a node is built only once its type checks ([`infer`]);
//! rewriting never changes a value (each default rule holds bit for bit;
//! user rules are the user's claim, which the oracle tests check) and
//! never removes a node that was already built, so every trap of the
//! unrewritten graph is still there (evaluation is strict).

use super::config::Stats;
use crate::graph::{Arg, Graph, NewNode, Sym};
use crate::infer::{flags_for, infer};
use crate::ops::{Op, Prim};
use crate::rules::{OptRule, Pat, RuleSet, Slot, StageError, Stager};
use crate::scalar::{Imm, ScalarTy};
use crate::types::{NodeTy, ValTy};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::Arc;

/// Deepest nesting of rewrites inside rewrites.
pub const MAX_REWRITE_DEPTH: u32 = 8;

#[derive(Clone, PartialEq, Eq, Hash)]
struct CseKey {
    scope: Sym,
    op: Op,
    depth: u32,
    bcast: u64,
    mask: Option<Sym>,
    ty: Option<ValTy>,
    args: SmallVec<[Sym; 4]>,
}

/// The output graph under construction.
pub(crate) struct Stage {
    pub g: Graph,
    rules: Arc<RuleSet>,
    cse: FxHashMap<CseKey, Sym>,
    cse_log: Vec<CseKey>,
    pub stats: Stats,
    nesting: u32,
    max_rewrites: u64,
    pub max_nodes: usize,
}

impl Stage {
    pub fn new(rules: Arc<RuleSet>, max_rewrites: u64, max_nodes: usize, expected: usize) -> Stage {
        let mut cse = FxHashMap::default();
        cse.reserve(expected);
        Stage {
            g: Graph::with_capacity(expected),
            rules,
            cse,
            cse_log: Vec::new(),
            stats: Stats::default(),
            nesting: 0,
            max_rewrites,
            max_nodes,
        }
    }

    /// Builds `op` (typed by [`infer`]; `target` is a conversion's scalar).
    pub fn build(
        &mut self,
        scope: Sym,
        op: Op,
        depth: u32,
        args: &[Arg],
        mask: Option<Sym>,
        target: Option<ScalarTy>,
    ) -> Result<Sym, StageError> {
        if self.g.len() >= self.max_nodes {
            return Err(StageError::NodeLimit(self.max_nodes));
        }
        let ty = infer(&self.g, op, depth, args, mask, target).map_err(StageError::Type)?;
        if mask.is_none() && op.liftable() {
            let prim = op.prim();
            let rules = Arc::clone(&self.rules);
            let candidates = rules.opts(prim);
            if !candidates.is_empty() {
                if self.nesting >= MAX_REWRITE_DEPTH || self.stats.rewrites >= self.max_rewrites {
                    self.stats.rewrite_limit_hit = true;
                } else {
                    let syms: SmallVec<[Sym; 4]> = args.iter().map(|a| a.sym).collect();
                    for rule in candidates {
                        if let Some(r) = self.try_rule(rule, scope, depth, &syms, &ty) {
                            self.stats.rewrites += 1;
                            return Ok(r);
                        }
                    }
                }
            }
        }
        let cseable = !matches!(op, Op::Param(_) | Op::Lambda(_) | Op::Map | Op::Apply | Op::If | Op::While);
        let key = cseable.then(|| CseKey {
            scope,
            op,
            depth,
            bcast: args.iter().enumerate().fold(0u64, |b, (i, a)| if a.bcast && i < 64 { b | 1 << i } else { b }),
            mask,
            ty: ty.val(),
            args: args.iter().map(|a| a.sym).collect(),
        });
        if let Some(k) = &key
            && let Some(&s) = self.cse.get(k)
        {
            self.stats.shared += 1;
            return Ok(s);
        }
        let s = self.g.add_node(scope, NewNode { op, ty, depth, args, mask });
        if let Some(k) = key {
            // Only a rewrite in progress may be rolled back.
            if self.nesting > 0 {
                self.cse_log.push(k.clone());
            }
            self.cse.insert(k, s);
        }
        Ok(s)
    }

    /// The bindings of `rule`'s variables if its pattern matches a
    /// candidate `root` node with these arguments at this depth.
    fn matches(&self, rule: &OptRule, depth: u32, args: &[Sym]) -> Option<(u32, Vec<Sym>)> {
        let Pat::App { lift, args: kids, .. } = &rule.pats[rule.root_pat()] else { return None };
        let d = depth.checked_sub(u32::from(*lift))?;
        if kids.len() != args.len() {
            return None;
        }
        let mut bind: Vec<Option<Sym>> = vec![None; rule.vars];
        let mut work: Vec<(usize, Sym)> = kids.iter().copied().zip(args.iter().copied()).collect();
        while let Some((p, s)) = work.pop() {
            match &rule.pats[p] {
                Pat::Var(i) => match bind[*i] {
                    None => bind[*i] = Some(s),
                    Some(b) if b == s => {}
                    Some(_) => return None,
                },
                Pat::App { prim, lift, args: kids } => {
                    let n = self.g.node(s)?;
                    if n.op.prim() != *prim || n.mask.is_some() || n.depth != d + u32::from(*lift) {
                        return None;
                    }
                    let sargs = self.g.args(s);
                    if sargs.len() != kids.len() {
                        return None;
                    }
                    work.extend(kids.iter().copied().zip(sargs.iter().copied()));
                }
            }
        }
        Some((d, bind.into_iter().collect::<Option<Vec<_>>>()?))
    }

    fn try_rule(&mut self, rule: &OptRule, scope: Sym, depth: u32, args: &[Sym], ty: &NodeTy) -> Option<Sym> {
        let (d, bind) = self.matches(rule, depth, args)?;
        let mark = self.g.checkpoint();
        let log = self.cse_log.len();
        self.nesting += 1;
        let mut st = OptStager { stage: self, scope, d, bind: &bind, slots: Vec::new(), hint: ty.val() };
        let out = (rule.output)(&mut st).ok().and_then(|slot| st.sym(slot));
        self.nesting -= 1;
        match out {
            Some(r) if self.g.node(r).map(|n| &n.ty) == Some(ty) => Some(r),
            _ => {
                for k in self.cse_log.drain(log..) {
                    self.cse.remove(&k);
                }
                self.g.rollback(mark);
                None
            }
        }
    }
}

/// Builds an optimisation rule's output at the matched depth.
struct OptStager<'a> {
    stage: &'a mut Stage,
    scope: Sym,
    d: u32,
    bind: &'a [Sym],
    slots: Vec<OptVal>,
    hint: Option<ValTy>,
}

/// A value on an optimisation rule's stack.
#[derive(Clone)]
enum OptVal {
    /// A symbol (bound by the pattern, or built).
    Sym(Sym),
    /// A literal's text, typed where it is used.
    Lit(String),
}

impl OptStager<'_> {
    fn sym(&self, slot: Slot) -> Option<Sym> {
        match self.slots.get(slot.0 as usize) {
            Some(OptVal::Sym(s)) => Some(*s),
            _ => None,
        }
    }

    fn push(&mut self, v: OptVal) -> Slot {
        self.slots.push(v);
        Slot(self.slots.len() as u32 - 1)
    }
}

/// The scalar type a literal takes at argument `i` of `prim`, given the
/// scalar types of the other arguments.
pub(crate) fn literal_type(prim: Prim, i: usize, siblings: &[Option<ScalarTy>]) -> Option<ScalarTy> {
    match (prim, i) {
        (Prim::Select, 0) | (Prim::Assert, 0) => Some(ScalarTy::I1),
        (Prim::Index, 1) | (Prim::Broadcast, 1) => Some(ScalarTy::I64),
        _ => siblings
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .find_map(|(j, t)| if prim == Prim::Select && j == 0 { None } else { *t }),
    }
}

impl Stager for OptStager<'_> {
    fn var(&mut self, i: usize) -> Result<Slot, StageError> {
        let s = self.bind.get(i).copied().ok_or(StageError::UnboundVariable(i))?;
        Ok(self.push(OptVal::Sym(s)))
    }

    fn literal(&mut self, text: &str) -> Result<Slot, StageError> {
        Ok(self.push(OptVal::Lit(text.to_string())))
    }

    fn apply(&mut self, prim: Prim, lift: bool, args: &[Slot], root: bool) -> Result<Slot, StageError> {
        let op = prim.op().ok_or(StageError::Payload(prim))?;
        let depth = self.d + u32::from(lift);
        let scalars: Vec<Option<ScalarTy>> = args
            .iter()
            .map(|s| match self.slots[s.0 as usize] {
                OptVal::Sym(x) => self.stage.g.val_ty(x).map(|t| t.scalar),
                OptVal::Lit(_) => None,
            })
            .collect();
        let mut syms = Vec::with_capacity(args.len());
        for (i, s) in args.iter().enumerate() {
            match self.slots[s.0 as usize].clone() {
                OptVal::Sym(x) => syms.push(x),
                OptVal::Lit(text) => {
                    let Some(t) = literal_type(prim, i, &scalars) else { return Err(StageError::UntypedLiteral(text)) };
                    let imm = Imm::parse(&text, t).map_err(StageError::Literal)?;
                    syms.push(self.stage.build(self.scope, Op::Const(imm), 0, &[], None, None)?);
                }
            }
        }
        let hint = if root { self.hint } else { None };
        let flags = flags_for(&self.stage.g, op, depth, &syms, hint).ok_or(StageError::NoFlags(prim))?;
        let args: Vec<Arg> = syms.iter().zip(flags).map(|(&sym, bcast)| Arg { sym, bcast }).collect();
        let r = self.stage.build(self.scope, op, depth, &args, None, None)?;
        Ok(self.push(OptVal::Sym(r)))
    }
}
