//! `ssa`: SSA construction and destruction for Keel IR.
//!
//! - [`construct`]: phis at iterated dominance frontiers under a [`Policy`]
//!   (minimal, semi-pruned — the default and the DU-chain document's
//!   `global_prs` —, or pruned by liveness), renaming by an iterative
//!   dominator-tree walk into versions `%x.N` that remember `%x`, guarded
//!   definitions that name the version they leave in place
//!   (`@%p %x.5 = add %a.1, %b.1 else %x.2`: psi-SSA style, the document's
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
//! Semantics are preserved, as the reference interpreter checks: original,
//! SSA and destructed functions compute the same results on the same
//! inputs.
//!
//! # Example: the DU-chain document's program
//!
//! ```
//! let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir")).unwrap();
//! let (mut module, _) = ir_core::text::parse(&src).unwrap();
//! let f = module.function_by_name("du_example").unwrap();
//! let stats = ssa::construct(module.function_mut(f).unwrap(), &ssa::Options::default()).unwrap();
//! // x at bb2 and bb4 (none for a, b, p), and the loop counter %i at bb2.
//! assert_eq!(stats.phis_placed, 3);
//! ssa::verify(&module, f).unwrap();
//! let text = ir_core::text::print_module(&module);
//! assert!(text.contains("%x.2 = phi(bb1: %x.1, bb5: %x.4)"));
//! assert!(text.contains("@%p.1 %x.5 = add %a.1, %b.1 else %x.2"));
//! ssa::destruct(module.function_mut(f).unwrap());
//! ir_core::verify_module(&module, &ir_core::VerifyOptions::default()).unwrap();
//! ```

#![deny(missing_docs)]

mod cleanup;
mod construct;
mod destruct;
mod facts;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod placement;
mod rename;
mod verify;

pub use cleanup::cleanup_phis;
pub use construct::{Options, Stats, construct};
pub use destruct::{Stats as DestructStats, destruct};
pub use facts::VarFacts;
pub use placement::{PhiPlacement, Policy};
pub use rename::{NO_VERSION, RenameSink, Renamer, Version, VersionDef};
pub use verify::verify;
