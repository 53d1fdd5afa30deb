//! Bugs that tests plant on purpose, to prove the checker can fail,
//! through Keel's one mechanism (the `test-hooks` crate):
//! `regalloc_pebble::fuzzing::with_bug(Bug::DropStores, || ...)`.
//!
//! Invariant: without the `fuzzing` feature nothing can be planted and
//! [`planted`] is the constant `false`, so a default build checks nothing;
//! with it, a pass reads its flags once when it starts.

/// A bug the allocator can be made to have (feature `fuzzing`:
/// `regalloc_pebble::fuzzing::with_bug`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// Spill stores are not emitted, so a later reload reads a slot that
    /// never got the value.
    DropStores,
    /// Webs treat guarded definitions as killing: a guarded definition no
    /// longer joins what reached it when read, so the old value's web and
    /// the new one's split where they must be one.
    WebsIgnoreGuards,
    /// Shared spill slots ignore conflicts: every copy group shares one
    /// slot even where two of its vars are live at once, so a store of one
    /// overwrites a value the other still needs (`crate::slot_share`).
    ShareConflictingSlots,
    /// Not a bug: the whole-function sweep's shortcut for blocks entered
    /// from one predecessor is turned off, every entry going through the
    /// register votes, so that a test can check that the shortcut decides
    /// what the votes decide (`tests/invariance.rs`).
    NoEntryShortcut,
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
