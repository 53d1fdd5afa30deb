//! The vector-register search (source document 004, `docs/references.md`): how many registers of a class
//! a DAG needs for its loads + stores to reach the lower bound (every
//! source read once, every sink written once) — for a vector machine, the
//! register file; for the MLU backend, how many on-chip buffers a tensor
//! DAG needs for its DMA traffic to be minimal. It works on a bare
//! [`Dag`], no IR needed.
//!
//! Document 004's procedure: pick a register count, play the heuristic,
//! compare loads + stores with the lower bound; double the count while
//! above it, halve while at it — a binary search for the fewest registers
//! that reach the bound, the heuristic giving the search its answers. Made
//! precise: start at `max(start, the DAG's demand)`; if above the bound,
//! double until it is met (it is at the latest when every value of the
//! class has a register); if at the bound, halve while it stays met and
//! the demand allows; then bisect between the last count above and the
//! first at the bound. The heuristic is not monotone in the count in
//! general, so "fewest" is the fewest this search meets (every count it
//! tried is reported).

use crate::class::{RegClass, Regs};
use crate::dag::Dag;
use crate::game::PebbleError;
use crate::game::Setup;
use crate::pebble::Pebbler;

/// One count the search tried.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Trial {
    /// Registers of the class.
    pub regs: u32,
    /// Loads + stores the heuristic needed.
    pub cost: u64,
}

/// The search's answer.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RegisterCount {
    /// The fewest registers found that reach the bound.
    pub regs: u32,
    /// The lower bound (sources read + sinks written).
    pub lower_bound: u64,
    /// Every count tried, in order.
    pub trials: Vec<Trial>,
}

/// Searches the fewest registers of `class` for which the heuristic's
/// loads + stores on `dag` reach its lower bound, starting from `start`;
/// the other class gets `other` registers.
pub fn min_registers(dag: &Dag, class: RegClass, start: u32, other: u32) -> Result<RegisterCount, PebbleError> {
    let lb = dag.lower_bound();
    let floor = dag.max_demand(class).max(1);
    let ceiling = (0..dag.num_values() as u32).filter(|&v| dag.class(v) == class).count().max(floor as usize) as u32;
    let mut pebbler = Pebbler::new();
    let mut trials: Vec<Trial> = Vec::new();
    let mut cost_at = |p: u32, trials: &mut Vec<Trial>| -> Result<u64, PebbleError> {
        if let Some(t) = trials.iter().find(|t| t.regs == p) {
            return Ok(t.cost);
        }
        let regs = match class {
            RegClass::Scalar => Regs::new(p, other),
            RegClass::Vector => Regs::new(other, p),
        };
        let cost = pebbler.run(dag, &Setup::plain(regs))?.cost();
        trials.push(Trial { regs: p, cost });
        Ok(cost)
    };
    let mut p = start.clamp(floor, ceiling);
    // `hi`: a count at the bound; `lo`: a count above it (or below the
    // floor).
    let (mut lo, mut hi);
    if cost_at(p, &mut trials)? > lb {
        lo = p;
        loop {
            if p >= ceiling {
                // Every value has a register: the bound must hold; if the
                // heuristic still misses it, report the best count tried.
                let best = trials.iter().min_by_key(|t| (t.cost, t.regs)).copied().expect("one trial at least");
                return Ok(RegisterCount { regs: best.regs, lower_bound: lb, trials });
            }
            p = (p * 2).min(ceiling);
            if cost_at(p, &mut trials)? <= lb {
                hi = p;
                break;
            }
            lo = p;
        }
    } else {
        hi = p;
        lo = floor - 1;
        while p / 2 >= floor {
            p /= 2;
            if cost_at(p, &mut trials)? > lb {
                lo = p;
                break;
            }
            hi = p;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cost_at(mid, &mut trials)? <= lb {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(RegisterCount { regs: hi, lower_bound: lb, trials })
}
