//! Segment maps: a partition of the integer line (element positions of an
//! object, or positions relative to a symbol) into segments, each with the
//! interned set of sites live on it. This is the document's "kill set as a
//! sorted interval list" turned inside out: instead of each definition
//! keeping the intervals killed from it, each interval keeps the
//! definitions still live on it, so a use finds what reaches it by looking
//! at the segments it overlaps, and an exact definition kills by
//! overwriting the segments it covers.
//!
//! Invariants: breakpoints are strictly increasing; segment `k` is
//! `[pts[k].0, pts[k + 1].0)` (the last one runs to `+∞`, which is
//! `i64::MAX`: positions are below it); the line before the first
//! breakpoint holds the empty set, and so does the first breakpoint's
//! segment never (it would be dropped); neighbouring segments hold
//! different sets (coalesced). Two maps are equal exactly when they map
//! every position to the same set.

use crate::sets::{EMPTY, SetId, SetTable};

/// `+∞` as an exclusive end.
pub(crate) const INF: i64 = i64::MAX;
/// `-∞` as a start.
pub(crate) const NEG_INF: i64 = i64::MIN;

/// A partition of the line into segments carrying sets.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub(crate) struct SegMap {
    pts: Vec<(i64, SetId)>,
}

impl SegMap {
    /// The segments with non-empty sets, as `(start, end, set)`.
    pub fn segments(&self) -> impl Iterator<Item = (i64, i64, SetId)> + '_ {
        self.pts.iter().enumerate().filter(|(_, p)| p.1 != EMPTY).map(|(k, &(s, set))| {
            let end = self.pts.get(k + 1).map_or(INF, |p| p.0);
            (s, end, set)
        })
    }

    /// The index of the segment holding `x` (`None`: before the first
    /// breakpoint, the empty set).
    #[inline]
    fn seg(&self, x: i64) -> Option<usize> {
        self.pts.partition_point(|p| p.0 <= x).checked_sub(1)
    }

    /// The set at position `x`.
    #[inline]
    fn at(&self, x: i64) -> SetId {
        self.seg(x).map_or(EMPTY, |k| self.pts[k].1)
    }

    /// Applies `f` to the set of every position in `[lo, hi)` (`hi` may be
    /// [`INF`]).
    pub fn update(&mut self, lo: i64, hi: i64, mut f: impl FnMut(SetId) -> SetId) {
        if lo >= hi {
            return;
        }
        // The window of breakpoints replaced: those in [lo, hi].
        let i = self.pts.partition_point(|p| p.0 < lo);
        let j = if hi == INF { self.pts.len() } else { self.pts.partition_point(|p| p.0 <= hi) };
        let at_lo = self.at(lo);
        let at_hi = if hi == INF { EMPTY } else { self.at(hi) };
        let before = if i == 0 { EMPTY } else { self.pts[i - 1].1 };
        let mut window: smallvec::SmallVec<[(i64, SetId); 8]> = smallvec::SmallVec::new();
        let mut last = before;
        let mut push = |w: &mut smallvec::SmallVec<[(i64, SetId); 8]>, x: i64, s: SetId| {
            if s != last {
                w.push((x, s));
                last = s;
            }
        };
        push(&mut window, lo, f(at_lo));
        for k in i..j {
            let (x, s) = self.pts[k];
            if x > lo && x < hi {
                push(&mut window, x, f(s));
            }
        }
        if hi != INF {
            push(&mut window, hi, at_hi);
        }
        self.pts.splice(i..j, window);
    }

    /// Sets every position in `[lo, hi)` to `s` (a kill).
    pub fn assign(&mut self, lo: i64, hi: i64, s: SetId) {
        self.update(lo, hi, |_| s);
    }

    /// Adds `s` to every position in `[lo, hi)`.
    pub fn add(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        self.update(lo, hi, |old| t.union(old, s));
    }

    /// The union of the sets on `[lo, hi)`.
    pub fn query(&self, lo: i64, hi: i64, t: &mut SetTable) -> SetId {
        if lo >= hi || self.pts.is_empty() {
            return EMPTY;
        }
        let start = self.seg(lo).unwrap_or(0);
        let mut acc = EMPTY;
        for &(x, s) in &self.pts[start..] {
            if x >= hi {
                break;
            }
            acc = t.union(acc, s);
        }
        acc
    }

    /// The union of every set.
    pub fn all(&self, t: &mut SetTable) -> SetId {
        self.pts.iter().fold(EMPTY, |acc, &(_, s)| t.union(acc, s))
    }

    /// The pointwise union of two maps.
    pub fn join(&self, other: &SegMap, t: &mut SetTable) -> SegMap {
        if other.pts.is_empty() || self == other {
            return self.clone();
        }
        if self.pts.is_empty() {
            return other.clone();
        }
        let (a, b) = (&self.pts, &other.pts);
        let mut out: Vec<(i64, SetId)> = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        let (mut sa, mut sb) = (EMPTY, EMPTY);
        let mut last = EMPTY;
        while i < a.len() || j < b.len() {
            let x = match (a.get(i), b.get(j)) {
                (Some(p), Some(q)) => p.0.min(q.0),
                (Some(p), None) => p.0,
                (None, Some(q)) => q.0,
                (None, None) => unreachable!("loop condition"),
            };
            if i < a.len() && a[i].0 == x {
                sa = a[i].1;
                i += 1;
            }
            if j < b.len() && b[j].0 == x {
                sb = b[j].1;
                j += 1;
            }
            let s = t.union(sa, sb);
            if s != last {
                out.push((x, s));
                last = s;
            }
        }
        SegMap { pts: out }
    }

    /// The pointwise intersection of two maps (only for a planted bug).
    pub fn meet(&self, other: &SegMap, t: &mut SetTable) -> SegMap {
        let mut out = SegMap::default();
        let mut xs: Vec<i64> = self.pts.iter().chain(&other.pts).map(|p| p.0).collect();
        xs.sort_unstable();
        xs.dedup();
        for (k, &x) in xs.iter().enumerate() {
            let s = t.inter(self.at(x), other.at(x));
            let end = xs.get(k + 1).copied().unwrap_or(INF);
            out.update(x, end, |_| s);
        }
        out
    }

    /// The map of a symbol-relative layer after the symbol advanced by
    /// `g` positions any number `k >= 1` of times: a site live on `[s, e)`
    /// is live afterwards somewhere in `∪_{k≥1} [s - k·g, e - k·g)`, which
    /// is kept as its hull, `(-∞, e - g)` for `g > 0` and `[s - g, +∞)` for
    /// `g < 0` (the identity for `g = 0`). `None` when a position would
    /// overflow (the caller then forgets the relation).
    pub fn advanced(&self, g: i64, t: &mut SetTable) -> Option<SegMap> {
        if g == 0 || self.pts.is_empty() {
            return Some(self.clone());
        }
        let segs: Vec<(i64, i64, SetId)> = self.segments().collect();
        let mut out: Vec<(i64, SetId)> = Vec::with_capacity(segs.len() + 1);
        if g > 0 {
            // Segment k reaches down to (-∞, e_k - g); ends increase with k,
            // so position x holds the union of the segments from the first
            // one whose shifted end is past x: a suffix union.
            let mut suffix = vec![EMPTY; segs.len() + 1];
            for k in (0..segs.len()).rev() {
                suffix[k] = t.union(suffix[k + 1], segs[k].2);
            }
            out.push((NEG_INF, suffix[0]));
            for (k, &(_, e, _)) in segs.iter().enumerate() {
                if e == INF {
                    break;
                }
                out.push((e.checked_sub(g)?, suffix[k + 1]));
            }
        } else {
            // Segment k reaches up from [s_k - g, +∞): a prefix union.
            let mut acc = EMPTY;
            for &(s0, _, s) in &segs {
                let start = if s0 == NEG_INF { NEG_INF } else { s0.checked_sub(g)? };
                acc = t.union(acc, s);
                out.push((start, acc));
            }
        }
        let mut m = SegMap { pts: out };
        m.normalize();
        Some(m)
    }

    /// Restores the invariants after a rebuild: strictly increasing
    /// breakpoints, coalesced, no leading empty segment.
    fn normalize(&mut self) {
        // Equal positions: the last one wins.
        let mut dedup: Vec<(i64, SetId)> = Vec::with_capacity(self.pts.len());
        for &(x, s) in &self.pts {
            match dedup.last_mut() {
                Some(p) if p.0 == x => p.1 = s,
                _ => dedup.push((x, s)),
            }
        }
        let mut last = EMPTY;
        dedup.retain(|&(_, s)| {
            let keep = s != last;
            last = s;
            keep
        });
        self.pts = dedup;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slow model: the set at each position of a small window.
    fn model(m: &SegMap, t: &SetTable, lo: i64, hi: i64) -> Vec<Vec<u32>> {
        (lo..hi).map(|x| t.ranges(m.at(x)).iter().flat_map(|&(a, b)| a..b).collect()).collect()
    }

    fn check_invariants(m: &SegMap) {
        for w in m.pts.windows(2) {
            assert!(w[0].0 < w[1].0, "{m:?}");
            assert_ne!(w[0].1, w[1].1, "{m:?}");
        }
        if let Some(p) = m.pts.first() {
            assert_ne!(p.1, EMPTY, "{m:?}");
        }
    }

    #[test]
    fn updates_match_a_pointwise_model() {
        let mut t = SetTable::default();
        let mut seed = 99u64;
        let mut rnd = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n) as i64
        };
        for _ in 0..200 {
            let mut m = SegMap::default();
            let mut pointwise: Vec<Vec<u32>> = vec![Vec::new(); 40];
            for _ in 0..12 {
                let lo = rnd(40);
                let hi = lo + rnd(12);
                let item = rnd(8) as u32;
                let one = t.single(item);
                match rnd(3) {
                    0 => {
                        m.assign(lo, hi, one);
                        for x in lo..hi.min(40) {
                            pointwise[x as usize] = vec![item];
                        }
                    }
                    _ => {
                        m.add(lo, hi, one, &mut t);
                        for x in lo..hi.min(40) {
                            let v = &mut pointwise[x as usize];
                            if !v.contains(&item) {
                                v.push(item);
                                v.sort();
                            }
                        }
                    }
                }
                check_invariants(&m);
                assert_eq!(model(&m, &t, 0, 40), pointwise);
                let (qlo, qhi) = (rnd(40), rnd(40));
                let q = m.query(qlo, qhi, &mut t);
                let mut expect: Vec<u32> = (qlo..qhi).flat_map(|x| pointwise[x as usize].clone()).collect();
                expect.sort();
                expect.dedup();
                assert_eq!(t.ranges(q).iter().flat_map(|&(a, b)| a..b).collect::<Vec<_>>(), expect);
            }
            let mut other = SegMap::default();
            let s = t.single(9);
            other.assign(rnd(40), 30, s);
            let j = m.join(&other, &mut t);
            check_invariants(&j);
            for x in 0..40 {
                let u = t.union(m.at(x), other.at(x));
                assert_eq!(j.at(x), u);
            }
        }
    }

    #[test]
    fn advancing_keeps_the_hull_of_every_shift() {
        let mut t = SetTable::default();
        let (a, b) = (t.single(1), t.single(2));
        let mut m = SegMap::default();
        m.assign(0, 64, a);
        m.assign(100, 110, b);
        // g = 64: site 1 on (-∞, 0), site 2 on (-∞, 46).
        let adv = m.advanced(64, &mut t).unwrap();
        check_invariants(&adv);
        let ab = t.union(a, b);
        assert_eq!(adv.at(-1000), ab);
        assert_eq!(adv.at(-1), ab);
        assert_eq!(adv.at(0), b);
        assert_eq!(adv.at(45), b);
        assert_eq!(adv.at(46), EMPTY);
        // g = -64: site 1 on [64, ∞), site 2 on [164, ∞).
        let adv = m.advanced(-64, &mut t).unwrap();
        check_invariants(&adv);
        assert_eq!(adv.at(63), EMPTY);
        assert_eq!(adv.at(64), a);
        assert_eq!(adv.at(164), ab);
        assert_eq!(adv.at(i64::MAX - 1), ab);
        // Half-lines stay half-lines, shifted.
        let again = adv.advanced(-64, &mut t).unwrap();
        assert_eq!(again.at(127), EMPTY);
        assert_eq!(again.at(128), a);
        assert_eq!(m.advanced(0, &mut t).unwrap(), m);
    }
}
