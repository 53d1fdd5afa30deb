//! The crate's planted bugs: deliberate mistakes a test switches on to
//! prove that an oracle notices them, through Keel's one mechanism
//! (`test-hooks`, behind the `fuzzing` feature).
//!
//! Invariants: without `fuzzing`, [`planted`] is the constant `false`, so
//! a default build has no planted-bug type in its public API and checks
//! nothing; with it, each pass reads the flags it needs once, when it
//! starts (the vectorizer's engine, the lowering and the import keep them
//! in a field), never per node.

/// A deliberate bug, planted for the duration of
/// `vectorize::fuzzing::with_bug(bug, || ...)` on the calling thread.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// The vectorizer: a loop with a batched condition does not freeze
    /// the lanes that have finished (they keep running the body).
    LoopRunsFinishedLanes,
    /// The vectorizer: a batched `if` selects the other branch's value.
    SelectSwapsBranches,
    /// The lowering: lane loops stop one lane early (the last lane keeps 0).
    #[cfg(feature = "keel")]
    LaneLoopSkipsLastLane,
    /// The lowering: `tsub` gets its operands the wrong way round.
    #[cfg(feature = "keel")]
    TsubSwapsOperands,
    /// The import: a join's `select` takes the other edge's value.
    #[cfg(feature = "keel")]
    JoinSelectSwapped,
    /// The import: operations that may trap run unmasked, also in blocks
    /// the Keel function does not run.
    #[cfg(feature = "keel")]
    TrapsUnmasked,
}

/// True when `bug` is planted on this thread (always false without the
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
