//! `regalloc-pebble`: register allocation by red-blue pebbling.

#![deny(missing_docs)]

mod class;
mod dag;
pub mod game;
mod pebble;
mod select;

pub use class::{Loc, PReg, RegClass, Regs};
pub use dag::{Dag, DagBuilder, DagError, OpId, OpKind, Output, ValueId};
pub use game::{GameError, Move, Schedule, Setup, SinkNeed, Start, replay};
pub use pebble::{PebbleError, Pebbler, pebble};
