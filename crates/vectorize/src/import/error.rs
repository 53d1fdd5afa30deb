//! The import's error type, [`ImportError`]: the instruction at fault and
//! an [`ImportErrorKind`], a Keel construct the import does not support
//! (loops, stores, calls, ...) or a function that is not well-formed
//! enough to import, with the opcode, var or object involved.
//!
//! A leaf of the `import` tree: the entry point (`import/mod.rs`) and the
//! per-instruction converter (`convert.rs`) both return it, and it depends
//! on nothing of theirs (only on Keel's [`Inst`], [`FuncId`] and
//! [`Opcode`] and on the graph's typing and naming errors), so the tree's
//! imports run one way. `import` re-exports both, so their public paths
//! stay `vectorize::import::ImportError` and
//! `vectorize::import::ImportErrorKind`.
//!
//! Invariant: `inst`, when set, is an instruction of the function being
//! imported (the one at fault); `Display` prefixes the kind's message with
//! it.

use crate::graph::NameError;
use crate::infer::TypeError;
use core::fmt;
use ir_core::{FuncId, Inst, Opcode};

/// Why a function cannot be imported.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportError {
    /// The instruction at fault, if any.
    pub inst: Option<Inst>,
    /// What is not supported or not well-formed.
    pub kind: ImportErrorKind,
}

/// What the import does not support, or what is not well-formed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ImportErrorKind {
    /// The function is not in the module.
    NoSuchFunction(FuncId),
    /// The function has no blocks.
    NoBlocks,
    /// A length parameter (this var's name) of two objects.
    SharedLength(String),
    /// The graph function's name was refused.
    Name(NameError),
    /// A cycle in the control flow.
    Loop,
    /// A phi none of whose incoming edges is reachable.
    PhiWithoutValue,
    /// No `ret` is reachable.
    NoReturn,
    /// The graph node for an instruction does not type.
    IllTyped(TypeError),
    /// A var (this name) that may be read before it is defined.
    MaybeUndefined(String),
    /// A var that is not in the function.
    NoSuchVar,
    /// An operand that is neither a var nor an immediate.
    NoSuchOperand,
    /// A `const` or `copy` without an operand.
    MissingOperand,
    /// A join with no incoming value.
    NoValue,
    /// A scalar opcode that has no graph operation.
    NoGraphOp(Opcode),
    /// A load that names no object.
    NoObject,
    /// A load wider than, or of another type than, its object's elements.
    WideLoad,
    /// A reduction without a descriptor.
    NoDescriptor,
    /// A reduction over less than a whole parameter object.
    PartialReduction,
    /// A branch without two targets.
    MalformedBranch,
    /// A switch without its table.
    NoSwitchTable,
    /// A phi after the start of its block.
    LatePhi,
    /// An opcode the import does not handle.
    Unsupported(Opcode),
    /// An instruction with a value and no result.
    NoResult,
}

impl fmt::Display for ImportErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ImportErrorKind as K;
        match self {
            K::NoSuchFunction(_) => f.write_str("no such function"),
            K::NoBlocks => f.write_str("the function has no blocks"),
            K::SharedLength(v) => write!(f, "`%{v}` is the length of two objects"),
            K::Name(e) => write!(f, "{e}"),
            K::Loop => f.write_str("a loop: loops are not imported (write them as `while` in the graph IR)"),
            K::PhiWithoutValue => f.write_str("a phi with no reachable incoming value"),
            K::NoReturn => f.write_str("no `ret` is reachable"),
            K::IllTyped(e) => write!(f, "ill-typed: {e}"),
            K::MaybeUndefined(v) => write!(f, "`%{v}` may be read before it is defined"),
            K::NoSuchVar => f.write_str("a var that does not exist"),
            K::NoSuchOperand => f.write_str("an operand that does not exist"),
            K::MissingOperand => f.write_str("no operand"),
            K::NoValue => f.write_str("no value"),
            K::NoGraphOp(op) => write!(f, "`{op}` has no graph operation"),
            K::NoObject => f.write_str("no object"),
            K::WideLoad => f.write_str("a wide or ill-typed load is not imported"),
            K::NoDescriptor => f.write_str("a reduction without a descriptor"),
            K::PartialReduction => {
                f.write_str("only `tsum`/`tredmax` over `@M[0, %n]` with `%n` a parameter are imported")
            }
            K::MalformedBranch => f.write_str("a malformed branch"),
            K::NoSwitchTable => f.write_str("no table"),
            K::LatePhi => f.write_str("a phi after the start of its block"),
            K::Unsupported(op) => {
                write!(f, "`{op}` is not imported (only scalar code, loads and whole-array reductions)")
            }
            K::NoResult => f.write_str("no result"),
        }
    }
}

impl std::error::Error for ImportErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportErrorKind::Name(e) => Some(e),
            ImportErrorKind::IllTyped(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{i}: {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}
