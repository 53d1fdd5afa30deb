//! The input trait: what a compiler implements to have its code allocated.
//!
//! regalloc2's `Function` is the model, kept as small as `cfg-dom`'s
//! traits allow: the CFG is any [`cfg_dom::Graph`] passed beside the code
//! (as for liveness and DU chains), and the code is a
//! [`cfg_dom::VarCode`] (per block its instructions, per instruction the
//! variables it defines and uses, whether it is guarded) plus two answers
//! of this trait: each variable's register class, and how each
//! instruction may move. Loop depths come from `cfg-dom`'s loop forest of
//! the graph. Keel's `ir_core::Function` implements it (feature `keel`);
//! the `foreign-ir` package's `regalloc` example implements it for a toy
//! IR.
//!
//! Semantics the allocator assumes (those of `VarCode`):
//! - an instruction reads its uses, then writes its definitions;
//! - a **guarded** instruction may not run, and then its definitions keep
//!   their old values: each definition is *tied* to the variable's
//!   previous value (same register);
//! - **phis** are not accepted (take the code out of SSA first; the Keel
//!   entry points do it with `ssa::destruct`);
//! - **pure** instructions may be reordered within their block subject to
//!   their data dependences; **effects** keep their relative order; the
//!   **terminator** stays last.

use crate::class::RegClass;
use cfg_dom::{InstId, VarCode, VarId};

/// How an instruction may move within its block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstKind {
    /// No side effect and cannot trap: free to move after its inputs.
    Pure,
    /// Memory, calls, possible traps: keeps its order among effects.
    Effect,
    /// Ends the block (branch, return): stays last.
    Terminator,
}

/// A function's code as the allocator sees it (see the module doc).
///
/// The two methods have conservative defaults: every variable scalar, every
/// instruction an effect (so a client that answers nothing more still gets
/// a correct allocation, in statement order). Answer [`InstKind::Pure`] to
/// let the pebble game reorder, and [`InstKind::Terminator`] for the last
/// instruction of a block when it reads values at the block's end.
pub trait RegCode: VarCode {
    /// The register class of `var`.
    fn class(&self, var: VarId) -> RegClass {
        let _ = var;
        RegClass::Scalar
    }

    /// How `inst` may move.
    fn inst_kind(&self, inst: InstId) -> InstKind {
        let _ = inst;
        InstKind::Effect
    }

    /// True when `inst` only copies its one use into its one definition
    /// (the Chaitin-Briggs baseline lets source and copy share a register).
    fn is_copy(&self, inst: InstId) -> bool {
        let _ = inst;
        false
    }
}

impl<C: RegCode + ?Sized> RegCode for &C {
    fn class(&self, var: VarId) -> RegClass {
        (**self).class(var)
    }
    fn inst_kind(&self, inst: InstId) -> InstKind {
        (**self).inst_kind(inst)
    }
    fn is_copy(&self, inst: InstId) -> bool {
        (**self).is_copy(inst)
    }
}
