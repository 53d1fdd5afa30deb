//! The graph IR's scalar types ([`ScalarTy`]) and the classes of types an
//! operation accepts ([`TypeClass`]).
//!
//! Invariant: the set is closed and small, so a [`ScalarTy`] is one byte.
//! Integers carry no signedness; the operations that care (`sdiv` and
//! `udiv`, `setp.slt` and `setp.ult`) say so, as in LLVM and Cranelift.
//! The names and widths are Keel IR's, so a graph and the Keel function it
//! is imported from or lowered to agree type for type (the `keel` feature
//! maps one to the other, one to one).

use core::fmt;

/// A scalar type: the bottom of every value type ([`crate::ValTy`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum ScalarTy {
    /// A one-bit integer: predicates, conditions and masks.
    I1,
    /// An 8-bit integer.
    I8,
    /// A 16-bit integer.
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// An IEEE 754 binary32 float.
    F32,
    /// An IEEE 754 binary64 float.
    F64,
}

impl ScalarTy {
    /// Every type, in declaration order.
    pub const ALL: [ScalarTy; 7] =
        [ScalarTy::I1, ScalarTy::I8, ScalarTy::I16, ScalarTy::I32, ScalarTy::I64, ScalarTy::F32, ScalarTy::F64];

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            ScalarTy::I1 => 1,
            ScalarTy::I8 => 8,
            ScalarTy::I16 => 16,
            ScalarTy::I32 | ScalarTy::F32 => 32,
            ScalarTy::I64 | ScalarTy::F64 => 64,
        }
    }

    /// True for `i1` through `i64`.
    pub const fn is_int(self) -> bool {
        !self.is_float()
    }

    /// True for `f32` and `f64`.
    pub const fn is_float(self) -> bool {
        matches!(self, ScalarTy::F32 | ScalarTy::F64)
    }

    /// The text-format name (`i32`, `f64`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ScalarTy::I1 => "i1",
            ScalarTy::I8 => "i8",
            ScalarTy::I16 => "i16",
            ScalarTy::I32 => "i32",
            ScalarTy::I64 => "i64",
            ScalarTy::F32 => "f32",
            ScalarTy::F64 => "f64",
        }
    }

    /// Parses a text-format type name.
    pub fn from_name(name: &str) -> Option<ScalarTy> {
        ScalarTy::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which scalar types an operation accepts.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeClass {
    /// Any scalar type.
    Any,
    /// Integer types only.
    Int,
    /// Float types only.
    Float,
}

impl TypeClass {
    /// True when `ty` belongs to the class.
    pub const fn admits(self, ty: ScalarTy) -> bool {
        match self {
            TypeClass::Any => true,
            TypeClass::Int => ty.is_int(),
            TypeClass::Float => ty.is_float(),
        }
    }
}
