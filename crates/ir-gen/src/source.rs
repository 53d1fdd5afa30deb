//! Sources of choices. The generator is a decoder: every decision it makes
//! (a region kind, a var, a constant) is one call to [`Source::choose`], and
//! the program is a pure function of the answers.
//!
//! Invariants:
//! - `choose(n)` returns a value in `0..n`; for `n <= 1` it returns 0 and
//!   consumes nothing, so forced decisions cost no input.
//! - 0 is always the simplest answer. [`ByteSource`] answers 0 once its
//!   bytes are exhausted, so a short or all-zero input decodes to the
//!   simplest program the configuration allows, and proptest's shrinking
//!   (drop bytes, lower bytes toward 0) shrinks the program.
//! - Both sources are pure functions of their input (no clock, no global
//!   state, no hashing), which is what makes generation deterministic.

/// A stream of choices. Implement it to drive the generator from anything
/// (a fuzzer's bytes, a seed, a hand-written script).
pub trait Source {
    /// A choice in `0..n` (0 when `n <= 1`). 0 must mean "the simplest
    /// option": the generator orders every menu that way.
    fn choose(&mut self, n: u64) -> u64;
}

/// Choices read from a byte string, little-endian, one to eight bytes per
/// choice (as many as `n - 1` needs), then reduced modulo `n`. Reads past
/// the end give 0.
#[derive(Clone, Debug)]
pub struct ByteSource<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteSource<'a> {
    /// A source reading `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> ByteSource<'a> {
        ByteSource { bytes, pos: 0 }
    }

    /// How many bytes the choices so far have read (at most the input's
    /// length). Useful to size fuzzing and proptest inputs.
    pub fn consumed(&self) -> usize {
        self.pos
    }
}

impl Source for ByteSource<'_> {
    fn choose(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        // The width depends on `n` only, so a choice never reads a variable
        // number of bytes and the stream stays aligned across inputs.
        let width = (64 - (n - 1).leading_zeros()).div_ceil(8);
        let mut v = 0u64;
        for i in 0..width {
            let byte = self.bytes.get(self.pos).copied().unwrap_or(0);
            self.pos = (self.pos + 1).min(self.bytes.len());
            v |= u64::from(byte) << (8 * i);
        }
        v % n
    }
}

/// A seeded stream: SplitMix64 (G. L. Steele Jr., D. Lea and C. H. Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014;
/// `docs/references.md`), the standard
/// 64-bit mixer used to seed xoshiro. Choices use the multiply-shift
/// reduction, so they are uniform up to a negligible bias.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Source for SplitMix64 {
    fn choose(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// Convenience decisions on top of [`Source::choose`], each keeping "0 is
/// simplest".
pub(crate) trait Choices {
    /// A choice in `0..n` as a `usize`.
    fn below(&mut self, n: usize) -> usize;

    /// A choice in `lo..=hi` (`lo` when `hi <= lo`).
    fn range(&mut self, lo: usize, hi: usize) -> usize;

    /// True with probability `rate` for a uniform source, false for a zero
    /// answer (unless `rate >= 1`). Rates of 0 and 1 consume nothing, so a
    /// disabled feature costs no input.
    fn chance(&mut self, rate: f64) -> bool;

    /// An element of a non-empty slice; the first for a zero answer.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T;
}

/// Resolution of [`Choices::chance`]: 16 bits, so rates down to about
/// 1/65536 are honoured.
const CHANCE_STEPS: u64 = 1 << 16;

impl<S: Source + ?Sized> Choices for S {
    fn below(&mut self, n: usize) -> usize {
        self.choose(n as u64) as usize
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo { lo } else { lo + self.below(hi - lo + 1) }
    }

    fn chance(&mut self, rate: f64) -> bool {
        if rate.is_nan() || rate <= 0.0 {
            return false;
        }
        if rate >= 1.0 {
            return true;
        }
        // True for the top `rate` fraction of answers, so 0 means "no".
        let threshold = ((1.0 - rate) * CHANCE_STEPS as f64).ceil() as u64;
        self.choose(CHANCE_STEPS) >= threshold.max(1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_little_endian_and_exhaust_to_zero() {
        let mut s = ByteSource::new(&[5, 0x34, 0x12, 9]);
        assert_eq!(s.choose(1), 0);
        assert_eq!(s.consumed(), 0);
        assert_eq!(s.choose(10), 5);
        assert_eq!(s.choose(0x10000), 0x1234);
        assert_eq!(s.choose(4), 1);
        assert_eq!(s.choose(200), 0);
        assert_eq!(s.consumed(), 4);
    }

    #[test]
    fn zero_answers_mean_no() {
        let mut s = ByteSource::new(&[]);
        assert!(!s.chance(0.999));
        assert!(s.chance(1.0));
        assert_eq!(s.range(3, 9), 3);
    }

    #[test]
    fn splitmix_matches_the_reference_and_chance_tracks_the_rate() {
        // First outputs of the reference implementation for seed 0.
        let mut s = SplitMix64::new(0);
        assert_eq!(s.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(s.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let hits = (0..10_000).filter(|_| s.chance(0.25)).count();
        assert!((2200..2800).contains(&hits), "{hits}");
        assert!((0..1000).all(|_| s.choose(7) < 7));
    }
}
