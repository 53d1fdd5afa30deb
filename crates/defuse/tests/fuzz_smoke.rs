//! The `defuse` fuzz check run a fixed number of times in `cargo test`:
//! random bytes decoded by `ir-gen` into modules whose every function must
//! get the same chains from every method. Seeded, and no clock is read: the
//! same work on any machine.

use ir_gen::SplitMix64;
use ir_gen::fuzzing::analysis_input;

/// Inputs per run (about a second on the 2-core CI machine when set).
const RUNS: usize = 3000;

/// The decoding the fuzz target uses.
pub fn check_bytes(bytes: &[u8]) {
    let (g, _) = analysis_input(bytes);
    for (_, f) in g.module.functions() {
        defuse::fuzzing::check_function(f);
    }
}

#[test]
fn methods_agree_on_random_bytes() {
    let mut rng = SplitMix64::new(0xdef0);
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 800) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        check_bytes(&bytes);
    }
}
