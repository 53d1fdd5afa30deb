//! The `mlu_sim` fuzz check run a fixed number of times in `cargo test`:
//! seeded random bytes decoded into programs (every space, every kind of
//! instruction, syncs, barriers, branches, broken rules) that must
//! round-trip through text, run in both modes without a panic, agree with
//! the race oracle and with each other. No clock is read: the same work on
//! any machine.

use mlu_isa::fuzzing::SplitMix64;

/// Inputs per run.
const RUNS: usize = 3000;

#[test]
fn random_programs_never_panic_and_agree() {
    let mut s = SplitMix64(0x5eed);
    for _ in 0..RUNS {
        let len = (s.next_u64() % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| s.next_u64() as u8).collect();
        mlu_sim::fuzzing::check(&bytes);
    }
}
