//! The `memdep` fuzz check run a fixed number of times in `cargo test`:
//! random bytes decoded by `ir-gen` into modules (exact, symbolic and tiled
//! memory, calls, guards, loops), checked by every oracle
//! (`memdep::fuzzing::check_bytes`). Seeded; no clock is read.

use ir_gen::SplitMix64;

/// Inputs per run (about a second on the 2-core CI machine).
const RUNS: usize = 1500;

#[test]
fn every_oracle_passes_on_random_bytes() {
    let mut rng = SplitMix64::new(0x3e3d);
    let mut total = memdep::fuzzing::Report::default();
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        total.add(&memdep::fuzzing::check_bytes(&bytes));
    }
    assert!(total.dynamic.flow > 1000 && total.oracle_functions > 1000, "{total:?}");
}
