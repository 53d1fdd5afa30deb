//! The `wasm` fuzz target's property, run for about two seconds in `cargo
//! test`: random valid modules from wasm-smith (seeded bytes, so a failure
//! reproduces) go through `wasm_import::fuzzing::check` (no panic, every
//! function verifies, text round-trips), then every imported function gets
//! the same DU chains from the SSA method, the iterative baseline and, when
//! small, the oracle (`defuse::fuzzing::check_function`).

mod smith;

use smith::check_bytes;
use std::time::{Duration, Instant};

#[test]
fn random_valid_modules_import_and_chains_agree() {
    let mut state = 0x5eed_u64;
    let deadline = Instant::now() + Duration::from_millis(2000);
    let (mut runs, mut functions) = (0, 0);
    while Instant::now() < deadline {
        let len = 64 + (splitmix(&mut state) % 4000) as usize;
        let data: Vec<u8> = (0..len).map(|_| splitmix(&mut state) as u8).collect();
        functions += check_bytes(&data);
        runs += 1;
    }
    assert!(runs > 20 && functions > 0, "only {runs} runs, {functions} functions");
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
