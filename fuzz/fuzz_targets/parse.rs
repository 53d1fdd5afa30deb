//! Parser fuzzing: arbitrary bytes never panic the parser; what parses,
//! verifies without panicking and round-trips through the printer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ir_core::fuzzing::check_parse(data);
});
