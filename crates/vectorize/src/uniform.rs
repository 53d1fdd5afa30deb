//! The "same in every lane" analysis: given which params of a lambda are
//! batched (differ between lanes) and which are the same in every lane
//! (JAX's `in_axes=None`), which values are batched.
//!
//! Rules (an abstract interpretation over the two-point lattice
//! uniform < batched, per node in dependence order):
//! - constants are uniform; a param is as its pattern says;
//! - a first-order node, or a `map`, is batched iff an argument or its
//!   mask is;
//! - `apply l` gives `l`'s results under its arguments' pattern;
//! - `if c`: with `c` batched every result is batched (lanes pick
//!   different branches); else each result is the join of both branches';
//! - `while`: the state pattern is the least fixpoint from the initial
//!   values' pattern: a component is batched if it starts batched or the
//!   body makes it batched; and when the condition is batched (lanes stop
//!   at different iterations), every component the body changes is
//!   batched too (only a component the body passes through unchanged
//!   stays uniform). This keeps loop counters and constants unbatched
//!   whenever the trip count is the same in every lane.
//!
//! Invariants: each (lambda, pattern) pair is analysed once and memoized;
//! queries for nested lambdas go on an explicit stack (a node that needs an
//! unanalysed pair suspends, and is retried once the pair is done), so
//! nothing recurses, however deep the lambdas nest. Patterns only grow in a
//! fixpoint, so a `while` needs at most `state + 1` rounds.

use crate::bits::Bits;
use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::{Schedule, StaleSchedule};
use crate::types::NodeTy;
use rustc_hash::FxHashMap;

/// The analysis of one (lambda, pattern) pair.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Summary {
    /// Which results are batched.
    pub results: Bits,
}

/// What a node's abstract evaluation needs or gives.
enum Step {
    Done(Flag),
    Need(Sym, Bits),
}

/// A node's abstract value: one flag, or one per tuple component.
#[derive(Clone, Debug)]
enum Flag {
    One(bool),
    Tuple(Bits),
}

/// The analysis for one graph, memoized across queries.
#[derive(Debug)]
pub struct Uniformity<'g> {
    g: &'g Graph,
    sched: &'g Schedule,
    memo: FxHashMap<(Sym, Bits), Summary>,
    flags: Vec<bool>,
    tuples: FxHashMap<Sym, Bits>,
}

impl<'g> Uniformity<'g> {
    /// An analysis of `g`; `sched` must be `g`'s, as it is now.
    pub fn new(g: &'g Graph, sched: &'g Schedule) -> Result<Uniformity<'g>, StaleSchedule> {
        sched.check(g)?;
        Ok(Uniformity {
            g,
            sched,
            memo: FxHashMap::default(),
            flags: vec![false; g.len()],
            tuples: FxHashMap::default(),
        })
    }

    /// True when `sym` is batched in the latest analysis of its lambda.
    pub fn is_batched(&self, sym: Sym) -> bool {
        self.flags.get(sym.index()).copied().unwrap_or(false)
    }

    /// The summary of lambda `lam` when the params in `params` are batched.
    pub fn summary(&mut self, lam: Sym, params: &Bits) -> &Summary {
        let key = (lam, params.clone().normalized());
        if !self.memo.contains_key(&key) {
            self.run(key.0, key.1.clone());
        }
        &self.memo[&key]
    }

    /// The memoized summary, if it was computed.
    fn known(&self, lam: Sym, params: &Bits) -> Option<&Summary> {
        self.memo.get(&(lam, params.clone().normalized()))
    }

    fn start(&mut self, lam: Sym, params: &Bits) {
        if let Some(l) = self.g.lambda(lam) {
            for (i, &p) in l.params.iter().enumerate() {
                self.flags[p.index()] = params.contains(i);
            }
        }
    }

    fn run(&mut self, lam: Sym, params: Bits) {
        // (lambda, pattern, next node)
        let mut stack: Vec<(Sym, Bits, usize)> = vec![(lam, params.clone(), 0)];
        self.start(lam, &params);
        while let Some((l, p, pos)) = stack.last().cloned() {
            let body = self.sched.body(self.g, l);
            if let Some(&s) = body.get(pos) {
                match self.step(s) {
                    Step::Done(Flag::One(f)) => {
                        self.flags[s.index()] = f;
                        stack.last_mut().expect("a frame").2 += 1;
                    }
                    Step::Done(Flag::Tuple(t)) => {
                        self.tuples.insert(s, t);
                        stack.last_mut().expect("a frame").2 += 1;
                    }
                    Step::Need(l2, p2) => {
                        self.start(l2, &p2);
                        stack.push((l2, p2.normalized(), 0));
                    }
                }
                continue;
            }
            let results = self
                .g
                .lambda(l)
                .map_or_else(Bits::new, |d| Bits::from_flags(d.results.iter().map(|&r| self.flags[r.index()])));
            self.memo.insert((l, p.normalized()), Summary { results: results.normalized() });
            stack.pop();
            // The caller resumes at the node that asked; restore its params'
            // flags (a sibling query of the same lambda may have changed
            // nothing of the caller's, whose symbols are disjoint).
        }
    }

    fn arg_flag(&self, s: Sym) -> bool {
        self.flags.get(s.index()).copied().unwrap_or(false)
    }

    fn pattern(&self, args: &[Sym]) -> Bits {
        Bits::from_flags(args.iter().map(|&a| self.arg_flag(a)))
    }

    fn flag_of(bits: Bits, n: usize) -> Flag {
        if n == 1 { Flag::One(bits.contains(0)) } else { Flag::Tuple(bits) }
    }

    fn step(&mut self, s: Sym) -> Step {
        let g = self.g;
        let n = g.data(s);
        let args = g.args(s);
        let nresults = match &n.ty {
            NodeTy::Tuple(t) => t.len(),
            _ => 1,
        };
        match n.op {
            Op::Param(_) => Step::Done(Flag::One(self.arg_flag(s))),
            Op::Lambda(_) | Op::Const(_) | Op::Array(_) => Step::Done(Flag::One(false)),
            Op::Get(i) => {
                let t = args.first().and_then(|a| self.tuples.get(a));
                Step::Done(Flag::One(t.is_some_and(|t| t.contains(i as usize))))
            }
            Op::Apply => {
                let p = self.pattern(&args[1..]);
                match self.known(args[0], &p) {
                    Some(sum) => Step::Done(Self::flag_of(sum.results.clone(), nresults)),
                    None => Step::Need(args[0], p),
                }
            }
            Op::If => {
                if self.arg_flag(args[0]) {
                    return Step::Done(Self::flag_of(Bits::all(nresults), nresults));
                }
                let p = self.pattern(&args[3..]);
                let Some(t) = self.known(args[1], &p).cloned() else { return Step::Need(args[1], p) };
                let Some(e) = self.known(args[2], &p) else { return Step::Need(args[2], p) };
                let mut r = t.results;
                r.union_with(&e.results);
                Step::Done(Self::flag_of(r, nresults))
            }
            Op::While => match self.loop_pattern(s) {
                Ok((state, _)) => Step::Done(Self::flag_of(state, nresults)),
                Err((l, p)) => Step::Need(l, p),
            },
            _ => {
                let batched = args.iter().any(|&a| self.arg_flag(a)) || n.mask.is_some_and(|m| self.arg_flag(m));
                Step::Done(Flag::One(batched))
            }
        }
    }

    /// For a `while` node whose initial values' flags are known: the
    /// fixpoint state pattern and whether the condition is batched under
    /// it, or the (lambda, pattern) pair still to analyse.
    pub(crate) fn loop_pattern(&self, s: Sym) -> Result<(Bits, bool), (Sym, Bits)> {
        let g = self.g;
        let args = g.args(s);
        let (lc, lb) = (args[0], args[1]);
        let init = &args[2..];
        let mut state = self.pattern(init);
        let passthrough: Vec<bool> = match g.lambda(lb) {
            Some(l) => (0..init.len()).map(|j| l.results.get(j) == l.params.get(j)).collect(),
            None => vec![false; init.len()],
        };
        loop {
            let body = self.known(lb, &state).ok_or_else(|| (lb, state.clone()))?.results.clone();
            let cond = self.known(lc, &state).ok_or_else(|| (lc, state.clone()))?.results.contains(0);
            let mut next = state.clone();
            next.union_with(&body);
            if cond {
                for (j, &pass) in passthrough.iter().enumerate() {
                    if !pass {
                        next.insert(j);
                    }
                }
            }
            if next.clone().normalized() == state.clone().normalized() {
                return Ok((state.normalized(), cond));
            }
            state = next;
        }
    }

    /// Like `Uniformity::loop_pattern`, analysing whatever is missing.
    pub fn while_pattern(&mut self, s: Sym, init: &Bits) -> (Bits, bool) {
        let g = self.g;
        let args = g.args(s);
        for (j, &a) in args[2..].iter().enumerate() {
            if let Some(f) = self.flags.get_mut(a.index()) {
                *f = init.contains(j);
            }
        }
        loop {
            match self.loop_pattern(s) {
                Ok(r) => return r,
                Err((l, p)) => {
                    self.summary(l, &p);
                    for (j, &a) in args[2..].iter().enumerate() {
                        self.flags[a.index()] = init.contains(j);
                    }
                }
            }
        }
    }
}
