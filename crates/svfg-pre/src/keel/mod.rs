//! Keel's binding (feature `keel`, on by default): Keel's IR implements
//! [`crate::PreCode`] ([`KeelCode`], loads through [`LazyMemory`]'s walks
//! and `memdep`'s Keel binding), plans are applied to Keel functions ([`apply`], the rewrite
//! of source document 001 step 5), and the convenience entry points keep the
//! shape `keel pre`, `keel dot --what svfg`, the benchmarks and the tests
//! use ([`svfg_pre`], [`svfg_pre_in`], [`gvn`], [`run`], [`run_in`],
//! [`run_with`], [`build_svfg`], [`verify_svfg`]). [`lcm`], the lazy code
//! motion baseline, lives here only (why: its module doc).
//!
//! Invariant: nothing outside this module names `ir_core`, `memdep` or
//! `ssa` (the `fuzzing` module, which needs `keel`, apart).
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
//!
//! The same run in two steps, the plan first (plain data), then the
//! rewrite:
//!
//! ```
//! # let src = "func @f(%a: i32, %b: i32, %c: i1) -> i32 {
//! #     var %x: i32
//! #     var %y: i32
//! #     var %z: i32
//! # bb0:
//! #     br %c, bb1, bb2
//! # bb1:
//! #     %x = add %a, %b
//! #     jump bb2
//! # bb2:
//! #     %y = copy %a
//! #     %z = add %y, %b
//! #     ret %z
//! # }
//! # ";
//! # let (mut m, _) = ir_core::text::parse(src).unwrap();
//! # let f = m.function_by_name("f").unwrap();
//! use svfg_pre::{EdgeSplit, KeelCode, Method, PlanBlock};
//! let func = m.function_mut(f).unwrap();
//! let plan = svfg_pre::plan(&func.cfg(), &KeelCode::new(func), Method::Svfg).unwrap();
//! // `a + b` on a new block on the edge bb0 -> bb2 (bb0 branches), a phi
//! // in bb2, and `%z = add %y, %b` replaced by a copy of the phi.
//! assert_eq!(plan.splits, [EdgeSplit { from: 0, to: 2 }]);
//! assert_eq!(plan.inserts[0].at, PlanBlock::New(0));
//! assert_eq!((plan.phis.len(), plan.replacements.len()), (1, 1));
//! let stats = svfg_pre::apply(func, &plan).unwrap();
//! assert_eq!((stats.inserted, stats.edges_split), (1, 1));
//! ```

mod apply;
mod cleanup;
mod code;
mod error;
mod index;
mod lcm;
mod memory;
mod rotate;
mod run;

pub use apply::{Stats, apply};
pub use cleanup::{apply_cleanup, cleanup_function};
pub use code::{KeelCode, KeelOp, KeelValueNumbers, can_trap, commutes, is_computation};
pub use error::PreError;
pub use lcm::{LcmStats, LcmTooLarge, lcm};
pub use memory::{LazyMemory, MemoryCounts, WALK_BUDGET_PER_INST, memory_options};
pub use rotate::{RotateStats, apply_rotation, rotate_loops};
pub use run::{
    build_svfg, build_svfg_lazy, gvn, memory_of, plan_in, run, run_in, run_in_counted, run_with, svfg_pre, svfg_pre_in,
    verify_svfg,
};
