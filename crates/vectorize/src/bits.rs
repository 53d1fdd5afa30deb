//! A small bitset over parameter or result positions (a batching
//! pattern: bit `i` set means position `i` is batched).

use smallvec::SmallVec;

/// A set of positions.
#[derive(Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bits(SmallVec<[u64; 1]>);

impl Bits {
    /// The empty set.
    pub fn new() -> Bits {
        Bits(SmallVec::new())
    }

    /// The set of `true` positions of `flags`.
    pub fn from_flags(flags: impl IntoIterator<Item = bool>) -> Bits {
        let mut b = Bits::new();
        for (i, f) in flags.into_iter().enumerate() {
            if f {
                b.insert(i);
            }
        }
        b
    }

    /// `0..n`.
    pub fn all(n: usize) -> Bits {
        Bits::from_flags((0..n).map(|_| true))
    }

    /// True when `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Adds every element of `other`; true when something was added.
    pub fn union_with(&mut self, other: &Bits) -> bool {
        let mut changed = false;
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Canonical form (no trailing zero words), so equal sets hash alike.
    pub fn normalized(mut self) -> Bits {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }

    /// The positions in `0..n`, as flags.
    pub fn flags(&self, n: usize) -> Vec<bool> {
        (0..n).map(|i| self.contains(i)).collect()
    }
}
