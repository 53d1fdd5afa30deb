//! The `svfg_pre` fuzz check run a fixed number of times in `cargo test`:
//! random bytes decoded the way the fuzz target decodes them. Seeded, and
//! no clock is read: the same work on any machine.

use ir_gen::SplitMix64;

/// Inputs per run.
const RUNS: usize = 600;

#[test]
fn pre_gvn_and_lcm_keep_semantics_on_random_bytes() {
    let mut rng = SplitMix64::new(0x5f9);
    let (mut finished, mut before, mut pre, mut lcm) = (0, 0, 0, 0);
    for _ in 0..RUNS {
        let len = (rng.next_u64() % 800) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let c = svfg_pre::fuzzing::check_bytes(&bytes);
        if c.finished {
            finished += 1;
            before += c.before;
            pre += c.svfg;
            lcm += c.lcm;
        }
    }
    eprintln!("{finished} finished runs: {before} computations before, {pre} after PRE, {lcm} after LCM");
    assert!(finished > RUNS / 2);
}
