//! The evaluator's error type: [`EvalError`] (the node, the primitive
//! computing there, and what happened), with [`EvalErrorKind`] (a trap of
//! the semantics, a limit, a refusal of the arguments or the graph) and
//! [`Malformed`] (a graph or value the verifier would reject, met while
//! running).
//!
//! A leaf of the `eval` tree: the evaluator (`eval/mod.rs`) and the
//! primitives (`prims.rs`) both build it, and it depends on nothing of
//! theirs (only on the scalar layer, the primitives' names, types, values
//! and the verifier's error kinds), so the tree's imports run one way.
//! `eval` re-exports it, so its public path stays
//! `vectorize::eval::EvalError`.
//!
//! Invariant: every kind has one [`TrapKind`] ([`EvalErrorKind::trap`]):
//! the scalar traps share their names with Keel IR's interpreter, so an
//! evaluation and `keel run` of the same program trap alike.

use crate::graph::Sym;
use crate::ops::Prim;
use crate::scalar::ScalarError;
use crate::trap::TrapKind;
use crate::types::ValTy;
use crate::value::ArrayError;
use crate::verify::VerifyErrorKind;
use core::fmt;

/// Why an evaluation stopped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EvalError {
    /// The node evaluating, if any.
    pub sym: Option<Sym>,
    /// The primitive computing at that node when it trapped, and its lift
    /// depth (`None` when the evaluator itself stopped: a call, a `map`,
    /// the fuel of a node).
    pub prim: Option<(Prim, u32)>,
    /// What happened.
    pub kind: EvalErrorKind,
}

impl EvalError {
    /// The class (for the scalar traps, the same words as `keel run`).
    pub fn trap(&self) -> TrapKind {
        self.kind.trap()
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let trap = self.trap().describe();
        match self.sym {
            Some(s) => write!(f, "{trap} at {s}: ")?,
            None => write!(f, "{trap}: ")?,
        }
        match self.prim {
            Some((p, 0)) => write!(f, "`{p}`: ")?,
            Some((p, d)) => write!(f, "`{p}.{d}`: ")?,
            None => {}
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for EvalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

/// What stopped an evaluation, with the values, sizes and limits
/// involved.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EvalErrorKind {
    /// A scalar operation trapped (or had operands of the wrong types).
    Scalar(ScalarError),
    /// An `assert` of false.
    AssertionFailed,
    /// An index outside its array.
    IndexOutOfBounds {
        /// The index (signed).
        index: i64,
        /// The array's length.
        len: usize,
    },
    /// `broadcast` of a negative count.
    NegativeCount(i64),
    /// `partition` into a row of negative length.
    NegativeRow(i64),
    /// `partition` lengths that do not add up to the array's length.
    PartitionTotal {
        /// The array's length.
        elements: usize,
        /// The lengths' sum so far (it stops past `elements`).
        total: u64,
    },
    /// `map` over arrays of different lengths.
    MapLengths {
        /// The first mapped argument's length.
        first: usize,
        /// The length that differs.
        other: usize,
    },
    /// Mapped arguments of a lifted operation whose outer levels differ.
    LaneShapes {
        /// The lift depth.
        levels: u32,
        /// The first mapped argument's length.
        first: usize,
        /// The length of the one that differs.
        other: usize,
    },
    /// A mask with another number of lanes than the mapped arguments.
    MaskLanes {
        /// The mask's lanes.
        mask: usize,
        /// The arguments' lanes.
        lanes: usize,
    },
    /// A mask whose inner levels differ from the mapped arguments'.
    MaskShape,
    /// The fuel ran out.
    OutOfFuel,
    /// An array past the size limit.
    TooLarge {
        /// Its scalars and offsets.
        elements: u64,
        /// The limit ([`crate::eval::EvalConfig::max_elements`]).
        limit: u64,
    },
    /// A `map` whose result grew past the size limit.
    MapTooLarge {
        /// The elements so far.
        elements: u64,
        /// The limit.
        limit: u64,
    },
    /// A call of something that is not a lambda.
    NotCallable,
    /// Arguments whose types are not the function's parameters'.
    ArgumentTypes {
        /// The parameters' types.
        want: Vec<ValTy>,
        /// The arguments' types (`None` for a tuple).
        got: Vec<Option<ValTy>>,
    },
    /// The graph does not verify (its first error).
    Unverified(VerifyErrorKind),
    /// A graph or value the verifier would reject, met while running.
    Malformed(Malformed),
}

impl EvalErrorKind {
    /// The class (for the scalar traps, the same words as `keel run`).
    pub fn trap(&self) -> TrapKind {
        use EvalErrorKind as K;
        match self {
            K::Scalar(e) => e.trap(),
            K::AssertionFailed => TrapKind::AssertionFailed,
            K::IndexOutOfBounds { .. } | K::NegativeCount(_) | K::NegativeRow(_) => TrapKind::OutOfBounds,
            K::PartitionTotal { .. } | K::MapLengths { .. } | K::LaneShapes { .. } | K::MaskLanes { .. } => {
                TrapKind::ShapeMismatch
            }
            K::MaskShape => TrapKind::ShapeMismatch,
            K::OutOfFuel => TrapKind::FuelExhausted,
            K::TooLarge { .. } | K::MapTooLarge { .. } => TrapKind::MemoryLimit,
            K::NotCallable | K::ArgumentTypes { .. } => TrapKind::BadArguments,
            K::Unverified(_) | K::Malformed(_) => TrapKind::Malformed,
        }
    }
}

impl From<ScalarError> for EvalErrorKind {
    fn from(e: ScalarError) -> EvalErrorKind {
        EvalErrorKind::Scalar(e)
    }
}

impl From<Malformed> for EvalErrorKind {
    fn from(m: Malformed) -> EvalErrorKind {
        EvalErrorKind::Malformed(m)
    }
}

impl fmt::Display for EvalErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use EvalErrorKind as K;
        match self {
            K::Scalar(e) => write!(f, "{e}"),
            K::AssertionFailed => f.write_str("the condition is false"),
            K::IndexOutOfBounds { index, len } => write!(f, "index {index} of an array of {len} elements"),
            K::NegativeCount(n) => write!(f, "`broadcast` of a negative count ({n})"),
            K::NegativeRow(n) => write!(f, "`partition` into a row of length {n}"),
            K::PartitionTotal { elements, total } => {
                write!(f, "`partition` of {elements} elements into rows totalling {total} or more")
            }
            K::MapLengths { first, other } => write!(f, "`map` over arrays of {first} and {other} elements"),
            K::LaneShapes { levels, first, other } => {
                write!(f, "mapped arguments differ in their outer {levels} levels ({first} and {other} elements)")
            }
            K::MaskLanes { mask, lanes } => write!(f, "a mask of {mask} lanes for {lanes} lanes"),
            K::MaskShape => f.write_str("the mask and the mapped arguments differ in their outer levels"),
            K::OutOfFuel => f.write_str("the evaluation ran out of fuel"),
            K::TooLarge { elements, limit } => {
                write!(f, "an array of {elements} elements exceeds the limit of {limit}")
            }
            K::MapTooLarge { .. } => f.write_str("the map's result is too large"),
            K::NotCallable => f.write_str("not a lambda"),
            K::ArgumentTypes { want, got } => {
                f.write_str("expected (")?;
                for (i, t) in want.iter().enumerate() {
                    write!(f, "{}{t}", if i > 0 { ", " } else { "" })?;
                }
                f.write_str("), got (")?;
                for (i, t) in got.iter().enumerate() {
                    f.write_str(if i > 0 { ", " } else { "" })?;
                    match t {
                        Some(t) => write!(f, "{t}")?,
                        None => f.write_str("tuple")?,
                    }
                }
                f.write_str(")")
            }
            K::Unverified(e) => write!(f, "the graph does not verify: {e}"),
            K::Malformed(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for EvalErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EvalErrorKind::Scalar(e) => Some(e),
            EvalErrorKind::Unverified(e) => Some(e),
            EvalErrorKind::Malformed(m) => m.source(),
            _ => None,
        }
    }
}

/// A graph or value the verifier would reject, met while running (each
/// is the evaluator's own check that keeps it from panicking).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Malformed {
    /// A body with a cycle.
    Cycle,
    /// A value used before it was computed, or a foreign symbol.
    Unready,
    /// A call of something that is not a lambda, inside the graph.
    NotALambda,
    /// A call with another number of arguments than the lambda's params.
    CallArity,
    /// No frame to run.
    NoFrame,
    /// A lambda that returned no result to a `map`.
    NoResult,
    /// A `map` element of another type than the `map`'s.
    MapResultType,
    /// Results returned to a frame that called nothing.
    NoCaller,
    /// A higher-order node without its lambda.
    MissingLambda,
    /// A constant array that is not in the graph's pool.
    NoSuchConstant(u32),
    /// An `if` condition that is not a scalar.
    Condition,
    /// A `map` over something that is not an array.
    MapOfNonArray,
    /// A `map` whose type is not an array.
    MapType,
    /// `get` of something that is not a tuple.
    GetOfNonTuple,
    /// A primitive whose type is not a value type.
    NonValuePrimitive,
    /// A primitive that computed a value of another type than its own.
    WrongResult(ValTy),
    /// Something other than a scalar where a scalar was expected.
    ScalarExpected,
    /// Something other than an array where an array was expected.
    ArrayExpected,
    /// An operation with fewer operands than it takes.
    MissingOperand,
    /// A primitive evaluated as a scalar operation that is not one.
    NotScalarOp(Prim),
    /// A primitive folded that is not a reduction.
    NotReduction(Prim),
    /// A primitive with fewer arguments than it takes.
    MissingArgument,
    /// A reduction of an array of arrays.
    NestedReduction,
    /// `broadcast` of a tuple.
    BroadcastTuple,
    /// `concat` of a flat array.
    ConcatFlat,
    /// An array that `concat` or `partition` could not assemble.
    Parts(ArrayError),
    /// `partition` lengths that are not a flat array of integers.
    PartitionLengths,
    /// A primitive evaluated as first-order that is not one.
    NotFirstOrder(Prim),
    /// A mask that is not `i1` inside at most `k` arrays.
    Mask,
    /// A lifted result type with fewer levels than the lift depth.
    NotLifted,
    /// A mapped argument with fewer levels than the lift depth.
    ShallowArgument {
        /// Its depth.
        depth: u32,
        /// The lift depth.
        levels: u32,
    },
    /// A lifted operation whose arguments are all the same in every lane.
    NothingMapped,
    /// The masked walk's stack emptied too early.
    MaskStack,
    /// A tuple as a mask.
    TupleMask,
    /// A mapped scalar argument of another depth than the lift depth.
    ScalarDepth,
    /// A reduction's argument of the wrong depth.
    ReductionDepth,
    /// A lane's result of another type than the others'.
    LaneResult,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Malformed as M;
        match self {
            M::Cycle => f.write_str("a cycle in a body"),
            M::Unready => f.write_str("a value used before it was computed (or a foreign symbol)"),
            M::NotALambda => f.write_str("not a lambda"),
            M::CallArity => f.write_str("a call with the wrong number of arguments"),
            M::NoFrame => f.write_str("no frame"),
            M::NoResult => f.write_str("no result"),
            M::MapResultType => f.write_str("a map result of the wrong type"),
            M::NoCaller => f.write_str("results with no caller"),
            M::MissingLambda => f.write_str("missing lambda"),
            M::NoSuchConstant(_) => f.write_str("no such constant"),
            M::Condition => f.write_str("condition"),
            M::MapOfNonArray => f.write_str("map of a non-array"),
            M::MapType => f.write_str("map of a non-array type"),
            M::GetOfNonTuple => f.write_str("`get` of a non-tuple"),
            M::NonValuePrimitive => f.write_str("a primitive with a non-value type"),
            M::WrongResult(t) => write!(f, "computed a value that is not a {t}"),
            M::ScalarExpected => f.write_str("a scalar was expected"),
            M::ArrayExpected => f.write_str("an array was expected"),
            M::MissingOperand => f.write_str("missing operand"),
            M::NotScalarOp(p) => write!(f, "`{p}` is not a scalar operation"),
            M::NotReduction(_) => f.write_str("not a reduction"),
            M::MissingArgument => f.write_str("missing argument"),
            M::NestedReduction => f.write_str("a reduction of nested arrays"),
            M::BroadcastTuple => f.write_str("`broadcast` of a tuple"),
            M::ConcatFlat => f.write_str("`concat` of a flat array"),
            M::Parts(e) => write!(f, "{e}"),
            M::PartitionLengths => f.write_str("`partition` lengths must be a flat array of integers"),
            M::NotFirstOrder(p) => write!(f, "`{p}` is not a first-order primitive"),
            M::Mask => f.write_str("a mask must be i1 inside at most k arrays"),
            M::NotLifted => f.write_str("the result type is not lifted"),
            M::ShallowArgument { depth, levels } => {
                write!(f, "a mapped argument of depth {depth} at lift depth {levels}")
            }
            M::NothingMapped => f.write_str("a lifted operation with no mapped argument"),
            M::MaskStack => f.write_str("an empty mask stack"),
            M::TupleMask => f.write_str("a tuple mask"),
            M::ScalarDepth => f.write_str("a mapped scalar argument of the wrong depth"),
            M::ReductionDepth => f.write_str("a reduction of the wrong depth"),
            M::LaneResult => f.write_str("a lane's result has the wrong type"),
        }
    }
}

impl std::error::Error for Malformed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Malformed::Parts(e) => Some(e),
            _ => None,
        }
    }
}
