//! Opcodes, their formats and type classes, and condition codes.
//!
//! One table (the `opcodes!` invocation below) is the single source of truth
//! for an opcode's text name, its [`Format`] (the shape of its results,
//! operands and extra data) and its [`TypeClass`]. The parser, printer,
//! builder, verifier and (later) the interpreter all dispatch on it, so an
//! opcode cannot be known to one and unknown to another.

use core::fmt;

/// The shape of an instruction: how many results and operands it has, what
/// they mean and which extra data (targets, callee, memory) it carries.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Format {
    /// `%r = const IMM`.
    Const,
    /// `%r = undef`: no operands, an undefined result.
    Undef,
    /// `%r = op %a`; operand and result share a type.
    Unary,
    /// `%r = op %a, %b`; operands and result share a type.
    Binary,
    /// `%r = select %c, %a, %b`; `%c: i1`.
    Select,
    /// `%r = setp.CC %a, %b` / `fsetp.CC`; `%r: i1`, operands share a type.
    Compare,
    /// `%r = op %a`; result and operand types differ (a conversion).
    Convert,
    /// `%r... = call @f(args...)`.
    Call,
    /// `%r... = intrinsic "name"(args...)`: opaque to analyses.
    Intrinsic,
    /// `%r = load @M[index]`.
    Load,
    /// `store @M[index], value`.
    Store,
    /// A tensor operation writing a destination descriptor from sources.
    TensorMap,
    /// `%r = op @M[off, size]`: a reduction to a scalar.
    TensorReduce,
    /// `matmul @C[..], @A[..], @B[..], m, k, n`.
    Matmul,
    /// `%r = phi(bbP: v, ...)`, one incoming value per predecessor.
    Phi,
    /// `jump bbT`.
    Jump,
    /// `br %c, bbT, bbF`.
    Branch,
    /// `switch %v, bbD, [k: bbK, ...]`.
    Switch,
    /// `ret v...`.
    Ret,
    /// `trap`.
    Trap,
}

/// Which scalar types an opcode accepts as its operation type.
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
    pub fn admits(self, ty: crate::Type) -> bool {
        match self {
            TypeClass::Any => true,
            TypeClass::Int => ty.is_int(),
            TypeClass::Float => ty.is_float(),
        }
    }
}

macro_rules! opcodes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $format:ident, $class:ident;)*) => {
        /// An operation. See `docs/ir.md` for the semantics of each.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $($(#[$doc])* $variant,)*
        }

        impl Opcode {
            /// Every opcode, in declaration order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The text-format mnemonic.
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// The instruction shape.
            #[inline]
            pub const fn format(self) -> Format {
                match self { $(Opcode::$variant => Format::$format,)* }
            }

            /// The operation types the opcode accepts.
            pub const fn type_class(self) -> TypeClass {
                match self { $(Opcode::$variant => TypeClass::$class,)* }
            }
        }
    };
}

opcodes! {
    /// Materialises an immediate.
    Const = "const", Const, Any;
    /// An undefined value: SSA's definition for a use that no definition
    /// reaches on some path. `copy` and phis pass it on; any other read of
    /// it traps.
    Undef = "undef", Undef, Any;
    /// Copies a value.
    Copy = "copy", Unary, Any;
    /// `c ? a : b`.
    Select = "select", Select, Any;

    /// Wrapping addition.
    Add = "add", Binary, Int;
    /// Wrapping subtraction.
    Sub = "sub", Binary, Int;
    /// Wrapping multiplication.
    Mul = "mul", Binary, Int;
    /// Signed division (traps on zero and on MIN / -1).
    Sdiv = "sdiv", Binary, Int;
    /// Unsigned division (traps on zero).
    Udiv = "udiv", Binary, Int;
    /// Signed remainder (traps on zero; MIN % -1 is 0).
    Srem = "srem", Binary, Int;
    /// Unsigned remainder (traps on zero).
    Urem = "urem", Binary, Int;
    /// Bitwise and.
    And = "and", Binary, Int;
    /// Bitwise or.
    Or = "or", Binary, Int;
    /// Bitwise exclusive or.
    Xor = "xor", Binary, Int;
    /// Shift left; the amount is taken modulo the width.
    Shl = "shl", Binary, Int;
    /// Logical shift right; the amount is taken modulo the width.
    Lshr = "lshr", Binary, Int;
    /// Arithmetic shift right; the amount is taken modulo the width.
    Ashr = "ashr", Binary, Int;
    /// Rotate left; the amount is taken modulo the width.
    Rotl = "rotl", Binary, Int;
    /// Rotate right; the amount is taken modulo the width.
    Rotr = "rotr", Binary, Int;
    /// Signed minimum.
    Smin = "smin", Binary, Int;
    /// Signed maximum.
    Smax = "smax", Binary, Int;
    /// Unsigned minimum.
    Umin = "umin", Binary, Int;
    /// Unsigned maximum.
    Umax = "umax", Binary, Int;

    /// IEEE addition.
    Fadd = "fadd", Binary, Float;
    /// IEEE subtraction.
    Fsub = "fsub", Binary, Float;
    /// IEEE multiplication.
    Fmul = "fmul", Binary, Float;
    /// IEEE division.
    Fdiv = "fdiv", Binary, Float;
    /// Minimum; NaN if either operand is NaN; -0 < +0.
    Fmin = "fmin", Binary, Float;
    /// Maximum; NaN if either operand is NaN; -0 < +0.
    Fmax = "fmax", Binary, Float;
    /// The first operand with the sign of the second.
    Fcopysign = "fcopysign", Binary, Float;

    /// Wrapping negation.
    Neg = "neg", Unary, Int;
    /// Bitwise not.
    Not = "not", Unary, Int;
    /// Count leading zeros.
    Clz = "clz", Unary, Int;
    /// Count trailing zeros.
    Ctz = "ctz", Unary, Int;
    /// Count set bits.
    Popcnt = "popcnt", Unary, Int;

    /// Float negation (flips the sign bit).
    Fneg = "fneg", Unary, Float;
    /// Float absolute value (clears the sign bit).
    Fabs = "fabs", Unary, Float;
    /// Square root.
    Fsqrt = "fsqrt", Unary, Float;
    /// Round toward +inf.
    Fceil = "fceil", Unary, Float;
    /// Round toward -inf.
    Ffloor = "ffloor", Unary, Float;
    /// Round toward zero.
    Ftrunc = "ftrunc", Unary, Float;
    /// Round to nearest, ties to even.
    Fnearest = "fnearest", Unary, Float;

    /// Integer comparison to an `i1` (`setp.slt`, ...).
    Setp = "setp", Compare, Int;
    /// Float comparison to an `i1` (`fsetp.lt`, ...).
    Fsetp = "fsetp", Compare, Float;

    /// Sign-extend to a wider integer.
    Sext = "sext", Convert, Int;
    /// Zero-extend to a wider integer.
    Zext = "zext", Convert, Int;
    /// Truncate to a narrower integer.
    Trunc = "trunc", Convert, Int;
    /// `f32` to `f64`.
    Fpext = "fpext", Convert, Float;
    /// `f64` to `f32` (round to nearest even).
    Fptrunc = "fptrunc", Convert, Float;
    /// Float to signed integer, toward zero; traps on NaN and overflow.
    Fptosi = "fptosi", Convert, Float;
    /// Float to unsigned integer, toward zero; traps on NaN and overflow.
    Fptoui = "fptoui", Convert, Float;
    /// Float to signed integer, saturating; NaN gives 0.
    FptosiSat = "fptosi_sat", Convert, Float;
    /// Float to unsigned integer, saturating; NaN gives 0.
    FptouiSat = "fptoui_sat", Convert, Float;
    /// Signed integer to float (round to nearest even).
    Sitofp = "sitofp", Convert, Int;
    /// Unsigned integer to float (round to nearest even).
    Uitofp = "uitofp", Convert, Int;
    /// Reinterpret the bits as a type of the same width.
    Bitcast = "bitcast", Convert, Any;

    /// Calls a module function or a declared external function.
    Call = "call", Call, Any;
    /// An operation Keel does not model: opaque to analyses (it may read and
    /// write any memory), unsupported by the interpreter.
    Intrinsic = "intrinsic", Intrinsic, Any;

    /// Scalar load of one element.
    Load = "load", Load, Any;
    /// Scalar store of one element.
    Store = "store", Store, Any;

    /// Element-wise `dst = a + b` (a source may be a broadcast scalar).
    Tadd = "tadd", TensorMap, Any;
    /// Element-wise `dst = a - b`.
    Tsub = "tsub", TensorMap, Any;
    /// Element-wise `dst = a * b`.
    Tmul = "tmul", TensorMap, Any;
    /// Element-wise `dst = a / b` (integer division traps on zero).
    Tdiv = "tdiv", TensorMap, Any;
    /// Element-wise minimum.
    Tmin = "tmin", TensorMap, Any;
    /// Element-wise maximum.
    Tmax = "tmax", TensorMap, Any;
    /// Element-wise `dst = a * b + c` (unfused: two roundings).
    Tfma = "tfma", TensorMap, Any;
    /// Element-wise negation.
    Tneg = "tneg", TensorMap, Any;
    /// Element-wise absolute value.
    Tabs = "tabs", TensorMap, Any;
    /// Element-wise `max(x, 0)`.
    Trelu = "trelu", TensorMap, Any;
    /// Element-wise `e^x`.
    Texp = "texp", TensorMap, Float;
    /// Element-wise natural logarithm.
    Tlog = "tlog", TensorMap, Float;
    /// Element-wise square root.
    Tsqrt = "tsqrt", TensorMap, Float;
    /// Element-wise hyperbolic tangent.
    Ttanh = "ttanh", TensorMap, Float;
    /// Element-wise logistic function `1 / (1 + e^-x)`.
    Tsigmoid = "tsigmoid", TensorMap, Float;
    /// Fills the destination with a scalar.
    Tfill = "tfill", TensorMap, Any;
    /// Copies between objects and memory spaces (a DMA); overlapping ranges
    /// behave as if copied through a temporary.
    Dma = "dma", TensorMap, Any;
    /// Sum of the elements, in index order.
    Tsum = "tsum", TensorReduce, Any;
    /// Maximum of the elements (NaN if any is NaN).
    Tredmax = "tredmax", TensorReduce, Any;
    /// Row-major matrix product `C[m×n] = A[m×k] · B[k×n]`.
    Matmul = "matmul", Matmul, Any;

    /// SSA join: one incoming value per predecessor block.
    Phi = "phi", Phi, Any;

    /// Unconditional branch.
    Jump = "jump", Jump, Any;
    /// Two-way conditional branch on an `i1`.
    Br = "br", Branch, Any;
    /// Multi-way branch on an integer.
    Switch = "switch", Switch, Int;
    /// Function return.
    Ret = "ret", Ret, Any;
    /// Unconditional trap.
    Trap = "trap", Trap, Any;
}

/// How a tensor operation's source slots may be filled.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SlotRule {
    /// The slot must be a memory descriptor.
    Desc,
    /// The slot may be a descriptor or a scalar broadcast to every element.
    DescOrScalar,
    /// The slot must be a scalar.
    Scalar,
}

impl Opcode {
    /// Looks up a mnemonic (without a condition-code suffix).
    pub fn from_name(name: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// True for `jump`, `br`, `switch`, `ret` and `trap`.
    #[inline]
    pub const fn is_terminator(self) -> bool {
        matches!(self.format(), Format::Jump | Format::Branch | Format::Switch | Format::Ret | Format::Trap)
    }

    /// True for instructions that read or write memory descriptors or
    /// scalar memory, or may do so (calls and intrinsics).
    pub const fn touches_memory(self) -> bool {
        matches!(
            self.format(),
            Format::Load
                | Format::Store
                | Format::TensorMap
                | Format::TensorReduce
                | Format::Matmul
                | Format::Call
                | Format::Intrinsic
        )
    }

    /// For a conversion opcode: true when it converts a `src` value to a
    /// `dst` one (`docs/ir.md` §6.4: the verifier's `BadConversion` rule).
    /// False for every other opcode.
    pub fn converts(self, src: crate::Type, dst: crate::Type) -> bool {
        use crate::Type;
        let (s, d) = (src.bits(), dst.bits());
        match self {
            Opcode::Sext | Opcode::Zext => src.is_int() && dst.is_int() && d > s,
            Opcode::Trunc => src.is_int() && dst.is_int() && d < s,
            Opcode::Fpext => src == Type::F32 && dst == Type::F64,
            Opcode::Fptrunc => src == Type::F64 && dst == Type::F32,
            Opcode::Fptosi | Opcode::Fptoui | Opcode::FptosiSat | Opcode::FptouiSat => {
                src.is_float() && dst.is_int() && dst != Type::I1
            }
            Opcode::Sitofp | Opcode::Uitofp => src.is_int() && dst.is_float(),
            Opcode::Bitcast => s == d,
            _ => false,
        }
    }

    /// For tensor maps: the rule for each source slot after the destination.
    pub const fn tensor_sources(self) -> &'static [SlotRule] {
        use SlotRule::*;
        match self {
            Opcode::Tadd | Opcode::Tsub | Opcode::Tmul | Opcode::Tdiv | Opcode::Tmin | Opcode::Tmax => {
                &[DescOrScalar, DescOrScalar]
            }
            Opcode::Tfma => &[DescOrScalar, DescOrScalar, DescOrScalar],
            Opcode::Tneg
            | Opcode::Tabs
            | Opcode::Trelu
            | Opcode::Texp
            | Opcode::Tlog
            | Opcode::Tsqrt
            | Opcode::Ttanh
            | Opcode::Tsigmoid
            | Opcode::Dma => &[Desc],
            Opcode::Tfill => &[Scalar],
            _ => &[],
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! cond_codes {
    ($(#[$tdoc:meta])* $ty:ident { $($(#[$doc:meta])* $variant:ident = $name:literal,)* }) => {
        $(#[$tdoc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub enum $ty {
            $($(#[$doc])* $variant,)*
        }

        impl $ty {
            /// Every condition code, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The text-format suffix.
            pub const fn name(self) -> &'static str {
                match self { $($ty::$variant => $name,)* }
            }

            /// Parses a text-format suffix.
            pub fn from_name(name: &str) -> Option<$ty> {
                Self::ALL.iter().copied().find(|c| c.name() == name)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

cond_codes! {
    /// Integer comparison conditions for `setp`.
    IntCC {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed less than.
        Slt = "slt",
        /// Signed less than or equal.
        Sle = "sle",
        /// Signed greater than.
        Sgt = "sgt",
        /// Signed greater than or equal.
        Sge = "sge",
        /// Unsigned less than.
        Ult = "ult",
        /// Unsigned less than or equal.
        Ule = "ule",
        /// Unsigned greater than.
        Ugt = "ugt",
        /// Unsigned greater than or equal.
        Uge = "uge",
    }
}

cond_codes! {
    /// Float comparison conditions for `fsetp`. All but `ne` and `uno` are
    /// false when either operand is NaN (C's semantics).
    FloatCC {
        /// Ordered and equal.
        Eq = "eq",
        /// Unordered or not equal.
        Ne = "ne",
        /// Ordered and less than.
        Lt = "lt",
        /// Ordered and less than or equal.
        Le = "le",
        /// Ordered and greater than.
        Gt = "gt",
        /// Ordered and greater than or equal.
        Ge = "ge",
        /// Neither operand is NaN.
        Ord = "ord",
        /// Either operand is NaN.
        Uno = "uno",
    }
}
