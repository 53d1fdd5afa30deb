//! A map from byte ranges to values with overwrite semantics: the last
//! value written over a byte is the one the map holds for it.
//!
//! The race detector keeps, per pipe and per memory, the last in-flight
//! read and the last in-flight write of every byte; loops that stream
//! through memory from one instruction merge into a single interval.
//!
//! Invariants: intervals are non-empty, disjoint, kept in a `BTreeMap` by
//! start; two adjacent intervals never hold equal values (they are merged).
//! `insert` is `O((k + 1) log n)` for `k` intervals it overwrites, makes
//! at most three, and allocates nothing beyond the map's own nodes (one
//! lookup when an interval with the same value already covers the range);
//! `first_overlap` is `O(log n + k)`.

use std::collections::BTreeMap;

/// Disjoint intervals `[start, end)` with values.
#[derive(Clone, Debug)]
pub struct IntervalMap<V> {
    map: BTreeMap<u64, (u64, V)>,
}

impl<V> Default for IntervalMap<V> {
    fn default() -> IntervalMap<V> {
        IntervalMap { map: BTreeMap::new() }
    }
}

impl<V: Copy + PartialEq> IntervalMap<V> {
    /// Forgets every byte.
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Number of intervals (O(1)).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Gives every byte of `[start, end)` the value `v`.
    pub fn insert(&mut self, start: u64, end: u64, v: V) {
        if start >= end {
            return;
        }
        // Already so: one interval with this value covers the range (a copy
        // re-reading the same bytes row after row).
        if let Some((_, &(e, val))) = self.map.range(..=start).next_back()
            && e >= end
            && val == v
        {
            return;
        }
        let mut left: Option<(u64, u64, V)> = None;
        let mut right: Option<(u64, u64, V)> = None;
        // The overlapping intervals are the run ending at the last one
        // starting before `end`; remove them last to first.
        while let Some((&s, &(e, val))) = self.map.range(..end).next_back()
            && e > start
        {
            self.map.remove(&s);
            if s < start {
                left = Some((s, start, val));
            }
            if e > end {
                right = Some((end, e, val));
            }
        }
        let (mut s, mut e) = (start, end);
        match left {
            Some((ls, le, lv)) if lv == v => s = ls.min(s).min(le),
            Some((ls, le, lv)) => {
                self.map.insert(ls, (le, lv));
            }
            None => {}
        }
        match right {
            Some((rs, re, rv)) if rv == v => e = re.max(e).max(rs),
            Some((rs, re, rv)) => {
                self.map.insert(rs, (re, rv));
            }
            None => {}
        }
        // Merge with untouched neighbours holding the same value.
        if let Some((&ps, &(pe, pv))) = self.map.range(..s).next_back()
            && pe == s
            && pv == v
        {
            self.map.remove(&ps);
            s = ps;
        }
        if let Some(&(ne, nv)) = self.map.get(&e)
            && nv == v
        {
            self.map.remove(&e);
            e = ne;
        }
        self.map.insert(s, (e, v));
    }

    /// The first interval (by start) overlapping `[start, end)` whose value
    /// satisfies `pred`, clipped to `[start, end)`.
    pub fn first_overlap(&self, start: u64, end: u64, mut pred: impl FnMut(&V) -> bool) -> Option<(u64, u64, V)> {
        if start >= end {
            return None;
        }
        let first =
            self.map.range(..=start).next_back().filter(|(_, (e, _))| *e > start).map(|(&s, _)| s).unwrap_or(start);
        self.map
            .range(first..end)
            .find(|(_, (e, v))| *e > start && pred(v))
            .map(|(&s, &(e, v))| (s.max(start), e.min(end), v))
    }

    /// Every interval, in order.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64, V)> + '_ {
        self.map.iter().map(|(&s, &(e, v))| (s, e, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious model: one value per byte.
    fn model_insert(bytes: &mut [Option<u8>], s: u64, e: u64, v: u8) {
        for b in &mut bytes[s as usize..e as usize] {
            *b = Some(v);
        }
    }

    proptest! {
        #[test]
        fn agrees_with_a_byte_model(ops in prop::collection::vec((0u64..64, 0u64..64, 0u8..3), 0..60)) {
            let mut map = IntervalMap::default();
            let mut bytes = [None; 64];
            for (a, b, v) in ops {
                let (s, e) = (a.min(b), a.max(b));
                map.insert(s, e, v);
                model_insert(&mut bytes, s, e, v);
                // Same contents, disjoint, merged.
                let mut seen = [None; 64];
                let mut last: Option<(u64, u8)> = None;
                for (s, e, v) in map.iter() {
                    prop_assert!(s < e);
                    if let Some((le, lv)) = last {
                        prop_assert!(le <= s);
                        prop_assert!(!(le == s && lv == v), "adjacent equal intervals");
                    }
                    for x in &mut seen[s as usize..e as usize] {
                        *x = Some(v);
                    }
                    last = Some((e, v));
                }
                prop_assert_eq!(seen, bytes);
                // Overlap queries agree with the model.
                for (qs, qe) in [(0, 64), (s, e), (e.saturating_sub(3), e + 3)] {
                    let qe = qe.min(64);
                    for want in 0..3u8 {
                        let got = map.first_overlap(qs, qe, |&x| x == want);
                        let first = (qs..qe).find(|&i| bytes[i as usize] == Some(want));
                        prop_assert_eq!(got.map(|g| g.0), first);
                    }
                }
            }
        }
    }

    #[test]
    fn streaming_merges() {
        let mut m = IntervalMap::default();
        for i in 0..1000u64 {
            m.insert(i * 64, i * 64 + 64, 7u32);
        }
        assert_eq!(m.len(), 1);
        m.insert(100, 200, 8);
        assert_eq!(m.len(), 3);
        assert_eq!(m.first_overlap(0, 1000, |&v| v == 8), Some((100, 200, 8)));
        assert_eq!(m.first_overlap(150, 160, |&v| v == 8), Some((150, 160, 8)));
        assert_eq!(m.first_overlap(200, 300, |&v| v == 8), None);
    }
}
