//! Sources of choices for the generator: it is a decoder, and every
//! decision it makes is one call to [`Source::choose`], so a graph is a
//! pure function of the answers. The same two sources as Keel's program
//! generator (`ir-gen`), with the same streams, kept here so that the
//! graph IR needs no other crate to generate its tests.
//!
//! Invariants:
//! - `choose(n)` returns a value in `0..n`; for `n <= 1` it returns 0 and
//!   consumes nothing, so forced decisions cost no input.
//! - 0 is always the simplest answer: [`ByteSource`] answers 0 once its
//!   bytes are exhausted, so a short or all-zero input decodes to the
//!   simplest graph.
//! - Both sources are pure functions of their input (no clock, no global
//!   state, no hashing), which makes generation deterministic.

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
    /// length).
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

/// A seeded stream: SplitMix64 (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014). Choices use the
/// multiply-shift reduction, so they are uniform up to a negligible bias.
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

/// A choice in `0..n` as an index (0 when `n <= 1`).
pub(crate) fn below(s: &mut dyn Source, n: usize) -> usize {
    s.choose(n as u64) as usize
}

/// True with probability `percent`%; the simplest answer (0) is false.
pub(crate) fn chance(s: &mut dyn Source, percent: u64) -> bool {
    s.choose(100) >= 100 - percent
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
    fn splitmix_matches_the_reference() {
        // First outputs of the reference implementation for seed 0.
        let mut s = SplitMix64::new(0);
        assert_eq!(s.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(s.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert!((0..1000).all(|_| s.choose(7) < 7));
        assert_eq!(SplitMix64::new(9).choose(1), 0);
    }
}
