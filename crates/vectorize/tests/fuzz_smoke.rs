//! The `vectorize` fuzz check run a fixed number of times in `cargo test`:
//! random bytes decoded into graphs (and, for scalar programs, lowered to
//! Keel), vectorized, and checked against the per-lane oracle. Seeded; no
//! clock is read: the same work on any machine.

use vectorize::generate::SplitMix64;

/// Inputs per run (about a second or two on the 2-core machine).
const RUNS: usize = 400;

#[test]
fn random_bytes_vectorize_exactly() {
    let mut rng = SplitMix64::new(0xfe7);
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        vectorize::fuzzing::check(&bytes);
    }
    // The simplest input decodes too.
    vectorize::fuzzing::check(&[]);
}
