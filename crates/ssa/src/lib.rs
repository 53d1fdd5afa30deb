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
//! - [`verify`]: single definition and dominance on `cfg-dom`'s dominator
//!   tree.
//! - [`fuzzing::check_equivalence`]: the interpreter check the proptests and
//!   the `ssa` fuzz target share.
//! - [`Renamer`] and [`RenameSink`]: the renaming walk on its own, reporting
//!   every definition and use, so other crates (`defuse`) can use SSA
//!   without rewriting the IR.
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
//! let stats = ssa::construct(module.function_mut(f).unwrap(), &ssa::Options::default());
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
