//! `regalloc-pebble`: register allocation by red-blue pebbling (source
//! document 004, "Register allocation and assignment by two-colour (red-blue)
//! pebbling", and its `Local-Alloc`; issue 15), for any compiler's IR.
//!
//! Each block's data-dependence DAG (values are nodes; sources are the
//! values live into the block, which start in memory; sinks are the values
//! live out of it) is allocated by playing the red-blue pebble game: red
//! pebbles are the `P` registers, blue pebbles are memory, and the cost is
//! loads + stores. The local heuristic is document 004's ([`Pebbler`],
//! [`LocalRule::Document`]: pick a frontier set `S` by cost/dominated, the
//! successor with the least cover cost `(c1, c2)`, spill and load, slide or
//! use a free register); [`LocalRule::Refined`] replans the document's
//! order and two depth-first orders with Belady's rule (MIN) and keeps the
//! cheapest game; [`LocalRule::Searched`] (the default) then improves the
//! order by a local search with a fixed budget of replanned orders. The DAG
//! does not depend on statement order, and neither does the allocation.
//! A global step then gives the registers the blocks do not need to the
//! hottest variables, weighted by loop depth ([`GlobalStep`]). That is
//! issue 15's allocator, [`Strategy::Blocks`].
//!
//! **The default, [`Strategy::Global`]** (issue 32): the game over the
//! whole function in statement order, with Belady's rule over *global*
//! next-use distances (Braun and Hack, "Register spilling and live-range
//! splitting for SSA-form programs", CC 2009): one forward sweep keeps the
//! values read soonest in registers and assigns registers as it goes; loop
//! headers keep what their loop reads; stores move to definitions where
//! that pays; repeated sweeps keep the cheapest. It needs fewer
//! loop-weighted loads, stores and moves than regalloc2 on the corpus and
//! on generated functions from 6 registers up
//! (`docs/benchmarks-regalloc.md`).
//!
//! **Input.** A compiler implements [`RegCode`] (per block its
//! instructions; per instruction its uses and defs with each register's
//! class, [`RegClass`]) and hands over its CFG as any [`cfg_dom::Graph`];
//! loop depths come from `cfg-dom`'s loop forest. Keel's
//! `ir_core::Function` implements `RegCode` (feature `keel`); the
//! `foreign-ir` package does it for a toy IR (`cargo run -p foreign-ir
//! --example regalloc`).
//!
//! **Output.** [`Allocation`]: plain data in CSR form, as regalloc2 returns
//! it: per instruction the location of each operand and result, and the
//! inserted loads, stores and moves ([`Edit`]) at program points
//! ([`ProgPoint`]), with their counts ([`Costs`], plain and loop-weighted).
//! For Keel functions, [`allocate_module`] / [`allocate_in_module`] take a
//! function out of SSA if needed ([`lower_phis`]), allocate, check and
//! rewrite it ([`rewrite`]): registers become vars `%r0..` (`%v0..` for
//! vectors), spill slots live in a memory object, and the result runs in
//! the reference interpreter.
//!
//! **Checked.** [`check`] is a symbolic checker (regalloc2's `checker` is
//! the model): at every program point each register and slot holds a set
//! of original vars, and every use must read its own var. Tests and fuzzing
//! run it on every allocation. [`replay`] checks a bare game move by move;
//! [`exact`] gives the optimum of a small DAG (exhaustive A* search, and an
//! ILP over time-indexed pebble moves behind the `ilp` feature).
//!
//! **Also here:** the Chaitin-Briggs baseline ([`briggs`]: interference
//! graph, optimistic simplify/select, loop-weighted spill costs, spill
//! everywhere), the vector-register search ([`min_registers`]: double the
//! count while loads + stores exceed the lower bound, then halve while the
//! bound is met), and a block's game drawn for Graphviz ([`block_game`]).
//!
//! **Works followed.** The red-blue pebble game is Hong and Kung's
//! ("I/O complexity: the red-blue pebble game", STOC 1981); the re-plan
//! follows Belady's MIN ("A study of replacement algorithms for a
//! virtual-storage computer", IBM Systems Journal, 1966); the exact search
//! is A* (Hart, Nilsson and Raphael, "A formal basis for the heuristic
//! determination of minimum cost paths", IEEE Trans. SSC, 1968); the
//! baseline follows Chaitin et al. ("Register allocation via coloring",
//! Computer Languages, 1981; Chaitin, "Register allocation & spilling via
//! graph coloring", SIGPLAN '82) with the optimistic colouring of Briggs,
//! Cooper and Torczon ("Improvements to graph coloring register
//! allocation", ACM TOPLAS, 1994). `docs/references.md` has the full
//! entries, and source document 004's.
//!
//! # Bad input and misuse
//!
//! Every entry point on foreign input returns an error, never panics:
//! [`allocate`] checks the graph and code first (`cfg_dom::check_input`)
//! and returns [`AllocError`] for malformed input, for code shapes it does
//! not take (a phi; use [`lower_phis`] or your own out-of-SSA step) and for
//! an instruction that needs more registers of a class at once than `P`;
//! [`check`] returns a [`CheckError`] for a damaged allocation (CSR arrays
//! of the wrong shape included: a [`ShapeError`] naming the instruction,
//! edit or array); [`DagBuilder::build`] returns a
//! [`DagError`]. The only panics are documented preconditions on Keel
//! helpers (`# Panics`: a function id that is not in the module).
//!
//! # Example: source document 004's worked example
//!
//! The block `t1 = x ∘ y; q = y ∘ z; v = t1 ∘ y` with sources `x, y, z`
//! (`docs/examples/pebble_block.kir`): with three registers every source is
//! loaded once and nothing spills; with two document 004 counts three
//! loads and one store.
//!
//! ```
//! use regalloc_pebble::{Dag, LocalRule, Move, Pebbler, RegClass, Regs, Setup, replay};
//!
//! let mut b = Dag::builder();
//! let s = RegClass::Scalar;
//! let (x, y, z) = (b.source(s), b.source(s), b.source(s));
//! let t1 = b.node(s, &[x, y]);
//! let q = b.node(s, &[y, z]);
//! let v = b.node(s, &[t1, y]);
//! b.sink(q);
//! b.sink(v);
//! let dag = b.build().unwrap();
//!
//! let three = Setup { rule: LocalRule::Document, ..Setup::plain(Regs::new(3, 0)) };
//! let game = Pebbler::new().run(&dag, &three).unwrap();
//! assert_eq!(replay(&dag, &three, &game).unwrap(), (3, 2)); // x, y, z; the sinks q, v
//! assert_eq!(game.cost(), dag.lower_bound());
//!
//! let two = Setup { rule: LocalRule::Document, ..Setup::plain(Regs::new(2, 0)) };
//! let game = Pebbler::new().run(&dag, &two).unwrap();
//! assert_eq!(game.loads, 3);
//! let spills = game.moves.iter().filter(|m| matches!(m, Move::Store { value } if *value == v)).count();
//! assert_eq!(spills, 1); // v goes to memory to free a register for z
//! ```
//!
//! # Features
//!
//! - `keel` (default): Keel IR's binding: `ir_core::Function` as
//!   [`RegCode`], [`allocate_module`] / [`allocate_in_module`],
//!   [`lower_phis`], the `rewrite` and `unroll` modules. Without it the
//!   crate depends on `cfg-dom`, `rustc-hash` and `smallvec` only, and
//!   nothing of Keel's IR (the live ranges, def-use webs, are built in
//!   [`webs`] by one walk; `defuse`'s chains are their test oracle).
//! - `ilp`: [`exact`]'s integer-program optimum (microlp).
//! - `fuzzing`: the generate-allocate-check-interpret property and the
//!   planted bugs (implies `keel` and `ilp`).

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod class;
mod dag;
pub mod game;
pub mod order_search;
mod pebble;
mod picture;
pub mod replan;
pub use picture::{BlockGame, Results, block_game};
mod select;

pub use class::{Loc, PReg, RegClass, Regs};
pub use dag::{Dag, DagBuilder, DagError, OpId, OpKind, Output, ValueId};
pub use game::{GameError, LocalRule, Move, PebbleError, Schedule, Setup, SinkNeed, Start, replay};
pub use pebble::{Pebbler, SEARCH_BUDGET, pebble};
mod block_dag;
mod input;
mod output;
pub use block_dag::{BlockDag, CodeError};
pub use input::{InstKind, RegCode};
pub use output::{Allocation, Costs, Edit, EditKind, ProgPoint, SlotInfo};
mod alloc;
mod belady;
mod error;
mod facts;
mod global;
mod next_use;
mod options;
mod parallel_move;
mod pass;
mod slot_share;
pub use alloc::{Allocator, allocate};
pub use error::AllocError;
pub use options::{DEFAULT_MAX_MEMORY, GlobalStep, Options, Strategy};
mod check_error;
mod checker;
pub mod exact;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub use check_error::{CheckError, OffsetList, OrderViolation, ShapeError};
pub use checker::{check, check_within};
#[cfg(feature = "keel")]
mod keel;
#[cfg(feature = "keel")]
pub use keel::{
    Allocated, KeelError, Method, ModuleResults, allocate_in_module, allocate_module, lower_phis, needs_destruct,
    rewrite, unroll,
};
pub mod briggs;
mod planted;
mod vector;
pub mod webs;
pub use vector::{RegisterCount, Trial, min_registers};
