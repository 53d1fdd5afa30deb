//! Why a module or a function could not be imported: [`ModuleError`] for
//! the whole module, [`FuncError`] (an offset and a [`FuncErrorKind`]) for
//! one function.
//!
//! Invariants: every variant names what failed as data (the offset, the
//! function or type index, the operator and the immediate it cannot
//! express, the local, global, memory or branch depth); `Display` writes
//! the message. Only wasmparser's own description of an invalid module is
//! kept as text ([`ModuleError::Invalid`]): it is the parser's message, and
//! the importer has nothing finer to say. [`Inconsistency`] collects what
//! validated input cannot cause (an importer bug, reported rather than
//! panicked on).

use core::fmt;
use ir_core::{NameError, Var, VerifierError};

/// The module could not be imported at all.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ModuleError {
    /// wasmparser rejected the bytes: a decoding or validation error.
    Invalid {
        /// Byte offset in the input.
        offset: usize,
        /// wasmparser's description.
        message: String,
    },
    /// The bytes are a component, not a core module.
    Component {
        /// Byte offset of its header.
        offset: usize,
    },
    /// The module nests a module or component.
    Nested {
        /// Byte offset of the nested section.
        offset: usize,
    },
    /// A function's type index names a type that is not a function type.
    NotAFunctionType {
        /// The function's wasm index.
        func: u32,
        /// The type index.
        ty: u32,
    },
    /// A function body whose type is not a function type.
    NoFunctionType {
        /// The function's wasm index.
        func: u32,
    },
    /// [`ImportOptions::only`](crate::ImportOptions::only) names no defined
    /// function (a request the module cannot satisfy, not a fault of the
    /// module).
    NoSuchFunction {
        /// The index asked for.
        index: u32,
        /// Functions in the module, imported ones included.
        functions: usize,
        /// Of which imported.
        imported: usize,
    },
    /// The IR refused a name the importer made (an importer bug).
    Internal(NameError),
}

impl ModuleError {
    /// The byte offset in the input the error is at, if it has one.
    pub fn offset(&self) -> Option<usize> {
        match *self {
            ModuleError::Invalid { offset, .. }
            | ModuleError::Component { offset }
            | ModuleError::Nested { offset } => Some(offset),
            _ => None,
        }
    }

    /// Renders the error as a diagnostic on `file` (the module's name), the
    /// way Keel renders every error (`ir_core::text::render_file_error`):
    /// `error: invalid WebAssembly module at offset 0x..: message`, then
    /// `--> file`. A binary has no source line to show, so there is no caret;
    /// the offset is in the message.
    pub fn render(&self, file: &str) -> String {
        ir_core::text::render_file_error(file, &self.to_string())
    }
}

impl fmt::Display for ModuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ModuleError::NoSuchFunction { index, functions, imported } = *self {
            write!(f, "no function {index} to import: the module has {functions} function(s) ({imported} imported); ")?;
            return if functions == imported {
                f.write_str("it defines none")
            } else {
                write!(f, "its defined functions are {imported}..={}", functions - 1)
            };
        }
        write!(f, "invalid WebAssembly module at offset {:#x}: ", self.offset().unwrap_or(0))?;
        match self {
            ModuleError::Invalid { message, .. } => f.write_str(message),
            ModuleError::Component { .. } => f.write_str("a component, not a core module"),
            ModuleError::Nested { .. } => f.write_str("nested modules are not supported"),
            ModuleError::NotAFunctionType { func, ty } => {
                write!(f, "function {func} has type {ty}, which is not a function type")
            }
            ModuleError::NoFunctionType { func } => write!(f, "function {func} has no function type"),
            ModuleError::Internal(e) => write!(f, "internal: {e}"),
            ModuleError::NoSuchFunction { .. } => Ok(()),
        }
    }
}

impl std::error::Error for ModuleError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModuleError::Internal(e) => Some(e),
            _ => None,
        }
    }
}

/// Why one function could not be imported.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FuncError {
    /// Byte offset (in the input) of the operator that could not be
    /// translated (the body's start for a function left out or failing
    /// verification, its end for one that fails at the end).
    pub offset: usize,
    /// What the importer could not express.
    pub kind: FuncErrorKind,
}

impl fmt::Display for FuncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {:#x}: {}", self.offset, self.kind)
    }
}

impl std::error::Error for FuncError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            FuncErrorKind::DoesNotVerify(e) => Some(e),
            _ => None,
        }
    }
}

/// Why a function was not imported ([`FuncError`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FuncErrorKind {
    /// [`ImportOptions::only`](crate::ImportOptions::only) left it out.
    NotSelected,
    /// The translated function fails the verifier (an importer bug caught
    /// by [`ImportOptions::verify`](crate::ImportOptions::verify)): its
    /// first error.
    DoesNotVerify(VerifierError),
    /// An operator without a dedicated lowering whose immediate has no
    /// scalar form, so it cannot become an `intrinsic`.
    NoScalarForm {
        /// The operator (`block`, `br_table`, `ref.null`, ...).
        op: String,
        /// The immediate.
        immediate: Immediate,
    },
    /// An operator wasmparser knows but this importer does not.
    UnknownOperator,
    /// Exception handling (`try`, `try_table`, `catch`, `delegate`).
    ExceptionHandling,
    /// A load or store on a GC array.
    GcArrayAccess,
    /// The translator's state contradicts the validated input.
    Internal(Inconsistency),
}

impl fmt::Display for FuncErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FuncErrorKind::NotSelected => f.write_str("not selected (ImportOptions::only)"),
            FuncErrorKind::DoesNotVerify(e) => {
                write!(f, "the imported function does not verify (an importer bug): {e}")
            }
            FuncErrorKind::NoScalarForm { op, immediate } => write!(f, "`{op}` has {immediate}"),
            FuncErrorKind::UnknownOperator => f.write_str("an operator this importer does not know"),
            FuncErrorKind::ExceptionHandling => f.write_str("exception handling (`try`) is not supported"),
            FuncErrorKind::GcArrayAccess => f.write_str("a memory access to a GC array"),
            FuncErrorKind::Internal(e) => e.fmt(f),
        }
    }
}

impl From<Inconsistency> for FuncErrorKind {
    fn from(e: Inconsistency) -> FuncErrorKind {
        FuncErrorKind::Internal(e)
    }
}

/// An immediate with no scalar form ([`FuncErrorKind::NoScalarForm`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Immediate {
    /// A memory immediate on a GC array.
    GcArrayMemArg,
    /// A block type.
    BlockType,
    /// A branch table.
    BranchTable,
    /// A heap type.
    HeapType,
    /// A reference type.
    RefType,
    /// A value type.
    ValType,
    /// A list of value types.
    ValTypeList,
    /// A `try_table`'s catch list.
    TryTable,
    /// A resume table (stack switching).
    ResumeTable,
}

impl fmt::Display for Immediate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Immediate::GcArrayMemArg => "a memory immediate on a GC array",
            Immediate::BlockType => "a block type immediate",
            Immediate::BranchTable => "a branch table immediate",
            Immediate::HeapType => "a heap type immediate",
            Immediate::RefType => "a reference type immediate",
            Immediate::ValType => "a value type immediate",
            Immediate::ValTypeList => "a value type list immediate",
            Immediate::TryTable => "a try_table immediate",
            Immediate::ResumeTable => "a resume table immediate",
        })
    }
}

/// What validated input cannot cause, found by the translator
/// ([`FuncErrorKind::Internal`]): an importer bug, reported for the
/// function rather than panicked on.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Inconsistency {
    /// The validator could not say what an operator needs.
    TypesUnknown {
        /// The operator (`drop`, `select`, `i8x16.shuffle`, ...).
        op: String,
        /// What it could not say.
        missing: TypeInfo,
    },
    /// A global index out of range.
    NoSuchGlobal(u32),
    /// `global.set` of an immutable global.
    ImmutableGlobal(u32),
    /// A local index out of range.
    NoSuchLocal(u32),
    /// A memory index out of range.
    NoSuchMemory(u32),
    /// A function index out of range.
    NoSuchFunction(u32),
    /// A function index with no type.
    FunctionWithoutType(u32),
    /// A type index that is not a function type.
    NotAFunctionType(u32),
    /// A branch depth beyond the open frames.
    BranchDepth(u32),
    /// A validated branch table that does not read back.
    BranchTable {
        /// Byte offset in the input.
        offset: usize,
        /// wasmparser's description.
        message: String,
    },
    /// The operand stack is shorter than an operator needs.
    StackUnderflow(StackUse),
    /// The body ends with frames still open.
    UnclosedBlock,
    /// The entry block has no instruction.
    EmptyEntryBlock,
    /// A local's var has no type.
    UntypedLocal(Var),
    /// A var has no type.
    UntypedVar(Var),
    /// `else` with no open frame.
    ElseOutsideBlock,
    /// `else` closing a frame that is not an `if`.
    ElseWithoutIf,
    /// An `if` frame without its conditional branch.
    IfWithoutBranch,
    /// `end` with no open frame.
    EndOutsideBlock,
}

/// What the validator could not say ([`Inconsistency::TypesUnknown`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TypeInfo {
    /// The types of the operands.
    OperandTypes,
    /// The type of the one operand.
    OperandType,
    /// How many operands are popped and results pushed.
    Arity,
    /// The types of the results.
    ResultTypes,
}

/// Where the operand stack ran short ([`Inconsistency::StackUnderflow`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum StackUse {
    /// Popping an operand.
    Pop,
    /// Passing a branch's values.
    Branch,
    /// Entering a block with its parameters.
    Block,
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inconsistency::TypesUnknown { op, missing } => {
                let what = match missing {
                    TypeInfo::OperandTypes => "operand types",
                    TypeInfo::OperandType => "operand type",
                    TypeInfo::Arity => "arity",
                    TypeInfo::ResultTypes => "result types",
                };
                write!(f, "`{op}`: {what} unknown")
            }
            Inconsistency::NoSuchGlobal(g) => write!(f, "global {g} does not exist"),
            Inconsistency::ImmutableGlobal(g) => write!(f, "global {g} is not mutable"),
            Inconsistency::NoSuchLocal(l) => write!(f, "local {l} does not exist"),
            Inconsistency::NoSuchMemory(m) => write!(f, "memory {m} does not exist"),
            Inconsistency::NoSuchFunction(func) => write!(f, "function {func} does not exist"),
            Inconsistency::FunctionWithoutType(func) => write!(f, "function {func} has no type"),
            Inconsistency::NotAFunctionType(t) => write!(f, "type {t} is not a function type"),
            Inconsistency::BranchDepth(d) => write!(f, "branch depth {d} out of range"),
            Inconsistency::BranchTable { offset, message } => {
                write!(f, "the branch table at offset {offset:#x} does not read back: {message}")
            }
            Inconsistency::StackUnderflow(at) => f.write_str(match at {
                StackUse::Pop => "operand stack underflow",
                StackUse::Branch => "operand stack underflow at a branch",
                StackUse::Block => "operand stack underflow at a block",
            }),
            Inconsistency::UnclosedBlock => f.write_str("the body ends inside a block"),
            Inconsistency::EmptyEntryBlock => f.write_str("the entry block is empty"),
            Inconsistency::UntypedLocal(v) => write!(f, "a local without a type ({v})"),
            Inconsistency::UntypedVar(v) => write!(f, "a var without a type ({v})"),
            Inconsistency::ElseOutsideBlock => f.write_str("`else` outside a block"),
            Inconsistency::ElseWithoutIf => f.write_str("`else` without `if`"),
            Inconsistency::IfWithoutBranch => f.write_str("`if` without its branch"),
            Inconsistency::EndOutsideBlock => f.write_str("`end` outside a block"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_offset_and_the_entity() {
        let e = ModuleError::Component { offset: 8 };
        assert_eq!(e.to_string(), "invalid WebAssembly module at offset 0x8: a component, not a core module");
        assert_eq!(e.offset(), Some(8));
        let e = ModuleError::NotAFunctionType { func: 3, ty: 1 };
        assert_eq!(
            e.to_string(),
            "invalid WebAssembly module at offset 0x0: function 3 has type 1, which is not a function type"
        );
        assert_eq!(e.offset(), None);
        let kind = FuncErrorKind::NoScalarForm { op: "ref.test".into(), immediate: Immediate::HeapType };
        assert_eq!(
            FuncError { offset: 0x20, kind }.to_string(),
            "at offset 0x20: `ref.test` has a heap type immediate"
        );
        let kind = FuncErrorKind::from(Inconsistency::StackUnderflow(StackUse::Branch));
        assert_eq!(kind.to_string(), "operand stack underflow at a branch");
        let kind =
            FuncErrorKind::from(Inconsistency::TypesUnknown { op: "drop".into(), missing: TypeInfo::OperandType });
        assert_eq!(kind.to_string(), "`drop`: operand type unknown");
    }
}
