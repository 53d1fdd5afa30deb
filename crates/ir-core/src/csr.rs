//! Compressed sparse rows: per-key lists stored as offsets plus one flat
//! vector, the layout Keel uses for every per-entity list.
//!
//! Invariant of a CSR built here: the list of key `k` is
//! `list[start[k] as usize..start[k + 1] as usize]`, `start` has one entry
//! per key plus one, and each list keeps its values in input order (the
//! bucketing is a stable counting sort, O(keys + pairs), no comparison).

/// Buckets `(key, value)` pairs by key into `start` and `list`, reusing
/// both buffers. Keys must be below `keys`.
///
/// # Panics
///
/// When a key is `keys` or more.
pub fn bucket<T: Copy>(keys: usize, pairs: &[(u32, T)], start: &mut Vec<u32>, list: &mut Vec<T>) {
    start.clear();
    start.resize(keys + 1, 0);
    for &(k, _) in pairs {
        assert!((k as usize) < keys, "csr::bucket: key {k} out of 0..{keys}");
        start[k as usize] += 1;
    }
    // Running ends: start[k] is one past the last slot of bucket k, and
    // start[keys] the total (no key is `keys`).
    let mut total = 0;
    for s in start.iter_mut() {
        total += *s;
        *s = total;
    }
    list.clear();
    list.extend(pairs.iter().map(|&(_, v)| v));
    // Filling from the back makes each start[k] end at its bucket's first
    // slot, and keeps the values of a bucket in input order.
    for &(k, v) in pairs.iter().rev() {
        start[k as usize] -= 1;
        list[start[k as usize] as usize] = v;
    }
}

/// The list of `key` in a CSR built by [`bucket`] (empty when out of range).
pub fn row<'a, T>(start: &[u32], list: &'a [T], key: usize) -> &'a [T] {
    match (start.get(key), start.get(key + 1)) {
        (Some(&s), Some(&e)) => &list[s as usize..e as usize],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::{bucket, row};

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
    }
}
