//! The lowering's error type, [`LowerError`]: the node at fault and a
//! [`LowerErrorKind`], either what the graph uses that the lowering does
//! not support (with the primitive and depth) or a failure of the lowered
//! Keel code to build or verify (with Keel's own error, kept typed).
//!
//! A leaf of the `lower` tree: the entry point (`lower/mod.rs`) and the
//! emitters (`emit.rs`, `control.rs`) all return it, and it depends on
//! nothing of theirs (only on the graph's [`Sym`], [`Prim`] and
//! [`VerifyError`], and on Keel's errors), so the tree's imports run one
//! way. `lower` re-exports both, so their public paths stay
//! `vectorize::lower::LowerError` and `vectorize::lower::LowerErrorKind`.
//!
//! Invariant: `sym`, when set, is a symbol of the graph being lowered
//! (the node at fault); `Display` prefixes the kind's message with it.

use crate::graph::Sym;
use crate::ops::Prim;
use crate::verify::VerifyError;
use core::fmt;

/// Why a graph cannot be lowered.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LowerError {
    /// The node at fault, if any.
    pub sym: Option<Sym>,
    /// What is not supported, or what failed.
    pub kind: LowerErrorKind,
}

/// What the lowering does not support, or what failed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LowerErrorKind {
    /// The graph does not verify (its first error).
    Unverified(VerifyError),
    /// The symbol given is not a function of the graph.
    NotAFunction,
    /// A body with a cycle through the node.
    Cycle,
    /// A parameter nested deeper than two arrays.
    DeepParam(u32),
    /// A function result that is neither a scalar nor one value per lane.
    ResultForm,
    /// A name Keel refused (a memory object's or the function's).
    Name(ir_core::NameError),
    /// The lowered module does not verify (Keel's first error): a bug of
    /// the lowering.
    LoweredInvalid(ir_core::VerifierError),
    /// A value used before it is lowered.
    NotLowered,
    /// A scalar expected where a per-lane value is.
    ScalarExpected,
    /// A primitive lowered as a scalar operation that is not one.
    NotScalarOp(Prim),
    /// A lifted node's argument that is neither per lane (mapped) nor a
    /// scalar (flagged `*`).
    LaneArgument,
    /// A lifted node whose result is not one scalar per lane.
    NotElementwise,
    /// A mask the same in every lane on a lifted node.
    UniformMask,
    /// An operand of a fused multiply-add of another form than its flag.
    BadOperand,
    /// `length` of something that is not per lane.
    LengthNotPerLane,
    /// `sum` or `max` of something that is not per lane.
    ReductionNotPerLane,
    /// `any` of something that is not per lane.
    AnyNotPerLane,
    /// A row reduction of something other than a per-lane array parameter.
    RowReduction,
    /// A broadcast of something other than a scalar.
    BroadcastNotScalar,
    /// A broadcast to another count than the lanes.
    BroadcastCount,
    /// A scalar operation whose type is an array.
    ScalarOpOnArrays,
    /// A primitive at a depth the lowering does not handle.
    Unsupported {
        /// The primitive.
        prim: Prim,
        /// Its lift depth.
        depth: u32,
    },
    /// `if` or `while` state that is neither scalars nor per lane.
    StateForm,
    /// A copy between values of two forms.
    FormMismatch,
    /// A call with another number of arguments than the lambda's params.
    CallArity,
    /// No frame to lower.
    NoFrame,
    /// A `while` condition that is not a scalar.
    ConditionNotScalar,
    /// `get` of something that is not a tuple.
    GetOfNonTuple,
    /// An `if` result deeper than one value per lane.
    BranchResultForm,
    /// More lanes ([`super::Lanes::Fixed`]) or a larger capacity
    /// ([`super::Lanes::Dynamic`]) than a memory object can hold.
    LanesOverLimit {
        /// The lanes or the capacity asked for.
        lanes: u64,
        /// The most elements a memory object holds ([`ir_core::MAX_MEM_LEN`]).
        limit: u64,
    },
    /// A memory object the options make longer than Keel IR allows (the
    /// offsets of per-lane arrays: one more than the lanes; the data of
    /// per-lane arrays: [`super::LowerOptions::elements`]).
    MemTooLong {
        /// The object's name (without `@`).
        name: String,
        /// The elements it would hold.
        len: u128,
        /// The most elements a memory object holds ([`ir_core::MAX_MEM_LEN`]).
        limit: u64,
    },
}

impl fmt::Display for LowerErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LowerErrorKind as K;
        match self {
            K::Unverified(e) => write!(f, "the graph does not verify: {e}"),
            K::NotAFunction => f.write_str("not a function"),
            K::Cycle => f.write_str("a cycle"),
            K::DeepParam(_) => f.write_str("parameters deeper than two arrays are not lowered"),
            K::ResultForm => f.write_str("a result that is not a scalar or per lane"),
            K::Name(e) => write!(f, "{e}"),
            K::LoweredInvalid(e) => write!(f, "the lowered function does not verify: {e}"),
            K::NotLowered => f.write_str("a value used before it is lowered"),
            K::ScalarExpected => f.write_str("a scalar was expected"),
            K::NotScalarOp(p) => write!(f, "`{p}` is not a scalar operation"),
            K::LaneArgument => f.write_str("an argument that is neither per lane nor a scalar"),
            K::NotElementwise => f.write_str("only lifted operations over scalars are lowered"),
            K::UniformMask => f.write_str("a mask the same in every lane on a lifted node is not lowered"),
            K::BadOperand => f.write_str("a bad operand"),
            K::LengthNotPerLane => f.write_str("`length` of something that is not per lane"),
            K::ReductionNotPerLane => f.write_str("a reduction of something that is not per lane"),
            K::AnyNotPerLane => f.write_str("`any` of something that is not per lane"),
            K::RowReduction => f.write_str("a row reduction of something that is not a per-lane array parameter"),
            K::BroadcastNotScalar => f.write_str("only scalars are broadcast"),
            K::BroadcastCount => f.write_str("a broadcast to another count than the lanes"),
            K::ScalarOpOnArrays => f.write_str("a scalar operation on arrays"),
            K::Unsupported { prim, depth } => write!(f, "`{prim}` at depth {depth} is not lowered"),
            K::StateForm => f.write_str("loop or branch values must be scalars or per lane"),
            K::FormMismatch => f.write_str("a value of another form"),
            K::CallArity => f.write_str("a call with the wrong number of arguments"),
            K::NoFrame => f.write_str("no frame"),
            K::ConditionNotScalar => f.write_str("a condition that is not a scalar"),
            K::GetOfNonTuple => f.write_str("`get` of a non-tuple"),
            K::BranchResultForm => f.write_str("a branch result that is not a scalar or per lane"),
            K::LanesOverLimit { lanes, limit } => {
                write!(f, "{lanes} lanes do not fit a memory object (Keel IR's limit is {limit} elements)")
            }
            K::MemTooLong { name, len, limit } => {
                write!(f, "memory object @{name} would hold {len} elements, more than Keel IR's limit of {limit}")
            }
        }
    }
}

impl std::error::Error for LowerErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LowerErrorKind::Unverified(e) => Some(e),
            LowerErrorKind::Name(e) => Some(e),
            LowerErrorKind::LoweredInvalid(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sym {
            Some(s) => write!(f, "{s}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for LowerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}
