//! Generator and interpreter fuzzing: any bytes decode to a generated module
//! that verifies, runs without a trap within its fuel bound, and computes the
//! same thing after a print/parse round trip (`ir_gen::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ir_gen::fuzzing::check_generated(data);
});
