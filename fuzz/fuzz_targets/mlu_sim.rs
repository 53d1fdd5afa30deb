//! Simulator fuzzing: any bytes decode (`mlu_sim::fuzzing::program_from_bytes`)
//! to a program for a small machine of 1, 4 or 8 cores that must round-trip
//! through text, run in functional and cycle mode without a panic within
//! its fuel, get the vector-clock oracle's race verdict on every access,
//! and, when race-free, give the same memories, registers and statistics
//! invariants in both modes (`mlu_sim::fuzzing::check`; `cargo test -p
//! mlu-sim --test fuzz_smoke` runs it on 3,000 seeded inputs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mlu_sim::fuzzing::check(data);
});
