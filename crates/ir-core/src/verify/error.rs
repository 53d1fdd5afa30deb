//! The verifier's report: what it checks for ([`VerifyOptions`]), the
//! class of each error ([`ErrorKind`]), where it is ([`Location`]) and how
//! it reads ([`VerifierError::describe`], [`VerifierError::render`]).
//!
//! Rendering goes through the text module's [`render_error`](crate::text::render_error) and
//! [`render_file_error`], which draw with `annotate-snippets` (rustc's
//! renderer): one layout and one rendering path for parser and verifier
//! errors alike.
//!
//! Invariant: an error always names its function when it is inside one,
//! and renders at its source span when the module was parsed with a source
//! map (else at its file, described in text form).

use crate::entities::{Block, FuncId, Inst, Mem, Var};
use crate::module::Module;
use crate::text::{DisplayInst, SourceMap, render_file_error};
use core::fmt;

/// What to check.
#[derive(Copy, Clone, Debug, Default)]
pub struct VerifyOptions {
    /// Also check SSA form: each var defined once (params count), and each
    /// use dominated by its definition (a phi's operand by the end of the
    /// incoming block). Uses in unreachable blocks are exempt.
    pub ssa: bool,
}

/// The class of a verifier error.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ErrorKind {
    /// A function has no blocks.
    NoBlocks,
    /// A reference to an entity that does not exist (var, block, memory
    /// object, callee, jump table).
    UnknownEntity,
    /// A branch to a block that is not in the layout.
    UnknownTarget,
    /// A block is empty or does not end in a terminator.
    MissingTerminator,
    /// A terminator before the end of its block.
    MisplacedTerminator,
    /// A phi after a non-phi instruction.
    MisplacedPhi,
    /// A phi whose incoming blocks are not exactly the block's predecessors.
    PhiPredecessors,
    /// The entry block has predecessors or phis.
    EntryBlock,
    /// Wrong number of operands or results, or a malformed instruction.
    Arity,
    /// An operand, result or element type that does not fit.
    TypeMismatch,
    /// A var that is used but never defined (and is not a param).
    UndefinedVar,
    /// A guard that is not an `i1` var, or a guard on a phi or terminator.
    BadGuard,
    /// An exact descriptor outside its memory object, or negative.
    DescriptorOutOfBounds,
    /// Tensor operands whose exact sizes or shapes disagree.
    TensorShape,
    /// A call whose operands or results do not match the callee signature.
    CallSignature,
    /// A conversion between types it does not convert.
    BadConversion,
    /// A `switch` case value repeated or outside the operand's type.
    BadSwitchCase,
    /// A `const` whose operand is not an immediate.
    BadConst,
    /// A memory object's initial values do not fit it.
    MemInit,
    /// SSA: a var defined more than once.
    MultipleDefinitions,
    /// SSA: a use not dominated by its definition.
    UseNotDominated,
    /// SSA: a guarded definition that does not name its fallbacks (the
    /// values its results keep when the guard fails), so they would be
    /// undefined.
    MissingFallback,
}

/// Where an error is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Location {
    /// The function, if the error is inside one.
    pub func: Option<FuncId>,
    /// The block.
    pub block: Option<Block>,
    /// The instruction.
    pub inst: Option<Inst>,
    /// The var the error is about, if any.
    pub var: Option<Var>,
    /// The memory object the error is about, if any (outside functions).
    pub mem: Option<Mem>,
}

/// One verifier error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifierError {
    /// Where.
    pub location: Location,
    /// Its class.
    pub kind: ErrorKind,
    /// What is wrong, in one line.
    pub message: String,
}

impl VerifierError {
    /// A one-line description naming the function, block and instruction
    /// (printed in text form).
    pub fn describe(&self, m: &Module) -> String {
        let mut s = String::new();
        let loc = &self.location;
        if let Some(func) = loc.func.and_then(|f| m.function(f)) {
            let mut name = String::new();
            let _ = crate::text::write_global_name(&mut name, func.name());
            s.push_str(&name);
            s.push_str(": ");
            if let Some(b) = loc.block {
                s.push_str(&format!("{b}: "));
            }
            if let Some(i) = loc.inst {
                s.push_str(&format!("`{}`: ", DisplayInst { module: m, func, inst: i }));
            }
        }
        s.push_str(&self.message);
        s
    }

    /// Renders the error at its source location (`error: message (in @f)`,
    /// `--> file:line:col`, the source line and a caret; see
    /// [`render_error`](crate::text::render_error)) when the module was parsed with a source map; else
    /// `error: ` and [`Self::describe`], then `--> file`.
    pub fn render(&self, m: &Module, file: &str, src: &str, smap: &SourceMap) -> String {
        let loc = &self.location;
        let span = match loc.func {
            Some(f) => smap.locate(f, loc.inst, loc.block, loc.var),
            None => loc.mem.and_then(|m| smap.mem(m)),
        };
        match span {
            Some(span) => {
                let mut msg = self.message.clone();
                if let Some(func) = loc.func.and_then(|f| m.function(f)) {
                    let mut name = String::new();
                    let _ = crate::text::write_global_name(&mut name, func.name());
                    msg.push_str(&format!(" (in {name})"));
                }
                crate::text::render_error_indexed(file, src, Some(&smap.lines), span, &msg)
            }
            None => render_file_error(file, &self.describe(m)),
        }
    }
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = &self.location;
        if let Some(func) = loc.func {
            write!(f, "{func}: ")?;
        }
        if let Some(b) = loc.block {
            write!(f, "{b}: ")?;
        }
        if let Some(i) = loc.inst {
            write!(f, "{i}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for VerifierError {}

/// All errors of one verification.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.0 {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}
