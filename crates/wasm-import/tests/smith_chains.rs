//! The `wasm` fuzz target's property, run for about two seconds in `cargo
//! test`: random valid modules from wasm-smith (seeded bytes, so a failure
//! reproduces) go through `wasm_import::fuzzing::check` (no panic, every
//! function verifies, text round-trips), then every imported function gets
//! the same DU chains from the SSA method, the iterative baseline and, when
//! small, the oracle (`defuse::fuzzing::check_function`).

use arbitrary::Unstructured;
use std::time::{Duration, Instant};
use wasm_smith::{Config, Module};

/// What the fuzz target does with its input (`fuzz/fuzz_targets/wasm.rs`
/// uses the same configuration); the number of functions checked.
fn check_bytes(data: &[u8]) -> usize {
    let config = Config {
        exceptions_enabled: false,
        gc_enabled: false,
        compact_imports_enabled: false,
        max_funcs: 8,
        max_instructions: 200,
        max_memories: 2,
        ..Config::default()
    };
    let Ok(module) = Module::new(config, &mut Unstructured::new(data)) else { return 0 };
    let bytes = module.to_bytes();
    wasm_import::fuzzing::check(&bytes);
    let options =
        wasm_import::ImportOptions { max_memory_bytes: 1 << 20, max_init_bytes: 1 << 16, ..Default::default() };
    let imported = wasm_import::import(&bytes, &options).expect("wasm-smith makes valid modules");
    for (_, f) in imported.module.functions() {
        defuse::fuzzing::check_function(f);
    }
    imported.module.num_functions()
}

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
