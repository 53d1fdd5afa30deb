//! The dependence order: each lambda's body in topological order (source
//! document 003, `docs/references.md`: "each definition is interpreted
//! after all the definitions it depends on"), as one CSR table over
//! lambdas.
//!
//! Algorithm: nodes are bucketed by scope in id order; a body whose every
//! node comes after its same-body arguments (always true of builder-made
//! graphs and of text written definition-before-use) is already in order;
//! any other body is sorted by Kahn's algorithm (A. B. Kahn, "Topological
//! sorting of large networks", CACM 5(11), 1962; `docs/references.md`) with
//! the smallest ready id first, so the order is deterministic and, for
//! printed-then-parsed graphs, reproduces the printed order. A cycle is an
//! error naming a node on it. No recursion; O(n) plus O(b log b) for each
//! body `b` that needed sorting.
//!
//! Invariant: a [`Schedule`] records the graph's id and epoch;
//! [`Schedule::check`] rejects it for any other graph or a changed one.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Each lambda's body (params excluded) in dependence order.
#[derive(Clone, Debug)]
pub struct Schedule {
    graph: u64,
    epoch: u64,
    offsets: Vec<u32>,
    order: Vec<Sym>,
}

/// A schedule handed over with a graph it was not computed for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StaleSchedule;

impl core::fmt::Display for StaleSchedule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the schedule was computed for another graph, or before the graph changed")
    }
}

impl std::error::Error for StaleSchedule {}

/// The dependences of a node inside its own body: arguments and mask that
/// are nodes (not params) of the same scope.
pub(crate) fn same_scope_deps<'g>(g: &'g Graph, sym: Sym) -> impl Iterator<Item = Sym> + 'g {
    let scope = g.node(sym).and_then(|n| n.scope);
    let mask = g.node(sym).and_then(|n| n.mask);
    g.args(sym).iter().copied().chain(mask).filter(move |&d| {
        g.node(d).is_some_and(|n| n.scope == scope && !matches!(n.op, Op::Param(_))) && scope.is_some()
    })
}

impl Schedule {
    /// Schedules every body of `g`; `Err(sym)` names a node on a cycle.
    pub fn new(g: &Graph) -> Result<Schedule, Sym> {
        let nl = g.lambdas().len();
        let lam_index = |s: Option<Sym>| {
            s.and_then(|l| g.op(l)).and_then(|op| if let Op::Lambda(i) = op { Some(i as usize) } else { None })
        };
        // Each lambda's body nodes (params excluded), bucketed by lambda in
        // increasing sym order through the workspace's one CSR builder.
        let body_of = |s: Sym| {
            let n = g.data(s);
            if matches!(n.op, Op::Param(_)) {
                return None;
            }
            lam_index(n.scope).filter(|&i| i < nl).map(|i| (i as u32, s))
        };
        let (mut offsets, mut order) = (Vec::new(), Vec::new());
        cfg_dom::csr::bucket_by(nl, (0..g.len()).map(Sym::from_index).filter_map(body_of), &mut offsets, &mut order);
        // A body is already in dependence order when every same-scope
        // argument precedes its user.
        let mut sorted = vec![true; nl];
        for (i, ok) in sorted.iter_mut().enumerate() {
            let body = cfg_dom::csr::row(&offsets, &order, i);
            *ok = body.iter().all(|&s| same_scope_deps(g, s).all(|d| d < s));
        }
        let mut sched = Schedule { graph: g.id(), epoch: g.epoch(), offsets, order };
        let mut scratch = KahnScratch::default();
        for (i, &ok) in sorted.iter().enumerate() {
            if !ok {
                let (a, b) = (sched.offsets[i] as usize, sched.offsets[i + 1] as usize);
                scratch.sort(g, &mut sched.order[a..b])?;
            }
        }
        Ok(sched)
    }

    /// Fails unless the schedule was computed for `g` as it is now.
    pub fn check(&self, g: &Graph) -> Result<(), StaleSchedule> {
        if self.graph == g.id() && self.epoch == g.epoch() { Ok(()) } else { Err(StaleSchedule) }
    }

    /// The body of lambda number `index` (its position in
    /// [`Graph::lambdas`]) in dependence order; empty if out of range.
    pub fn body_of(&self, index: usize) -> &[Sym] {
        match (self.offsets.get(index), self.offsets.get(index + 1)) {
            (Some(&a), Some(&b)) => &self.order[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The body of lambda node `lam` in dependence order.
    pub fn body(&self, g: &Graph, lam: Sym) -> &[Sym] {
        match g.op(lam) {
            Some(Op::Lambda(i)) => self.body_of(i as usize),
            _ => &[],
        }
    }
}

#[derive(Default)]
struct KahnScratch {
    local: rustc_hash::FxHashMap<Sym, u32>,
    indegree: Vec<u32>,
    users: Vec<Vec<u32>>,
}

impl KahnScratch {
    /// Sorts one body in place, smallest ready id first.
    fn sort(&mut self, g: &Graph, body: &mut [Sym]) -> Result<(), Sym> {
        self.local.clear();
        self.indegree.clear();
        self.users.clear();
        for (i, &s) in body.iter().enumerate() {
            self.local.insert(s, i as u32);
        }
        self.indegree.resize(body.len(), 0);
        self.users.resize(body.len(), Vec::new());
        for (i, &s) in body.iter().enumerate() {
            for d in same_scope_deps(g, s) {
                if let Some(&j) = self.local.get(&d) {
                    self.indegree[i] += 1;
                    self.users[j as usize].push(i as u32);
                }
            }
        }
        let mut ready: BinaryHeap<Reverse<(Sym, u32)>> =
            (0..body.len()).filter(|&i| self.indegree[i] == 0).map(|i| Reverse((body[i], i as u32))).collect();
        let mut out = Vec::with_capacity(body.len());
        while let Some(Reverse((s, i))) = ready.pop() {
            out.push(s);
            for &u in &self.users[i as usize] {
                self.indegree[u as usize] -= 1;
                if self.indegree[u as usize] == 0 {
                    ready.push(Reverse((body[u as usize], u)));
                }
            }
        }
        if out.len() != body.len() {
            let stuck = (0..body.len()).find(|&i| self.indegree[i] > 0).map_or(body[0], |i| body[i]);
            return Err(stuck);
        }
        body.copy_from_slice(&out);
        Ok(())
    }
}
