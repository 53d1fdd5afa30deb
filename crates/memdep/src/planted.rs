//! Bugs that tests plant on purpose, to prove each oracle can fail, through
//! Keel's one mechanism (the `test-hooks` crate):
//! `memdep::fuzzing::with_bug(Bug::InexactKills, || ...)`.
//!
//! Invariants: without the `fuzzing` feature nothing can be planted,
//! [`planted`] is the constant `false` and [`Planted`] is an empty,
//! zero-sized value whose every question answers `false`, so a default
//! build checks nothing. With it, an analysis reads the planted bug once
//! when it starts ([`Planted::now`]), never per step: the benchmarks build
//! memdep with `fuzzing` (for the byte oracle) and measure the same hot
//! paths as a default build.

/// A bug the analysis can be made to have (feature `fuzzing`:
/// `memdep::fuzzing::with_bug`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Bug {
    /// A certain write of an inexact range kills everything in its bounds
    /// (the document's inexact definition only marks "possibly killed").
    InexactKills,
    /// A guarded write kills like an unguarded one.
    GuardedKills,
    /// Joins intersect the live definitions (union the kills) instead of
    /// uniting them.
    JoinIntersects,
    /// The input check accepts an instruction listed twice.
    AcceptListedTwice,
}

/// True when `bug` is planted on this thread (always `false` without the
/// `fuzzing` feature).
#[inline(always)]
pub(crate) fn planted(bug: Bug) -> bool {
    #[cfg(feature = "fuzzing")]
    {
        test_hooks::is_planted(bug)
    }
    #[cfg(not(feature = "fuzzing"))]
    {
        let _ = bug;
        false
    }
}

/// The bug planted when an analysis started, read once.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct Planted {
    #[cfg(feature = "fuzzing")]
    bug: Option<Bug>,
}

impl Planted {
    /// Reads the planted bug of this thread.
    pub(crate) fn now() -> Planted {
        #[cfg(feature = "fuzzing")]
        {
            let all = [Bug::InexactKills, Bug::GuardedKills, Bug::JoinIntersects, Bug::AcceptListedTwice];
            Planted { bug: all.into_iter().find(|&b| planted(b)) }
        }
        #[cfg(not(feature = "fuzzing"))]
        {
            Planted {}
        }
    }

    /// True when `bug` was planted (always `false` without `fuzzing`).
    #[inline(always)]
    pub(crate) fn has(self, bug: Bug) -> bool {
        #[cfg(feature = "fuzzing")]
        {
            self.bug == Some(bug)
        }
        #[cfg(not(feature = "fuzzing"))]
        {
            let _ = bug;
            false
        }
    }
}
