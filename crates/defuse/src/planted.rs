//! Bugs the tests plant in the SSA method (`via_ssa`), to show that its
//! agreement checks catch them, through Keel's one mechanism (the
//! `test-hooks` crate): `fuzzing::with_bug(Bug::GuardKills, || ...)`.
//!
//! Invariant: without the `fuzzing` feature nothing can be planted and
//! every check is the constant `false`, so a default build pays nothing.
//! A module of its own so the walk and the resolver need not import the
//! method they serve.

/// A bug the SSA method can be made to have (feature `fuzzing`:
/// `defuse::fuzzing::with_bug`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// A guarded definition kills, like an unguarded one (its "may leave"
    /// link is dropped).
    GuardKills,
    /// A phi keeps only its first operand.
    FirstOperandOnly,
    /// Past the phi budget, pruned placement loses the last phi it
    /// placed.
    PrunedDropsPhi,
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
