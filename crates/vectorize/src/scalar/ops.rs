//! The graph IR's scalar operations: unary ([`UnaryOp`]), binary
//! ([`BinaryOp`]) and conversion ([`ConvertOp`]) operations and the
//! condition codes of the integer ([`IntCC`]) and float ([`FloatCC`])
//! compares. Each is a closed enum generated from one table (the
//! `scalar_ops!` invocations below), the single source of its text names,
//! its order and its [`TypeClass`]; what each computes is
//! `semantics.rs`.
//!
//! Invariants: `ALL` lists every operation once, in a fixed order (the
//! order of Keel IR's opcode table, so rule tables, generators and
//! listings keep their order); `from_name(x.name()) == Some(x)`; names
//! are the text format's mnemonics (`fadd`, `fptosi_sat`, the `slt` of
//! `setp.slt`). Adding an operation is one line in a table, its arm in
//! `semantics.rs`, and a rule in `rules/default.rules` (a test requires
//! every primitive to have one).

use super::ty::{ScalarTy, TypeClass};
use core::fmt;

macro_rules! scalar_ops {
    ($(#[$tdoc:meta])* $ty:ident { $($(#[$doc:meta])* $variant:ident = $name:literal, $class:ident;)* }) => {
        $(#[$tdoc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub enum $ty {
            $($(#[$doc])* $variant,)*
        }

        impl $ty {
            /// Every operation, in table order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The text-format name.
            pub const fn name(self) -> &'static str {
                match self { $($ty::$variant => $name,)* }
            }

            /// Looks a name up.
            pub fn from_name(name: &str) -> Option<$ty> {
                Self::ALL.iter().copied().find(|c| c.name() == name)
            }

            /// The operand types the operation accepts.
            pub const fn class(self) -> TypeClass {
                match self { $($ty::$variant => TypeClass::$class,)* }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

scalar_ops! {
    /// A unary operation: operand and result share a type.
    UnaryOp {
        /// The operand itself.
        Copy = "copy", Any;
        /// Wrapping negation.
        Neg = "neg", Int;
        /// Bitwise not.
        Not = "not", Int;
        /// Count leading zeros.
        Clz = "clz", Int;
        /// Count trailing zeros (the width for zero).
        Ctz = "ctz", Int;
        /// Count set bits.
        Popcnt = "popcnt", Int;
        /// Float negation (flips the sign bit, NaN payloads kept).
        Fneg = "fneg", Float;
        /// Float absolute value (clears the sign bit).
        Fabs = "fabs", Float;
        /// Square root.
        Fsqrt = "fsqrt", Float;
        /// Round toward +inf.
        Fceil = "fceil", Float;
        /// Round toward -inf.
        Ffloor = "ffloor", Float;
        /// Round toward zero.
        Ftrunc = "ftrunc", Float;
        /// Round to nearest, ties to even.
        Fnearest = "fnearest", Float;
    }
}

scalar_ops! {
    /// A binary operation: operands and result share a type.
    BinaryOp {
        /// Wrapping addition.
        Add = "add", Int;
        /// Wrapping subtraction.
        Sub = "sub", Int;
        /// Wrapping multiplication.
        Mul = "mul", Int;
        /// Signed division toward zero (traps on zero and on MIN / -1).
        Sdiv = "sdiv", Int;
        /// Unsigned division (traps on zero).
        Udiv = "udiv", Int;
        /// Signed remainder (traps on zero; MIN % -1 is 0).
        Srem = "srem", Int;
        /// Unsigned remainder (traps on zero).
        Urem = "urem", Int;
        /// Bitwise and.
        And = "and", Int;
        /// Bitwise or.
        Or = "or", Int;
        /// Bitwise exclusive or.
        Xor = "xor", Int;
        /// Shift left; the amount is taken modulo the width.
        Shl = "shl", Int;
        /// Logical shift right; the amount is taken modulo the width.
        Lshr = "lshr", Int;
        /// Arithmetic shift right; the amount is taken modulo the width.
        Ashr = "ashr", Int;
        /// Rotate left; the amount is taken modulo the width.
        Rotl = "rotl", Int;
        /// Rotate right; the amount is taken modulo the width.
        Rotr = "rotr", Int;
        /// Signed minimum.
        Smin = "smin", Int;
        /// Signed maximum.
        Smax = "smax", Int;
        /// Unsigned minimum.
        Umin = "umin", Int;
        /// Unsigned maximum.
        Umax = "umax", Int;
        /// IEEE addition.
        Fadd = "fadd", Float;
        /// IEEE subtraction.
        Fsub = "fsub", Float;
        /// IEEE multiplication.
        Fmul = "fmul", Float;
        /// IEEE division.
        Fdiv = "fdiv", Float;
        /// Minimum; NaN if either operand is NaN; -0 < +0.
        Fmin = "fmin", Float;
        /// Maximum; NaN if either operand is NaN; -0 < +0.
        Fmax = "fmax", Float;
        /// The first operand with the sign of the second.
        Fcopysign = "fcopysign", Float;
    }
}

scalar_ops! {
    /// A conversion: the result's type is the node's declared scalar, and
    /// [`ConvertOp::converts`] says which pairs of types it takes.
    ConvertOp {
        /// Sign-extend to a wider integer.
        Sext = "sext", Int;
        /// Zero-extend to a wider integer.
        Zext = "zext", Int;
        /// Truncate to a narrower integer.
        Trunc = "trunc", Int;
        /// `f32` to `f64`.
        Fpext = "fpext", Float;
        /// `f64` to `f32` (round to nearest even).
        Fptrunc = "fptrunc", Float;
        /// Float to signed integer, toward zero; traps on NaN and overflow.
        Fptosi = "fptosi", Float;
        /// Float to unsigned integer, toward zero; traps on NaN and overflow.
        Fptoui = "fptoui", Float;
        /// Float to signed integer, saturating; NaN gives 0.
        FptosiSat = "fptosi_sat", Float;
        /// Float to unsigned integer, saturating; NaN gives 0.
        FptouiSat = "fptoui_sat", Float;
        /// Signed integer to float (round to nearest even).
        Sitofp = "sitofp", Int;
        /// Unsigned integer to float (round to nearest even).
        Uitofp = "uitofp", Int;
        /// The same bits as a type of the same width.
        Bitcast = "bitcast", Any;
    }
}

scalar_ops! {
    /// Integer comparison conditions (`setp.cc`); the result is an `i1`.
    IntCC {
        /// Equal.
        Eq = "eq", Int;
        /// Not equal.
        Ne = "ne", Int;
        /// Signed less than.
        Slt = "slt", Int;
        /// Signed less than or equal.
        Sle = "sle", Int;
        /// Signed greater than.
        Sgt = "sgt", Int;
        /// Signed greater than or equal.
        Sge = "sge", Int;
        /// Unsigned less than.
        Ult = "ult", Int;
        /// Unsigned less than or equal.
        Ule = "ule", Int;
        /// Unsigned greater than.
        Ugt = "ugt", Int;
        /// Unsigned greater than or equal.
        Uge = "uge", Int;
    }
}

scalar_ops! {
    /// Float comparison conditions (`fsetp.cc`); the result is an `i1`.
    /// All but `ne` and `uno` are false when either operand is NaN (C's
    /// semantics).
    FloatCC {
        /// Ordered and equal.
        Eq = "eq", Float;
        /// Unordered or not equal.
        Ne = "ne", Float;
        /// Ordered and less than.
        Lt = "lt", Float;
        /// Ordered and less than or equal.
        Le = "le", Float;
        /// Ordered and greater than.
        Gt = "gt", Float;
        /// Ordered and greater than or equal.
        Ge = "ge", Float;
        /// Neither operand is NaN.
        Ord = "ord", Float;
        /// Either operand is NaN.
        Uno = "uno", Float;
    }
}

impl BinaryOp {
    /// True for the integer divisions and remainders, the binary
    /// operations that may trap.
    pub const fn traps(self) -> bool {
        matches!(self, BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem)
    }
}

impl ConvertOp {
    /// True when the conversion takes a `src` value to a `dst` one.
    pub const fn converts(self, src: ScalarTy, dst: ScalarTy) -> bool {
        let (s, d) = (src.bits(), dst.bits());
        match self {
            ConvertOp::Sext | ConvertOp::Zext => src.is_int() && dst.is_int() && d > s,
            ConvertOp::Trunc => src.is_int() && dst.is_int() && d < s,
            ConvertOp::Fpext => matches!((src, dst), (ScalarTy::F32, ScalarTy::F64)),
            ConvertOp::Fptrunc => matches!((src, dst), (ScalarTy::F64, ScalarTy::F32)),
            ConvertOp::Fptosi | ConvertOp::Fptoui | ConvertOp::FptosiSat | ConvertOp::FptouiSat => {
                src.is_float() && dst.is_int() && !matches!(dst, ScalarTy::I1)
            }
            ConvertOp::Sitofp | ConvertOp::Uitofp => src.is_int() && dst.is_float(),
            ConvertOp::Bitcast => s == d,
        }
    }

    /// True for the conversions that may trap (`fptosi`, `fptoui`).
    pub const fn traps(self) -> bool {
        matches!(self, ConvertOp::Fptosi | ConvertOp::Fptoui)
    }
}
