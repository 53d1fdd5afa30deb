//! The operations instructions name: scalar, compare, conversion, vector
//! and reduction operations, sync kinds, barrier scopes, and copy
//! directions (`Route`). Names and semantics of the scalar and tensor
//! operations are Keel IR's (`docs/ir.md` §6).
//!
//! Invariants: every enum lists its members in `ALL`, and `name` and
//! `from_name` are inverse on it (the text spells each member with its
//! `name`); `Route::ALL` is exactly the machine's nine copy directions.

use crate::types::{Pipe, Space, Ty};
use core::fmt;

/// The operation class an opcode accepts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Class {
    /// Integer types only (`i1`..`i64`).
    Int,
    /// Float types only.
    Float,
    /// Any type.
    Any,
}

impl Class {
    /// Whether `ty` is in the class.
    pub fn accepts(self, ty: Ty) -> bool {
        match self {
            Class::Int => ty.is_int(),
            Class::Float => ty.is_float(),
            Class::Any => true,
        }
    }
}

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every member, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The spelling in the text format.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The member spelled `name`.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// Scalar unary operations (`neg.i32 %r1, %r2`). Names and semantics are
    /// Keel IR's opcodes of the same name (`docs/ir.md` §6.1); `fexp`,
    /// `flog`, `ftanh` and `fsigmoid` are the scalar forms of the tensor
    /// transcendentals.
    UnOp {
        /// `0 − a`, wrapping.
        Neg = "neg",
        /// Bitwise complement.
        Not = "not",
        /// Leading zeros (width for 0).
        Clz = "clz",
        /// Trailing zeros (width for 0).
        Ctz = "ctz",
        /// Set bits.
        Popcnt = "popcnt",
        /// Flip the sign bit.
        Fneg = "fneg",
        /// Clear the sign bit.
        Fabs = "fabs",
        /// IEEE square root.
        Fsqrt = "fsqrt",
        /// Round toward +∞.
        Fceil = "fceil",
        /// Round toward −∞.
        Ffloor = "ffloor",
        /// Round toward 0.
        Ftrunc = "ftrunc",
        /// Round to nearest, ties to even.
        Fnearest = "fnearest",
        /// `e^x`.
        Fexp = "fexp",
        /// `ln x`.
        Flog = "flog",
        /// `tanh x`.
        Ftanh = "ftanh",
        /// `1 / (1 + e^−x)`.
        Fsigmoid = "fsigmoid",
    }
}

impl UnOp {
    /// The types the operation accepts.
    pub fn class(self) -> Class {
        match self {
            UnOp::Neg | UnOp::Not | UnOp::Clz | UnOp::Ctz | UnOp::Popcnt => Class::Int,
            _ => Class::Float,
        }
    }
}

named_enum! {
    /// Scalar binary operations (`add.i32 %r1, %r2, 5`): Keel IR's binary
    /// opcodes (`docs/ir.md` §6.2), with the same semantics.
    BinOp {
        /// Wrapping add.
        Add = "add",
        /// Wrapping subtract.
        Sub = "sub",
        /// Wrapping multiply.
        Mul = "mul",
        /// Signed divide toward zero; traps on 0 and `MIN / −1`.
        Sdiv = "sdiv",
        /// Unsigned divide; traps on 0.
        Udiv = "udiv",
        /// Signed remainder (sign of `a`); traps on 0.
        Srem = "srem",
        /// Unsigned remainder; traps on 0.
        Urem = "urem",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise xor.
        Xor = "xor",
        /// Shift left by `b mod width`.
        Shl = "shl",
        /// Logical shift right by `b mod width`.
        Lshr = "lshr",
        /// Arithmetic shift right by `b mod width`.
        Ashr = "ashr",
        /// Rotate left.
        Rotl = "rotl",
        /// Rotate right.
        Rotr = "rotr",
        /// Signed minimum.
        Smin = "smin",
        /// Signed maximum.
        Smax = "smax",
        /// Unsigned minimum.
        Umin = "umin",
        /// Unsigned maximum.
        Umax = "umax",
        /// IEEE add.
        Fadd = "fadd",
        /// IEEE subtract.
        Fsub = "fsub",
        /// IEEE multiply.
        Fmul = "fmul",
        /// IEEE divide.
        Fdiv = "fdiv",
        /// IEEE 754-2019 `minimum` (NaN-propagating, `−0 < +0`).
        Fmin = "fmin",
        /// IEEE 754-2019 `maximum`.
        Fmax = "fmax",
        /// Magnitude of `a`, sign of `b`.
        Fcopysign = "fcopysign",
    }
}

impl BinOp {
    /// The types the operation accepts.
    pub fn class(self) -> Class {
        match self {
            BinOp::Fadd | BinOp::Fsub | BinOp::Fmul | BinOp::Fdiv | BinOp::Fmin | BinOp::Fmax | BinOp::Fcopysign => {
                Class::Float
            }
            _ => Class::Int,
        }
    }
}

named_enum! {
    /// Integer comparison codes (`setp.slt.i32`), as Keel IR's `setp`.
    IntCC {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed `<`.
        Slt = "slt",
        /// Signed `≤`.
        Sle = "sle",
        /// Signed `>`.
        Sgt = "sgt",
        /// Signed `≥`.
        Sge = "sge",
        /// Unsigned `<`.
        Ult = "ult",
        /// Unsigned `≤`.
        Ule = "ule",
        /// Unsigned `>`.
        Ugt = "ugt",
        /// Unsigned `≥`.
        Uge = "uge",
    }
}

named_enum! {
    /// Float comparison codes (`fsetp.lt.f32`), as Keel IR's `fsetp` (C's
    /// semantics: only `ne` and `uno` are true on NaN).
    FloatCC {
        /// Ordered and equal.
        Eq = "eq",
        /// Unordered or not equal.
        Ne = "ne",
        /// Ordered and `<`.
        Lt = "lt",
        /// Ordered and `≤`.
        Le = "le",
        /// Ordered and `>`.
        Gt = "gt",
        /// Ordered and `≥`.
        Ge = "ge",
        /// Neither is NaN.
        Ord = "ord",
        /// Either is NaN.
        Uno = "uno",
    }
}

named_enum! {
    /// Conversions (`sext.i64.i32 %r1, %r2`: operation, result type, source
    /// type), as Keel IR's conversion opcodes (`docs/ir.md` §6.4).
    ConvOp {
        /// Sign-extend.
        Sext = "sext",
        /// Zero-extend.
        Zext = "zext",
        /// Keep the low bits.
        Trunc = "trunc",
        /// `f32` to `f64`.
        Fpext = "fpext",
        /// `f64` to `f32`, nearest even.
        Fptrunc = "fptrunc",
        /// Float to signed, toward zero; traps on NaN or out of range.
        Fptosi = "fptosi",
        /// Float to unsigned, toward zero; traps on NaN or out of range.
        Fptoui = "fptoui",
        /// Float to signed, saturating; NaN gives 0.
        FptosiSat = "fptosi_sat",
        /// Float to unsigned, saturating; NaN gives 0.
        FptouiSat = "fptoui_sat",
        /// Signed integer to float.
        Sitofp = "sitofp",
        /// Unsigned integer to float.
        Uitofp = "uitofp",
        /// Reinterpret the bits (same width).
        Bitcast = "bitcast",
    }
}

impl ConvOp {
    /// Whether the conversion from `from` to `to` exists (Keel IR's
    /// `conversion_ok`).
    pub fn legal(self, to: Ty, from: Ty) -> bool {
        let (s, d) = (from.bits(), to.bits());
        match self {
            ConvOp::Sext | ConvOp::Zext => from.is_int() && to.is_int() && d > s,
            ConvOp::Trunc => from.is_int() && to.is_int() && d < s,
            ConvOp::Fpext => from == Ty::F32 && to == Ty::F64,
            ConvOp::Fptrunc => from == Ty::F64 && to == Ty::F32,
            ConvOp::Fptosi | ConvOp::Fptoui | ConvOp::FptosiSat | ConvOp::FptouiSat => {
                from.is_float() && to.is_int() && to != Ty::I1
            }
            ConvOp::Sitofp | ConvOp::Uitofp => from.is_int() && to.is_float(),
            ConvOp::Bitcast => s == d,
        }
    }
}

named_enum! {
    /// Element-wise vector operations with one memory source
    /// (`vexp.f32 nram[D], nram[A], n`).
    VUnOp {
        /// Negation (wrapping on integers; sign flip on floats).
        Neg = "vneg",
        /// Absolute value (`abs(MIN) = MIN` on integers).
        Abs = "vabs",
        /// `max(a, 0)` (signed on integers; `fmax` on floats).
        Relu = "vrelu",
        /// `e^x`.
        Exp = "vexp",
        /// `ln x`.
        Log = "vlog",
        /// `√x` (correctly rounded).
        Sqrt = "vsqrt",
        /// `tanh x`.
        Tanh = "vtanh",
        /// `1 / (1 + e^−x)`.
        Sigmoid = "vsigmoid",
    }
}

impl VUnOp {
    /// The types the operation accepts (never `i1`: see
    /// [`crate::inst::Inst::vector_type_ok`]).
    pub fn class(self) -> Class {
        match self {
            VUnOp::Neg | VUnOp::Abs | VUnOp::Relu => Class::Any,
            _ => Class::Float,
        }
    }

    /// Transcendentals and square root run at the vector unit's slow rate
    /// (`MachineConfig::vector_slow_factor`).
    pub fn slow(self) -> bool {
        matches!(self, VUnOp::Exp | VUnOp::Log | VUnOp::Sqrt | VUnOp::Tanh | VUnOp::Sigmoid)
    }
}

named_enum! {
    /// Element-wise vector operations with two sources, each a memory range
    /// or a broadcast scalar (`vadd.f32 nram[D], nram[A], %r3, n`).
    VBinOp {
        /// Add.
        Add = "vadd",
        /// Subtract.
        Sub = "vsub",
        /// Multiply.
        Mul = "vmul",
        /// Divide (signed on integers; traps on 0 and `MIN / −1`).
        Div = "vdiv",
        /// Minimum (signed; `fmin` on floats).
        Min = "vmin",
        /// Maximum (signed; `fmax` on floats).
        Max = "vmax",
    }
}

impl VBinOp {
    /// Division runs at the vector unit's slow rate.
    pub fn slow(self) -> bool {
        self == VBinOp::Div
    }
}

named_enum! {
    /// Vector reductions into a register (`vredsum.f32 %r1, nram[A], n`).
    RedOp {
        /// Sum in index order from the first element; empty is `0`.
        Sum = "vredsum",
        /// Maximum (NaN if any is NaN); empty is the type's lowest value.
        Max = "vredmax",
    }
}

named_enum! {
    /// What a `sync` waits for: everything issued earlier to one pipe, or to
    /// every pipe (BANG's `__sync_io`, `__sync_move`, `__sync_compute`,
    /// `__sync_io_move_compute`).
    SyncKind {
        /// The IO-DMA pipe.
        Io = "sync.io",
        /// The Move-DMA pipe.
        Move = "sync.move",
        /// The compute pipe.
        Compute = "sync.compute",
        /// Every pipe.
        All = "sync.all",
    }
}

impl SyncKind {
    /// Whether the sync waits for `pipe`.
    pub fn covers(self, pipe: Pipe) -> bool {
        match self {
            SyncKind::Io => pipe == Pipe::Io,
            SyncKind::Move => pipe == Pipe::Move,
            SyncKind::Compute => pipe == Pipe::Compute,
            SyncKind::All => pipe != Pipe::Scalar,
        }
    }
}

named_enum! {
    /// The reach of a barrier (`barrier.sync.local` over the cores of one
    /// cluster, `barrier.sync.global` over every cluster).
    Scope {
        /// The cores of the issuing core's cluster.
        Local = "barrier.sync.local",
        /// The cores of every cluster.
        Global = "barrier.sync.global",
    }
}

/// A copy direction: source and destination spaces.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Route {
    /// Where the bytes come from.
    pub src: Space,
    /// Where they go.
    pub dst: Space,
}

impl Route {
    /// The directions the machine has (BANG's `GDRAM2NRAM`, `NRAM2GDRAM`,
    /// `SRAM2NRAM`, `NRAM2SRAM`, `GDRAM2SRAM`, `SRAM2GDRAM`, `NRAM2WRAM`,
    /// `GDRAM2WRAM`, `NRAM2NRAM`), in a fixed order.
    pub const ALL: [Route; 9] = [
        Route { src: Space::Dram, dst: Space::Nram },
        Route { src: Space::Nram, dst: Space::Dram },
        Route { src: Space::Sram, dst: Space::Nram },
        Route { src: Space::Nram, dst: Space::Sram },
        Route { src: Space::Dram, dst: Space::Sram },
        Route { src: Space::Sram, dst: Space::Dram },
        Route { src: Space::Nram, dst: Space::Wram },
        Route { src: Space::Dram, dst: Space::Wram },
        Route { src: Space::Nram, dst: Space::Nram },
    ];

    /// The route from `src` to `dst`.
    pub fn new(src: Space, dst: Space) -> Route {
        Route { src, dst }
    }

    /// Whether the machine has this direction.
    pub fn exists(self) -> bool {
        Route::ALL.contains(&self)
    }

    /// Index in [`Route::ALL`], if the direction exists.
    pub fn index(self) -> Option<usize> {
        Route::ALL.iter().position(|&r| r == self)
    }

    /// The DMA pipe that carries it: IO-DMA when an end is off chip,
    /// Move-DMA otherwise.
    pub fn pipe(self) -> Pipe {
        if self.src == Space::Dram || self.dst == Space::Dram { Pipe::Io } else { Pipe::Move }
    }

    /// BANG's name of the direction (`GDRAM2NRAM`).
    pub fn bang_name(self) -> String {
        let n = |s: Space| if s == Space::Dram { "GDRAM".to_string() } else { s.name().to_ascii_uppercase() };
        format!("{}2{}", n(self.src), n(self.dst))
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", self.src, self.dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Pipe, Space, Ty};

    #[test]
    fn routes_and_pipes() {
        assert_eq!(Route::ALL.len(), 9);
        assert!(Route::new(Space::Dram, Space::Nram).exists());
        assert!(!Route::new(Space::Wram, Space::Dram).exists());
        assert!(!Route::new(Space::Sram, Space::Wram).exists());
        assert_eq!(Route::new(Space::Dram, Space::Sram).pipe(), Pipe::Io);
        assert_eq!(Route::new(Space::Sram, Space::Nram).pipe(), Pipe::Move);
        assert_eq!(Route::new(Space::Dram, Space::Nram).bang_name(), "GDRAM2NRAM");
        assert_eq!(Route::new(Space::Nram, Space::Wram).bang_name(), "NRAM2WRAM");
    }

    #[test]
    fn conversions_follow_keel() {
        assert!(ConvOp::Sext.legal(Ty::I64, Ty::I32));
        assert!(!ConvOp::Sext.legal(Ty::I32, Ty::I32));
        assert!(ConvOp::Bitcast.legal(Ty::F32, Ty::I32));
        assert!(!ConvOp::Fptosi.legal(Ty::I1, Ty::F32));
        assert!(ConvOp::Sitofp.legal(Ty::F64, Ty::I1));
    }
}
