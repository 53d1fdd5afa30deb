//! `vectorize`: rule-based vectorization of a graph IR, after source
//! document 003 ("a method and apparatus for constructing a vectorized
//! version of a source program having a graph-based intermediate
//! representation"; `docs/references.md` names it and
//! `docs/design/vectorize.md` restates it).
//!
//! Given a program `p: T -> R`, build `/p/: array[T] -> array[R]` with
//! `ys = /p/(xs)` ⇒ `ys[i] = p(xs[i])`, for any set of primitives: one
//! declarative rule per primitive, optimisation rules applied to every
//! node as it is built, and no per-element fallback anywhere.
//!
//! - **The graph IR** ([`Graph`]): a table from dense `u32` symbols
//!   ([`Sym`]) to nodes (operation, argument symbols, type); types are
//!   scalars ([`ScalarTy`]) nested in `array<...>` to any depth
//!   ([`ValTy`]); closed lambdas (params, a body, results); primitives
//!   ([`Op`], [`Prim`]): the scalar operations ([`UnaryOp`],
//!   [`BinaryOp`], [`ConvertOp`], compares by [`IntCC`] and [`FloatCC`],
//!   `select`) plus `length`, `sum`, `max`, `any`, `index`, `broadcast`,
//!   `concat`, `partition`, `assert`, constant arrays, `map`, `apply`,
//!   `if`, `while` and `get`; any first-order primitive may be *lifted* (`fadd.1`: mapped
//!   over one more outer array level, with `*` arguments the same in every
//!   lane) and *masked* (`@%m`). Text format ([`text`]), verifier
//!   ([`verify`]), typed builder ([`Builder`]), dependence order
//!   ([`Schedule`]), Graphviz ([`dot`]).
//! - **Its own scalar layer**: types, values and literals ([`Imm`],
//!   [`Imm::parse`]), operations, and their semantics in the evaluator
//!   (wrapping integers, IEEE floats, trapping divisions and conversions:
//!   Keel IR's, bit for bit, without depending on it), and the evaluator's
//!   trap kinds ([`TrapKind`]). Without the `keel` feature the crate needs
//!   no Keel IR crate: a foreign front end builds graphs through
//!   [`Builder`] (`examples/foreign_frontend.rs`).
//! - **The reference evaluator** ([`eval`]): the oracle. Arrays are flat
//!   and segmented ([`Array`]), so lifted primitives are loops over data;
//!   reductions fold in the scalar order; every run is bounded by fuel.
//! - **The vectorizer** ([`Vectorizer`], [`vectorize()`]), exactly
//!   document 003's graph interpreter and staged evaluator over a rule table
//!   ([`RuleSet`], from the DSL of [`rules`]), plus: unmapped arguments and
//!   the "same in every lane" analysis ([`Uniformity`]), nested vmap,
//!   batched `if` (a `select` when both branches are pure ([`Purity`]),
//!   masks otherwise), batched `while` (runs while any lane runs, finished
//!   lanes frozen), data-dependent `index` as a gather.
//! - **Bridges to Keel IR** (feature `keel`, on by default): `import`
//!   turns a scalar Keel function (acyclic control flow, as selects and
//!   masks) into a graph function; `lower` turns a vectorized one into a
//!   Keel function over memory objects whose element-wise work is tensor
//!   instructions. The graph's types, values and operations convert to
//!   Keel's and back with `From`/`TryFrom` (`bridge.rs`, the one place the
//!   two vocabularies meet).
//! - **Testing aids**: [`generate`] (well-typed random graphs and
//!   arguments, over its own seeded or byte-driven choice source) and,
//!   behind the `fuzzing` feature, `fuzzing` (the oracle as a check, shared
//!   by the fuzz target and the tests, and the planted bugs that prove the
//!   oracles can fail, through Keel's `test-hooks`).
//!
//! `docs/design/vectorize.md` explains the design and lists the rule DSL
//! with the full default rule set.
//!
//! # Bad input
//!
//! One rule: input that comes from outside (text, rule files, Keel
//! functions, builder-made graphs, values) is checked and answered with an
//! error value, never a panic: parse errors are [`diagnostics::Diagnostic`]s
//! with spans (rendered with line, column and caret through Keel's one
//! renderer, the `diagnostics` crate), verifier errors name the symbol and
//! are all collected, rule sets are checked when built, the vectorizer, evaluator
//! and lowering verify their graph first, and evaluations are bounded by
//! fuel and a size limit. The builder does not check what it is given
//! (cheap construction, Cranelift's choice); the verifier does. Accessors
//! taking a symbol answer `None`/empty for a foreign one, except
//! [`Graph::data`], whose `# Panics` says so. No recursion depends on the
//! input: lambdas, nested types and terms are walked with explicit stacks.
//! No output grows faster than the graph: the printers ([`text`], [`dot`])
//! stream to a writer and stop indenting past 32 levels of nesting (deeper
//! lines carry a `nesting N` comment), and the lowering refuses memory
//! objects longer than Keel IR holds.
//!
//! Every error is typed: an enum whose variants name the failure and carry
//! what is at fault as data (the symbol or instruction, the primitive, the
//! argument's position, the types, sizes and limits), with `Display` for
//! the message and `source()` where one error wraps another:
//! [`VerifyError`] (a symbol and a [`VerifyErrorKind`]), [`TypeError`],
//! [`NameError`], [`LiteralError`], [`ArrayError`], [`ScalarError`],
//! [`eval::EvalError`] (a node, the primitive computing there and an
//! [`eval::EvalErrorKind`], classed by its [`TrapKind`]),
//! [`VectorizeError`] (a node and a [`VectorizeErrorKind`], a failed rule
//! with its [`rules::StageError`]) and, with `keel`, `import::ImportError`
//! and `lower::LowerError` (a Keel instruction or a node and a kind, Keel's
//! own errors kept typed inside).
//!
//! Choices where issue 14 (which specified this crate) is silent: all seven
//! scalar types of Keel IR (not only i1, i32, i64, f32, f64); lambdas are
//! closed (values come in as arguments, so a lambda is vectorized per
//! calling pattern, JAX-style); evaluation is strict (every node of a called
//! body runs, so a dead node still traps); a masked lane holds zero (or an
//! empty array); `/p/` returns every result batched; when some lane traps,
//! `/p/` traps (with the kind of whichever trap it meets first).
//!
//! # Example
//!
//! ```
//! use vectorize::eval::{EvalConfig, eval};
//! use vectorize::text::{parse, print_graph};
//! use vectorize::{Value, vectorize};
//!
//! let (g, _) = parse(
//!     "func @p(%a: f32, %b: f32, %c: f32) -> f32 {
//!     %t: f32 = fmul %b, %c
//!     %r: f32 = fadd %a, %t
//!     ret %r
//! }
//! ",
//! )
//! .unwrap();
//! let p = g.function("p").unwrap();
//! // Batch a and b; c is the same in every lane.
//! let v = vectorize(&g, p, &[true, true, false]).unwrap();
//! assert!(print_graph(&v.graph).contains("%t: array<f32> = fmul.1 %b, *%c"));
//! let ys = eval(
//!     &v.graph,
//!     v.func,
//!     &[Value::f32s(&[1.0, 2.0]), Value::f32s(&[3.0, 4.0]), Value::f32(10.0)],
//!     EvalConfig::default(),
//! )
//! .unwrap();
//! assert_eq!(ys, vec![Value::f32s(&[31.0, 42.0])]);
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod bits;
#[cfg(feature = "keel")]
mod bridge;
mod builder;
pub mod dot;
pub mod eval;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod generate;
mod graph;
#[cfg(feature = "keel")]
pub mod import;
mod infer;
#[cfg(feature = "keel")]
pub mod lower;
mod ops;
mod planted;
mod purity;
pub mod rules;
mod scalar;
mod schedule;
mod sink;
pub mod text;
mod trap;
mod types;
mod uniform;
mod value;
mod verify;
mod vmap;

pub use bits::Bits;
pub use builder::Builder;
pub use graph::{Arg, Graph, LambdaData, MAX_FLAGGED_ARGS, NameError, NewNode, NodeData, Sym, SymName, valid_name};
pub use infer::{TypeError, infer};
pub use ops::{Op, Prim, PrimKind};
pub use purity::Purity;
pub use rules::{DEFAULT_RULES, RuleSet};
pub use scalar::{BinaryOp, ConvertOp, FloatCC, Imm, IntCC, LiteralError, ScalarError, ScalarTy, TypeClass, UnaryOp};
pub use schedule::{Schedule, StaleSchedule};
pub use trap::TrapKind;
pub use types::{NodeTy, ValTy};
pub use uniform::{Summary, Uniformity};
pub use value::{Array, ArrayBuilder, ArrayError, Container, Value};
pub use verify::{VerifyError, VerifyErrorKind, verify};
pub use vmap::{
    MAX_REWRITE_DEPTH, Stats, VectorizeConfig, VectorizeError, VectorizeErrorKind, Vectorized, Vectorizer, vectorize,
};
