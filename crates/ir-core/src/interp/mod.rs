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

mod exec;
mod memory;
mod ops;
mod tensor;

pub use exec::{ExternHandler, Interpreter};
pub use memory::Memory;

use crate::entities::{FuncId, Inst};
use crate::imm::Imm;
use crate::module::Module;
use crate::opcode::Opcode;
use core::fmt;

/// Limits of one interpreter.
#[derive(Copy, Clone, Debug)]
pub struct Config {
    /// Fuel for the whole run (see the module doc for what costs fuel).
    pub fuel: u64,
    /// Deepest IR call stack.
    pub max_call_depth: u32,
    /// Largest interpreter storage for memory objects, in bytes.
    pub max_memory_bytes: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config { fuel: 100_000_000, max_call_depth: 1000, max_memory_bytes: 1 << 30 }
    }
}

/// Why execution stopped early.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TrapKind {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// `sdiv` of `MIN` by −1.
    IntegerOverflow,
    /// `fptosi`/`fptoui` of NaN or of a value out of the target's range.
    InvalidConversion,
    /// An index or descriptor outside its memory object, or negative.
    OutOfBounds,
    /// Tensor operands whose sizes disagree at run time.
    ShapeMismatch,
    /// A read of a var that has no value (other than by `copy` or a phi).
    UndefinedValue,
    /// An `intrinsic`: Keel does not model it.
    Unsupported,
    /// A call to an external function with no [`ExternHandler`], or one
    /// that failed.
    ExternCall,
    /// The `trap` instruction.
    Trap,
    /// Fuel ran out.
    FuelExhausted,
    /// The IR call stack grew past [`Config::max_call_depth`].
    CallDepthExceeded,
    /// Arguments that do not match the function's signature.
    BadArguments,
    /// Memory objects too large for [`Config::max_memory_bytes`].
    MemoryLimit,
    /// An instruction the verifier would reject.
    Malformed,
}

impl TrapKind {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            TrapKind::DivisionByZero => "division by zero",
            TrapKind::IntegerOverflow => "integer overflow",
            TrapKind::InvalidConversion => "invalid conversion",
            TrapKind::OutOfBounds => "out of bounds",
            TrapKind::ShapeMismatch => "shape mismatch",
            TrapKind::UndefinedValue => "use of an undefined value",
            TrapKind::Unsupported => "unsupported operation",
            TrapKind::ExternCall => "external call",
            TrapKind::Trap => "trap instruction",
            TrapKind::FuelExhausted => "fuel exhausted",
            TrapKind::CallDepthExceeded => "call depth exceeded",
            TrapKind::BadArguments => "bad arguments",
            TrapKind::MemoryLimit => "memory limit",
            TrapKind::Malformed => "malformed instruction",
        }
    }
}

/// A trap: what happened and where.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trap {
    /// The class.
    pub kind: TrapKind,
    /// The function executing, if any.
    pub func: Option<FuncId>,
    /// The instruction executing, if any.
    pub inst: Option<Inst>,
    /// Details.
    pub message: String,
}

impl Trap {
    pub(crate) fn new(kind: TrapKind, message: impl Into<String>) -> Trap {
        Trap { kind, func: None, inst: None, message: message.into() }
    }

    pub(crate) fn at(mut self, func: FuncId, inst: Inst) -> Trap {
        self.func.get_or_insert(func);
        self.inst.get_or_insert(inst);
        self
    }

    /// `kind: @f: bbN: `instruction`: message`, with the instruction in
    /// text form.
    pub fn describe(&self, m: &Module) -> String {
        let mut s = self.kind.describe().to_string();
        if let Some(func) = self.func.and_then(|f| m.function(f)) {
            let mut name = String::new();
            let _ = crate::text::write_global_name(&mut name, func.name());
            s.push_str(&format!(" in {name}"));
            if let Some(inst) = self.inst {
                if let Some(b) = func.layout().inst_block(inst) {
                    s.push_str(&format!(" at {b}"));
                }
                s.push_str(&format!(": `{}`", crate::text::DisplayInst { module: m, func, inst }));
            }
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.describe())?;
        if let (Some(func), Some(inst)) = (self.func, self.inst) {
            write!(f, " at {func}/{inst}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Trap {}

/// Dynamic counts of one run.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Instructions executed (guard passed or absent), phis and terminators
    /// included.
    pub executed: u64,
    /// Guarded instructions whose guard failed.
    pub guard_skipped: u64,
    /// Tensor elements processed.
    pub elements: u64,
    /// IR calls made (to module functions and externals).
    pub calls: u64,
    /// Fuel consumed.
    pub fuel_used: u64,
    by_opcode: Vec<u64>,
    by_inst: Vec<Vec<u64>>,
}

impl Stats {
    /// Sizes the counters of `func` (done when a frame is created, so that
    /// counting is two indexed increments).
    pub(crate) fn reserve(&mut self, func: FuncId, insts: usize) {
        if self.by_opcode.is_empty() {
            self.by_opcode = vec![0; Opcode::ALL.len()];
        }
        let f = func.as_u32() as usize;
        if self.by_inst.len() <= f {
            self.by_inst.resize(f + 1, Vec::new());
        }
        if self.by_inst[f].len() < insts {
            self.by_inst[f].resize(insts, 0);
        }
    }

    #[inline]
    pub(crate) fn count(&mut self, func: FuncId, inst: Inst, op: Opcode) {
        self.executed += 1;
        if let Some(n) = self.by_opcode.get_mut(op as usize) {
            *n += 1;
        }
        if let Some(n) = self.by_inst.get_mut(func.as_u32() as usize).and_then(|v| v.get_mut(inst.as_u32() as usize)) {
            *n += 1;
        }
    }

    /// How many times instructions with this opcode executed.
    pub fn opcode_count(&self, op: Opcode) -> u64 {
        self.by_opcode.get(op as usize).copied().unwrap_or(0)
    }

    /// How many times one instruction executed.
    pub fn inst_count(&self, func: FuncId, inst: Inst) -> u64 {
        self.by_inst.get(func.as_u32() as usize).and_then(|v| v.get(inst.as_u32() as usize)).copied().unwrap_or(0)
    }

    /// `(opcode, count)` for every opcode that executed, in opcode order.
    pub fn opcode_counts(&self) -> Vec<(Opcode, u64)> {
        Opcode::ALL.iter().map(|&op| (op, self.opcode_count(op))).filter(|&(_, n)| n > 0).collect()
    }

    /// `(function, instruction, count)` for every instruction that
    /// executed, in id order.
    pub fn inst_counts(&self) -> Vec<(FuncId, Inst, u64)> {
        let mut out = Vec::new();
        for (f, per) in self.by_inst.iter().enumerate() {
            for (i, &n) in per.iter().enumerate() {
                if n > 0 {
                    out.push((FuncId::from_u32(f as u32), Inst::from_u32(i as u32), n));
                }
            }
        }
        out
    }
}

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
