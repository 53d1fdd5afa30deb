//! Why a Keel function was refused: [`PreError`], the typed error of the
//! Keel entry points (the trait's [`InputError`], with the cases a Keel
//! user meets most named in Keel's terms).
//!
//! Invariant: every variant names what is wrong (the var and the
//! instruction defining it again, the function, memdep's own error, the
//! stale analysis); a refused function is left unchanged.

use crate::flat::InputError;
use cfg_dom::Stale;
use ir_core::{FuncId, Function, Inst, Var};

/// Why a function was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PreError {
    /// The function has no entry block.
    NoBlocks,
    /// A var is defined more than once: the input is not in SSA form.
    NotSsa {
        /// The var.
        var: Var,
        /// Its name (without `%`).
        name: String,
        /// The instruction defining it again (`None`: a parameter).
        inst: Option<Inst>,
    },
    /// The function id names no function of the module.
    NoFunction(FuncId),
    /// memdep refused the function, so its memory dependences could not be
    /// computed.
    Memory(memdep::InputError),
    /// The memory dependences handed in were computed on another version
    /// of the function.
    StaleMemory(Stale),
    /// The function is malformed in another way (see [`InputError`]).
    Input(InputError),
    /// A plan applied to a function that changed since it was made.
    StalePlan(Stale),
}

impl PreError {
    /// The error for `func` of an input error (named in Keel's terms where
    /// it can be).
    pub(crate) fn of_input(func: &Function, e: InputError) -> PreError {
        match e {
            InputError::NoEntry => PreError::NoBlocks,
            InputError::DefinedTwice { value, inst } if (value as usize) < func.num_vars() => {
                let var = Var::from_u32(value);
                PreError::NotSsa { var, name: func.var_name(var).to_string(), inst: inst.map(Inst::from_u32) }
            }
            e => PreError::Input(e),
        }
    }
}

impl core::fmt::Display for PreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PreError::NoBlocks => f.write_str("the function has no blocks"),
            PreError::NoFunction(_) => f.write_str("no such function in the module"),
            PreError::Memory(e) => write!(f, "memory dependences: {e}"),
            PreError::StaleMemory(e) => write!(f, "memory dependences: {e}"),
            PreError::NotSsa { name, .. } => {
                write!(f, "not in SSA form: %{name} is defined more than once (run ssa::construct first)")
            }
            PreError::Input(e) => e.fmt(f),
            PreError::StalePlan(e) => write!(f, "the plan is stale: {e}"),
        }
    }
}

impl std::error::Error for PreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PreError::Memory(e) => Some(e),
            PreError::StaleMemory(e) | PreError::StalePlan(e) => Some(e),
            PreError::Input(e) => Some(e),
            PreError::NoBlocks | PreError::NotSsa { .. } | PreError::NoFunction(_) => None,
        }
    }
}
