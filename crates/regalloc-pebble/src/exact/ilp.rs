//! The optimum by an integer program over time-indexed pebble moves,
//! solved with microlp (pure Rust simplex and branch and bound).
//!
//! Step `t = 1..n` runs exactly one of the `n` operations; before it, in
//! the step's first phase, values may be stored and loaded; a last phase
//! `n + 1` stores what is left. Variables (binary unless said):
//! - `x[o,t]`: operation `o` runs at step `t` (one per step, each once);
//! - `p[v,t]`: `v` is red when step `t` computes (after the loads);
//! - `r[v,t]`: `v` is red after step `t` (`r[v,0] = 0`);
//! - `b[v,t]`: `v` is blue after step `t`'s first phase (sources blue at
//!   0, sinks blue at `n + 1`);
//! - `l[v,t]`, `s[v,t]` (continuous, ≥ 0): loads and stores.
//!
//! Constraints: `p ≤ r[t-1] + l`, `l ≤ b[t-1]` (a load needs memory);
//! `b[t] ≤ b[t-1] + s`, `s ≤ r[t-1]` (a store needs a register);
//! `Σ p[·,t] ≤ P` and `Σ r[·,t] ≤ P` (the red pebbles); `x[o,t] ≤ p[u,t]`
//! for each input `u` (inputs red); `r[v,t] ≤ p[v,t] + x[op(v),t]` (a
//! value becomes red by a load or its computation; an input may lose its
//! register as the result takes it: a slide). Objective: `min Σ l + Σ s`.
//! Tightening (no solution lost): an operation runs no earlier than its
//! ancestors allow and no later than its descendants do, and after every
//! operation it reads. The heuristic's schedule seeds the incumbent, so
//! the search starts from its cost.

use super::{ExactError, check_plain};
use crate::class::{RegClass, Regs};
use crate::dag::{Dag, OpId, ValueId};
use crate::game::Move;
use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOptions, Variable};

/// What the ILP found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct IlpResult {
    /// The optimum loads + stores.
    pub cost: u64,
    /// Branch-and-bound nodes explored.
    pub nodes: u64,
}

/// The fewest loads + stores with `p` registers, by the integer program
/// (module doc). `node_limit` bounds the search (`None`: none); a search
/// that stops before proving the optimum is [`ExactError::Unproven`].
pub fn optimum(dag: &Dag, p: u32, node_limit: Option<u64>) -> Result<IlpResult, ExactError> {
    check_plain(dag)?;
    if dag.max_demand(RegClass::Scalar) > p {
        return Err(ExactError::Infeasible);
    }
    let nv = dag.num_values();
    let n = dag.num_ops();
    if n == 0 {
        return Ok(IlpResult { cost: 0, nodes: 0 });
    }
    let ops: Vec<OpId> = (0..n as OpId).collect();
    let value_of = |o: OpId| dag.outputs(o)[0];
    let op_of = |v: ValueId| dag.def_op(v);
    // Ancestors and descendants among operations (for the time windows).
    let mut anc = vec![0usize; n];
    let mut desc = vec![0usize; n];
    {
        let mut anc_sets: Vec<Vec<bool>> = vec![vec![false; n]; n];
        for o in 0..n {
            for &u in dag.inputs(o as OpId) {
                if let Some(po) = op_of(u) {
                    // Operations are made after what they read: po < o.
                    let (lo, hi) = anc_sets.split_at_mut(o);
                    let cur = &mut hi[0];
                    cur[po as usize] = true;
                    for (k, &a) in lo[po as usize].iter().enumerate() {
                        if a {
                            cur[k] = true;
                        }
                    }
                }
            }
        }
        for o in 0..n {
            anc[o] = anc_sets[o].iter().filter(|&&a| a).count();
            for (k, &a) in anc_sets[o].iter().enumerate() {
                if a {
                    desc[k] += 1;
                }
            }
        }
    }
    let mut pb = Problem::new(OptimizationDirection::Minimize);
    let zero = |pb: &mut Problem| pb.add_var(0.0, (0.0, 0.0));
    // x[o][t], t in 1..=n (index t-1).
    let mut x: Vec<Vec<Variable>> = Vec::with_capacity(n);
    for o in 0..n {
        let lo = anc[o] + 1;
        let hi = n - desc[o];
        x.push((1..=n).map(|t| if t >= lo && t <= hi { pb.add_binary_var(0.0) } else { zero(&mut pb) }).collect());
    }
    // r[v][t] t in 0..=n, p[v][t] t in 1..=n, b[v][t] t in 0..=n+1.
    let mut r: Vec<Vec<Variable>> = Vec::with_capacity(nv);
    let mut pv: Vec<Vec<Variable>> = Vec::with_capacity(nv);
    let mut b: Vec<Vec<Variable>> = Vec::with_capacity(nv);
    let mut l: Vec<Vec<Variable>> = Vec::with_capacity(nv);
    let mut s: Vec<Vec<Variable>> = Vec::with_capacity(nv);
    for v in 0..nv as ValueId {
        let src = dag.is_source(v);
        r.push((0..=n).map(|t| if t == 0 { zero(&mut pb) } else { pb.add_binary_var(0.0) }).collect());
        pv.push((0..=n).map(|t| if t == 0 { zero(&mut pb) } else { pb.add_binary_var(0.0) }).collect());
        b.push(
            (0..=n + 1)
                .map(|t| {
                    if t == 0 {
                        let one = if src { 1.0 } else { 0.0 };
                        pb.add_var(0.0, (one, one))
                    } else if t == n + 1 && dag.is_sink(v) {
                        pb.add_var(0.0, (1.0, 1.0))
                    } else {
                        pb.add_binary_var(0.0)
                    }
                })
                .collect(),
        );
        l.push((0..=n).map(|t| if t == 0 { zero(&mut pb) } else { pb.add_var(1.0, (0.0, 1.0)) }).collect());
        s.push((0..=n + 1).map(|t| if t == 0 { zero(&mut pb) } else { pb.add_var(1.0, (0.0, 1.0)) }).collect());
    }
    // Each operation once; one per step.
    for xo in &x {
        let row: Vec<(Variable, f64)> = xo.iter().map(|&v| (v, 1.0)).collect();
        pb.add_constraint(&row, ComparisonOp::Eq, 1.0);
    }
    for t in 0..n {
        let row: Vec<(Variable, f64)> = x.iter().map(|xo| (xo[t], 1.0)).collect();
        pb.add_constraint(&row, ComparisonOp::Eq, 1.0);
    }
    // Precedence: o runs after every operation it reads.
    for o in 0..n {
        for &u in dag.inputs(o as OpId) {
            if let Some(po) = op_of(u) {
                for t in 1..=n {
                    // Σ_{t'<=t} x[o,t'] <= Σ_{t'<t} x[po,t']
                    let mut row: Vec<(Variable, f64)> = (0..t).map(|k| (x[o][k], 1.0)).collect();
                    row.extend((0..t - 1).map(|k| (x[po as usize][k], -1.0)));
                    pb.add_constraint(&row, ComparisonOp::Le, 0.0);
                }
            }
        }
    }
    for v in 0..nv {
        for t in 1..=n {
            // p <= r[t-1] + l ; l <= b[t-1]
            pb.add_constraint([(pv[v][t], 1.0), (r[v][t - 1], -1.0), (l[v][t], -1.0)], ComparisonOp::Le, 0.0);
            pb.add_constraint([(l[v][t], 1.0), (b[v][t - 1], -1.0)], ComparisonOp::Le, 0.0);
            // r[t] <= p[t] + x[op(v), t]
            let mut row = vec![(r[v][t], 1.0), (pv[v][t], -1.0)];
            if let Some(o) = op_of(v as ValueId) {
                row.push((x[o as usize][t - 1], -1.0));
            }
            pb.add_constraint(&row, ComparisonOp::Le, 0.0);
        }
        for t in 1..=n + 1 {
            // b[t] <= b[t-1] + s ; s <= r[t-1]
            pb.add_constraint([(b[v][t], 1.0), (b[v][t - 1], -1.0), (s[v][t], -1.0)], ComparisonOp::Le, 0.0);
            pb.add_constraint([(s[v][t], 1.0), (r[v][t - 1], -1.0)], ComparisonOp::Le, 0.0);
        }
    }
    for t in 1..=n {
        let row: Vec<(Variable, f64)> = (0..nv).map(|v| (pv[v][t], 1.0)).collect();
        pb.add_constraint(&row, ComparisonOp::Le, f64::from(p));
        let row: Vec<(Variable, f64)> = (0..nv).map(|v| (r[v][t], 1.0)).collect();
        pb.add_constraint(&row, ComparisonOp::Le, f64::from(p));
        for o in &ops {
            for &u in dag.inputs(*o) {
                pb.add_constraint([(x[*o as usize][t - 1], 1.0), (pv[u as usize][t], -1.0)], ComparisonOp::Le, 0.0);
            }
        }
    }
    // Seed with the heuristic's schedule.
    let warm = warm_start(dag, p, &x, &pv, &r, &b, &l, &s, value_of);
    let mut options = SolveOptions::default();
    options.node_limit = node_limit;
    options.warm_start = warm;
    let outcome = pb.solve_with(options).map_err(ExactError::Solver)?;
    let nodes = outcome.stats().nodes_solved;
    if !outcome.is_optimal() {
        return Err(ExactError::Unproven);
    }
    let sol = outcome.into_solution().map_err(|_| ExactError::Unproven)?;
    Ok(IlpResult { cost: sol.objective().round() as u64, nodes })
}

/// The heuristic's schedule as a full assignment, for the incumbent.
#[allow(clippy::too_many_arguments)]
fn warm_start(
    dag: &Dag,
    p: u32,
    x: &[Vec<Variable>],
    pv: &[Vec<Variable>],
    r: &[Vec<Variable>],
    b: &[Vec<Variable>],
    l: &[Vec<Variable>],
    s: &[Vec<Variable>],
    value_of: impl Fn(OpId) -> ValueId,
) -> Option<Vec<(Variable, f64)>> {
    let sched = crate::pebble::pebble(dag, Regs::new(p, 0)).ok()?;
    let nv = dag.num_values();
    let n = dag.num_ops();
    let mut red = vec![false; nv];
    let mut blue: Vec<bool> = (0..nv as ValueId).map(|v| dag.is_source(v)).collect();
    let mut out: Vec<(Variable, f64)> = Vec::new();
    let mut t = 1usize;
    let mut loaded = vec![false; nv];
    let mut stored = vec![false; nv];
    let mut holder: Vec<Option<ValueId>> = vec![None; p as usize];
    let emit_phase_end = |t: usize,
                          out: &mut Vec<(Variable, f64)>,
                          blue: &[bool],
                          loaded: &mut [bool],
                          stored: &mut [bool],
                          red: &[bool]| {
        for v in 0..nv {
            out.push((b[v][t], f64::from(u8::from(blue[v]))));
            out.push((s[v][t], f64::from(u8::from(stored[v]))));
            stored[v] = false;
            if t <= n {
                out.push((l[v][t], f64::from(u8::from(loaded[v]))));
                out.push((pv[v][t], f64::from(u8::from(red[v]))));
                loaded[v] = false;
            }
        }
    };
    for m in &sched.moves {
        match *m {
            Move::Load { value, reg } => {
                if let Some(h) = holder[reg.index as usize] {
                    red[h as usize] = false;
                }
                holder[reg.index as usize] = Some(value);
                red[value as usize] = true;
                loaded[value as usize] = true;
            }
            Move::Store { value } => {
                blue[value as usize] = true;
                stored[value as usize] = true;
            }
            Move::Compute { op } => {
                emit_phase_end(t, &mut out, &blue, &mut loaded, &mut stored, &red);
                let v = value_of(op);
                let reg = sched.reg_of(v)?;
                if let Some(h) = holder[reg.index as usize] {
                    red[h as usize] = false;
                }
                holder[reg.index as usize] = Some(v);
                red[v as usize] = true;
                for (o, xo) in x.iter().enumerate() {
                    out.push((xo[t - 1], f64::from(u8::from(o == op as usize))));
                }
                for w in 0..nv {
                    out.push((r[w][t], f64::from(u8::from(red[w]))));
                }
                t += 1;
            }
        }
    }
    emit_phase_end(n + 1, &mut out, &blue, &mut loaded, &mut stored, &red);
    Some(out)
}
