//! The reference interpreter: the judge of every transform.
//!
//! Executes a module function on concrete arguments and memory with the
//! semantics of `docs/ir.md` §6 (integer arithmetic wraps, floats are IEEE,
//! `i1` is a one-bit integer, phis are parallel on block entry, a failed
//! guard leaves results as they were, tensor instructions read all sources
//! before writing). Results are the returned values, the final [`Memory`]
//! and [`Stats`]: dynamic counts per opcode and per instruction.
//!
//! Invariants: the interpreter never panics and never recurses: IR calls
//! push frames on an explicit stack, bounded by
//! [`Config::max_call_depth`]. Every trap (division by zero, out-of-bounds
//! access, use of an undefined value, unsupported intrinsic, exhausted fuel,
//! exceeded call depth, ...) is a [`Trap`] naming the function and
//! instruction. Fuel: one unit per instruction visited (phis, terminators
//! and guarded-off instructions included) plus one per tensor element
//! processed, so any run is bounded. It runs unverified modules too, turning
//! malformed instructions into [`TrapKind::Malformed`] traps.

mod config;
mod exec;
mod memory;
mod observe;
mod ops;
pub mod scalar;
mod tensor;
mod trap;

pub use config::{Config, Stats};
pub use exec::{ExternError, ExternHandler, Interpreter};
pub use memory::{Memory, WriteError};
pub use observe::{MemEvent, Observer, StackEntry};
pub use trap::{Trap, TrapKind};

use crate::entities::FuncId;
use crate::imm::Imm;
use crate::module::Module;

/// What a finished run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The returned values.
    pub results: Vec<Imm>,
    /// Memory after the run.
    pub memory: Memory,
    /// Dynamic counts.
    pub stats: Stats,
}

/// Runs `func` of `module` on `args` with fresh memory (initial values from
/// the module) and no external functions.
pub fn run(module: &Module, func: FuncId, args: &[Imm], config: Config) -> Result<Outcome, Trap> {
    let mut interp = Interpreter::new(module, config)?;
    let results = interp.call(func, args)?;
    let (memory, stats) = interp.into_parts();
    Ok(Outcome { results, memory, stats })
}
