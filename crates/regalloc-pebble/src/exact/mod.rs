//! Exact optima of the pebble game on small DAGs: the oracles the
//! heuristic is measured against.
//!
//! Both solve the game [`crate::game`] defines, on *plain* DAGs (one
//! register class; every operation pure with one output; no ties, order
//! edges or terminator; sources start in memory, sinks end there), with no
//! recomputation (each operation runs once, as an allocator runs each
//! instruction once):
//! - [`exhaustive`]: a shortest path over game states (which values are
//!   computed, red, blue) by A* (P. E. Hart, N. J. Nilsson and B. Raphael,
//!   "A formal basis for the heuristic determination of minimum cost
//!   paths", IEEE Trans. SSC, 1968; `docs/references.md`), moves costing 0 (compute, slide, drop) or
//!   1 (load, store), with an admissible bound; it shares no code with the
//!   heuristic it measures; practical to 30 values and more at small `P`.
//! - `ilp` (feature `ilp`): an integer program over time-indexed pebble
//!   moves, solved by microlp — issue 15's second oracle, checked against
//!   [`exhaustive`] on DAGs of at most 10 nodes (beyond about 12 nodes
//!   microlp's branch and bound takes minutes per DAG, so the gap
//!   distribution on 8 to 30 nodes uses [`exhaustive`]).
//!
//! Invariant (tested): for every DAG both give the same optimum, and the
//! heuristic's loads + stores are never below it.

#[cfg(feature = "ilp")]
pub mod ilp;

use crate::class::RegClass;
use crate::dag::{Dag, OpId, OpKind, ValueId};
use core::fmt;
use rustc_hash::FxHashMap;

/// A DAG the exact solvers do not take.
#[derive(Clone, PartialEq, Debug)]
pub enum ExactError {
    /// Not a plain DAG (see the module doc): the value or operation that
    /// makes it so.
    NotPlain(NotPlain),
    /// More values than the solver handles.
    TooLarge {
        /// Values in the DAG.
        values: usize,
        /// The solver's limit.
        limit: usize,
    },
    /// No schedule exists (an operation reads more values than there are
    /// registers).
    Infeasible,
    /// The solver stopped before proving the optimum (its node limit).
    Unproven,
    /// The ILP solver failed (feature `ilp`): microlp's own error.
    #[cfg(feature = "ilp")]
    Solver(microlp::Error),
}

/// What makes a DAG not plain ([`ExactError::NotPlain`]), naming the
/// value or operation.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum NotPlain {
    /// A value of the vector class.
    VectorValue(ValueId),
    /// An effect or terminator.
    NotPure(OpId),
    /// An operation without exactly one output.
    OutputCount {
        /// The operation.
        op: OpId,
        /// Its outputs.
        outputs: usize,
    },
    /// An operation with a tied output.
    TiedOutput(OpId),
    /// An operation with an order edge.
    OrderEdge(OpId),
}

impl fmt::Display for NotPlain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotPlain::VectorValue(_) => "a vector value",
            NotPlain::NotPure(_) => "an effect or terminator",
            NotPlain::OutputCount { .. } => "an operation without exactly one output",
            NotPlain::TiedOutput(_) => "a tied output",
            NotPlain::OrderEdge(_) => "an order edge",
        })
    }
}

// microlp's error has no float in it, so its derived equality is total.
impl Eq for ExactError {}

impl fmt::Display for ExactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExactError::NotPlain(why) => write!(f, "not a plain pebbling DAG: {why}"),
            ExactError::TooLarge { values, limit } => write!(f, "{values} values, more than the solver's {limit}"),
            ExactError::Infeasible => write!(f, "no schedule with this many registers"),
            ExactError::Unproven => write!(f, "the search stopped before proving the optimum"),
            #[cfg(feature = "ilp")]
            ExactError::Solver(e) => write!(f, "the solver failed: {e}"),
        }
    }
}

impl std::error::Error for ExactError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            #[cfg(feature = "ilp")]
            ExactError::Solver(e) => Some(e),
            _ => None,
        }
    }
}

/// `Ok` when `dag` is plain (module doc).
pub fn check_plain(dag: &Dag) -> Result<(), ExactError> {
    for v in 0..dag.num_values() as ValueId {
        if dag.class(v) != RegClass::Scalar {
            return Err(ExactError::NotPlain(NotPlain::VectorValue(v)));
        }
    }
    for o in 0..dag.num_ops() as OpId {
        if dag.kind(o) != OpKind::Pure {
            return Err(ExactError::NotPlain(NotPlain::NotPure(o)));
        }
        let outputs = dag.outputs(o).len();
        if outputs != 1 {
            return Err(ExactError::NotPlain(NotPlain::OutputCount { op: o, outputs }));
        }
        if dag.tied(o).any(|t| t.is_some()) {
            return Err(ExactError::NotPlain(NotPlain::TiedOutput(o)));
        }
        if !dag.waits_for(o).is_empty() {
            return Err(ExactError::NotPlain(NotPlain::OrderEdge(o)));
        }
    }
    Ok(())
}

/// The most values [`exhaustive`] takes (states are 32-bit masks).
pub const EXHAUSTIVE_LIMIT: usize = 32;

/// The fewest loads + stores with `p` registers, by exhaustive search.
///
/// An A* search over game states (which values are computed, red, blue),
/// with a lower bound that cannot overestimate — every computed value some
/// operation still reads but that is not red needs a load, every sink not
/// yet in memory a store. (It takes no upper bound from the heuristic it
/// is the oracle for.) States are canonical: a value nothing reads again and that
/// needs no store is dropped at once. `state_limit` bounds the states kept
/// (`None`: no bound); past it the search gives up with
/// [`ExactError::Unproven`].
pub fn exhaustive_limited(dag: &Dag, p: u32, state_limit: Option<usize>) -> Result<u64, ExactError> {
    check_plain(dag)?;
    let n = dag.num_values();
    if n > EXHAUSTIVE_LIMIT {
        return Err(ExactError::TooLarge { values: n, limit: EXHAUSTIVE_LIMIT });
    }
    if dag.max_demand(RegClass::Scalar) > p {
        return Err(ExactError::Infeasible);
    }
    let op_of: Vec<Option<OpId>> = (0..n as ValueId).map(|v| dag.def_op(v)).collect();
    let ins: Vec<u32> = (0..n as ValueId).map(|v| op_of[v as usize].map_or(0, |o| mask(dag.inputs(o)))).collect();
    let readers: Vec<u32> =
        (0..n as ValueId).map(|v| dag.users(v).iter().fold(0u32, |m, &o| m | 1 << dag.outputs(o)[0])).collect();
    let sinks = (0..n as ValueId).filter(|&v| dag.is_sink(v)).fold(0u32, |m, v| m | 1 << v);
    let sources = (0..n as ValueId).filter(|&v| dag.is_source(v)).fold(0u32, |m, v| m | 1 << v);
    let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    // Values nothing reads again (given what is computed).
    let done_with = |c: u32| -> u32 {
        let mut m = 0u32;
        for (v, &rd) in readers.iter().enumerate().take(n) {
            if rd & !c == 0 {
                m |= 1 << v;
            }
        }
        m
    };
    let canon = |c: u32, r: u32, b: u32| -> u32 { r & !(done_with(c) & (b | !sinks)) };
    let lower = |c: u32, r: u32, b: u32| -> u64 {
        let needed = c & !done_with(c) & !r;
        u64::from(needed.count_ones()) + u64::from((sinks & !b).count_ones())
    };
    type State = (u32, u32, u32);
    let mut dist: FxHashMap<State, u64> = FxHashMap::default();
    let mut heap: std::collections::BinaryHeap<core::cmp::Reverse<(u64, u64, State)>> =
        std::collections::BinaryHeap::new();
    let start: State = (sources, 0, sources);
    dist.insert(start, 0);
    heap.push(core::cmp::Reverse((lower(start.0, start.1, start.2), 0, start)));
    let mut succ: Vec<(State, u64)> = Vec::new();
    while let Some(core::cmp::Reverse((_, d, st))) = heap.pop() {
        let (c, r, b) = st;
        if dist.get(&st).is_some_and(|&e| e < d) {
            continue;
        }
        if c == all && b & sinks == sinks {
            return Ok(d);
        }
        if state_limit.is_some_and(|lim| dist.len() > lim) {
            return Err(ExactError::Unproven);
        }
        let nred = r.count_ones();
        succ.clear();
        for (v, &iv) in ins.iter().enumerate().take(n) {
            let bit = 1u32 << v;
            if b & bit != 0 && r & bit == 0 && nred < p {
                succ.push(((c, r | bit, b), 1));
            }
            if r & bit != 0 && b & bit == 0 {
                succ.push(((c, r, b | bit), 1));
            }
            if r & bit != 0 {
                succ.push(((c, r & !bit, b), 0));
            }
            if c & bit == 0 && iv & r == iv {
                if nred < p {
                    succ.push(((c | bit, r | bit, b), 0));
                }
                for u in 0..n {
                    if iv & (1 << u) != 0 {
                        succ.push(((c | bit, (r & !(1 << u)) | bit, b), 0));
                    }
                }
            }
        }
        for &((c2, r2, b2), cost) in &succ {
            let r2 = canon(c2, r2, b2);
            // A computed sink not yet stored must keep its register; a
            // value some operation still reads must keep a pebble.
            if c2 & sinks & !b2 & !r2 != 0 || c2 & !done_with(c2) & !(r2 | b2) != 0 {
                continue;
            }
            let nd = d + cost;
            let f = nd + lower(c2, r2, b2);
            let k = (c2, r2, b2);
            if dist.get(&k).is_none_or(|&e| nd < e) {
                dist.insert(k, nd);
                heap.push(core::cmp::Reverse((f, nd, k)));
            }
        }
    }
    Err(ExactError::Infeasible)
}

/// [`exhaustive_limited`] with no state limit.
pub fn exhaustive(dag: &Dag, p: u32) -> Result<u64, ExactError> {
    exhaustive_limited(dag, p, None)
}

fn mask(vals: &[ValueId]) -> u32 {
    vals.iter().fold(0u32, |m, &v| m | 1 << v)
}
