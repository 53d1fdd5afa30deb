//! Why a compiled rule term could not be built ([`StageError`]): the
//! error of the [`super::Stager`] interface, raised by the staged function
//! itself (a malformed term), by the vectorizer's template instantiation
//! and by the optimisation rules' stager (an unbound variable, a literal
//! with no type, an output of the wrong type), and by node construction
//! (a node that does not type, the size limit).
//!
//! A leaf of the `rules` tree: it depends only on the primitives, types,
//! literals and the typing error, so both `rules` (which names it in
//! [`super::Stager`]) and the vectorizer (which raises it and wraps it in
//! [`crate::VectorizeErrorKind`]) import it without a circle. `rules`
//! re-exports it as `vectorize::rules::StageError`.

use crate::infer::TypeError;
use crate::ops::Prim;
use crate::scalar::LiteralError;
use crate::types::ValTy;
use core::fmt;

/// Why a rule's term could not be built; each names the primitive,
/// variable, literal or types involved.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StageError {
    /// The compiled term applies a primitive to more values than it has
    /// built.
    MalformedTerm,
    /// The compiled term builds nothing.
    EmptyTerm,
    /// A variable the pattern did not bind.
    UnboundVariable(usize),
    /// A variable that is not an argument of the node.
    NoSuchArgument(usize),
    /// A primitive with a payload (`const`, `array`, `get`, ...), which an
    /// optimisation rule cannot build.
    Payload(Prim),
    /// A primitive a vectorization rule cannot build.
    NotBuildable(Prim),
    /// An application without `^` in a vectorization rule.
    Unlifted(Prim),
    /// A literal whose type no sibling argument decides.
    UntypedLiteral(String),
    /// A literal that is not a value of its type.
    Literal(LiteralError),
    /// Arguments whose types fit no lifting of the primitive.
    NoFlags(Prim),
    /// A literal expected where something else was built.
    NotALiteral,
    /// A rule for a node whose type is not a value type.
    NotAValue,
    /// A term whose result is a literal.
    LiteralResult,
    /// A term whose result has another type than the node needs.
    WrongType {
        /// The result's type (`None`: not a value).
        got: Option<ValTy>,
        /// The type needed (the node's, one level deeper).
        want: ValTy,
    },
    /// An argument the same in every lane that must follow a mapped
    /// argument's levels, with none mapped.
    NothingToFollow,
    /// A batched value needed inside a lambda called per element (which
    /// has no lanes).
    BatchedInPlainLambda,
    /// A node that does not type.
    Type(TypeError),
    /// The vectorized graph would exceed its node limit
    /// ([`crate::VectorizeConfig::max_nodes`]).
    NodeLimit(usize),
}

impl fmt::Display for StageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use StageError as E;
        match self {
            E::MalformedTerm => f.write_str("a malformed term"),
            E::EmptyTerm => f.write_str("an empty term"),
            E::UnboundVariable(_) => f.write_str("an unbound variable"),
            E::NoSuchArgument(_) => f.write_str("no such argument"),
            E::Payload(_) => f.write_str("a primitive with a payload"),
            E::NotBuildable(_) => f.write_str("this primitive cannot be built by a rule"),
            E::Unlifted(_) => f.write_str("a vectorization rule builds lifted values only"),
            E::UntypedLiteral(_) => f.write_str("a literal whose type cannot be inferred"),
            E::Literal(e) => write!(f, "{e}"),
            E::NoFlags(_) => f.write_str("no flags fit the arguments' types"),
            E::NotALiteral => f.write_str("a literal"),
            E::NotAValue => f.write_str("a rule for a node that is not a value"),
            E::LiteralResult => f.write_str("the rule produced a literal"),
            E::WrongType { got, want } => {
                f.write_str("it produced a ")?;
                match got {
                    Some(t) => write!(f, "{t}")?,
                    None => f.write_str("?")?,
                }
                write!(f, " where a {} was needed", want)
            }
            E::NothingToFollow => f.write_str("an unmapped batched argument with nothing mapped to follow"),
            E::BatchedInPlainLambda => f.write_str("a batched value inside a per-element lambda"),
            E::Type(e) => write!(f, "{e}"),
            E::NodeLimit(n) => write!(f, "the vectorized graph would exceed {n} nodes"),
        }
    }
}

impl std::error::Error for StageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StageError::Literal(e) => Some(e),
            StageError::Type(e) => Some(e),
            _ => None,
        }
    }
}
