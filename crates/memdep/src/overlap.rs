//! Answers about two accesses, without flow: do they overlap when
//! evaluated with the same symbol values ([`may_overlap`]), and across the
//! iterations of a loop whose induction variable advances by a known step
//! ([`carried`]).
//!
//! Answers are three-valued ([`Answer`]): `NoDep` is a proof, `Must` a
//! certain overlap of the descriptors (whenever both execute), `May` an
//! unknown with its [`Reason`]. Unknown is never reported as independent.
//!
//! The loop-carried test is the exact one-index test (the GCD / Banerjee
//! family of Banerjee's *Dependence Analysis for Supercomputing*, 1988,
//! solved directly): with offsets `s·t + a` and `s·t + b` and
//! sizes `za`, `zb`, where `t` advances by `step` per iteration, the
//! instance of the second access `d` iterations later overlaps the first
//! exactly when `-zb < s·step·d + (b - a) < za`, an interval of integers
//! `d`. Arithmetic is in 128 bits; the model assumes offsets do not wrap
//! around 2^64 within the iterations considered (`docs/design/memdep.md`).

use crate::code::{Access, Offset};

/// Why an answer is not known.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Reason {
    /// An offset is not known.
    UnknownOffset,
    /// A size is not known.
    UnknownSize,
    /// The offsets are affine in different symbols, or one is exact and
    /// the other affine.
    Unrelated,
    /// The offsets are affine in one symbol with different scales.
    DifferentScales,
    /// An offset's symbol changes inside the loop other than as the loop's
    /// induction variable.
    VariesInLoop,
    /// One side reads or writes anything.
    Anything,
}

impl Reason {
    /// A short phrase for tables.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::UnknownOffset => "offset unknown",
            Reason::UnknownSize => "size unknown",
            Reason::Unrelated => "offsets not related",
            Reason::DifferentScales => "different scales",
            Reason::VariesInLoop => "symbol varies in loop",
            Reason::Anything => "touches anything",
        }
    }
}

/// Iteration distances `d >= 1` at which a later instance conflicts.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Distance {
    /// Exactly `d`.
    Exactly(u64),
    /// Every `d` in `lo..=hi`.
    Range(u64, u64),
    /// Every `d >= lo`.
    AtLeast(u64),
}

impl Distance {
    /// The smallest distance.
    pub fn min(self) -> u64 {
        match self {
            Distance::Exactly(d) | Distance::Range(d, _) | Distance::AtLeast(d) => d,
        }
    }

    /// True when `d` is one of the distances.
    pub fn contains(self, d: u64) -> bool {
        match self {
            Distance::Exactly(x) => d == x,
            Distance::Range(lo, hi) => (lo..=hi).contains(&d),
            Distance::AtLeast(lo) => d >= lo,
        }
    }
}

/// A three-valued answer.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Answer {
    /// Proven independent.
    NoDep,
    /// The descriptors certainly overlap (at these distances, for the
    /// loop-carried question; `Exactly(0)` stands for "here" in
    /// [`may_overlap`]).
    Must(Distance),
    /// Not known: a dependence.
    May(Reason),
}

impl Answer {
    /// True unless proven independent.
    pub fn is_dep(&self) -> bool {
        !matches!(self, Answer::NoDep)
    }
}

/// `[lo, hi)` bounds an access stays in (its exact range when known).
pub(crate) fn bounds(a: &Access, len: u64) -> (i128, i128) {
    let (blo, bhi) = a.within.map_or((0, len as i128), |(lo, hi)| (lo as i128, hi as i128));
    match (a.offset, a.size) {
        (Offset::Exact(o), Some(s)) => (o as i128, o as i128 + s as i128),
        (Offset::Exact(o), None) => ((o as i128).max(blo), bhi.max(o as i128)),
        _ => (blo, bhi),
    }
}

fn disjoint(a: (i128, i128), b: (i128, i128)) -> bool {
    a.0 >= a.1 || b.0 >= b.1 || a.1 <= b.0 || b.1 <= a.0
}

/// Do `a` and `b` overlap when evaluated with the same symbol values?
/// `len_a`/`len_b` are their objects' lengths (`u64::MAX` when unknown).
pub fn may_overlap(a: &Access, b: &Access, len_a: u64, len_b: u64) -> Answer {
    if a.object != b.object || a.size == Some(0) || b.size == Some(0) {
        return Answer::NoDep;
    }
    let (ba, bb) = (bounds(a, len_a), bounds(b, len_b));
    if disjoint(ba, bb) {
        return Answer::NoDep;
    }
    match (a.offset, b.offset, a.size, b.size) {
        (Offset::Exact(_), Offset::Exact(_), Some(_), Some(_)) => Answer::Must(Distance::Exactly(0)),
        (
            Offset::Affine { sym: s1, scale: k1, add: x },
            Offset::Affine { sym: s2, scale: k2, add: y },
            Some(za),
            Some(zb),
        ) if s1 == s2 && k1 == k2 => {
            // Same symbol value: the offsets differ by y - x exactly (mod
            // 2^64, and both are in bounds when they execute).
            let c = y.wrapping_sub(x) as i128;
            if -(zb as i128) < c && c < za as i128 { Answer::Must(Distance::Exactly(0)) } else { Answer::NoDep }
        }
        (Offset::Affine { sym: s1, .. }, Offset::Affine { sym: s2, .. }, ..) if s1 == s2 => {
            if a.size.is_none() || b.size.is_none() {
                Answer::May(Reason::UnknownSize)
            } else {
                Answer::May(Reason::DifferentScales)
            }
        }
        (Offset::Unknown, ..) | (_, Offset::Unknown, ..) => Answer::May(Reason::UnknownOffset),
        (Offset::Exact(_), Offset::Exact(_), ..) => Answer::May(Reason::UnknownSize),
        _ => Answer::May(Reason::Unrelated),
    }
}

/// How a symbol behaves in a loop.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum SymInLoop {
    /// It does not change inside the loop.
    Invariant,
    /// The loop's induction variable, advancing by `step` per iteration.
    Induction(i64),
    /// It changes inside the loop in another way.
    Varies,
}

/// The loop-carried answer for `a` in some iteration and `b` in a later
/// one (distance `d >= 1`); `sym` says how a symbol behaves in the loop.
pub(crate) fn carried(a: &Access, b: &Access, len_a: u64, len_b: u64, sym: impl Fn(u32) -> SymInLoop) -> Answer {
    if a.object != b.object || a.size == Some(0) || b.size == Some(0) {
        return Answer::NoDep;
    }
    let (ba, bb) = (bounds(a, len_a), bounds(b, len_b));
    if disjoint(ba, bb) {
        return Answer::NoDep;
    }
    let (Some(za), Some(zb)) = (a.size, b.size) else {
        return match (a.offset, b.offset) {
            (Offset::Unknown, _) | (_, Offset::Unknown) => Answer::May(Reason::UnknownOffset),
            _ => Answer::May(Reason::UnknownSize),
        };
    };
    let (za, zb) = (za as i128, zb as i128);
    // Fixed addresses overlap in every pair of iterations or in none.
    let fixed = |c: i128| if -zb < c && c < za { Answer::Must(Distance::AtLeast(1)) } else { Answer::NoDep };
    match (a.offset, b.offset) {
        (Offset::Exact(x), Offset::Exact(y)) => fixed(y as i128 - x as i128),
        (Offset::Affine { sym: s1, scale: k1, add: x }, Offset::Affine { sym: s2, scale: k2, add: y }) if s1 == s2 => {
            match sym(s1) {
                SymInLoop::Varies => Answer::May(Reason::VariesInLoop),
                _ if k1 != k2 => Answer::May(Reason::DifferentScales),
                SymInLoop::Invariant => fixed(y.wrapping_sub(x) as i128),
                SymInLoop::Induction(step) => {
                    let g = k1 as i128 * step as i128;
                    let c = y.wrapping_sub(x) as i128;
                    distances(g, c, za, zb)
                }
            }
        }
        (Offset::Unknown, _) | (_, Offset::Unknown) => Answer::May(Reason::UnknownOffset),
        _ => Answer::May(Reason::Unrelated),
    }
}

/// The distances `d >= 1` with `-zb < g·d + c < za`.
fn distances(g: i128, c: i128, za: i128, zb: i128) -> Answer {
    if g == 0 {
        return if -zb < c && c < za { Answer::Must(Distance::AtLeast(1)) } else { Answer::NoDep };
    }
    // Strict bounds on g·d: lo < g·d < hi, with lo = -zb - c, hi = za - c.
    let (lo, hi) = (-zb - c, za - c);
    // d in (lo/g, hi/g) for g > 0, (hi/g, lo/g) for g < 0: the integers
    // strictly inside.
    let (l, h) = if g > 0 { (lo, hi) } else { (-hi, -lo) };
    let ga = g.abs();
    // Smallest d with ga·d > l, largest with ga·d < h.
    let dmin = l.div_euclid(ga) + 1;
    let dmax = (h - 1).div_euclid(ga);
    let dmin = dmin.max(1);
    if dmin > dmax {
        return Answer::NoDep;
    }
    let (dmin, dmax) = (dmin as u64, u64::try_from(dmax).unwrap_or(u64::MAX));
    Answer::Must(if dmin == dmax { Distance::Exactly(dmin) } else { Distance::Range(dmin, dmax) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(offset: Offset, size: u64) -> Access {
        Access::read(0, offset, Some(size))
    }

    /// Brute force over iterations 0..20 with the symbol starting at t0.
    fn brute(g: i64, x: i64, y: i64, za: u64, zb: u64) -> Vec<u64> {
        let mut out = Vec::new();
        for d in 1..20i64 {
            let (oa, ob) = (x as i128, g as i128 * d as i128 + y as i128);
            if oa < ob + zb as i128 && ob < oa + za as i128 {
                out.push(d as u64);
            }
        }
        out
    }

    #[test]
    fn distances_match_brute_force() {
        for g in -5i64..=5 {
            for x in -6i64..=6 {
                for y in -6i64..=6 {
                    for za in 1..4u64 {
                        for zb in 1..4u64 {
                            let want = brute(g, x, y, za, zb);
                            let got = distances(g as i128, (y - x) as i128, za as i128, zb as i128);
                            let got: Vec<u64> = match got {
                                Answer::NoDep => vec![],
                                Answer::Must(d) => (1..20).filter(|&k| d.contains(k)).collect(),
                                Answer::May(_) => panic!("exact inputs"),
                            };
                            assert_eq!(got, want, "g={g} x={x} y={y} za={za} zb={zb}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn saxpy_tiles_are_independent_and_buffers_are_not() {
        let tile = |add| acc(Offset::Affine { sym: 0, scale: 64, add }, 64);
        let iv = |_| SymInLoop::Induction(1);
        assert_eq!(carried(&tile(0), &tile(0), 4096, 4096, iv), Answer::NoDep);
        // The next tile's first element: distance 1 from one tile further.
        assert_eq!(carried(&tile(64), &tile(0), 4096, 4096, iv), Answer::Must(Distance::Exactly(1)));
        let buf = acc(Offset::Exact(0), 64);
        assert_eq!(carried(&buf, &buf, 64, 64, iv), Answer::Must(Distance::AtLeast(1)));
        let unknown = Access::read(0, Offset::Unknown, Some(4));
        assert_eq!(carried(&buf, &unknown, 64, 64, iv), Answer::May(Reason::UnknownOffset));
        assert_eq!(may_overlap(&tile(0), &tile(64), 4096, 4096), Answer::NoDep);
        assert_eq!(may_overlap(&tile(0), &tile(32), 4096, 4096), Answer::Must(Distance::Exactly(0)));
    }
}
