//! Interned sets of site ids in range form: each set is a sorted list of
//! disjoint, non-adjacent half-open ranges `[lo, hi)`, stored once
//! (hash-consed) and named by a [`SetId`]. Equal sets have equal ids, so
//! comparing states is comparing ids, and the set operations the dataflow
//! repeats (union above all) are remembered by id pair in a direct-mapped
//! cache of recent operations ([`SetTable::union`] and the others).
//!
//! Why a lossy cache and no memo table: on the benchmark kernel of 10^4
//! instructions, half of the 186,000 operations repeat one met shortly
//! before, and a cache of 4,096 entries (64 KiB, resident in L2) finds
//! all of them but about 0.2%; the other half make a set for the first
//! time. Exact memo maps of every pair held over 10^5 entries that missed
//! the processor's caches on each probe (two probes per new set, a lookup
//! and an insert): removing them made the analysis 15-20% faster. A
//! repeat the cache has lost is computed again on the range lists and
//! found by interning: the answer is the same id either way.
//!
//! Why ranges: sites are numbered in reverse postorder, so the definitions
//! reaching a point tend to be runs of consecutive ids (every store of a
//! straight stretch of code through one pointer), and a may-set of `n`
//! definitions that a thousand uses share costs a handful of ranges, once.
//!
//! Every site's singleton is made once per analysis: they are reserved
//! up front as sets `1` … `n` in order, outside the hash table
//! ([`SetTable::reserve_singletons`]), which then holds only the sets the
//! dataflow builds.
//!
//! Invariants: set 0 is the empty set; every stored list is canonical
//! (sorted, disjoint, non-adjacent, no empty range), which makes interning
//! exact; ids are never reused within one table's life ([`SetTable::clear`]
//! starts over).

use hashbrown::hash_table::{Entry, HashTable};

/// Log2 of the entries of [`SetTable`]'s cache of recent operations.
const RECENT_BITS: u32 = 12;
/// Entries of that cache.
const RECENT: usize = 1 << RECENT_BITS;
/// A key no operation has (an op of 3 does not exist).
const NO_KEY: u64 = u64::MAX;

/// An interned set.
pub type SetId = u32;

/// The empty set.
pub const EMPTY: SetId = 0;

/// A table of interned range sets, with a cache of recent operations.
#[derive(Clone, Debug)]
pub(crate) struct SetTable {
    starts: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    /// Every set, by the hash of its range list: a table of bare ids (4
    /// bytes and a control byte a slot, where a map from hash to id took
    /// 17), since on large functions the probe of each new set misses the
    /// processor's caches and the table's size is what decides how often
    /// (see the module doc).
    table: HashTable<SetId>,
    /// `{0}` … `{reserved - 1}` are the sets `1` … `reserved`, stored in
    /// order and kept out of the hash table ([`SetTable::reserve_singletons`]).
    reserved: u32,
    /// A direct-mapped cache of recent operations: `(key, result)` by a
    /// hash of the key (see [`SetTable::cached`]).
    recent: Vec<(u64, SetId)>,
    scratch: Vec<(u32, u32)>,
    /// The memory budget of the table, in bytes ([`SetTable::set_limit`]).
    limit: u64,
    /// A set was refused for the budget since the last clear: every id
    /// handed out since may be wrong (the empty set stands in for the
    /// refused ones), so the caller must give up ([`SetTable::exceeded`]).
    exceeded: bool,
    /// What the table would have taken with the refused set.
    refused_bytes: u64,
}

impl Default for SetTable {
    fn default() -> SetTable {
        let mut t = SetTable {
            starts: Vec::new(),
            ranges: Vec::new(),
            table: HashTable::new(),
            reserved: 0,
            recent: Vec::new(),
            scratch: Vec::new(),
            limit: u64::MAX,
            exceeded: false,
            refused_bytes: 0,
        };
        t.clear();
        t
    }
}

/// The hash of a range list: each range packed in one word, mixed into
/// one of two lanes in turn (two independent multiply chains, where one
/// Fx chain over every bound made hashing a tenth of the analysis on
/// functions with long sets), then the lanes folded and avalanched once.
fn hash_of(r: &[(u32, u32)]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let pack = |&(lo, hi): &(u32, u32)| u64::from(lo) << 32 | u64::from(hi);
    let (mut a, mut b) = (r.len() as u64, 0x9e37_79b9_7f4a_7c15u64);
    let mut pairs = r.chunks_exact(2);
    for p in &mut pairs {
        a = (a ^ pack(&p[0])).wrapping_mul(K).rotate_left(23);
        b = (b ^ pack(&p[1])).wrapping_mul(K).rotate_left(23);
    }
    if let [last] = pairs.remainder() {
        a = (a ^ pack(last)).wrapping_mul(K).rotate_left(23);
    }
    let mut h = (a ^ b.rotate_left(32)).wrapping_mul(K);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ h >> 32
}

/// The hash of set `s`'s range list, from the table's vectors (what the
/// hash table rehashes with when it grows).
fn row_hash(starts: &[u32], ranges: &[(u32, u32)], s: SetId) -> u64 {
    hash_of(cfg_dom::csr::row(starts, ranges, s as usize))
}

impl SetTable {
    /// Forgets every set but the empty one, keeping capacity.
    pub fn clear(&mut self) {
        self.starts.clear();
        self.ranges.clear();
        self.table.clear();
        self.reserved = 0;
        self.recent.clear();
        self.recent.resize(RECENT, (NO_KEY, EMPTY));
        self.exceeded = false;
        self.starts.extend([0, 0]);
        self.table.insert_unique(hash_of(&[]), EMPTY, |_| hash_of(&[]));
    }

    /// Number of distinct sets so far (the empty one included).
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The ranges of a set.
    #[inline]
    pub fn ranges(&self, s: SetId) -> &[(u32, u32)] {
        cfg_dom::csr::row(&self.starts, &self.ranges, s as usize)
    }

    /// The id of the canonical list in `self.scratch`, interning it.
    /// Sets the memory budget: a set whose storage would take the table
    /// past `bytes` is refused ([`SetTable::exceeded`]).
    pub fn set_limit(&mut self, bytes: u64) {
        self.limit = bytes;
    }

    /// Whether a set was refused for the budget since the last clear (the
    /// results since are not to be used).
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// Bytes the table would have taken with the set it refused.
    pub fn refused_bytes(&self) -> u64 {
        self.refused_bytes
    }

    /// Bytes the table would hold with `extra` more ranges and one more
    /// set: the range and start vectors at the capacity their growth would
    /// reach, the hash table likewise (6 bytes a slot: an id, a control
    /// byte, and the slots a table keeps free), and the cache.
    fn bytes_with(&self, extra: usize) -> u64 {
        let grown = |len: usize, cap: usize, add: usize| -> u64 {
            let need = len + add;
            (if need > cap { need.max(cap * 2) } else { cap }) as u64
        };
        grown(self.ranges.len(), self.ranges.capacity(), extra) * 8
            + (RECENT * 16) as u64
            + grown(self.starts.len(), self.starts.capacity(), 1) * 4
            + grown(self.table.len(), self.table.capacity(), 1) * 6
    }

    fn intern_scratch(&mut self) -> SetId {
        if self.exceeded {
            return EMPTY;
        }
        if let [(lo, hi)] = self.scratch[..]
            && hi == lo + 1
            && lo < self.reserved
        {
            return lo + 1;
        }
        let h = hash_of(&self.scratch);
        let need = self.bytes_with(self.scratch.len());
        let id = self.len() as SetId;
        // One probe of the table, whether the set is found or added; a
        // table that grows rehashes each set from its ranges.
        let (starts, ranges, scratch) = (&self.starts, &self.ranges, &self.scratch);
        let row = |s: SetId| cfg_dom::csr::row(starts, ranges, s as usize);
        match self.table.entry(h, |&s| row(s) == scratch.as_slice(), |&s| row_hash(starts, ranges, s)) {
            Entry::Occupied(e) => return *e.get(),
            Entry::Vacant(e) if need <= self.limit => {
                e.insert(id);
            }
            Entry::Vacant(_) => {
                self.exceeded = true;
                self.refused_bytes = need;
                return EMPTY;
            }
        }
        self.ranges.extend_from_slice(&self.scratch);
        self.starts.push(self.ranges.len() as u32);
        id
    }

    /// The set of the canonical (sorted, disjoint, non-adjacent) ranges
    /// given.
    pub fn intern(&mut self, ranges: &[(u32, u32)]) -> SetId {
        self.scratch.clear();
        self.scratch.extend_from_slice(ranges);
        self.intern_scratch()
    }

    /// Makes `{0}` … `{n - 1}` the sets `1` … `n`, in one sequential run
    /// of the range vector and without the hash table: every site's
    /// singleton is made once per analysis, and on large functions these
    /// were half of the table's sets, each probe a cache miss. Only on a
    /// table that holds nothing but the empty set (else nothing is done);
    /// past the budget the table is marked exceeded. `sites` (uses and
    /// definitions) sizes the room reserved for the sets to come.
    pub fn reserve_singletons(&mut self, n: u32, sites: usize) {
        if self.len() != 1 || self.exceeded {
            return;
        }
        let need = self.bytes_with(n as usize) + u64::from(n) * 4;
        if need > self.limit {
            self.exceeded = true;
            self.refused_bytes = need;
            return;
        }
        self.ranges.extend((0..n).map(|x| (x, x + 1)));
        self.starts.extend(1..=n);
        self.reserved = n;
        // The dataflow makes about two sets a site, uses and definitions
        // counted (1.8 on the kernels): room for them now, where growing
        // copies the vectors and rehashes every set from its ranges, a
        // cache miss each on large functions. Only what fits the budget
        // with room to spare is reserved.
        let sets = 2 * sites;
        if self.bytes_with(2 * sets) + 6 * sets as u64 <= self.limit / 2 {
            self.ranges.reserve(2 * sets);
            self.starts.reserve(sets);
            let (starts, ranges) = (&self.starts, &self.ranges);
            self.table.reserve(sets, |&s| row_hash(starts, ranges, s));
        }
    }

    /// `{x}`.
    pub fn single(&mut self, x: u32) -> SetId {
        if x < self.reserved {
            return x + 1;
        }
        self.scratch.clear();
        self.scratch.push((x, x + 1));
        self.intern_scratch()
    }

    /// `a ∪ b`.
    pub fn union(&mut self, a: SetId, b: SetId) -> SetId {
        if a == b || b == EMPTY {
            return a;
        }
        if a == EMPTY {
            return b;
        }
        self.cached(Op::Union, a.min(b), a.max(b))
    }

    /// `a ∖ b`.
    pub fn diff(&mut self, a: SetId, b: SetId) -> SetId {
        if a == EMPTY || b == EMPTY {
            return a;
        }
        if a == b {
            return EMPTY;
        }
        self.cached(Op::Diff, a, b)
    }

    /// True when `a` and `b` share an element; nothing is interned (each
    /// range of the shorter list is looked up in the longer one).
    pub fn meets(&self, a: SetId, b: SetId) -> bool {
        if a == EMPTY || b == EMPTY {
            return false;
        }
        if a == b {
            return true;
        }
        let (ra, rb) = (self.ranges(a), self.ranges(b));
        let (short, long) = if ra.len() <= rb.len() { (ra, rb) } else { (rb, ra) };
        short.iter().any(|&(lo, hi)| {
            let k = long.partition_point(|&(_, y)| y <= lo);
            long.get(k).is_some_and(|&(x, _)| x < hi)
        })
    }

    /// `a ∩ b`.
    pub fn inter(&mut self, a: SetId, b: SetId) -> SetId {
        if a == EMPTY || b == EMPTY {
            return EMPTY;
        }
        if a == b {
            return a;
        }
        self.cached(Op::Inter, a.min(b), a.max(b))
    }

    /// `a op b` from the cache of recent operations, or computed on the
    /// range lists, interned and remembered there.
    fn cached(&mut self, op: Op, a: SetId, b: SetId) -> SetId {
        // Most repeats are of an operation met shortly before (along a
        // treap's paths, across the blocks of a loop). Ids past 2^31 (a
        // table of over 16 GiB) are not cached.
        let key = (op as u64) << 62 | u64::from(a) << 31 | u64::from(b);
        let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_BITS)) as usize;
        let small = a < 1 << 31 && b < 1 << 31;
        if small && self.recent[slot].0 == key {
            return self.recent[slot].1;
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let (ra, rb) = (self.ranges(a), self.ranges(b));
        match op {
            Op::Union => unite(ra, rb, &mut out),
            Op::Diff => minus(ra, rb, &mut out),
            Op::Inter => intersect(ra, rb, &mut out),
        }
        self.scratch = out;
        let s = self.intern_scratch();
        if self.exceeded {
            return s;
        }
        if small {
            self.recent[slot] = (key, s);
        }
        s
    }
}

/// The cached operations of [`SetTable`].
#[derive(Copy, Clone)]
enum Op {
    Union,
    Diff,
    Inter,
}

/// Appends `a ∪ b` (canonical range lists; the result is canonical) to
/// `out`.
fn unite(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() * 8 < long.len() {
        // Most unions add a site or two to a long set: each short range
        // finds its place by bisection, and the runs of the long list
        // between them are copied whole.
        let mut k = 0;
        for &r in short {
            let end = k + long[k..].partition_point(|&(lo, _)| lo <= r.0);
            extend_merged(out, &long[k..end]);
            push_merged(out, r);
            k = end;
        }
        extend_merged(out, &long[k..]);
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let r = if j == b.len() || (i < a.len() && a[i].0 <= b[j].0) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        push_merged(out, r);
    }
}

/// Appends range `r` to the canonical list `out`, whose last range starts
/// no later than `r`: merged into that range when they meet or touch.
fn push_merged(out: &mut Vec<(u32, u32)>, r: (u32, u32)) {
    match out.last_mut() {
        Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
        _ => out.push(r),
    }
}

/// Appends the canonical list `rs` to the canonical list `out`, whose
/// last range starts no later than `rs`'s first: the leading ranges that
/// meet or touch `out`'s last are merged into it, the rest (which then
/// cannot) copied whole.
fn extend_merged(out: &mut Vec<(u32, u32)>, rs: &[(u32, u32)]) {
    let mut k = 0;
    if let Some(last) = out.last_mut() {
        while let Some(&(lo, hi)) = rs.get(k)
            && lo <= last.1
        {
            last.1 = last.1.max(hi);
            k += 1;
        }
    }
    out.extend_from_slice(&rs[k..]);
}

/// Appends `a ∩ b` (canonical range lists; the result is canonical) to
/// `out`.
fn intersect(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// Appends `a ∖ b` (canonical range lists; the result is canonical) to
/// `out`.
pub(crate) fn minus(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    for &(lo, hi) in a {
        minus_one(lo, hi, b, out);
    }
}

/// Appends `[lo, hi) ∖ b` (`b` canonical) to `out`, starting at the first
/// range of `b` that ends past `lo` (found by bisection: the cost is a log
/// plus the ranges of `b` met).
pub(crate) fn minus_one(lo: u32, hi: u32, b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let mut cur = lo;
    let mut k = b.partition_point(|&(_, y)| y <= cur);
    while cur < hi {
        match b.get(k) {
            Some(&(x, y)) if x < hi => {
                if x > cur {
                    out.push((cur, x));
                }
                cur = cur.max(y);
                k += 1;
            }
            _ => {
                out.push((cur, hi));
                cur = hi;
            }
        }
    }
}

/// Appends `a △ b`, the elements in exactly one of the two (canonical
/// range lists; the result is canonical), to `out`: one merge of the two
/// lists' boundaries, where the element parity changes.
pub(crate) fn symmetric_difference(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    // Boundary k of a list: the start of range k / 2 (k even) or its end.
    let at = |r: &[(u32, u32)], k: usize| if k.is_multiple_of(2) { r[k / 2].0 } else { r[k / 2].1 };
    let (na, nb) = (2 * a.len(), 2 * b.len());
    let (mut i, mut j) = (0, 0);
    let mut open = None;
    while i < na || j < nb {
        let x = match (i < na, j < nb) {
            (true, true) => at(a, i).min(at(b, j)),
            (true, false) => at(a, i),
            _ => at(b, j),
        };
        // Canonical lists have strictly increasing boundaries: one each
        // at most.
        if i < na && at(a, i) == x {
            i += 1;
        }
        if j < nb && at(b, j) == x {
            j += 1;
        }
        // Past x, inside `a` when an odd number of its boundaries are
        // behind, likewise `b`.
        let inside = (i % 2 == 1) != (j % 2 == 1);
        match open {
            None if inside => open = Some(x),
            Some(lo) if !inside => {
                out.push((lo, x));
                open = None;
            }
            _ => {}
        }
    }
}

/// True when `x` is in the canonical range list `r`.
pub(crate) fn contains(r: &[(u32, u32)], x: u32) -> bool {
    let k = r.partition_point(|&(_, hi)| hi <= x);
    r.get(k).is_some_and(|&(lo, _)| lo <= x)
}

/// Number of elements of a range list.
pub(crate) fn count(r: &[(u32, u32)]) -> u64 {
    r.iter().map(|&(lo, hi)| u64::from(hi - lo)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(t: &mut SetTable, xs: &[u32]) -> SetId {
        xs.iter().fold(EMPTY, |s, &x| {
            let one = t.single(x);
            t.union(s, one)
        })
    }

    fn elems(t: &SetTable, s: SetId) -> Vec<u32> {
        t.ranges(s).iter().flat_map(|&(lo, hi)| lo..hi).collect()
    }

    #[test]
    fn operations_agree_with_btreesets() {
        use std::collections::BTreeSet;
        let mut t = SetTable::default();
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for _ in 0..300 {
            let a: BTreeSet<u32> = (0..rnd() % 12).map(|_| rnd() % 30).collect();
            let b: BTreeSet<u32> = (0..rnd() % 12).map(|_| rnd() % 30).collect();
            let (sa, sb) = (
                set(&mut t, &a.iter().copied().collect::<Vec<_>>()),
                set(&mut t, &b.iter().copied().collect::<Vec<_>>()),
            );
            let u = t.union(sa, sb);
            assert_eq!(elems(&t, u), a.union(&b).copied().collect::<Vec<_>>());
            let d = t.diff(sa, sb);
            assert_eq!(elems(&t, d), a.difference(&b).copied().collect::<Vec<_>>());
            assert_eq!(t.meets(sa, sb), a.intersection(&b).next().is_some());
            let i = t.inter(sa, sb);
            assert_eq!(elems(&t, i), a.intersection(&b).copied().collect::<Vec<_>>());
            let mut x = Vec::new();
            symmetric_difference(t.ranges(sa), t.ranges(sb), &mut x);
            assert!(x.iter().all(|r| r.0 < r.1) && x.windows(2).all(|w| w[0].1 < w[1].0), "canonical");
            let xs: Vec<u32> = x.iter().flat_map(|&(lo, hi)| lo..hi).collect();
            assert_eq!(xs, a.symmetric_difference(&b).copied().collect::<Vec<_>>());
            for x in 0..32 {
                assert_eq!(contains(t.ranges(sa), x), a.contains(&x));
            }
            // Interning: the same set twice is one id.
            let again = set(&mut t, &a.iter().rev().copied().collect::<Vec<_>>());
            assert_eq!(again, sa);
        }
        // A long set and a short one: the union's bisecting path (the
        // short side's ranges inside, between, touching and past the long
        // side's), either way round.
        for _ in 0..300 {
            let a: BTreeSet<u32> = (0..40 + rnd() % 40).map(|_| rnd() % 200).collect();
            let b: BTreeSet<u32> = (0..rnd() % 4).map(|_| rnd() % 202).collect();
            let (sa, sb) = (
                set(&mut t, &a.iter().copied().collect::<Vec<_>>()),
                set(&mut t, &b.iter().copied().collect::<Vec<_>>()),
            );
            let want: Vec<u32> = a.union(&b).copied().collect();
            let u = t.union(sa, sb);
            assert_eq!(elems(&t, u), want);
            let (mut ab, mut ba) = (Vec::new(), Vec::new());
            unite(t.ranges(sa), t.ranges(sb), &mut ab);
            unite(t.ranges(sb), t.ranges(sa), &mut ba);
            assert_eq!((&ab, &ba), (&t.ranges(u).to_vec(), &t.ranges(u).to_vec()));
        }
        assert_eq!(set(&mut t, &[]), EMPTY);
        let runs = set(&mut t, &[1, 2, 3, 7, 8]);
        assert_eq!(t.ranges(runs), [(1, 4), (7, 9)]);
    }
}
