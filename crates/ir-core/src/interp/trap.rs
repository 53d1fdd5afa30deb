//! Traps: why a run stopped early ([`TrapKind`]) and where ([`Trap`]:
//! the function and instruction, when known).
//!
//! Invariant: every way the interpreter can fail is a trap value; nothing
//! it runs makes it panic.

use crate::entities::{FuncId, Inst};
use crate::module::Module;
use core::fmt;

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
    /// A call to an external function with no [`ExternHandler`](super::ExternHandler), or one
    /// that failed.
    ExternCall,
    /// The `trap` instruction.
    Trap,
    /// Fuel ran out.
    FuelExhausted,
    /// The IR call stack grew past [`Config::max_call_depth`](super::Config::max_call_depth).
    CallDepthExceeded,
    /// Arguments that do not match the function's signature.
    BadArguments,
    /// Memory objects too large for [`Config::max_memory_bytes`](super::Config::max_memory_bytes).
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
