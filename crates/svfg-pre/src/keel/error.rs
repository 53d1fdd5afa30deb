//! Why a Keel function was refused: [`PreError`], the typed error of the
//! Keel entry points (the trait's [`InputError`], with the two cases a Keel
//! user meets most named in Keel's terms).
//!
//! Invariant: every variant names what is wrong (the var, the function,
//! the stale analysis); a refused function is left unchanged.

use crate::flat::InputError;
use cfg_dom::Stale;
use ir_core::{Function, Var};

/// Why a function was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PreError {
    /// The function has no entry block.
    NoBlocks,
    /// A var (named) is defined more than once: the input is not in SSA
    /// form.
    NotSsa(String),
    /// The function id names no function of the module.
    NoFunction,
    /// The memory dependences could not be computed, or are stale.
    Memory(String),
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
            InputError::DefinedTwice { value, .. } if (value as usize) < func.num_vars() => {
                PreError::NotSsa(func.var_name(Var::from_u32(value)).to_string())
            }
            e => PreError::Input(e),
        }
    }
}

impl core::fmt::Display for PreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PreError::NoBlocks => f.write_str("the function has no blocks"),
            PreError::NoFunction => f.write_str("no such function in the module"),
            PreError::Memory(e) => write!(f, "memory dependences: {e}"),
            PreError::NotSsa(v) => {
                write!(f, "not in SSA form: %{v} is defined more than once (run ssa::construct first)")
            }
            PreError::Input(e) => e.fmt(f),
            PreError::StalePlan(e) => write!(f, "the plan is stale: {e}"),
        }
    }
}

impl std::error::Error for PreError {}
