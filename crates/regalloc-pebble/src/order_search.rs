//! Local search over a game's evaluation order ([`crate::LocalRule::Searched`]).
//!
//! [`crate::replan`] makes the register decisions for an order that is
//! already fixed (Belady's rule); the order itself comes from
//! `Local-Alloc` or a depth-first walk, and a different order is often much
//! cheaper: the order is the half of the pebble game the document's
//! heuristic decides greedily. This module improves it by hill climbing,
//! the classic local search for scheduling problems (E. Aarts and J. K.
//! Lenstra, *Local Search in Combinatorial Optimization*, 1997;
//! `docs/references.md`):
//!
//! - a **move** takes one operation out of the order and puts it back at
//!   another legal place: next to another reader of one of its inputs
//!   (the [`PLACES`] nearest), as early as its inputs and waits allow, as
//!   late as its readers and waiters allow, or one step either way;
//! - a **cone move** takes the operation together with everything that
//!   depends on it to the end of the order (before the terminator), or
//!   together with everything it depends on to the front, each group in its
//!   current relative order: it moves a whole branch of the DAG at once,
//!   which single moves cannot do without passing through worse orders;
//! - each candidate order is played by [`Replanner::replan`]; the first
//!   that is better replaces the current one, where better means fewer
//!   loads + stores, or as many with a smaller total live span (per value,
//!   definition or first read to last read, in positions). The second key
//!   lets the search cross plateaus of equal cost towards tighter orders;
//!   since the pair strictly decreases, the search cannot cycle;
//! - it stops when a whole pass finds nothing, when the game reaches the
//!   lower bound (sources + sinks), or when the caller's budget is spent.
//!
//! Measured (`examples/gap.rs`, `docs/benchmarks-regalloc.md`): on 10^3
//! random DAGs of 8 to 30 nodes, a budget of [`crate::SEARCH_BUDGET`]
//! orders brings the mean gap to the exact optimum from about 16% to about
//! 3%.
//!
//! Invariants: every order tried is legal (an operation stays after what
//! it reads and waits for and before what reads it or waits for it; the
//! terminator stays last), so every schedule kept is a legal game; the cost
//! never increases; every trial order built costs one unit of the budget,
//! and building and replaying one is linear in the DAG, so a search costs
//! at most the budget times a linear pass (a long block gets a short
//! search, never a quadratic one); places are positions, tried nearest
//! first, so the result depends only on the starting order and the DAG's
//! structure, not on how its operations are numbered.

use crate::dag::{Dag, OpId, OpKind};
use crate::game::{PebbleError, Schedule, Setup};
use crate::replan::Replanner;
use smallvec::SmallVec;

/// Most places next to other readers one operation is tried at in one pass
/// (besides its earliest and latest places, one step either way, and the
/// two cone moves).
pub const PLACES: usize = 12;

/// Place codes for the two cone moves: the operation with everything that
/// depends on it to the end, or with everything it depends on to the front.
const SINK_CONE: u32 = u32::MAX - 1;
const HOIST_CONE: u32 = u32::MAX;

/// Reusable buffers for [`OrderSearch::improve`].
#[derive(Clone, Debug, Default)]
pub struct OrderSearch {
    /// Per op: its position in the current order.
    pos: Vec<u32>,
    trial: Vec<OpId>,
    places: Vec<u32>,
    in_cone: Vec<bool>,
    stack: Vec<OpId>,
    first: Vec<u32>,
    last: Vec<u32>,
    alt: Schedule,
}

impl OrderSearch {
    /// A fresh context.
    pub fn new() -> OrderSearch {
        OrderSearch::default()
    }

    /// Improves `best`, a game that plays `order`, by moving one operation
    /// (or one cone) at a time, building at most `budget` trial orders; on
    /// return `best` plays `order` and costs no more than before.
    pub fn improve(
        &mut self,
        dag: &Dag,
        setup: &Setup,
        replanner: &mut Replanner,
        order: &mut Vec<OpId>,
        best: &mut Schedule,
        mut budget: u32,
    ) -> Result<(), PebbleError> {
        let n = order.len();
        let bound = setup.lower_bound(dag);
        self.index(order, dag.num_ops());
        let mut best_span = live_span(dag, order, &mut self.first, &mut self.last);
        let mut improved = true;
        while improved && budget > 0 && best.cost() > bound {
            improved = false;
            'ops: for i in 0..n {
                let op = order[i];
                if dag.kind(op) == OpKind::Terminator {
                    continue;
                }
                let (lo, hi) = self.window(dag, op, n);
                let at = i as u32;
                // Next to another reader of one of its inputs (in the
                // order without `op`: readers after it move back one), the
                // nearest first: positions only, so the places do not
                // depend on how the DAG numbers its operations.
                self.places.clear();
                for &v in dag.inputs(op) {
                    for &u in dag.users(v) {
                        if u != op {
                            let p = self.pos[u as usize];
                            let p = if p > at { p - 1 } else { p };
                            self.places.extend([p, p + 1]);
                        }
                    }
                }
                self.places.retain(|&j| j >= lo && j <= hi && j != at);
                self.places.sort_unstable_by_key(|&j| (j.abs_diff(at), j));
                self.places.dedup();
                self.places.truncate(PLACES);
                for j in [lo, hi, at.wrapping_sub(1), at + 1] {
                    if j >= lo && j <= hi && j != at && !self.places.contains(&j) {
                        self.places.push(j);
                    }
                }
                self.places.extend([SINK_CONE, HOIST_CONE]);
                let mut k = 0;
                while k < self.places.len() {
                    let j = self.places[k];
                    k += 1;
                    if budget == 0 {
                        break 'ops;
                    }
                    // Building a trial is linear in the DAG: every one is
                    // paid for, even one that turns out to be the same order.
                    budget -= 1;
                    self.trial.clear();
                    if j < SINK_CONE {
                        self.trial.extend(order.iter().copied().filter(|&o| o != op));
                        self.trial.insert(j as usize, op);
                    } else {
                        self.cone(dag, op, j == SINK_CONE);
                        let in_cone = &self.in_cone;
                        let cone = order.iter().copied().filter(|&o| in_cone[o as usize]);
                        let rest = order.iter().copied().filter(|&o| !in_cone[o as usize]);
                        if j == SINK_CONE {
                            // Before the terminator, which is never in a cone.
                            let term = dag.terminator();
                            self.trial.extend(rest.filter(|&o| Some(o) != term));
                            self.trial.extend(cone);
                            self.trial.extend(term);
                        } else {
                            self.trial.extend(cone);
                            self.trial.extend(rest);
                        }
                        if self.trial == *order {
                            continue;
                        }
                    }
                    replanner.replan(dag, setup, &self.trial, &mut self.alt)?;
                    if self.alt.cost() > best.cost() {
                        continue;
                    }
                    let span = live_span(dag, &self.trial, &mut self.first, &mut self.last);
                    if (self.alt.cost(), span) < (best.cost(), best_span) {
                        best_span = span;
                        std::mem::swap(best, &mut self.alt);
                        std::mem::swap(order, &mut self.trial);
                        self.index(order, dag.num_ops());
                        improved = true;
                        if best.cost() <= bound {
                            break 'ops;
                        }
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Marks `op` and everything that depends on it (`down`) or that it
    /// depends on (not `down`), by an explicit worklist; the terminator is
    /// never marked.
    fn cone(&mut self, dag: &Dag, op: OpId, down: bool) {
        self.in_cone.clear();
        self.in_cone.resize(dag.num_ops(), false);
        self.in_cone[op as usize] = true;
        self.stack.clear();
        self.stack.push(op);
        while let Some(o) = self.stack.pop() {
            let next: SmallVec<[OpId; 8]> = if down {
                dag.outputs(o)
                    .iter()
                    .flat_map(|&v| dag.users(v).iter().copied())
                    .chain(dag.waiters(o).iter().copied())
                    .collect()
            } else {
                dag.inputs(o).iter().filter_map(|&v| dag.def_op(v)).chain(dag.waits_for(o).iter().copied()).collect()
            };
            for x in next {
                if !self.in_cone[x as usize] && dag.kind(x) != OpKind::Terminator {
                    self.in_cone[x as usize] = true;
                    self.stack.push(x);
                }
            }
        }
    }

    fn index(&mut self, order: &[OpId], num_ops: usize) {
        self.pos.clear();
        self.pos.resize(num_ops, u32::MAX);
        for (k, &o) in order.iter().enumerate() {
            self.pos[o as usize] = k as u32;
        }
    }

    /// The places `op` may take once removed from the order, as indices
    /// into the order without it: after everything it reads and waits
    /// for, before everything that reads it or waits for it.
    fn window(&self, dag: &Dag, op: OpId, n: usize) -> (u32, u32) {
        let pos = &self.pos;
        let lo = dag
            .inputs(op)
            .iter()
            .filter_map(|&v| dag.def_op(v))
            .chain(dag.waits_for(op).iter().copied())
            .map(|p| pos[p as usize] + 1)
            .max()
            .unwrap_or(0);
        // Readers and waiters sit after `op`, so each moves one place
        // forward once `op` is taken out.
        let term = dag.terminator().map(|t| pos[t as usize]);
        let hi = dag
            .outputs(op)
            .iter()
            .flat_map(|&v| dag.users(v).iter().copied())
            .chain(dag.waiters(op).iter().copied())
            .map(|s| pos[s as usize])
            .chain(term)
            .min()
            .map_or(n as u32 - 1, |s| s - 1);
        (lo, hi)
    }
}

/// The order's total live span: per value, from its definition (a
/// source: its first read) to its last read, in order positions.
fn live_span(dag: &Dag, order: &[OpId], first: &mut Vec<u32>, last: &mut Vec<u32>) -> u64 {
    let nv = dag.num_values();
    first.clear();
    first.resize(nv, u32::MAX);
    last.clear();
    last.resize(nv, 0);
    for (p, &o) in order.iter().enumerate() {
        let p = p as u32;
        for &v in dag.outputs(o) {
            first[v as usize] = p;
        }
        for &v in dag.inputs(o) {
            let f = &mut first[v as usize];
            *f = (*f).min(p);
            last[v as usize] = p;
        }
    }
    first.iter().zip(last.iter()).map(|(&f, &l)| u64::from(l.saturating_sub(f))).sum()
}
