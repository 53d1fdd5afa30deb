//! An opt-in observer of what a run does to memory and where control
//! goes: every element range each instruction reads or writes, in the
//! order the interpreter touches them (an instruction's reads before its
//! writes), every call and every block entry. Oracles use it (the `memdep` crate's
//! dynamic last-writer check); nothing else pays for it: without an
//! observer installed the interpreter only tests an `Option`.
//!
//! Invariants: an event is reported before the access it describes, and
//! only for an access that happens (after its bounds check; a trap before
//! it reports nothing). Memory changed by an [`super::ExternHandler`] is
//! not observed: the handler is the caller's own code.

use crate::entities::{Block, FuncId, Inst, Mem};

/// One frame of the call stack as the observer sees it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct StackEntry {
    /// A serial number, unique for each frame a run creates.
    pub activation: u64,
    /// The frame's function.
    pub func: FuncId,
    /// The instruction the frame is executing (a `call`, below the top).
    pub inst: Inst,
}

/// One access to memory.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MemEvent<'a> {
    /// The call stack, outermost frame first; the last entry made the
    /// access.
    pub stack: &'a [StackEntry],
    /// Which access of the instruction: the index of the descriptor in
    /// `Function::accesses` order (0 for a scalar `load`/`store`).
    pub access: u32,
    /// Which execution of an instruction made it: the run's count of
    /// executed instructions at that instruction (equal for the reads and
    /// writes of one execution, different for any two executions).
    pub step: u64,
    /// True for a write.
    pub write: bool,
    /// The object.
    pub mem: Mem,
    /// First element.
    pub start: u64,
    /// Number of elements.
    pub len: u64,
}

/// Receives a run's memory accesses and block entries.
pub trait Observer {
    /// An access, just before it happens.
    fn memory(&mut self, event: &MemEvent<'_>);

    /// A `call` is about to run (the last stack entry, execution `step` as
    /// in [`MemEvent::step`]); an external
    /// function's handler runs right after this, so an observer can tie
    /// what the handler reports to the call.
    fn call(&mut self, stack: &[StackEntry], step: u64) {
        let _ = (stack, step);
    }

    /// Frame `activation` of `func` enters block `to` from block `from`.
    fn block(&mut self, activation: u64, func: FuncId, from: Block, to: Block) {
        let _ = (activation, func, from, to);
    }
}
