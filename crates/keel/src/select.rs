//! `--func`: which functions of a module a subcommand works on, decided in
//! one place for every subcommand.
//!
//! - With `--func NAME` (`NAME`, `@NAME` or a quoted name), that function,
//!   or an error naming it when the module has none of that name.
//! - Without it, either every function in id order ([`Scope::All`]: `ssa`,
//!   `du`, `memdep`, `pre`, `regalloc`), or one ([`Scope::One`]: `run`,
//!   `dot`, `compile`, `run-mlu`, `vectorize`): `@main`, else the only
//!   function, else an error listing the names to choose from.
//!
//! Invariant: the answer depends on the module and the option only; the
//! messages are the ones the CLI tests pin.

use crate::out::{function_names, global, name_arg};
use ir_core::{FuncId, Module};

/// What a subcommand works on when `--func` is not given.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Scope {
    /// Every function of the module.
    All,
    /// `@main`, else the only function.
    One,
}

/// Why no function was selected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum SelectError {
    /// `--func NAME` names no function of the module.
    NoSuchFunction(String),
    /// The module has no function at all.
    Empty,
    /// Several functions, none `@main`, and no `--func`.
    Ambiguous(String),
}

impl std::fmt::Display for SelectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelectError::NoSuchFunction(name) => write!(f, "no function {}", global(name)),
            SelectError::Empty => f.write_str("the module has no functions"),
            SelectError::Ambiguous(names) => {
                write!(f, "several functions and no @main; choose one with --func ({names})")
            }
        }
    }
}

/// The functions `func` (the `--func` option) selects in `module`.
pub(crate) fn select(module: &Module, func: Option<&str>, scope: Scope) -> Result<Vec<FuncId>, SelectError> {
    if let Some(text) = func {
        let name = name_arg(text);
        return module.function_by_name(&name).map(|f| vec![f]).ok_or(SelectError::NoSuchFunction(name));
    }
    match scope {
        Scope::All => Ok(module.function_ids().collect()),
        Scope::One => {
            if let Some(main) = module.function_by_name("main") {
                return Ok(vec![main]);
            }
            let mut ids = module.function_ids();
            match (ids.next(), ids.next()) {
                (Some(only), None) => Ok(vec![only]),
                (None, _) => Err(SelectError::Empty),
                (Some(_), Some(_)) => Err(SelectError::Ambiguous(function_names(module))),
            }
        }
    }
}

/// [`select`] with [`Scope::One`]: the one function.
pub(crate) fn select_one(module: &Module, func: Option<&str>) -> Result<FuncId, SelectError> {
    select(module, func, Scope::One).map(|ids| ids[0])
}
