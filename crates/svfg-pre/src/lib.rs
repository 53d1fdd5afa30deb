//! `svfg-pre`: value numbering, the sparse value flow graph, and semantic
//! partial redundancy elimination (source document 001, "Optimization
//! method and system for a computer program"; issue 13), for any compiler's
//! SSA IR.
//!
//! # On your own IR
//!
//! Implement [`PreCode`] (per block its instructions; per instruction its
//! [`InstKind`] — phi, copy, pure operation keyed by an operation key of
//! your choosing, load, or anything else — its results and [`Operand`]s;
//! per operation key whether it commutes and whether it may trap; per pair
//! of loads whether they read the same memory) next to
//! `cfg_dom::Graph` for the CFG, then:
//!
//! - [`plan`] runs value numbering, the SVFG, its properties and the
//!   insertion/replacement planning, and returns a [`Plan`]: plain data
//!   (edges to split, computations to insert at the end of a block, phis
//!   to add, instructions to replace by a copy, and [`PlanStats`]) that
//!   your adapter applies, naming the values it creates by plan-local
//!   [`PlanValue`] ids. [`Method`] chooses semantic PRE on the SVFG, on
//!   the semi-SVFG alone, or plain GVN.
//! - [`cleanup`] then does document 001's last step on any SSA function
//!   (PRE's output or not): copies forwarded, unused phis, copies and
//!   pure computations that cannot trap deleted; it returns a [`Cleanup`]
//!   (plain data: forwards, deletions, [`CleanupStats`]) for your adapter,
//!   and needs [`PreCode::reads`] and [`PreCode::block_reads`] to list
//!   every read.
//! - [`rotation_plan`] picks the top-tested loops to rotate into a guard
//!   plus a bottom-tested loop (before PRE, so that an invariant of a loop
//!   that may run zero times can move into the guarded preheader); Keel's
//!   adapter is `rotate_loops`.
//! - [`analyze`] gives the [`Svfg`] with its properties and the
//!   [`ValueNumbers`] without planning ([`Analysis`]); [`verify_svfg_of`] checks them
//!   against slow recomputations (an oracle for tests);
//!   [`ValueNumbers::of_code`] is the numbering alone.
//!
//! The `foreign-ir` package does all of it for a toy SSA IR
//! (`foreign_ir::ssa_toy`; `cargo run -p foreign-ir --example pre`, with
//! svfg-pre's default features off). Without the default feature `keel` the crate depends
//! on `cfg-dom`, `rustc-hash` and `smallvec` only.
//!
//! # The pieces
//!
//! - [`ValueNumbers`]: global value numbering of an SSA function
//!   (commutativity, copies, constants, phis of equal numbers, and loads
//!   through the IR's memory answer), a public step other passes reuse.
//! - [`Svfg`] ([`analyze`]): the semi-SVFG of document 001, per value
//!   number `t`: `dn(t)`, the phis of `t` at `IDF(J0(t))` restricted to
//!   the nodes `dn(t)` strictly dominates, ε_t at `DF(dn(t))`, the sources
//!   of each phi operand found by the `Search` walk (ζ_t = ⊥), the
//!   document's extension for values in B (a phi at `dn(t)` whose operands
//!   carry the phi-translated values, wherever ζ_t is semi movable
//!   down-safe, smds computed in one pass with the DFS-tree `desc`
//!   predicate), and the down-safety and can-be-available fixpoints;
//!   [`verify_svfg_of`] checks the three SVFG conditions, the construction
//!   and the extension's end against slow textbook recomputations.
//! - [`Plan`] ([`plan`]): the transform's edits.
//! - Keel's binding (module `keel`, feature `keel`, on by default, its
//!   items re-exported here):
//!   `svfg_pre_in` (a function of a module: loads numbered through
//!   memory answers made on demand, `LazyMemory`: a walk between the two
//!   loads, `memdep` when the walk is unsure) and `svfg_pre` (a function
//!   alone: every load its own
//!   number) apply the plan to a Keel function; `cleanup_function` and
//!   `apply_cleanup` clean one up; `gvn` (dominator-based
//!   removal, no insertion) and `lcm` (lazy code motion after J. Knoop,
//!   O. Rüthing and B. Steffen, "Lazy code motion", PLDI 1992, in the
//!   edge-based form of K.-H. Drechsler and M. P. Stadel, "A variation of
//!   Knoop, Rüthing, and Steffen's Lazy Code Motion", ACM SIGPLAN Notices,
//!   1993: lexically equal expressions, bit vectors, edge insertion, Keel
//!   IR only) are the public baselines.
//!
//! Works followed: value numbering after C. Click, "Global code motion /
//! global value numbering" (PLDI 1995), pessimistic, without the
//! optimistic partitioning of B. Alpern, M. N. Wegman and F. K. Zadeck,
//! "Detecting equality of variables in programs" (POPL 1988); the
//! verifier's frontiers by the definition of R. Cytron et al.,
//! "Efficiently computing static single assignment form and the control
//! dependence graph" (ACM TOPLAS, 1991); the baselines above.
//! `docs/references.md` has the full entries, and document 001's.
//!
//! # Safety rules document 001 leaves implicit
//!
//! - An operation that may trap ([`PreCode::may_trap`]; for Keel `sdiv`,
//!   `udiv`, `srem`, `urem`, `fptosi`, `fptoui`) and a load are never
//!   inserted; they are only removed where a computation of the same
//!   number dominates them.
//! - A guarded (predicated) instruction is [`InstKind::Other`]: it
//!   defines an opaque number, its value available nowhere (the
//!   conservative reading of "available only where the guard is known
//!   true").
//! - [`InstKind::Other`] instructions (calls, intrinsics, stores, tensor
//!   instructions) are never moved or removed.
//!
//! # Bad input
//!
//! Every entry point checks its input first (the graph keeps its contract;
//! ids are in range; the code is in SSA form; phis take one operand per
//! distinct predecessor; see [`InputError`]) and refuses it, naming the
//! offending instruction, value or block, before anything is planned or
//! changed. Nothing panics on a well-formed input, and nothing recurses.

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "keel"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod cleanup;
mod construct;
mod extend;
mod flat;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod input;
#[cfg(feature = "keel")]
pub mod keel;
mod plan;
mod planted;
mod pre;
mod properties;
mod rotate;
mod svfg;
mod verify;
mod vn;

pub use cleanup::{Cleanup, CleanupStats, cleanup};
pub use construct::Method;
pub use flat::InputError;
pub use input::{InstKind, InstOrder, Key, Operand, PreCode, ValueId};
pub use plan::{
    EdgeSplit, Insertion, NewValue, Plan, PlanArg, PlanBlock, PlanPhi, PlanStats, PlanValue, Replacement, plan,
};
pub use pre::{Analysis, analyze};
pub use rotate::{Rotation, RotationPlan, Skip, rotation_plan};
pub use svfg::{ArgSource, PhiError, Source, Svfg, SvfgError, SvfgPhi};
pub use verify::verify_svfg_of;
pub use vn::{Args, ExprKey, ValueKind, ValueNumber, ValueNumbers};

#[cfg(feature = "keel")]
pub use keel::{
    KeelCode, KeelOp, KeelValueNumbers, LazyMemory, LcmStats, LcmTooLarge, MemoryCounts, PreError, RotateStats, Stats,
    WALK_BUDGET_PER_INST, apply, apply_cleanup, apply_rotation, build_svfg, build_svfg_lazy, can_trap,
    cleanup_function, commutes, gvn, is_computation, lcm, memory_of, memory_options, plan_in, rotate_loops, run,
    run_in, run_in_counted, run_with, svfg_pre, svfg_pre_in, verify_svfg,
};
