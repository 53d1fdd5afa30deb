//! Why an evaluation stops early ([`TrapKind`]): the scalar semantics'
//! traps (division by zero, overflow, invalid conversions), the array
//! primitives' (out of bounds, shape mismatch, a failed `assert`), and
//! the evaluator's limits and refusals (fuel, size, bad arguments, a
//! graph that does not verify).
//!
//! Invariant: every way the reference evaluator can fail is one of these
//! kinds; nothing it runs makes it panic. The names of the kinds the
//! scalar semantics share with Keel IR's interpreter are the same words
//! (`keel run` and the evaluator describe a division by zero alike).

use core::fmt;

/// Why an evaluation stopped early.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TrapKind {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// `sdiv` of `MIN` by −1.
    IntegerOverflow,
    /// `fptosi`/`fptoui` of NaN or of a value out of the target's range.
    InvalidConversion,
    /// An index outside its array (or negative), a negative `broadcast`
    /// count or `partition` length.
    OutOfBounds,
    /// Mapped arguments (or a mask) whose lanes disagree, or `partition`
    /// lengths that do not add up.
    ShapeMismatch,
    /// An `assert` of false.
    AssertionFailed,
    /// Fuel ran out.
    FuelExhausted,
    /// An array larger than the evaluator's limit.
    MemoryLimit,
    /// Arguments that do not match the function's parameters.
    BadArguments,
    /// A graph or value the verifier would reject.
    Malformed,
}

impl TrapKind {
    /// A short description.
    pub const fn describe(self) -> &'static str {
        match self {
            TrapKind::DivisionByZero => "division by zero",
            TrapKind::IntegerOverflow => "integer overflow",
            TrapKind::InvalidConversion => "invalid conversion",
            TrapKind::OutOfBounds => "out of bounds",
            TrapKind::ShapeMismatch => "shape mismatch",
            TrapKind::AssertionFailed => "assertion failed",
            TrapKind::FuelExhausted => "fuel exhausted",
            TrapKind::MemoryLimit => "memory limit",
            TrapKind::BadArguments => "bad arguments",
            TrapKind::Malformed => "malformed graph",
        }
    }
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
