//! Bugs planted on purpose, to prove the simulator's oracles can fail
//! (Keel's one mechanism, the `test-hooks` crate).
//!
//! A test plants a bug with `fuzzing::with_bug(Bug::X, || ...)` (feature
//! `fuzzing`) around the run. [`Simulator::run`](crate::Simulator::run)
//! reads the planted bug once, when the run starts, into a [`Plants`] it
//! hands to the machine and the race detector, which ask [`Plants::has`]
//! where the bug would act. Without the `fuzzing` feature `Plants` holds
//! nothing and `has` is the constant `false`: a default build has no
//! planted-bug type in its public API and tests nothing per instruction.

/// A bug the simulator can plant (feature `fuzzing`: `fuzzing::Bug`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bug {
    /// `sync.io` also forgets the compute pipe's in-flight accesses: the
    /// race detector then misses hazards the vector-clock oracle reports
    /// (`tests/races.rs` must notice).
    SyncIoForgetsCompute,
    /// `vadd.f32` adds one ulp to its first element: the comparison with
    /// ir-core's interpreter (`tests/reference.rs`) must notice.
    VaddUlp,
}

impl Bug {
    /// Every bug, in declaration order.
    const ALL: [Bug; 2] = [Bug::SyncIoForgetsCompute, Bug::VaddUlp];
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

/// The bug planted for one run, read once when the run starts; empty
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

    /// Whether `bug` was planted when the run started.
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
