//! The `wasm` fuzz property, shared by the fuzz target
//! (`fuzz/fuzz_targets/wasm.rs`, which includes this file) and its smoke
//! run in `cargo test` (`tests/smith_chains.rs`): arbitrary bytes become a
//! valid module through wasm-smith, which goes through
//! `wasm_import::fuzzing::check` (no panic, every function verifies, text
//! round-trips), then every imported function gets the same DU chains from
//! the SSA method, the iterative baseline and, when small, the oracle
//! (`defuse::fuzzing::check_function`).

use arbitrary::Unstructured;
use wasm_smith::{Config, Module};

/// Checks the property on the module `data` decodes to; returns the number
/// of functions checked (0 when wasm-smith needs more bytes).
pub fn check_bytes(data: &[u8]) -> usize {
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
