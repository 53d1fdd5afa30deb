//! `--func`: which functions of a module a subcommand works on, decided in
//! one place for every subcommand and both IRs (Keel IR modules and
//! graph-IR files, through [`Functions`]).
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

use crate::out::{global, name_arg};

/// A module's functions, as the selector sees them.
pub(crate) trait Functions {
    /// A function's id.
    type Id: Copy;
    /// The function named `name` (without its sigil).
    fn by_name(&self, name: &str) -> Option<Self::Id>;
    /// Every function, in id order.
    fn ids(&self) -> Vec<Self::Id>;
    /// The names of the first `n` functions, in id order.
    fn first_names(&self, n: usize) -> Vec<String>;
}

impl Functions for ir_core::Module {
    type Id = ir_core::FuncId;
    fn by_name(&self, name: &str) -> Option<ir_core::FuncId> {
        self.function_by_name(name)
    }
    fn ids(&self) -> Vec<ir_core::FuncId> {
        self.function_ids().collect()
    }
    fn first_names(&self, n: usize) -> Vec<String> {
        self.functions().take(n).map(|(_, f)| f.name().to_string()).collect()
    }
}

impl Functions for vectorize::Graph {
    type Id = vectorize::Sym;
    fn by_name(&self, name: &str) -> Option<vectorize::Sym> {
        self.function(name)
    }
    fn ids(&self) -> Vec<vectorize::Sym> {
        self.functions().to_vec()
    }
    fn first_names(&self, n: usize) -> Vec<String> {
        self.functions().iter().take(n).filter_map(|&f| self.function_name(f)).map(str::to_string).collect()
    }
}

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
    /// Several functions, none `@main`, and no `--func`: the first names
    /// and how many functions there are.
    Ambiguous(Vec<String>, usize),
}

/// How many names an [`SelectError::Ambiguous`] message lists.
const SHOWN: usize = 10;

impl std::fmt::Display for SelectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelectError::NoSuchFunction(name) => write!(f, "no function {}", global(name)),
            SelectError::Empty => f.write_str("the module has no functions"),
            SelectError::Ambiguous(names, total) => {
                let mut list: Vec<String> = names.iter().map(|n| global(n)).collect();
                if *total > names.len() {
                    list.push(format!("and {} more", total - names.len()));
                }
                write!(f, "several functions and no @main; choose one with --func ({})", list.join(", "))
            }
        }
    }
}

impl std::error::Error for SelectError {}

/// The functions `func` (the `--func` option) selects in `module`.
pub(crate) fn select<M: Functions + ?Sized>(
    module: &M,
    func: Option<&str>,
    scope: Scope,
) -> Result<Vec<M::Id>, SelectError> {
    if let Some(text) = func {
        let name = name_arg(text);
        return module.by_name(&name).map(|f| vec![f]).ok_or(SelectError::NoSuchFunction(name));
    }
    let ids = module.ids();
    match scope {
        Scope::All => Ok(ids),
        Scope::One => {
            if let Some(main) = module.by_name("main") {
                return Ok(vec![main]);
            }
            match ids[..] {
                [only] => Ok(vec![only]),
                [] => Err(SelectError::Empty),
                _ => Err(SelectError::Ambiguous(module.first_names(SHOWN), ids.len())),
            }
        }
    }
}

/// [`select`] with [`Scope::One`]: the one function.
pub(crate) fn select_one<M: Functions + ?Sized>(module: &M, func: Option<&str>) -> Result<M::Id, SelectError> {
    let ids = select(module, func, Scope::One)?;
    ids.first().copied().ok_or(SelectError::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> ir_core::Module {
        ir_core::text::parse(text).expect("valid IR").0
    }

    const TWO: &str = "func @a() {\nbb0:\n    ret\n}\n\nfunc @b() {\nbb0:\n    ret\n}\n";

    #[test]
    fn by_name_with_or_without_sigil() {
        let m = module(TWO);
        let b = m.function_by_name("b");
        assert_eq!(select(&m, Some("@b"), Scope::All).ok(), b.map(|b| vec![b]));
        assert_eq!(select_one(&m, Some("b")).ok(), b);
        assert_eq!(select_one(&m, Some("c")), Err(SelectError::NoSuchFunction("c".into())));
    }

    #[test]
    fn defaults_by_scope() {
        let m = module(TWO);
        assert_eq!(select(&m, None, Scope::All).map(|v| v.len()), Ok(2));
        let e = select_one(&m, None).expect_err("two functions, no @main");
        assert_eq!(e.to_string(), "several functions and no @main; choose one with --func (@a, @b)");
        let only = module("func @only() {\nbb0:\n    ret\n}\n");
        assert_eq!(select_one(&only, None).ok(), only.function_by_name("only"));
        assert_eq!(select_one(&module(""), None), Err(SelectError::Empty));
    }

    #[test]
    fn main_wins_without_func() {
        let m = module(&format!("{TWO}\nfunc @main() {{\nbb0:\n    ret\n}}\n"));
        assert_eq!(select_one(&m, None).ok(), m.function_by_name("main"));
    }

    #[test]
    fn long_lists_are_cut() {
        let text: String = (0..12).map(|i| format!("func @f{i}() {{\nbb0:\n    ret\n}}\n\n")).collect();
        let e = select_one(&module(&text), None).expect_err("ambiguous");
        assert!(e.to_string().ends_with("@f9, and 2 more)"), "{e}");
    }
}
