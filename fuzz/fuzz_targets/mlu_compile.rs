//! Compiler fuzzing: any bytes decode (ir-gen with `mlu_expressible`) to a
//! Keel program the MLU ISA expresses — loops, switches, predication, phis,
//! calls, scalar memory, tensor maps, `dma`, reductions, `matmul` — that
//! must compile, simulate without a hazard and agree with the reference
//! interpreter (`target_mlu::fuzzing::check`; `cargo test -p target-mlu
//! --test fuzz_smoke` runs it on 400 seeded inputs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    target_mlu::fuzzing::check(data);
});
