//! The `mlu_compile` fuzz check run a fixed number of times in `cargo
//! test`: seeded random bytes decoded into MLU-expressible Keel programs
//! that must compile, simulate race-free and agree with the interpreter. No
//! clock is read: the same work on any machine.

/// Inputs per run.
const RUNS: usize = 400;

#[test]
fn random_programs_compile_and_agree() {
    let mut s = ir_gen::SplitMix64::new(0x5eed);
    for _ in 0..RUNS {
        let len = (s.next_u64() % 700) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| s.next_u64() as u8).collect();
        target_mlu::fuzzing::check(&bytes);
    }
}
