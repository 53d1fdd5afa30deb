//! The `regalloc` fuzz check run a fixed number of times in `cargo test`:
//! random bytes decoded by `ir-gen` into modules, allocated at the register
//! count the first byte picks, checked, verified and interpreted. Seeded,
//! and no clock is read: the same work on any machine.

use ir_gen::SplitMix64;

/// Inputs per run.
const RUNS: usize = 400;

#[test]
fn allocations_are_checked_and_run_on_random_bytes() {
    let mut rng = SplitMix64::new(0x9e9a);
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        regalloc_pebble::fuzzing::check(&bytes);
    }
}
