//! The `ssa` fuzz check run a fixed number of times in `cargo test`: random
//! bytes decoded the way the fuzz target decodes them, each policy in turn.
//! Seeded, and no clock is read: the same work on any machine.

use ir_gen::SplitMix64;
use ir_gen::fuzzing::analysis_input;
use ssa::Policy;

/// Inputs per run (about a second on the 2-core CI machine when set).
const RUNS: usize = 1500;

#[test]
fn ssa_and_back_compute_the_same_on_random_bytes() {
    let mut rng = SplitMix64::new(0x55a);
    let policies = [Policy::SemiPruned, Policy::Minimal, Policy::Pruned];
    for run in 0..RUNS {
        let len = (rng.next_u64() % 800) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let (g, args) = analysis_input(&bytes);
        let policy = policies[run % 3];
        if let Err(e) = ssa::fuzzing::check_equivalence(&g.module, g.main, &args, g.fuel, policy) {
            panic!("{policy:?} on bytes {bytes:?}: {e}");
        }
    }
}
