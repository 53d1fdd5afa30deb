//! The `defuse` fuzz check run for about a second in `cargo test`: random
//! bytes decoded by `ir-gen` into modules whose every function must get the
//! same chains from every method.

use ir_gen::SplitMix64;
use ir_gen::fuzzing::analysis_input;
use std::time::{Duration, Instant};

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
    let deadline = Instant::now() + Duration::from_millis(1200);
    let mut runs = 0;
    while Instant::now() < deadline {
        let len = (rng.next_u64() % 800) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        check_bytes(&bytes);
        runs += 1;
    }
    assert!(runs > 50, "only {runs} runs");
}
