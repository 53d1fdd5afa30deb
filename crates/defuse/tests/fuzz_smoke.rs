//! The `defuse` fuzz check run for about a second in `cargo test`: random
//! bytes decoded by `ir-gen` into modules whose every function must get the
//! same chains from every method.

use ir_gen::{GenConfig, SplitMix64, generate_from_bytes};
use std::time::{Duration, Instant};

/// The decoding the fuzz target uses.
pub fn check_bytes(bytes: &[u8]) {
    let config = GenConfig {
        blocks: 40,
        vars: 10,
        predication: 0.3,
        irreducible: 0.3,
        unreachable: 0.2,
        phis: 0.3,
        functions: 2,
        ..GenConfig::default()
    };
    let g = generate_from_bytes(&config, bytes);
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
