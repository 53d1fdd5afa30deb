//! Catching stale analyses.
//!
//! Invariant: an analysis computed on a graph built from an `ir-core`
//! function carries that function's epoch (its CFG epoch for CFG analyses,
//! its full epoch for analyses of the code, like liveness). `check` compares
//! it with the function now: epochs are unique across functions and states
//! (see `ir_core::Epoch`), so a result is never taken as current for a
//! changed, cloned or different function. Results computed on plain graphs
//! have no stamp and check as `Unstamped`.

use core::fmt;
use ir_core::{Epoch, Function};

/// Why an analysis result may not be used with a function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Stale {
    /// The result was computed on a graph not built from a function.
    Unstamped,
    /// The function changed since (or is another function).
    Changed {
        /// The epoch the result was computed at.
        computed: Epoch,
        /// The function's epoch now.
        current: Epoch,
    },
}

impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stale::Unstamped => f.write_str("the analysis was not computed from a function"),
            Stale::Changed { .. } => f.write_str("the function changed since the analysis was computed; recompute it"),
        }
    }
}

impl std::error::Error for Stale {}

/// Checks a CFG-level stamp against `func`'s CFG epoch.
pub(crate) fn check_cfg(stamp: Option<Epoch>, func: &Function) -> Result<(), Stale> {
    check(stamp, func.cfg_epoch())
}

/// Checks a code-level stamp against `func`'s epoch.
pub(crate) fn check_code(stamp: Option<Epoch>, func: &Function) -> Result<(), Stale> {
    check(stamp, func.epoch())
}

fn check(stamp: Option<Epoch>, current: Epoch) -> Result<(), Stale> {
    match stamp {
        None => Err(Stale::Unstamped),
        Some(computed) if computed == current => Ok(()),
        Some(computed) => Err(Stale::Changed { computed, current }),
    }
}
