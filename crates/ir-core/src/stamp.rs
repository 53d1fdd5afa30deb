//! Modification epochs for stale-analysis detection.
//!
//! Invariant: [`Epoch`] values are unique across every function of the
//! process and every state of each function. An edit (any `&mut` access
//! through [`crate::Function`]'s API) marks the stamp dirty with a plain
//! store; reading the epoch of a dirty stamp draws a fresh value from a
//! global counter, once, even under concurrent readers (compare-exchange).
//! So edits cost nothing measurable, and an analysis stamped with an epoch
//! can never be mistaken as current for a clone, a replacement, or a later
//! state of the function it was computed on.

use core::sync::atomic::{AtomicU64, Ordering};

/// An opaque version number of a function (or of its CFG).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Epoch(u64);

impl Epoch {
    /// The epoch as the plain stamp `cfg-dom`'s analyses carry (see
    /// `cfg_dom::Versioned`).
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

static NEXT_EPOCH: AtomicU64 = AtomicU64::new(1);

const DIRTY: u64 = 0;

/// A lazily-refreshed epoch.
#[derive(Debug)]
pub(crate) struct Stamp(AtomicU64);

impl Stamp {
    pub(crate) fn new() -> Stamp {
        Stamp(AtomicU64::new(DIRTY))
    }

    /// Marks the stamp as changed.
    #[inline]
    pub(crate) fn touch(&mut self) {
        *self.0.get_mut() = DIRTY;
    }

    /// The current epoch, drawing a fresh one after a change.
    pub(crate) fn get(&self) -> Epoch {
        let cur = self.0.load(Ordering::Acquire);
        if cur != DIRTY {
            return Epoch(cur);
        }
        let fresh = NEXT_EPOCH.fetch_add(1, Ordering::Relaxed);
        match self.0.compare_exchange(DIRTY, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => Epoch(fresh),
            Err(winner) => Epoch(winner),
        }
    }
}

/// A clone is a different function: it gets its own epochs.
impl Clone for Stamp {
    fn clone(&self) -> Stamp {
        Stamp::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_change_on_touch_and_differ_between_clones() {
        let mut s = Stamp::new();
        let a = s.get();
        assert_eq!(a, s.get());
        s.touch();
        let b = s.get();
        assert_ne!(a, b);
        let c = s.clone();
        assert_ne!(c.get(), b);
    }
}
