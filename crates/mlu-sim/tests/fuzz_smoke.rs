//! The `mlu_sim` fuzz check run a fixed number of times in `cargo test`:
//! seeded random bytes decoded into programs (every space, every kind of
//! instruction, syncs, barriers, branches, broken rules) that must
//! round-trip through text, run in both modes without a panic, agree with
//! the race oracle and with each other. No clock is read: the same work on
//! any machine.

/// Inputs per run.
const RUNS: usize = 3000;

/// SplitMix64, for seeded bytes.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn random_programs_never_panic_and_agree() {
    let mut s = 0x5eed_u64;
    for _ in 0..RUNS {
        let len = (next(&mut s) % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next(&mut s) as u8).collect();
        mlu_sim::fuzzing::check(&bytes);
    }
}
