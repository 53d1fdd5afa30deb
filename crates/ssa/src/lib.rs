//! `ssa`: SSA construction and destruction, on any IR and on Keel IR.
//!
//! - [`construct`]: phis at iterated dominance frontiers under a [`Policy`]
//!   (minimal, semi-pruned — the default and the DU-chain document's
//!   `global_prs` —, or pruned by liveness, computed per var over its
//!   live range), renaming by an iterative
//!   dominator-tree walk into versions `%x.N` that remember `%x`, guarded
//!   definitions that name the version they leave in place
//!   (`@%p %x.5 = add %a.1, %b.1 else %x.2`: psi-SSA style (Stoutchinin and de Ferrière,
//!   MICRO 2001), the document's
//!   linked lists), `undef` for uses no definition reaches, and phi clean-up
//!   to a fixpoint.
//! - [`destruct`]: phis to parallel copies on split critical edges,
//!   sequentialized correctly (swap and lost-copy problems), fallbacks to
//!   copies.
//! - [`verify`]: single definition and dominance (Keel's one SSA verifier,
//!   `ir_core`'s SSA level, on `cfg-dom`'s dominator tree).
//! - `fuzzing::check_equivalence` (feature `fuzzing`): the interpreter
//!   check the proptests and the `ssa` fuzz target share.
//! - On any compiler's IR, through `cfg-dom`'s [`cfg_dom::Graph`] and
//!   [`cfg_dom::VarCode`] traits (checked once into a [`cfg_dom::Input`]):
//!   [`VarFacts`], [`PhiPlacement`], and the renaming walk on its own,
//!   [`Renamer`] with a [`RenameSink`], reporting every definition and use,
//!   so other crates (`defuse`) and other compilers use SSA without
//!   rewriting anything. [`construct`] and [`destruct`] rewrite Keel IR.
//!
//! # Bad input
//!
//! Every entry point returns an error for input it cannot use: the
//! var-level steps take a checked [`cfg_dom::Input`] (malformed code is an
//! [`cfg_dom::InputError`] when it is checked), and every analysis handed
//! over with it (dominator tree, frontiers, facts, liveness, placement) is
//! checked to belong to it ([`cfg_dom::Mismatch`]). [`construct`] returns
//! the error for a function naming vars, blocks or instructions it does not
//! have, leaving it unchanged. [`destruct`] expects SSA form as
//! [`construct`] leaves it; on other input it still terminates and never
//! panics, but the result is only meaningful for SSA form.
//!
//! # Phi budget
//!
//! Minimal and semi-pruned placement can place a quadratic number of phis
//! (a deep loop nest whose every level defines a var), so they count phi
//! operands against a budget proportional to the function's size
//! ([`PhiPlacement::default_budget`], or [`PhiPlacement::set_budget`] /
//! `Options::phi_budget`) and, past it, fall back to pruned placement
//! for that function, reporting a [`Fallback`] (in [`PhiPlacement::fallback`] and
//! `Stats::fallback`). Falling back rather than failing: the phis pruned
//! placement leaves out are dead, so every use keeps its reaching
//! definitions and every client (DU chains, memory dependences, PRE)
//! computes the same result.
//!
//! Semantics are preserved, as the reference interpreter checks: original,
//! SSA and destructed functions compute the same results on the same
//! inputs.
//!
//! # Features
//!
//! - `keel` (default): [`construct`], [`destruct`], [`cleanup_phis`] and
//!   [`verify`] on Keel IR (`ir_core`), in the `keel` module. Without it the
//!   crate depends on `cfg-dom` and `fixedbitset` only and offers the
//!   IR-independent steps: a compiler with its own IR runs `VarFacts`,
//!   `PhiPlacement` and the `Renamer` on its `Graph` + `VarCode`
//!   implementation (the `foreign-ir` package's `ssa` example:
//!   `cargo run -p foreign-ir --example ssa`).
//! - `fuzzing`: `fuzzing::check_equivalence` (implies `keel`).
//!
#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "keel"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod facts;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[cfg(feature = "keel")]
mod keel;
mod placement;
mod rename;

pub use facts::VarFacts;
#[cfg(feature = "keel")]
pub use keel::cleanup::cleanup_phis;
#[cfg(feature = "keel")]
pub use keel::construct::{Options, Stats, construct};
#[cfg(feature = "keel")]
pub use keel::destruct::{Stats as DestructStats, destruct};
#[cfg(feature = "keel")]
pub use keel::verify::verify;
pub use placement::{Fallback, PhiPlacement, Policy};
pub use rename::{NO_VERSION, RenameSink, Renamer, Version, VersionDef};
