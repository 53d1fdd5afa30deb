//! Semantic PRE: any bytes decode (`svfg_pre::fuzzing::check_bytes`, ir-gen's
//! analysis configuration) to a module that is put in SSA form, then
//! transformed by SVFG PRE, plain GVN and LCM; each output must verify,
//! compute the same results and memory under the interpreter, and PRE and
//! GVN must never execute more computations of any opcode, PRE never more
//! than LCM.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    svfg_pre::fuzzing::check_bytes(data);
});
