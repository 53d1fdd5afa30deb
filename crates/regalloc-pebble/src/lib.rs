//! `regalloc-pebble`: register allocation by red-blue pebbling.

#![deny(missing_docs)]

mod class;
mod dag;
pub mod game;
mod pebble;
mod picture;
pub mod replan;
pub use picture::{BlockGame, block_game};
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
mod parallel_move;
mod pass;
pub use alloc::{AllocError, Allocator, GlobalStep, Options, allocate};
mod checker;
pub mod exact;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub use checker::{CheckError, check};
mod keel;
pub mod rewrite;
pub use keel::{Allocated, KeelError, Method, allocate_in_module, allocate_module, lower_phis, needs_destruct};
pub mod briggs;
mod vector;
pub mod webs;
pub use vector::{RegisterCount, Trial, min_registers};
