//! Bugs the tests plant on purpose, to prove that the oracles can fail
//! (the workspace's one mechanism, the `test-hooks` crate).
//!
//! Invariant: without the `fuzzing` feature [`planted`] is the constant
//! `false` and [`Bug`] is reachable from no public item, so a default
//! build has no planted-bug type or parameter in its API and checks
//! nothing. A run reads each flag it needs once, when it starts (`pre.rs`
//! and the Keel binding's `KeelCode::new`), never per step.

/// A bug a test can plant with `fuzzing::with_bug`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// Treat every phi as down-safe (insertions on edges that are not
    /// down-safe): the interpreter oracle's per-value count catches it.
    IgnoreDownSafety,
    /// Take an edge into an extension phi as the end of its operand value's
    /// region (ε) even though the phi consumes the value there, so that
    /// nested translations are never semi movable down-safe: the SVFG
    /// verifier catches it.
    ExtensionUsesEndRegions,
    /// The clean-up deletes unused operations that may trap (an `sdiv`
    /// whose divisor may be zero): the interpreter oracle catches the
    /// trap that no longer happens.
    CleanupDeletesTraps,
    /// Keel's binding numbers `sub` as if it commuted (merging unequal
    /// values): the interpreter oracle catches it.
    #[cfg(feature = "keel")]
    SubCommutes,
    /// Keel's binding lets loads share a number whatever memdep says lies
    /// between them: the interpreter oracle catches it.
    #[cfg(feature = "keel")]
    LoadsIgnoreWrites,
}

/// True when `bug` is planted on this thread (never without `fuzzing`).
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
