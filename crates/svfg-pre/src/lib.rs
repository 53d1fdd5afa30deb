//! `svfg-pre`: value numbering, the sparse value flow graph, and semantic
//! partial redundancy elimination (digest §001).
//!
//! - [`ValueNumbers`]: global value numbering of an SSA function
//!   (commutativity, copies, constants, phis of equal numbers, and loads
//!   through `memdep`'s dependences), a public step other passes reuse.
//! - [`Svfg`] ([`build_svfg`]): the semi-SVFG of the document, per value
//!   number `t`: `dn(t)`, the phis of `t` at `IDF(J0(t))` restricted to
//!   the nodes `dn(t)` strictly dominates, ε_t at `DF(dn(t))`, the sources
//!   of each phi operand found by the `Search` walk (ζ_t = ⊥), the
//!   document's extension for values in B (a phi at `dn(t)` whose operands
//!   carry the phi-translated values, wherever ζ_t is semi movable
//!   down-safe, smds computed in one pass with the DFS-tree `desc`
//!   predicate), and the down-safety and can-be-available fixpoints;
//!   [`verify_svfg`] checks the three SVFG conditions, the construction and
//!   the extension's end against slow textbook recomputations.
//! - [`svfg_pre_in`] (a function of a module: loads numbered through
//!   `memdep`) and [`svfg_pre`] (a function alone: every load its own
//!   number): the transform. [`gvn`] (dominator-based removal, no
//!   insertion) and [`lcm`] (Knoop–Rüthing–Steffen lazy code motion over
//!   lexically equal expressions, bit vectors, edge insertion) are the
//!   public baselines.
//!
//! # Safety rules the document leaves implicit
//!
//! - An operation that can trap (`sdiv`, `udiv`, `srem`, `urem`, `fptosi`,
//!   `fptoui`, `load`) is never inserted; it is only removed where a
//!   computation of the same number dominates it.
//! - A guarded (predicated) instruction defines an opaque number: its value
//!   is available nowhere (the conservative reading of "available only
//!   where the guard is known true").
//! - Calls, intrinsics, stores and tensor instructions are never moved or
//!   removed.
//!
//! # Bad input
//!
//! The transforms take Keel functions in SSA form (as `ssa::construct`
//! leaves them, verified). A function with no blocks or a var defined
//! twice is refused with a [`PreError`] and left unchanged; the transforms
//! never panic on a verified function.
//!
//! # Example: the semantic case
//!
//! `y = a; z = y + b` after `a + b` on one path: LCM sees two lexically
//! different expressions, the value numbers see one, so PRE inserts `a + b`
//! on the other path and `z` becomes a copy.
//!
//! ```
//! let src = "func @f(%a: i32, %b: i32, %c: i1) -> i32 {
//!     var %x: i32
//!     var %y: i32
//!     var %z: i32
//! bb0:
//!     br %c, bb1, bb2
//! bb1:
//!     %x = add %a, %b
//!     jump bb2
//! bb2:
//!     %y = copy %a
//!     %z = add %y, %b
//!     ret %z
//! }
//! ";
//! let (mut m, _) = ir_core::text::parse(src).unwrap();
//! let f = m.function_by_name("f").unwrap();
//! let func = m.function_mut(f).unwrap();
//! let stats = svfg_pre::svfg_pre(func).unwrap();
//! assert_eq!((stats.removed, stats.inserted, stats.phis_created), (1, 1, 1));
//! ir_core::verify_module(&m, &ir_core::VerifyOptions { ssa: true }).unwrap();
//! ```

#![deny(missing_docs)]

mod construct;
mod extend;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod lcm;
mod pre;
mod properties;
mod svfg;
mod verify;
mod vn;

pub use lcm::{LcmStats, lcm};
pub use pre::{
    Method, Plant, PreError, Stats, build_svfg, build_svfg_with, gvn, memory_of, run, run_in, run_with, svfg_pre,
    svfg_pre_in,
};
pub use svfg::{ArgSource, Source, Svfg, SvfgError, SvfgPhi};
pub use verify::verify_svfg;
pub use vn::{Args, ExprKey, ValueKind, ValueNumber, ValueNumbers, can_trap, commutes, is_computation};
