//! `defuse`: def-use and use-def chains for any compiler's IR.
//!
//! Three methods, one answer:
//! - [`via_ssa`]: the DU-chain document's method (digest §000), fused: one
//!   walk over the code resolves block-local uses and finds the vars read
//!   across blocks, phis are placed (semi-pruned) for those only, one
//!   dominator-tree walk renames them, and phi webs and predicated links
//!   are folded back onto real definitions — without building SSA or
//!   rewriting the IR;
//! - [`iterative`]: classic reaching definitions over bit vectors, tuned
//!   (the baseline);
//! - [`oracle`]: a backward search per use (slow, for tests).
//!
//! All three run on any IR through `cfg-dom`'s two small traits: the CFG as
//! a [`cfg_dom::Graph`] and the code as a [`cfg_dom::VarCode`] (per block
//! its instructions; per instruction the vars it defines and uses, whether
//! it is guarded, whether it is a phi). Keel's `ir_core::Function`
//! implements `VarCode` and builds its CFG with `Function::cfg`; the
//! `foreign-ir` package implements both for a toy IR in well under a
//! hundred lines (`cargo run -p foreign-ir --example defuse`).
//!
//! For many functions, keep a [`ViaSsa`] (or [`Iterative`]) context and call
//! its `compute` (any IR) or `compute_function` (a Keel function) per
//! function: it reuses every buffer (CFG, dominator tree, placement,
//! renaming stacks; for the baseline its bit matrices), so only the
//! returned chains are allocated; `ViaSsa::compute_into` refills a
//! [`Chains`] you keep, and then a warm call allocates nothing. `via_ssa(g, c)` is
//! `ViaSsa::new().compute(g, c)`.
//!
//! The product is [`Chains`], plain data: for each use `(instruction, use
//! number)` the definitions that may reach it, and for each definition
//! `(instruction, result)` or param the uses it may reach, in CSR form over
//! dense `u32` ids ([`DefId`], [`UseId`], [`Sites`]).
//!
//! # Bad input
//!
//! Every entry point checks its input first ([`cfg_dom::check_input`]: ids
//! in range, each instruction in one block, phis first, the graph and code
//! of the same size and stamp) and returns an [`cfg_dom::InputError`]
//! instead of panicking. Queries on [`Chains`] and [`Sites`] with ids out
//! of range answer `None` or an empty list.
//!
//! # Semantics (what all three methods implement)
//!
//! A definition *reaches* a use when some path from the function's entry
//! passes through the definition and then to the use without passing an
//! unguarded definition of the same var. Consequences, fixed here:
//! - **params** are definitions on entry;
//! - a **guarded definition** (`@%p %x = ...`) generates but does not kill:
//!   a use after it sees it and whatever reached before it; **a guarded
//!   use** (an operand of a guarded instruction) is an ordinary use; the
//!   **guard's own predicate** is a use (`UseSite::Guard`);
//! - a use with **no reaching definition on some path** simply lists the
//!   definitions that do reach (possibly none): there is no pseudo
//!   "undefined" definition;
//! - **unreachable blocks** take no part: their uses have no chains and
//!   their definitions reach nothing (no executable path goes through them);
//! - **phis already in the input** are ordinary definitions (at the top of
//!   their block) whose operands are uses on the edge from the matching
//!   predecessor; only the phis SSA construction inserts are folded away.
//!
//! # Features
//!
//! - `keel` (default): each context's `compute_function` entry points for a
//!   Keel `ir_core::Function`, and the document-style table
//!   ([`write_table`], [`StatementNames`]). Without it the crate depends on
//!   `cfg-dom` alone: the `foreign-ir` package's `defuse` example
//!   (`cargo run -p foreign-ir --example defuse`) runs all three methods
//!   on a toy IR with no Keel crate in the build.
//! - `fuzzing`: `fuzzing::check` (any IR), `fuzzing::check_function`
//!   (Keel IR, with `keel`), and the planted bugs (`fuzzing::Bug`) that
//!   prove the agreement checks can fail.
//!
#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "keel"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod chains;
mod fold;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod iterative;
#[cfg(feature = "keel")]
mod keel;
mod laps;
mod oracle;
mod place;
mod planted;
mod resolve;
mod sites;
mod via_ssa;
mod walk;

pub use chains::Chains;
pub use iterative::{
    Iterative, Phases as IterativePhases, iterative, iterative_timed, matrix_bytes as iterative_matrix_bytes,
    matrix_bytes_for as iterative_matrix_bytes_for,
};
#[cfg(feature = "keel")]
pub use keel::{StatementNames, write_table};
pub use oracle::oracle;
pub use place::PhiFallback;
pub use sites::{Def, DefId, Sites, Use, UseId};
pub use via_ssa::{Phases as SsaPhases, ViaSsa, via_ssa, via_ssa_timed};
