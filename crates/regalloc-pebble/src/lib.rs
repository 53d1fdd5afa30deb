//! `regalloc-pebble`: register allocation by red-blue pebbling.

#![deny(missing_docs)]

mod class;
mod dag;
pub mod game;
mod pebble;
pub mod replan;
mod select;

pub use class::{Loc, PReg, RegClass, Regs};
pub use dag::{Dag, DagBuilder, DagError, OpId, OpKind, Output, ValueId};
pub use game::{GameError, LocalRule, Move, Schedule, Setup, SinkNeed, Start, replay};
pub use pebble::{PebbleError, Pebbler, pebble};
mod block_dag;
mod input;
mod output;
pub use block_dag::{BlockDag, CodeError};
pub use input::{InstKind, RegCode};
pub use output::{Allocation, Costs, Edit, EditKind, ProgPoint, SlotInfo};
mod alloc;
mod facts;
mod global;
mod pass;
mod parallel_move;
pub use alloc::{AllocError, Allocator, GlobalStep, Options, allocate};
mod checker;
pub mod exact;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub use checker::{CheckError, check};
pub mod rewrite;
mod keel;
pub use keel::{Allocated, KeelError, Method, allocate_in_module, allocate_module, lower_phis, needs_destruct};
pub mod briggs;
pub mod webs;
mod vector;
pub use vector::{RegisterCount, Trial, min_registers};
