//! Bugs that tests plant on purpose, to prove each oracle can fail (feature
//! `fuzzing`; without it nothing can be planted and every check below is a
//! constant `false`).

/// A bug the analysis can be made to have.
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

#[cfg(feature = "fuzzing")]
thread_local! {
    static PLANTED: core::cell::Cell<Option<Bug>> = const { core::cell::Cell::new(None) };
}

/// Plants `bug` in analyses run on this thread (`None` removes it).
#[cfg(feature = "fuzzing")]
pub fn plant(bug: Option<Bug>) {
    PLANTED.with(|p| p.set(bug));
}

/// True when `bug` is planted on this thread.
#[inline]
pub(crate) fn planted(bug: Bug) -> bool {
    #[cfg(feature = "fuzzing")]
    {
        PLANTED.with(|p| p.get() == Some(bug))
    }
    #[cfg(not(feature = "fuzzing"))]
    {
        let _ = bug;
        false
    }
}
