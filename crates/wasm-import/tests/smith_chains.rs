//! The `wasm` fuzz target's property, run a fixed number of times in `cargo
//! test` (no clock: the same work on any machine): random valid modules from wasm-smith (seeded bytes, so a failure
//! reproduces) go through `wasm_import::fuzzing::check` (no panic, every
//! function verifies, text round-trips), then every imported function gets
//! the same DU chains from the SSA method, the iterative baseline and, when
//! small, the oracle (`defuse::fuzzing::check_function`).

mod smith;

use smith::check_bytes;

/// Modules per run (about two seconds on the 2-core CI machine when set).
const RUNS: usize = 1500;

#[test]
fn random_valid_modules_import_and_chains_agree() {
    let mut state = 0x5eed_u64;
    let mut functions = 0;
    for _ in 0..RUNS {
        let len = 64 + (splitmix(&mut state) % 4000) as usize;
        let data: Vec<u8> = (0..len).map(|_| splitmix(&mut state) as u8).collect();
        functions += check_bytes(&data);
    }
    assert!(functions > RUNS / 4, "only {functions} functions in {RUNS} modules");
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
