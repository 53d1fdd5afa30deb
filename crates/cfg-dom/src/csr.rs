//! Compressed sparse rows: per-key lists stored as offsets plus one flat
//! vector, the layout Keel uses for every per-entity list (graph edges,
//! dominator-tree children, frontiers, phi placements, DU chains).
//!
//! Invariant of a CSR built here: the list of key `k` is
//! `list[start[k] as usize..start[k + 1] as usize]`, `start` has one entry
//! per key plus one, and each list keeps its values in input order (the
//! bucketing is a stable counting sort, O(keys + pairs), no comparison, no
//! scratch memory: counts become end offsets, then a backward pass places
//! each value and moves its bucket's cursor back to the bucket's start).
//! This is the workspace's one CSR builder.

/// Buckets `(key, value)` pairs by key into `start` and `list`, reusing
/// both buffers. `pairs` is walked twice (forward to count, backward to
/// place), so it must be cheap to clone and give the same pairs each time.
///
/// # Panics
///
/// When a key is `keys` or more (a precondition every caller in Keel
/// establishes first; it is checked even in release builds, because an
/// out-of-range key would otherwise corrupt another bucket).
pub fn bucket_by<T: Copy>(
    keys: usize,
    pairs: impl DoubleEndedIterator<Item = (u32, T)> + Clone,
    start: &mut Vec<u32>,
    list: &mut Vec<T>,
) {
    start.clear();
    start.resize(keys + 1, 0);
    for (k, _) in pairs.clone() {
        assert!((k as usize) < keys, "csr: key {k} out of 0..{keys}");
        start[k as usize] += 1;
    }
    // Running ends: start[k] is one past the last slot of bucket k, and
    // start[keys] the total (no key is `keys`).
    let mut total = 0u32;
    for s in start.iter_mut() {
        total += *s;
        *s = total;
    }
    list.clear();
    // Any value will do as filler: every slot is overwritten below.
    if let Some((_, filler)) = pairs.clone().next() {
        list.resize(total as usize, filler);
    }
    // Filling from the back makes each start[k] end at its bucket's first
    // slot, and keeps the values of a bucket in input order.
    for (k, v) in pairs.rev() {
        start[k as usize] -= 1;
        list[start[k as usize] as usize] = v;
    }
}

/// [`bucket_by`] over a slice of pairs.
///
/// # Panics
///
/// When a key is `keys` or more.
pub fn bucket<T: Copy>(keys: usize, pairs: &[(u32, T)], start: &mut Vec<u32>, list: &mut Vec<T>) {
    bucket_by(keys, pairs.iter().copied(), start, list);
}

/// The list of `key` in a CSR built by [`bucket`] (empty when `key` is out
/// of range, which callers use for "no such entity has a list").
#[inline]
pub fn row<'a, T>(start: &[u32], list: &'a [T], key: usize) -> &'a [T] {
    match (start.get(key), start.get(key + 1)) {
        (Some(&s), Some(&e)) => &list[s as usize..e as usize],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::{bucket, bucket_by, row};

    #[test]
    fn buckets_are_stable_and_complete() {
        let pairs = [(2, 'a'), (0, 'b'), (2, 'c'), (1, 'd'), (0, 'e'), (2, 'f')];
        let (mut start, mut list) = (Vec::new(), Vec::new());
        bucket(4, &pairs, &mut start, &mut list);
        assert_eq!(start, [0, 2, 3, 6, 6]);
        assert_eq!(row(&start, &list, 0), ['b', 'e']);
        assert_eq!(row(&start, &list, 1), ['d']);
        assert_eq!(row(&start, &list, 2), ['a', 'c', 'f']);
        assert!(row(&start, &list, 3).is_empty() && row(&start, &list, 9).is_empty());
        // Reused buffers: a smaller input leaves nothing behind.
        bucket(2, &[(1, 'x')], &mut start, &mut list);
        assert_eq!((start.as_slice(), list.as_slice()), (&[0, 0, 1][..], &['x'][..]));
        // From an iterator: the transpose of a tiny relation.
        let rel: [&[u32]; 3] = [&[1], &[0, 1], &[]];
        let pairs = rel.iter().enumerate().flat_map(|(a, bs)| bs.iter().map(move |&b| (b, a as u32)));
        let mut users = Vec::new();
        bucket_by(2, pairs, &mut start, &mut users);
        assert_eq!(row(&start, &users, 0), [1]);
        assert_eq!(row(&start, &users, 1), [0, 1]);
    }

    #[test]
    #[should_panic(expected = "out of 0..2")]
    fn a_key_out_of_range_panics_before_writing() {
        let (mut start, mut list) = (Vec::new(), Vec::<u32>::new());
        bucket(2, &[(2, 7)], &mut start, &mut list);
    }
}
