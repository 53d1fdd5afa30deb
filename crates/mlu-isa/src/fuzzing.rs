//! The assembler's fuzz property, shared by tests and fuzz targets
//! (feature `fuzzing`): [`check_text`] panics if arbitrary bytes make the
//! parser or the verifier panic, or if a program that parses does not
//! print back to itself. [`SplitMix64`] seeds the smoke tests of this crate
//! and of `mlu-sim`: G. L. Steele Jr., D. Lea and C. H. Flood's generator
//! ("Fast splittable pseudorandom number generators", OOPSLA 2014; listed
//! in `docs/references.md`).

use crate::{MachineConfig, text, verify};

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a seeded generator for smoke tests and
/// benchmarks (no clock, the same numbers on every machine).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Parses `bytes` (as UTF-8, lossily); whatever parses must print, parse
/// back to the same program, print identically, and verify (or not)
/// without panicking.
pub fn check_text(bytes: &[u8]) {
    let src = String::from_utf8_lossy(bytes);
    let Ok((p, _)) = text::parse(&src) else { return };
    let printed = text::print_program(&p);
    let (q, _) = text::parse(&printed).unwrap_or_else(|e| panic!("printed text does not parse: {e:?}\n{printed}"));
    assert_eq!(p, q, "the round trip changed the program:\n{printed}");
    assert_eq!(text::print_program(&q), printed, "printing is not a fixed point");
    let _ = verify(&p, &MachineConfig::mlu370());
}
