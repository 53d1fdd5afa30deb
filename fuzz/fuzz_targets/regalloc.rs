//! Register allocation: any bytes decode (`ir_gen::fuzzing::analysis_input`)
//! to a module that the pebble allocator and the Chaitin-Briggs baseline
//! allocate (at the register count the first byte picks); every allocation
//! passes the symbolic checker, verifies, and interprets to the original's
//! results and memory; a random DAG from the same bytes is played legally
//! (`regalloc_pebble::fuzzing::check`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    regalloc_pebble::fuzzing::check(data);
});
