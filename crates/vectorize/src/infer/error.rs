//! Typing's error type, [`TypeError`]: the rule a node breaks, with the
//! primitive, the argument's position and the types involved; `Display`
//! gives the message the verifier, the builder, the importer and the
//! vectorizer report.
//!
//! A leaf of the `infer` tree (it names only primitives and types);
//! `infer` re-exports it, so its public path stays `vectorize::TypeError`.

use crate::graph::MAX_FLAGGED_ARGS;
use crate::ops::Prim;
use crate::scalar::ScalarTy;
use crate::types::ValTy;

/// Why a node does not type: the rule it breaks, with the primitive, the
/// argument (by position) and the types involved. `Display` gives the
/// message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TypeError {
    /// A wrong number of arguments for a fixed-arity primitive.
    Arity {
        /// The primitive.
        prim: Prim,
        /// Its arity.
        want: usize,
        /// The arguments given.
        got: usize,
    },
    /// A lift depth on a primitive that cannot be lifted.
    NotLiftable(Prim),
    /// A mask on a primitive that cannot carry one.
    NotMaskable(Prim),
    /// `*` flags on a node with more than [`MAX_FLAGGED_ARGS`] arguments.
    TooManyFlagged {
        /// The node's number of arguments.
        args: usize,
    },
    /// `param` or `lambda`, which are not built from arguments.
    NotBuilt(Prim),
    /// A constant array that is not in the graph's pool.
    NoSuchArray(u32),
    /// `get` with a `*` flag.
    GetFlagged,
    /// `get.i` of a tuple with no component `i`.
    GetOutOfRange {
        /// The component asked for.
        index: u32,
        /// The tuple's size.
        len: usize,
    },
    /// `get.i` of something that is not a tuple.
    GetNotTuple(u32),
    /// An argument that is not a value (a lambda, a tuple, a foreign
    /// symbol).
    ArgNotValue {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
    },
    /// A `*` flag on a node of depth 0.
    FlagAtDepthZero {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
    },
    /// A mapped argument with fewer array levels than the lift depth.
    TooShallow {
        /// The primitive.
        prim: Prim,
        /// The lift depth.
        depth: u32,
        /// The argument's position.
        arg: usize,
        /// Its type.
        ty: ValTy,
    },
    /// A lifted node whose arguments are all flagged `*`.
    NothingMapped {
        /// The primitive.
        prim: Prim,
        /// The lift depth.
        depth: u32,
    },
    /// A mask that is not `i1` inside at most `depth` arrays.
    BadMask {
        /// The primitive.
        prim: Prim,
        /// The lift depth.
        depth: u32,
        /// The mask's type.
        ty: ValTy,
    },
    /// A mask that is not a value.
    MaskNotValue(Prim),
    /// An argument that must be a scalar (at the base depth) and is not.
    NotScalar {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
        /// Its base type.
        ty: ValTy,
    },
    /// A scalar outside the operation's class (`fadd` of `i32`).
    WrongClass {
        /// The primitive.
        prim: Prim,
        /// The scalar type.
        ty: ScalarTy,
    },
    /// An argument that must be an integer and is not.
    NotInteger {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
        /// Its type.
        ty: ScalarTy,
    },
    /// An argument that must be an array (at the base depth) and is not.
    NotArray {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
        /// Its base type.
        ty: ValTy,
    },
    /// The two operands of a binary operation or compare differ.
    OperandMismatch {
        /// The primitive.
        prim: Prim,
        /// The first operand's type.
        left: ScalarTy,
        /// The second operand's type.
        right: ScalarTy,
    },
    /// A conversion with no declared target type.
    NoTarget(Prim),
    /// A conversion between types it does not convert.
    BadConversion {
        /// The conversion.
        prim: Prim,
        /// The source type.
        from: ScalarTy,
        /// The target type.
        to: ScalarTy,
    },
    /// `select` on a condition that is not an `i1` scalar.
    SelectCondition(ValTy),
    /// `select` between values of two types.
    SelectMismatch {
        /// The first value's type.
        left: ValTy,
        /// The second value's type.
        right: ValTy,
    },
    /// `sum` or `max` of an array of arrays.
    NestedReduction {
        /// The primitive.
        prim: Prim,
        /// The argument's base type.
        ty: ValTy,
    },
    /// `any` of something other than `array<i1>`.
    AnyNotBool(ValTy),
    /// `assert` of something other than `i1`.
    AssertNotBool(ValTy),
    /// `concat` of a flat array.
    ConcatFlat(ValTy),
    /// `partition` lengths that are not an array of integers.
    PartitionLengths(ValTy),
    /// A primitive the lifted typing does not cover.
    NotLifted(Prim),
    /// A higher-order primitive with no lambda argument.
    MissingLambda(Prim),
    /// A higher-order primitive's lambda slot holding something else.
    NotLambda {
        /// The primitive.
        prim: Prim,
        /// The argument's position.
        arg: usize,
    },
    /// A lambda argument with a `*` flag.
    LambdaFlagged(Prim),
    /// A lambda whose params or results are not all values.
    LambdaNotValues(Prim),
    /// A higher-order primitive's value argument that is not a value.
    HigherArgNotValue {
        /// The primitive.
        prim: Prim,
        /// The argument's position among the values.
        arg: usize,
    },
    /// A call passing another number of values than the lambda takes.
    PassCount {
        /// The primitive.
        prim: Prim,
        /// The values passed.
        got: usize,
        /// The lambda's parameters.
        want: usize,
    },
    /// A call passing a value of another type than the parameter's.
    PassType {
        /// The primitive.
        prim: Prim,
        /// The parameter's position.
        param: usize,
        /// The value's type.
        got: ValTy,
        /// The parameter's type.
        want: ValTy,
    },
    /// A `map` lambda with other than one result.
    MapResults(usize),
    /// A `map` passing another number of arguments than the lambda takes.
    MapArity {
        /// The arguments passed.
        got: usize,
        /// The lambda's parameters.
        want: usize,
    },
    /// A `map` argument of another type than the lambda needs there.
    MapArg {
        /// The argument's position (the lambda is argument 0).
        arg: usize,
        /// Its type.
        got: ValTy,
        /// What the lambda needs (its parameter's type, or an array of it
        /// for a mapped argument).
        want: ValTy,
    },
    /// A `map` whose arguments are all passed whole.
    MapNothingMapped,
    /// An `if` without a condition and two lambdas.
    IfArity,
    /// An `if` whose condition is not an `i1` scalar.
    IfCondition,
    /// An `if` whose lambdas' signatures differ.
    IfSignatures,
    /// A `while` without two lambdas.
    WhileArity,
    /// A `while` body that does not return its parameters' types.
    WhileBody,
    /// A `while` condition that does not return one `i1` scalar.
    WhileCondition,
    /// A primitive the higher-order typing does not cover.
    NotHigherOrder(Prim),
    /// `*` flags on `apply`, `if` or `while`.
    Flagged(Prim),
    /// A constant array node ([`crate::Builder::array`]) of a value that is
    /// not an array.
    ArrayOfScalar,
}

impl core::fmt::Display for TypeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use TypeError as E;
        match self {
            E::Arity { prim, want, got } => {
                write!(f, "`{prim}` takes {want} argument{}, not {got}", if *want == 1 { "" } else { "s" })
            }
            E::NotLiftable(p) => write!(f, "`{p}` has no lift depth"),
            E::NotMaskable(p) => write!(f, "`{p}` cannot carry a mask"),
            E::TooManyFlagged { .. } => write!(f, "more than {MAX_FLAGGED_ARGS} arguments with flags"),
            E::NotBuilt(p) => write!(f, "`{p}` is not built from arguments"),
            E::NoSuchArray(i) => write!(f, "constant array {i} does not exist"),
            E::GetFlagged => f.write_str("`get` takes no flags"),
            E::GetOutOfRange { index, len } => write!(f, "`get.{index}` of a tuple of {len}"),
            E::GetNotTuple(i) => write!(f, "`get.{i}` of something that is not a tuple"),
            E::ArgNotValue { prim, arg } => write!(f, "argument {arg} of `{prim}` is not a value"),
            E::FlagAtDepthZero { prim, arg } => write!(f, "argument {arg} of `{prim}` is flagged `*` at depth 0"),
            E::TooShallow { prim, depth, arg, ty } => {
                write!(f, "argument {arg} of `{prim}.{depth}` has type {ty}, which has fewer than {depth} array levels")
            }
            E::NothingMapped { prim, depth } => write!(f, "`{prim}.{depth}` needs at least one mapped argument"),
            E::BadMask { prim, depth, ty } => {
                write!(f, "a mask of `{prim}.{depth}` must be i1 inside at most {depth} arrays, not {ty}")
            }
            E::MaskNotValue(p) => write!(f, "the mask of `{p}` is not a value"),
            E::NotScalar { prim, arg, ty } => write!(f, "argument {arg} of `{prim}` must be a scalar, not {ty}"),
            E::WrongClass { prim, ty } => write!(f, "`{prim}` does not apply to {ty}"),
            E::NotInteger { prim, arg, ty } => write!(f, "argument {arg} of `{prim}` must be an integer, not {ty}"),
            E::NotArray { prim, arg, ty } => write!(f, "argument {arg} of `{prim}` must be an array, not {ty}"),
            E::OperandMismatch { prim, left, right } => write!(f, "`{prim}` of {left} and {right}"),
            E::NoTarget(p) => write!(f, "`{p}` needs a target type"),
            E::BadConversion { prim, from, to } => write!(f, "`{prim}` cannot convert {from} to {to}"),
            E::SelectCondition(t) => write!(f, "the condition of `select` is {t}, not i1"),
            E::SelectMismatch { left, right } => write!(f, "`select` between {left} and {right}"),
            E::NestedReduction { prim, ty } => write!(f, "`{prim}` of {ty}: the elements must be scalars"),
            E::AnyNotBool(t) => write!(f, "`any` of {t}, not array<i1>"),
            E::AssertNotBool(t) => write!(f, "`assert` of {t}, not i1"),
            E::ConcatFlat(t) => write!(f, "`concat` of {t}: the elements must be arrays"),
            E::PartitionLengths(t) => write!(f, "the lengths of `partition` are {t}, not an array of integers"),
            E::NotLifted(p) => write!(f, "`{p}` is not a lifted operation"),
            E::MissingLambda(p) => write!(f, "`{p}` is missing its lambda"),
            E::NotLambda { prim, arg } => write!(f, "argument {arg} of `{prim}` is not a lambda"),
            E::LambdaFlagged(p) => write!(f, "the lambda of `{p}` cannot be flagged"),
            E::LambdaNotValues(p) => write!(f, "the lambda of `{p}` has params or results that are not values"),
            E::HigherArgNotValue { prim, arg } => write!(f, "an argument of `{prim}` ({arg}) is not a value"),
            E::PassCount { prim, got, want } => {
                write!(f, "`{prim}` passes {got} values to a lambda of {want} parameter")
            }
            E::PassType { prim, param, got, want } => {
                write!(f, "`{prim}` passes {got} where parameter {param} is {want}")
            }
            E::MapResults(n) => write!(f, "the lambda of `map` must return one value, not {n}"),
            E::MapArity { got, want } => write!(f, "`map` passes {got} arguments to a lambda of {want}"),
            E::MapArg { arg, got, want } => write!(f, "argument {arg} of `map` is {got}; the lambda needs {want}"),
            E::MapNothingMapped => f.write_str("`map` needs at least one mapped argument"),
            E::IfArity => f.write_str("`if` takes a condition and two lambdas"),
            E::IfCondition => f.write_str("the condition of `if` must be an i1 scalar"),
            E::IfSignatures => f.write_str("the two lambdas of `if` must have the same signature"),
            E::WhileArity => f.write_str("`while` takes two lambdas"),
            E::WhileBody => f.write_str("the body of `while` must return its parameters' types"),
            E::WhileCondition => f.write_str("the condition of `while` must return one i1 scalar"),
            E::NotHigherOrder(_) => f.write_str("not a higher-order operation"),
            E::Flagged(p) => write!(f, "`{p}` takes no `*` flags"),
            E::ArrayOfScalar => f.write_str("`array` needs an array value"),
        }
    }
}

impl std::error::Error for TypeError {}
