//! Value types of the graph IR: a scalar type ([`ScalarTy`]) wrapped in
//! any number of `array<...>` ([`ValTy`]), and a node's type ([`NodeTy`]):
//! a value, a tuple of values (the results of `if`/`while` with other than
//! one result), or a lambda.
//!
//! Invariant: an array type is fully described by its scalar and its depth
//! (there are no tuples inside arrays), so a [`ValTy`] is eight bytes,
//! `Copy`, and compares in O(1).

use crate::scalar::ScalarTy;
use core::fmt;

/// `array^depth<scalar>`: a scalar when `depth == 0`, else `depth` nested
/// arrays of it. Arrays may be ragged: the rows of an
/// `array<array<f32>>` need not have equal lengths.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ValTy {
    /// The element type at the bottom.
    pub scalar: ScalarTy,
    /// How many arrays wrap it.
    pub depth: u32,
}

impl ValTy {
    /// A scalar type.
    pub const fn scalar(scalar: ScalarTy) -> ValTy {
        ValTy { scalar, depth: 0 }
    }

    /// `array^depth<scalar>`.
    pub const fn array(scalar: ScalarTy, depth: u32) -> ValTy {
        ValTy { scalar, depth }
    }

    /// True when `depth == 0`.
    pub const fn is_scalar(self) -> bool {
        self.depth == 0
    }

    /// `array<self>`.
    pub const fn array_of(self) -> ValTy {
        ValTy { scalar: self.scalar, depth: self.depth + 1 }
    }

    /// `self` inside `k` more arrays (JAX's batch dimensions, outermost
    /// first). Saturates instead of overflowing.
    pub const fn lift(self, k: u32) -> ValTy {
        ValTy { scalar: self.scalar, depth: self.depth.saturating_add(k) }
    }

    /// `self` with `k` arrays removed, if it has that many.
    pub const fn unlift(self, k: u32) -> Option<ValTy> {
        if self.depth >= k { Some(ValTy { scalar: self.scalar, depth: self.depth - k }) } else { None }
    }

    /// The element type of an array (`None` for a scalar).
    pub const fn element(self) -> Option<ValTy> {
        self.unlift(1)
    }
}

impl fmt::Display for ValTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.depth {
            f.write_str("array<")?;
        }
        f.write_str(self.scalar.name())?;
        for _ in 0..self.depth {
            f.write_str(">")?;
        }
        Ok(())
    }
}

impl From<ScalarTy> for ValTy {
    fn from(t: ScalarTy) -> ValTy {
        ValTy::scalar(t)
    }
}

/// The type of a node.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum NodeTy {
    /// An ordinary value.
    Val(ValTy),
    /// The results of an `if` or `while` whose lambdas return other than
    /// one value; read them with `get.i`.
    Tuple(Vec<ValTy>),
    /// A lambda node (a user-defined function).
    Lambda,
}

impl NodeTy {
    /// The value type, if this is one.
    pub fn val(&self) -> Option<ValTy> {
        match self {
            NodeTy::Val(t) => Some(*t),
            _ => None,
        }
    }
}

impl fmt::Display for NodeTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeTy::Val(t) => write!(f, "{t}"),
            NodeTy::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            NodeTy::Lambda => f.write_str("lambda"),
        }
    }
}
