//! Assembler fuzzing: arbitrary bytes never panic the MLU assembly parser
//! or verifier; what parses prints and parses back to itself
//! (`mlu_isa::fuzzing::check_text`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mlu_isa::fuzzing::check_text(data);
});
