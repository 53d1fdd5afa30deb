//! Catching stale and mismatched analyses.
//!
//! A *stamp* is an opaque `u64` version. A graph may carry one
//! ([`crate::Graph::stamp`]): a client IR stamps the CFG it builds with the
//! version of the function's CFG. Every analysis copies the stamp of the
//! graph it ran on, so two checks are possible:
//!
//! - **Stale** ([`Stale`]): is this result still the result for the
//!   function as it is now? `check(&func)` compares the stamp with the
//!   function's current version ([`Versioned`]). Keel's IR draws versions
//!   from one global counter, so a result is never taken as current for a
//!   changed, cloned or different function.
//! - **Mismatch** ([`Mismatch`]): were analyses handed over together (a
//!   dominator tree with the graph it is used on, say) computed on the same
//!   graph? Checked by node count always, and by stamp when both carry one.
//!   A mismatch is an error, never an out-of-bounds panic.
//!
//! Invariant: results computed on graphs without a stamp have none and
//! check as [`Stale::Unstamped`].

use core::fmt;

/// Something with versions to check analysis results against: a function
/// of a client IR. Both versions default to "not versioned".
pub trait Versioned {
    /// The version of the CFG: changes whenever blocks or edges may have
    /// changed. CFG analyses (dominators, frontiers, loops) check against it.
    fn cfg_stamp(&self) -> Option<u64> {
        None
    }

    /// The version of the code: changes on any edit. Analyses of the code
    /// (liveness, DU chains) check against it.
    fn code_stamp(&self) -> Option<u64> {
        None
    }
}

impl<T: Versioned + ?Sized> Versioned for &T {
    fn cfg_stamp(&self) -> Option<u64> {
        (**self).cfg_stamp()
    }
    fn code_stamp(&self) -> Option<u64> {
        (**self).code_stamp()
    }
}

/// Why an analysis result may not be used with a function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Stale {
    /// The result was computed on a graph that carries no stamp.
    Unstamped,
    /// The function changed since (or is another function, or is not
    /// versioned at all: `current` is `None`).
    Changed {
        /// The stamp the result was computed at.
        computed: u64,
        /// The function's version now.
        current: Option<u64>,
    },
}

impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stale::Unstamped => f.write_str("the analysis was computed on a graph without a stamp"),
            Stale::Changed { current: None, .. } => f.write_str("the function carries no version to check against"),
            Stale::Changed { .. } => f.write_str("the function changed since the analysis was computed; recompute it"),
        }
    }
}

impl std::error::Error for Stale {}

/// Compares a result's stamp with the version it must match: what every
/// stamped result's `check` does (this crate's analyses, and the results
/// of the crates above: def-use chains, memory dependences, PRE plans).
pub fn check_stamp(stamp: Option<u64>, current: Option<u64>) -> Result<(), Stale> {
    match stamp {
        None => Err(Stale::Unstamped),
        Some(computed) if Some(computed) == current => Ok(()),
        Some(computed) => Err(Stale::Changed { computed, current }),
    }
}

/// Analyses handed over together that were not computed on the same graph.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mismatch {
    /// `what` covers `found` nodes (or blocks); the graph it is used with
    /// has `expected`.
    Nodes {
        /// Which analysis or input.
        what: &'static str,
        /// Nodes of the graph it is used with.
        expected: usize,
        /// Nodes it covers.
        found: usize,
    },
    /// `what` covers `found` vars; the code it is used with has `expected`.
    Vars {
        /// Which analysis.
        what: &'static str,
        /// Vars of the code it is used with.
        expected: usize,
        /// Vars it covers.
        found: usize,
    },
    /// `what` carries another graph's or function's stamp.
    Stamp {
        /// Which analysis or input.
        what: &'static str,
        /// The stamp of the graph it is used with.
        expected: u64,
        /// Its own stamp.
        found: u64,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mismatch::Nodes { what, expected, found } => {
                write!(f, "{what} covers {found} nodes but the graph has {expected}: it belongs to another graph")
            }
            Mismatch::Vars { what, expected, found } => {
                write!(f, "{what} covers {found} vars but the code has {expected}: it belongs to another function")
            }
            Mismatch::Stamp { what, expected, found } => write!(
                f,
                "{what} was computed on another graph or function (stamp {found}, expected {expected}); recompute it"
            ),
        }
    }
}

impl std::error::Error for Mismatch {}

/// `Ok` when something covering `found` nodes with stamp `found_stamp` may
/// be used with a graph of `expected` nodes and stamp `expected_stamp`:
/// the counts agree, and the stamps too when both are present.
pub fn belongs(
    what: &'static str,
    expected: usize,
    expected_stamp: Option<u64>,
    found: usize,
    found_stamp: Option<u64>,
) -> Result<(), Mismatch> {
    if expected != found {
        return Err(Mismatch::Nodes { what, expected, found });
    }
    match (expected_stamp, found_stamp) {
        (Some(e), Some(f)) if e != f => Err(Mismatch::Stamp { what, expected: e, found: f }),
        _ => Ok(()),
    }
}
