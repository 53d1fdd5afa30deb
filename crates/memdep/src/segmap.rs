//! Segment maps: a step function from positions (elements of an object,
//! or positions relative to a symbol) to the interned set of sites live
//! there. This is the document's "kill set as a sorted interval list"
//! turned inside out: instead of each definition keeping the intervals
//! killed from it, each interval keeps the definitions still live on it,
//! so a read finds what reaches it by looking at the segments it overlaps,
//! and an exact write kills by overwriting the segments it covers.
//!
//! Two forms, chosen by size: up to [`FLAT_MAX`] breakpoints, a sorted
//! shared array ([`flat`]); past it, a persistent canonical treap
//! ([`treap`], O(log n) updates and range unions, joins that share
//! subtrees). A map grows into a treap past `FLAT_MAX` points and shrinks
//! back to an array at `FLAT_MAX / 2` (the gap keeps a map at the border
//! from switching at each update). Both forms are persistent: a clone is
//! one reference count, so each block's state costs O(objects) to keep,
//! and an update or join that changes nothing returns the map itself. A
//! small map that no other state shares (one a block has already changed)
//! is updated in place, without a new allocation.
//!
//! Invariants: the set at a position is that of the last breakpoint at or
//! before it (empty before the first); equality is pointwise, whatever the
//! forms; nothing recurses deeper than a treap's height.

mod bounds;
mod flat;
mod treap;

use crate::sets::{EMPTY, SetId, SetTable};
use flat::{Flat, Joined, Points};
use std::rc::Rc;
use treap::tree::Tree;

pub(crate) use bounds::{INF, NEG_INF};

/// Most breakpoints a map keeps in the small form.
const FLAT_MAX: usize = 8;

/// A map's body: one of the two forms.
#[derive(Debug)]
enum Repr {
    Flat(Flat),
    Tree(Tree),
}

/// A step function from positions to sets (see the module doc): the empty
/// map, or a shared body. One pointer wide, so that a state's vector of
/// maps (one per object, in every block's state) stays small.
#[derive(Clone, Debug, Default)]
pub(crate) struct SegMap {
    body: Option<Rc<Repr>>,
}

impl SegMap {
    fn of(repr: Repr) -> SegMap {
        SegMap { body: Some(Rc::new(repr)) }
    }

    /// The map of canonical points, in the form their number calls for.
    fn of_canonical(points: Points, t: &mut SetTable) -> SegMap {
        if points.is_empty() {
            SegMap::default()
        } else if points.len() <= FLAT_MAX {
            SegMap::of(Repr::Flat(Flat::new(points)))
        } else {
            SegMap::of(Repr::Tree(Tree::from_points(&points, t)))
        }
    }

    /// Makes this map the one of canonical `points`: in place when it is a
    /// small map no other state shares and the points stay small (no
    /// allocation: a block's later updates of a map it changed already),
    /// otherwise as a new body.
    fn set_points(&mut self, points: Points, t: &mut SetTable) {
        if !points.is_empty()
            && points.len() <= FLAT_MAX
            && let Some(Repr::Flat(f)) = self.body.as_mut().and_then(Rc::get_mut)
        {
            f.replace(&points);
        } else {
            *self = SegMap::of_canonical(points, t);
        }
    }

    /// The map after a treap update: back to the small form when the tree
    /// has shrunk to half of [`FLAT_MAX`].
    fn of_tree(tree: Tree, t: &mut SetTable) -> SegMap {
        if tree.len() > FLAT_MAX / 2 {
            return SegMap::of(Repr::Tree(tree));
        }
        let mut raw = Vec::with_capacity(tree.len());
        tree.raw_points(t, &mut raw);
        SegMap::of_canonical(Flat::canonical(&raw), t)
    }

    fn from_points(points: &[(i64, SetId)], t: &mut SetTable) -> SegMap {
        // Equal positions: the last one wins; then canonical.
        let mut pts: Vec<(i64, SetId)> = Vec::with_capacity(points.len());
        for &(x, s) in points {
            match pts.last_mut() {
                Some(p) if p.0 == x => p.1 = s,
                _ => pts.push((x, s)),
            }
        }
        SegMap::of_canonical(Flat::canonical(&pts), t)
    }

    /// The breakpoints, canonical: `(start, set)` in order.
    fn points(&self, t: &mut SetTable) -> Vec<(i64, SetId)> {
        match self.body.as_deref() {
            None => Vec::new(),
            Some(Repr::Flat(f)) => f.points().to_vec(),
            Some(Repr::Tree(tree)) => {
                let mut raw = Vec::with_capacity(tree.len());
                tree.raw_points(t, &mut raw);
                Flat::canonical(&raw).into_vec()
            }
        }
    }

    /// True when every position holds the empty set.
    fn is_empty(&self) -> bool {
        match self.body.as_deref() {
            None => true,
            Some(Repr::Flat(_)) => false,
            Some(Repr::Tree(tree)) => tree.len() == 0,
        }
    }

    /// The segments with non-empty sets, as `(start, end, set)`.
    pub fn segments(&self, t: &mut SetTable) -> Vec<(i64, i64, SetId)> {
        let pts = self.points(t);
        (0..pts.len())
            .filter(|&k| pts[k].1 != EMPTY)
            .map(|k| (pts[k].0, pts.get(k + 1).map_or(INF, |p| p.0), pts[k].1))
            .collect()
    }

    /// The set at position `x`.
    #[cfg(test)]
    fn value_at(&self, x: i64, t: &mut SetTable) -> SetId {
        match self.body.as_deref() {
            None => EMPTY,
            Some(Repr::Flat(f)) => f.value_at(x),
            Some(Repr::Tree(tree)) => tree.value_at(x, t),
        }
    }

    /// Sets every position in `[lo, hi)` to `s` (a kill).
    pub fn assign(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        if lo >= hi {
            return;
        }
        match self.body.as_deref() {
            None => {
                let mut points = Points::new();
                if s != EMPTY {
                    points.push((lo, s));
                    if hi != INF {
                        points.push((hi, EMPTY));
                    }
                }
                *self = SegMap::of_canonical(points, t);
            }
            Some(Repr::Flat(f)) => {
                if let Some(points) = f.assign(lo, hi, s) {
                    self.set_points(points, t);
                }
            }
            Some(Repr::Tree(tree)) => {
                let mut changed = tree.clone();
                changed.assign(lo, hi, s, t);
                if !changed.ptr_eq(tree) {
                    *self = SegMap::of_tree(changed, t);
                }
            }
        }
    }

    /// Adds `s` to every position in `[lo, hi)`.
    pub fn add(&mut self, lo: i64, hi: i64, s: SetId, t: &mut SetTable) {
        if lo >= hi || s == EMPTY {
            return;
        }
        match self.body.as_deref() {
            // On the empty map, adding is assigning.
            None => self.assign(lo, hi, s, t),
            Some(Repr::Flat(f)) => {
                if let Some(points) = f.add(lo, hi, s, t) {
                    self.set_points(points, t);
                }
            }
            // Adding never removes a breakpoint: the tree stays a tree.
            Some(Repr::Tree(tree)) => {
                let mut changed = tree.clone();
                changed.add(lo, hi, s, t);
                if !changed.ptr_eq(tree) {
                    *self = SegMap::of(Repr::Tree(changed));
                }
            }
        }
    }

    /// The union of the sets on `[lo, hi)`.
    pub fn query(&self, lo: i64, hi: i64, t: &mut SetTable) -> SetId {
        if lo >= hi {
            return EMPTY;
        }
        match self.body.as_deref() {
            None => EMPTY,
            Some(Repr::Flat(f)) => f.query(lo, hi, t),
            Some(Repr::Tree(tree)) => tree.query(lo, hi, t),
        }
    }

    /// The union of every set.
    pub fn all(&self, t: &mut SetTable) -> SetId {
        match self.body.as_deref() {
            None => EMPTY,
            Some(Repr::Flat(f)) => f.all(t),
            Some(Repr::Tree(tree)) => tree.all(t),
        }
    }

    /// The pointwise union of two maps (one of them itself when it already
    /// holds the other).
    pub fn join(&self, other: &SegMap, t: &mut SetTable) -> SegMap {
        let (a, b) = match (&self.body, &other.body) {
            (_, None) => return self.clone(),
            (None, _) => return other.clone(),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => return self.clone(),
            (Some(a), Some(b)) => (a, b),
        };
        match (&**a, &**b) {
            (Repr::Flat(x), Repr::Flat(y)) => match x.join(y, t) {
                Joined::First => self.clone(),
                Joined::Second => other.clone(),
                Joined::New(points) => SegMap::of_canonical(points, t),
            },
            (Repr::Tree(x), Repr::Tree(y)) => {
                let u = x.join(y, t);
                if u.ptr_eq(x) {
                    self.clone()
                } else if u.ptr_eq(y) {
                    other.clone()
                } else {
                    SegMap::of(Repr::Tree(u))
                }
            }
            (Repr::Tree(x), Repr::Flat(f)) | (Repr::Flat(f), Repr::Tree(x)) => {
                let y = Tree::from_points(f.points(), t);
                SegMap::of(Repr::Tree(x.join(&y, t)))
            }
        }
    }

    /// Pointwise equality.
    pub fn same(&self, other: &SegMap, t: &mut SetTable) -> bool {
        match (self.body.as_ref(), other.body.as_ref()) {
            (None, None) => true,
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => true,
            (Some(a), Some(b)) => match (&**a, &**b) {
                (Repr::Flat(x), Repr::Flat(y)) => x.points() == y.points(),
                (Repr::Tree(x), Repr::Tree(y)) => match x.same_shape(y, t) {
                    Some(eq) => eq,
                    None => x.all(t) == y.all(t) && self.points(t) == other.points(t),
                },
                _ => self.all(t) == other.all(t) && self.points(t) == other.points(t),
            },
            // A small map is never all empty (its first point holds a
            // set); a treap whose sets are all empty equals the empty map.
            (Some(m), None) | (None, Some(m)) => match &**m {
                Repr::Flat(_) => false,
                Repr::Tree(_) => self.all(t) == other.all(t) && self.points(t) == other.points(t),
            },
        }
    }

    /// True when both are one map (a cheap, incomplete equality).
    #[cfg(test)]
    pub fn ptr_eq(&self, other: &SegMap) -> bool {
        match (&self.body, &other.body) {
            (None, None) => true,
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The pointwise intersection of two maps (only for a planted bug).
    pub fn meet(&self, other: &SegMap, t: &mut SetTable) -> SegMap {
        let (a, b) = (self.points(t), other.points(t));
        let mut xs: Vec<i64> = a.iter().chain(&b).map(|p| p.0).collect();
        xs.sort_unstable();
        xs.dedup();
        let value =
            |pts: &[(i64, SetId)], x: i64| pts.partition_point(|p| p.0 <= x).checked_sub(1).map_or(EMPTY, |k| pts[k].1);
        let pts: Vec<(i64, SetId)> = xs.iter().map(|&x| (x, t.inter(value(&a, x), value(&b, x)))).collect();
        SegMap::from_points(&pts, t)
    }

    /// The map of a symbol-relative layer after the symbol advanced by
    /// `g` positions any number `k >= 1` of times: a site live on `[s, e)`
    /// is live afterwards somewhere in `∪_{k≥1} [s - k·g, e - k·g)`, which
    /// is kept as its hull, `(-∞, e - g)` for `g > 0` and `[s - g, +∞)` for
    /// `g < 0` (the identity for `g = 0`). `None` when a position would
    /// overflow (the caller then forgets the relation).
    pub fn advanced(&self, g: i64, t: &mut SetTable) -> Option<SegMap> {
        if g == 0 || self.is_empty() {
            return Some(self.clone());
        }
        let segs = self.segments(t);
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
        Some(SegMap::from_points(&out, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set at each position of a small window.
    fn model(m: &SegMap, t: &mut SetTable, lo: i64, hi: i64) -> Vec<Vec<u32>> {
        (lo..hi)
            .map(|x| {
                let s = m.value_at(x, t);
                t.ranges(s).iter().flat_map(|&(a, b)| a..b).collect()
            })
            .collect()
    }

    /// The invariants of the map's form: a treap's nodes, or canonical
    /// points.
    fn check_invariants(m: &SegMap, t: &mut SetTable) {
        match m.body.as_deref() {
            None => {}
            Some(Repr::Tree(tree)) => tree.check_invariants(t),
            Some(Repr::Flat(f)) => {
                assert!(!f.points().is_empty() && f.points().len() <= FLAT_MAX);
                assert_eq!(Flat::canonical(f.points()).as_slice(), f.points());
            }
        }
    }

    #[test]
    fn updates_match_a_pointwise_model() {
        updates_match_a_pointwise_model_in(false);
    }

    /// The same, with breakpoints far from the window so that every map is
    /// a treap.
    #[test]
    fn treaps_match_a_pointwise_model() {
        updates_match_a_pointwise_model_in(true);
    }

    fn updates_match_a_pointwise_model_in(background: bool) {
        let mut t = SetTable::default();
        let mut seed = 99u64;
        let mut rnd = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n) as i64
        };
        for _ in 0..300 {
            let mut m = SegMap::default();
            if background {
                for k in 0..2 * FLAT_MAX as i64 {
                    let far = t.single(100 + k as u32);
                    m.assign(1000 + 2 * k, 1001 + 2 * k, far, &mut t);
                }
                assert!(matches!(m.body.as_deref(), Some(Repr::Tree(_))));
            }
            let mut pointwise: Vec<Vec<u32>> = vec![Vec::new(); 40];
            let mut history: Vec<SegMap> = Vec::new();
            for _ in 0..14 {
                let lo = rnd(40);
                let hi = lo + rnd(12);
                let item = rnd(8) as u32;
                let one = t.single(item);
                let kill = rnd(3) == 0;
                match kill {
                    true => {
                        m.assign(lo, hi, one, &mut t);
                        for x in lo..hi.min(40) {
                            pointwise[x as usize] = vec![item];
                        }
                    }
                    false => {
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
                check_invariants(&m, &mut t);
                assert_eq!(model(&m, &mut t, 0, 40), pointwise);
                // Updates are idempotent down to the pointer: the second
                // application keeps the map itself.
                let mut again = m.clone();
                if kill {
                    again.assign(lo, hi, one, &mut t);
                } else {
                    again.add(lo, hi, one, &mut t);
                }
                assert!(again.ptr_eq(&m));
                assert!(
                    !background || matches!(m.body.as_deref(), Some(Repr::Tree(_))),
                    "the background keeps a treap"
                );
                let (qlo, qhi) = (rnd(40), rnd(40));
                let q = m.query(qlo, qhi, &mut t);
                let mut expect: Vec<u32> = (qlo..qhi).flat_map(|x| pointwise[x as usize].clone()).collect();
                expect.sort();
                expect.dedup();
                assert_eq!(t.ranges(q).iter().flat_map(|&(a, b)| a..b).collect::<Vec<_>>(), expect);
                history.push(m.clone());
            }
            // Joins of any two versions: pointwise unions; a version joined
            // with one it contains is itself.
            for i in 0..history.len() {
                let j = rnd(history.len() as u64) as usize;
                let (a, b) = (&history[i], &history[j]);
                let u = a.join(b, &mut t);
                check_invariants(&u, &mut t);
                for x in -2..42 {
                    let (sa, sb, su) = (a.value_at(x, &mut t), b.value_at(x, &mut t), u.value_at(x, &mut t));
                    assert_eq!(su, t.union(sa, sb));
                }
                let again = u.join(a, &mut t);
                assert!(again.same(&u, &mut t), "joining what it holds changes nothing");
                assert!(a.join(a, &mut t).ptr_eq(a));
            }
        }
    }

    #[test]
    fn advancing_keeps_the_hull_of_every_shift() {
        let mut t = SetTable::default();
        let (a, b) = (t.single(1), t.single(2));
        let mut m = SegMap::default();
        m.assign(0, 64, a, &mut t);
        m.assign(100, 110, b, &mut t);
        // g = 64: site 1 on (-∞, 0), site 2 on (-∞, 46).
        let adv = m.advanced(64, &mut t).unwrap();
        let ab = t.union(a, b);
        let v = |m: &SegMap, x, t: &mut SetTable| m.value_at(x, t);
        assert_eq!(v(&adv, -1000, &mut t), ab);
        assert_eq!(v(&adv, -1, &mut t), ab);
        assert_eq!(v(&adv, 0, &mut t), b);
        assert_eq!(v(&adv, 45, &mut t), b);
        assert_eq!(v(&adv, 46, &mut t), EMPTY);
        // g = -64: site 1 on [64, ∞), site 2 on [164, ∞).
        let adv = m.advanced(-64, &mut t).unwrap();
        assert_eq!(v(&adv, 63, &mut t), EMPTY);
        assert_eq!(v(&adv, 64, &mut t), a);
        assert_eq!(v(&adv, 164, &mut t), ab);
        assert_eq!(v(&adv, i64::MAX - 1, &mut t), ab);
        let again = adv.advanced(-64, &mut t).unwrap();
        assert_eq!(v(&again, 127, &mut t), EMPTY);
        assert_eq!(v(&again, 128, &mut t), a);
        assert!(m.advanced(0, &mut t).unwrap().same(&m, &mut t));
    }

    /// Queries over the whole map (the treap's shortcut through its root's
    /// aggregate) against the union of the values at every position.
    #[test]
    fn whole_map_queries_are_the_union_of_every_value() {
        let mut t = SetTable::default();
        let mut m = SegMap::default();
        for k in 0..3 * FLAT_MAX as i64 {
            let s = t.single(k as u32);
            m.assign(10 * k, 10 * k + 5, s, &mut t);
        }
        let wide = t.single(99);
        // A wide site over [0, 400): the last key (400) holds the empty set.
        m.add(0, 400, wide, &mut t);
        assert!(matches!(m.body.as_deref(), Some(Repr::Tree(_))));
        for (lo, hi) in [(-5, INF), (0, 400), (0, 235), (-1, 400), (0, 401), (1, 400), (5, 399), (400, 500)] {
            let mut expect = EMPTY;
            for x in lo.max(-10)..hi.min(600) {
                let v = m.value_at(x, &mut t);
                expect = t.union(expect, v);
            }
            assert_eq!(m.query(lo, hi, &mut t), expect, "query [{lo}, {hi})");
        }
        // A last key that holds a set (to the end): the query up to it
        // leaves it out.
        let last = t.single(77);
        m.assign(400, INF, last, &mut t);
        let q = m.query(0, 400, &mut t);
        assert!(!t.meets(q, last));
        let q = m.query(0, 401, &mut t);
        assert!(t.meets(q, last));
    }

    /// Maps whose updates are mostly adds over the whole object (what
    /// makes a treap keep its end beside it, see `treap::Tree`), mixed
    /// with kills, narrow adds and updates past the end, against a
    /// pointwise model; joins and equality of every pair of versions
    /// against the pointwise union and equality.
    #[test]
    fn whole_object_adds_match_a_pointwise_model() {
        const END: i64 = 200;
        let mut t = SetTable::default();
        let mut seed = 7u64;
        let mut rnd = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n) as i64
        };
        let values =
            |m: &SegMap, t: &mut SetTable| -> Vec<SetId> { (-2..END + 20).map(|x| m.value_at(x, t)).collect() };
        for _ in 0..60 {
            let mut m = SegMap::default();
            for k in 0..2 * FLAT_MAX as i64 {
                let s = t.single(100 + k as u32);
                m.assign(10 * k, 10 * k + 5, s, &mut t);
            }
            let mut model = values(&m, &mut t);
            let mut history = vec![(m.clone(), model.clone())];
            for step in 0..24 {
                let item = t.single(rnd(12) as u32);
                let (lo, hi, kill) = match rnd(6) {
                    0..=2 => (0, END, false),
                    3 => (rnd(END as u64), rnd(END as u64) + 1, false),
                    4 => (rnd(END as u64), rnd(END as u64) + 1, true),
                    _ => (rnd(END as u64 + 10), END + rnd(10) + 1, rnd(2) == 0),
                };
                if lo >= hi {
                    continue;
                }
                if kill {
                    m.assign(lo, hi, item, &mut t);
                } else {
                    m.add(lo, hi, item, &mut t);
                }
                for x in lo.max(-2)..hi.min(END + 20) {
                    let v = &mut model[(x + 2) as usize];
                    *v = if kill { item } else { t.union(*v, item) };
                }
                check_invariants(&m, &mut t);
                assert_eq!(values(&m, &mut t), model, "step {step}: [{lo}, {hi}) kill {kill}");
                for (qlo, qhi) in
                    [(0, END), (-2, END + 20), (rnd(END as u64), END), (rnd(END as u64), rnd(END as u64) + 1)]
                {
                    if qlo >= qhi {
                        continue;
                    }
                    let expect = (qlo..qhi).fold(EMPTY, |acc, x| t.union(acc, model[(x + 2) as usize]));
                    assert_eq!(m.query(qlo, qhi, &mut t), expect, "query [{qlo}, {qhi})");
                }
                history.push((m.clone(), model.clone()));
            }
            for (a, va) in &history {
                for (b, vb) in &history {
                    let u = a.join(b, &mut t);
                    check_invariants(&u, &mut t);
                    let expect: Vec<SetId> = va.iter().zip(vb).map(|(&x, &y)| t.union(x, y)).collect();
                    assert_eq!(values(&u, &mut t), expect);
                    assert_eq!(a.same(b, &mut t), va == vb);
                }
            }
        }
    }

    #[test]
    fn a_long_map_stays_shallow() {
        let mut t = SetTable::default();
        let mut m = SegMap::default();
        for k in 0..20_000i64 {
            let s = t.single(k as u32);
            m.assign(k * 4, k * 4 + 2, s, &mut t);
        }
        let Some(Repr::Tree(tree)) = m.body.as_deref() else { panic!("40,000 keys in the small form") };
        let deepest = tree.depth();
        assert!(deepest < 60, "depth {deepest} for 40,000 keys");
        assert_eq!(tree.len(), 40_000);
    }
}
