//! DU/UD chains: any bytes decode (`ir_gen::fuzzing::analysis_input`) to a
//! module whose every function gets the same chains from the SSA method,
//! the iterative baseline and, when small, the oracle
//! (`defuse::fuzzing::check_function`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (g, _) = ir_gen::fuzzing::analysis_input(data);
    for (_, f) in g.module.functions() {
        defuse::fuzzing::check_function(f);
    }
});
