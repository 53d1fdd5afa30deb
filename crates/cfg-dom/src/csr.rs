//! Compressed sparse rows: per-key lists stored as offsets plus one flat
//! vector, the layout Keel uses for every per-entity list (graph edges,
//! dominator-tree children, frontiers, phi placements, DU chains).
//!
//! Invariant of a CSR built here: the list of key `k` is
//! `list[start[k] as usize..start[k + 1] as usize]`, `start` has one entry
//! per key plus one, and each list keeps its values in input order (the
//! bucketing is a stable counting sort, O(keys + pairs), no comparison, no
//! scratch memory: counts become start offsets, a forward pass places each
//! value at its bucket's cursor and moves the cursor on, so each cursor
//! ends where the next bucket starts, and one shift by a key turns the
//! cursors back into starts). [`transpose`] is the same sort over a CSR's
//! own rows. This is the workspace's one CSR builder.

/// Buckets `(key, value)` pairs by key into `start` and `list`, reusing
/// both buffers. `pairs` is walked twice, forward (to count, then to
/// place), so it must be cheap to clone and give the same pairs each time.
///
/// # Panics
///
/// When a key is `keys` or more (a precondition every caller in Keel
/// establishes first; it is checked even in release builds, because an
/// out-of-range key would otherwise corrupt another bucket).
pub fn bucket_by<T: Copy>(
    keys: usize,
    pairs: impl Iterator<Item = (u32, T)> + Clone,
    start: &mut Vec<u32>,
    list: &mut Vec<T>,
) {
    start.clear();
    start.resize(keys + 1, 0);
    for (k, _) in pairs.clone() {
        assert!((k as usize) < keys, "csr: key {k} out of 0..{keys}");
        start[k as usize] += 1;
    }
    let total = counts_to_starts(start);
    list.clear();
    // Any value will do as filler: every slot is overwritten below.
    if let Some((_, filler)) = pairs.clone().next() {
        list.resize(total, filler);
    }
    for (k, v) in pairs {
        let cursor = &mut start[k as usize];
        list[*cursor as usize] = v;
        *cursor += 1;
    }
    cursors_to_starts(start);
}

/// The transpose of the CSR `(from_start, from)` (one row per entry of
/// `from_start` but the last, values below `keys`): row `k` of the result
/// lists, in increasing order, the rows of the input that hold `k` (once
/// per occurrence). [`bucket_by`] over the pairs `(value, row)`, written
/// out to read the rows as slices: `bucket_by` over a flat-mapped pair
/// iterator costs the DU side of sql-wasm's chains 10 M more instructions
/// (6% of the whole SSA method).
///
/// # Panics
///
/// When a value is `keys` or more.
pub fn transpose(keys: usize, from_start: &[u32], from: &[u32], start: &mut Vec<u32>, list: &mut Vec<u32>) {
    start.clear();
    start.resize(keys + 1, 0);
    let used = from_start.last().map_or(0, |&e| e as usize);
    for &k in &from[..used] {
        assert!((k as usize) < keys, "csr: key {k} out of 0..{keys}");
        start[k as usize] += 1;
    }
    let total = counts_to_starts(start);
    list.clear();
    list.resize(total, 0);
    for (r, w) in from_start.windows(2).enumerate() {
        for &k in &from[w[0] as usize..w[1] as usize] {
            let cursor = &mut start[k as usize];
            list[*cursor as usize] = r as u32;
            *cursor += 1;
        }
    }
    cursors_to_starts(start);
}

/// Turns per-key counts (`start[..keys]`, `start[keys]` zero) into start
/// offsets, `start[keys]` the total; returns the total.
fn counts_to_starts(start: &mut [u32]) -> usize {
    let mut total = 0u32;
    for s in start.iter_mut() {
        let count = *s;
        *s = total;
        total += count;
    }
    total as usize
}

/// After the forward placing pass each key's cursor stands where the next
/// bucket starts: shifting them up by one key gives the starts again.
fn cursors_to_starts(start: &mut [u32]) {
    let keys = start.len() - 1;
    start.copy_within(0..keys, 1);
    start[0] = 0;
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
    use super::{bucket, bucket_by, row, transpose};

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
        // The same transpose from the CSR itself.
        let (rel_start, rel_list) = ([0, 1, 3, 3], [1, 0, 1]);
        let (mut t_start, mut t_list) = (Vec::new(), Vec::new());
        transpose(2, &rel_start, &rel_list, &mut t_start, &mut t_list);
        assert_eq!((t_start.as_slice(), t_list.as_slice()), (start.as_slice(), users.as_slice()));
        transpose(3, &[0], &[], &mut t_start, &mut t_list);
        assert_eq!((t_start.as_slice(), t_list.len()), (&[0, 0, 0, 0][..], 0));
    }

    #[test]
    #[should_panic(expected = "out of 0..2")]
    fn a_key_out_of_range_panics_before_writing() {
        let (mut start, mut list) = (Vec::new(), Vec::<u32>::new());
        bucket(2, &[(2, 7)], &mut start, &mut list);
    }
}
