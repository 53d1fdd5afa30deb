//! Vectorization: any bytes decode (`vectorize::generate` over a
//! `ByteSource`) to a well-typed graph with lambdas, nested arrays,
//! unmapped parameters and batched conditions; it is vectorized (with and
//! without optimisation rules, and again for nested vmap) and evaluated per
//! lane and batched on 0, 1 and 7 lanes: the results must agree bit for bit
//! (or both trap). Scalar programs are also lowered to Keel and interpreted
//! (`vectorize::fuzzing::check`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vectorize::fuzzing::check(data);
});
