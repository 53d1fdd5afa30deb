//! The small form of a segment map: its canonical breakpoints in one
//! array, sorted by position.
//!
//! Almost every map the analysis keeps is small (a buffer written and read
//! as a few tiles, the fields around one base pointer): on the benchmark
//! kernel and the largest corpus functions, 60–93% of the map operations
//! meet at most four breakpoints. For them a treap's split, merge and lazy
//! tags cost several node allocations and set operations per update, where
//! this form costs one copy of a few entries and one set union per
//! breakpoint the range covers.
//!
//! Invariants: the points are *canonical*: positions strictly increase,
//! the first set is not empty, and no set equals the one before it. So
//! two small maps are equal as functions exactly when their arrays are
//! equal. The set at position `x` is that of the last point at or before
//! `x`, empty before the first. The map owns its points; sharing is the
//! caller's (`SegMap` keeps each map behind one `Rc`). An update that
//! changes nothing says so, and a join that adds nothing to one side names
//! that side, so that the caller keeps the map itself.

use super::bounds::INF;
use crate::sets::{EMPTY, SetId, SetTable};
use smallvec::SmallVec;
use std::cell::Cell;

/// Breakpoints as they are built (on the stack up to eight).
pub(super) type Points = SmallVec<[(i64, SetId); 8]>;

/// A segment map in small form (see the module doc).
#[derive(Debug)]
pub(super) struct Flat {
    /// Canonical, never empty (the empty map is no `Flat`); one or two
    /// points (most maps) live in the map's own allocation.
    points: SmallVec<[(i64, SetId); 2]>,
    /// The union of every set, computed on first need (`u32::MAX` until
    /// then).
    all: Cell<SetId>,
}

/// What a join of two small maps gives.
pub(super) enum Joined {
    /// The first map already holds the second.
    First,
    /// The second map already holds the first.
    Second,
    /// Neither: the union's canonical points.
    New(Points),
}

/// Appends `(x, s)` to canonical points, keeping them canonical (`x` past
/// the last position).
fn push(out: &mut Points, x: i64, s: SetId) {
    if out.last().map_or(EMPTY, |p| p.1) != s {
        out.push((x, s));
    }
}

/// The set of the last of the first `k` points (empty for `k = 0`): the
/// set at a position when `k` points start at or before it.
fn set_before(p: &[(i64, SetId)], k: usize) -> SetId {
    k.checked_sub(1).map_or(EMPTY, |k| p[k].1)
}

impl Flat {
    /// The map of canonical points (not empty).
    pub fn new(points: Points) -> Flat {
        debug_assert!(!points.is_empty(), "the empty map is no Flat");
        Flat { points: points.into_iter().collect(), all: Cell::new(u32::MAX) }
    }

    /// Replaces the points with other canonical ones (not empty), reusing
    /// the storage.
    pub fn replace(&mut self, points: &[(i64, SetId)]) {
        debug_assert!(!points.is_empty(), "the empty map is no Flat");
        self.points.clear();
        self.points.extend_from_slice(points);
        self.all.set(u32::MAX);
    }

    /// The canonical points.
    pub fn points(&self) -> &[(i64, SetId)] {
        &self.points
    }

    /// Canonical points of raw ones (increasing positions, any sets).
    pub fn canonical(raw: &[(i64, SetId)]) -> Points {
        let mut out = Points::new();
        for &(x, s) in raw {
            push(&mut out, x, s);
        }
        out
    }

    /// The set at position `x`.
    #[cfg(test)]
    pub fn value_at(&self, x: i64) -> SetId {
        let p = self.points();
        set_before(p, p.partition_point(|q| q.0 <= x))
    }

    /// The map with every position of `[lo, hi)` set to `s` (`lo < hi`);
    /// `None` when that changes nothing.
    pub fn assign(&self, lo: i64, hi: i64, s: SetId) -> Option<Points> {
        let p = self.points();
        let first = p.partition_point(|q| q.0 < lo);
        let after = if hi == INF { p.len() } else { p.partition_point(|q| q.0 <= hi) };
        let mut out = Points::new();
        out.extend_from_slice(&p[..first]);
        push(&mut out, lo, s);
        if hi != INF {
            push(&mut out, hi, set_before(p, after));
        }
        for &(x, v) in &p[after..] {
            push(&mut out, x, v);
        }
        (out.as_slice() != p).then_some(out)
    }

    /// The map with `s` added to every position of `[lo, hi)` (`lo < hi`);
    /// `None` when that changes nothing.
    pub fn add(&self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) -> Option<Points> {
        let p = self.points();
        // Points before lo, at lo (one at most), inside, at hi, after hi.
        let below = p.partition_point(|q| q.0 < lo);
        let first = below + usize::from(p.get(below).is_some_and(|q| q.0 == lo));
        let after = if hi == INF { p.len() } else { first + p[first..].partition_point(|q| q.0 <= hi) };
        let mut out = Points::new();
        out.extend_from_slice(&p[..below]);
        push(&mut out, lo, t.union(set_before(p, first), s));
        for &(x, v) in &p[first..after] {
            if x < hi {
                push(&mut out, x, t.union(v, s));
            }
        }
        if hi != INF {
            push(&mut out, hi, set_before(p, after));
        }
        for &(x, v) in &p[after..] {
            push(&mut out, x, v);
        }
        (out.as_slice() != p).then_some(out)
    }

    /// The union of the sets on `[lo, hi)` (`lo < hi`).
    pub fn query(&self, lo: i64, hi: i64, t: &mut SetTable) -> SetId {
        let p = self.points();
        let first = p.partition_point(|q| q.0 <= lo);
        let mut acc = set_before(p, first);
        for &(x, v) in &p[first..] {
            if x >= hi {
                break;
            }
            acc = t.union(acc, v);
        }
        acc
    }

    /// The union of every set.
    pub fn all(&self, t: &mut SetTable) -> SetId {
        let cached = self.all.get();
        if cached != u32::MAX {
            return cached;
        }
        let all = self.points.iter().fold(EMPTY, |acc, p| t.union(acc, p.1));
        self.all.set(all);
        all
    }

    /// The pointwise union (see [`Joined`]).
    pub fn join(&self, other: &Flat, t: &mut SetTable) -> Joined {
        let (a, b) = (self.points(), other.points());
        let (mut i, mut j) = (0, 0);
        let (mut va, mut vb) = (EMPTY, EMPTY);
        let mut out = Points::new();
        while i < a.len() || j < b.len() {
            let x = match (a.get(i), b.get(j)) {
                (Some(p), Some(q)) => p.0.min(q.0),
                (Some(p), None) => p.0,
                (None, Some(q)) => q.0,
                (None, None) => unreachable!("the loop condition"),
            };
            if a.get(i).is_some_and(|p| p.0 == x) {
                va = a[i].1;
                i += 1;
            }
            if b.get(j).is_some_and(|q| q.0 == x) {
                vb = b[j].1;
                j += 1;
            }
            push(&mut out, x, t.union(va, vb));
        }
        if out.as_slice() == a {
            Joined::First
        } else if out.as_slice() == b {
            Joined::Second
        } else {
            Joined::New(out)
        }
    }
}
