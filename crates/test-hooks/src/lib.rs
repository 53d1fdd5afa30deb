//! `test-hooks`: Keel's one mechanism for planting a bug on purpose, to
//! prove that an oracle can fail.
//!
//! Every Keel crate that plants bugs does it the same way:
//!
//! - The crate lists its bugs in a `Bug` enum and re-exports it, with
//!   [`with_bug`], from its `fuzzing` module. That module, and this crate
//!   as a dependency, exist only with the crate's `fuzzing` feature: a
//!   default build has no planted-bug type, parameter, option or function
//!   in its public API.
//! - Inside the crate, a private `planted(bug) -> bool` answers
//!   [`is_planted`] with the feature and is the constant `false` without it,
//!   so a default build checks nothing.
//! - A pass reads each flag it needs once, when it starts, into a local or
//!   a field (never [`is_planted`] per instruction), so even a build with
//!   `fuzzing` on (the benchmarks turn it on for oracles and generators)
//!   pays one thread-local read per pass, not per step.
//!
//! A test then runs the code under a bug and checks that its oracle
//! notices:
//!
//! ```
//! #[derive(Copy, Clone, PartialEq, Eq, Debug)]
//! enum Bug { OffByOne }
//!
//! fn sum(xs: &[u32]) -> u32 {
//!     let skip = test_hooks::is_planted(Bug::OffByOne);
//!     xs.iter().skip(usize::from(skip)).sum()
//! }
//!
//! assert_eq!(sum(&[1, 2, 3]), 6);
//! assert_eq!(test_hooks::with_bug(Bug::OffByOne, || sum(&[1, 2, 3])), 5);
//! assert_eq!(sum(&[1, 2, 3]), 6, "the bug is gone when the scope ends");
//! ```
//!
//! Invariants: a bug is planted on the calling thread only, for the
//! duration of the closure given to [`with_bug`] (restored even when the
//! closure panics); scopes nest, the innermost bug wins; bugs of different
//! types never match each other.

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::any::Any;
use std::cell::RefCell;

thread_local! {
    static PLANTED: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Runs `f` with `bug` planted on this thread, then removes it (restoring
/// any bug planted by an enclosing scope), also when `f` panics.
pub fn with_bug<B: Copy + PartialEq + 'static, R>(bug: B, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Box<dyn Any>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            PLANTED.with(|p| *p.borrow_mut() = previous);
        }
    }
    let previous = PLANTED.with(|p| p.borrow_mut().replace(Box::new(bug)));
    let _restore = Restore(previous);
    f()
}

/// True when `bug` is the bug planted on this thread by an enclosing
/// [`with_bug`].
pub fn is_planted<B: Copy + PartialEq + 'static>(bug: B) -> bool {
    PLANTED.with(|p| p.borrow().as_ref().and_then(|b| b.downcast_ref::<B>()) == Some(&bug))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    enum A {
        One,
        Two,
    }

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    enum B {
        One,
    }

    #[test]
    fn scopes_nest_and_types_do_not_mix() {
        assert!(!is_planted(A::One));
        with_bug(A::One, || {
            assert!(is_planted(A::One));
            assert!(!is_planted(A::Two));
            assert!(!is_planted(B::One));
            with_bug(A::Two, || assert!(is_planted(A::Two) && !is_planted(A::One)));
            assert!(is_planted(A::One));
        });
        assert!(!is_planted(A::One));
    }

    #[test]
    fn a_panic_removes_the_bug() {
        let r = std::panic::catch_unwind(|| with_bug(A::One, || panic!("boom")));
        assert!(r.is_err());
        assert!(!is_planted(A::One));
    }

    #[test]
    fn other_threads_see_nothing() {
        with_bug(A::One, || {
            assert!(!std::thread::spawn(|| is_planted(A::One)).join().unwrap());
        });
    }
}
