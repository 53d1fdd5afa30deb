//! WebAssembly import: any bytes become a valid module (wasm-smith), which
//! must import without a panic, verify and round-trip through text
//! (`wasm_import::fuzzing::check`), and whose every function must get the
//! same DU chains from both methods and, when small, the oracle
//! (`defuse::fuzzing::check_function`). `cargo test -p wasm-import --test
//! smith_chains` runs the same property for two seconds.
#![no_main]

use arbitrary::Unstructured;
use wasm_smith::{Config, Module};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let config = Config {
        exceptions_enabled: false,
        gc_enabled: false,
        compact_imports_enabled: false,
        max_funcs: 8,
        max_instructions: 200,
        max_memories: 2,
        ..Config::default()
    };
    let Ok(module) = Module::new(config, &mut Unstructured::new(data)) else { return };
    let bytes = module.to_bytes();
    wasm_import::fuzzing::check(&bytes);
    let options =
        wasm_import::ImportOptions { max_memory_bytes: 1 << 20, max_init_bytes: 1 << 16, ..Default::default() };
    let imported = wasm_import::import(&bytes, &options).expect("wasm-smith makes valid modules");
    for (_, f) in imported.module.functions() {
        defuse::fuzzing::check_function(f);
    }
});
