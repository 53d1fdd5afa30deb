//! Memory dependence: any bytes decode (`memdep::fuzzing::check_bytes`: a
//! configuration from the first byte, a module from the rest, arguments
//! from a hash) to a module whose every function's dependences equal the
//! byte-granular oracle and the naive baseline (without symbols), contain
//! every dependence the interpreter observes in three runs, and give
//! carried answers that match an exhaustive enumeration.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    memdep::fuzzing::check_bytes(data);
});
