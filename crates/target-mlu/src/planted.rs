//! Bugs planted on purpose, to prove the compiler's oracles can fail
//! (Keel's one mechanism, the `test-hooks` crate).
//!
//! A test plants a bug with `fuzzing::with_bug(Bug::X, || ...)` (feature
//! `fuzzing`) around a compile. Each pass reads what it needs once, when it
//! starts: the lowering reads a [`Plants`] into its state and asks
//! [`Plants::has`] where the bug would act; `compile` (to choose the
//! allocator) and each allocator ask [`planted`] once per call. Without the
//! `fuzzing` feature `Plants` holds nothing and both answer the constant
//! `false`: a default build has no planted-bug type, option or field in its
//! public API and tests nothing per instruction.

/// A bug the compiler can plant (feature `fuzzing`: `fuzzing::Bug`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// The lowering swaps the operands of every scalar `sub`: the
    /// differential oracle (simulator against interpreter) must notice.
    SwapSubOperands,
    /// `compile` uses `HomeAllocator`, which gives virtual registers `2k`
    /// and `2k + 1` one home: the allocation checker must notice where both
    /// are live at once.
    SharedHome,
    /// Tensor maps copy one element less of each result tile out: the
    /// differential oracle must notice in memory.
    ShortResultTile,
    /// `PebbleAllocator` drops the first register move or reload the
    /// allocation asks for: the allocation checker must notice the value
    /// missing where it is read.
    DroppedEdit,
}

impl Bug {
    /// Every bug, in declaration order.
    const ALL: [Bug; 4] = [Bug::SwapSubOperands, Bug::SharedHome, Bug::ShortResultTile, Bug::DroppedEdit];
}

/// Whether `bug` is planted on this thread (always `false` without the
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

/// The bug planted for one pass, read once when the pass starts; empty
/// without the `fuzzing` feature.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct Plants {
    #[cfg(feature = "fuzzing")]
    bug: Option<Bug>,
}

impl Plants {
    /// Reads the planted bug (test-hooks plants at most one at a time).
    pub(crate) fn read() -> Plants {
        let bug = Bug::ALL.into_iter().find(|&b| planted(b));
        #[cfg(feature = "fuzzing")]
        {
            Plants { bug }
        }
        #[cfg(not(feature = "fuzzing"))]
        {
            let _ = bug;
            Plants {}
        }
    }

    /// Whether `bug` was planted when the pass started.
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
