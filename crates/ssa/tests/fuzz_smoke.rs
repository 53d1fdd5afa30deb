//! The `ssa` fuzz check run for about a second in `cargo test`: random bytes
//! decoded the way the fuzz target decodes them, each policy in turn.

use ir_gen::SplitMix64;
use ir_gen::fuzzing::analysis_input;
use ssa::Policy;
use std::time::{Duration, Instant};

#[test]
fn ssa_and_back_compute_the_same_on_random_bytes() {
    let mut rng = SplitMix64::new(0x55a);
    let deadline = Instant::now() + Duration::from_millis(1200);
    let policies = [Policy::SemiPruned, Policy::Minimal, Policy::Pruned];
    let mut runs = 0;
    while Instant::now() < deadline {
        let len = (rng.next_u64() % 800) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let (g, args) = analysis_input(&bytes);
        let policy = policies[runs % 3];
        if let Err(e) = ssa::fuzzing::check_equivalence(&g.module, g.main, &args, g.fuel, policy) {
            panic!("{policy:?} on bytes {bytes:?}: {e}");
        }
        runs += 1;
    }
    assert!(runs > 30, "only {runs} runs");
}
