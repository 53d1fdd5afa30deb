//! WebAssembly import: any bytes become a valid module (wasm-smith), which
//! must import without a panic, verify and round-trip through text, and
//! whose every function must get the same DU chains from both methods and,
//! when small, the oracle. The property lives in
//! `crates/wasm-import/tests/smith/mod.rs`, which `cargo test -p
//! wasm-import --test smith_chains` also runs for two seconds.
#![no_main]

#[path = "../../crates/wasm-import/tests/smith/mod.rs"]
mod smith;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    smith::check_bytes(data);
});
