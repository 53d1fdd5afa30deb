//! The Keel entry points: each builds the function's CFG and its
//! [`KeelCode`], runs the generic pass ([`crate::plan`],
//! [`crate::analyze`], [`crate::verify_svfg_of`]) and, for the transforms,
//! applies the plan ([`apply`]). Loads are numbered through `memdep` when
//! its dependences are given (or computed, for a function of a module).
//!
//! Invariant: a refused function is left unchanged (the plan is made, and
//! the input checked, before anything is edited).

use super::apply::{Stats, apply_unchecked};
use super::code::{KeelCode, KeelValueNumbers};
use super::error::PreError;
use crate::construct::Method;
use crate::plan::plan;
use crate::pre::analyze;
use crate::svfg::{Svfg, SvfgError};
use crate::verify::verify_svfg_of;
use ir_core::{FuncId, Function, Module};
use memdep::{MemDep, MemDeps};

/// Semantic PRE on `func` (SSA form): see the crate doc. Without the
/// module there are no memory dependences, so no two loads share a value
/// number; [`svfg_pre_in`] numbers loads through `memdep`.
pub fn svfg_pre(func: &mut Function) -> Result<Stats, PreError> {
    run(func, Method::Svfg)
}

/// Semantic PRE on function `f` of `module` (SSA form), its loads numbered
/// through `memdep`'s dependences (computed here with no call summaries:
/// a call may write anything).
pub fn svfg_pre_in(module: &mut Module, f: FuncId) -> Result<Stats, PreError> {
    run_in(module, f, Method::Svfg)
}

/// Plain GVN on `func` (SSA form): dominated recomputations become copies.
pub fn gvn(func: &mut Function) -> Result<Stats, PreError> {
    run(func, Method::Gvn)
}

/// `method` on `func` (SSA form), no memory dependences.
pub fn run(func: &mut Function, method: Method) -> Result<Stats, PreError> {
    run_with(func, method, None)
}

/// [`run`] on function `f` of `module`, loads numbered through
/// [`memory_of`].
pub fn run_in(module: &mut Module, f: FuncId, method: Method) -> Result<Stats, PreError> {
    let memory = memory_of(module, f)?;
    let func = module.function_mut(f).ok_or(PreError::NoFunction(f))?;
    run_with(func, method, Some(&memory))
}

/// [`run`] with loads numbered through `memory`, the dependences of `func`
/// as it is now ([`PreError::StaleMemory`] when they are stale).
pub fn run_with(func: &mut Function, method: Method, memory: Option<&MemDeps>) -> Result<Stats, PreError> {
    let cfg = func.cfg();
    let code = keel_code(func, memory)?;
    let plan = plan(&cfg, &code, method).map_err(|e| PreError::of_input(func, e))?;
    Ok(apply_unchecked(func, &plan))
}

/// The code of `func`, with `memory` if given (checked to be current).
fn keel_code<'a>(func: &'a Function, memory: Option<&'a MemDeps>) -> Result<KeelCode<'a>, PreError> {
    match memory {
        Some(m) => KeelCode::with_memory(func, m).map_err(PreError::StaleMemory),
        None => Ok(KeelCode::new(func)),
    }
}

/// Builds the semi-SVFG of `func` (SSA form) with its properties, without
/// rewriting anything (for `keel dot --what svfg` and the verifier); loads
/// are numbered through `memory` when given.
pub fn build_svfg(func: &Function, memory: Option<&MemDeps>) -> Result<(Svfg, KeelValueNumbers), PreError> {
    let code = keel_code(func, memory)?;
    let a = analyze(&func.cfg(), &code, Method::Svfg).map_err(|e| PreError::of_input(func, e))?;
    Ok((a.svfg, a.vns))
}

/// Checks `svfg`, built from `func` and numbered `vns`, against the SVFG
/// conditions and its construction ([`verify_svfg_of`] on Keel's IR).
pub fn verify_svfg(func: &Function, vns: &KeelValueNumbers, svfg: &Svfg) -> Result<(), SvfgError> {
    verify_svfg_of(&func.cfg(), &KeelCode::new(func), vns, svfg)
}

/// The memory dependences [`run_in`] numbers loads with: `memdep` on
/// function `f` of `module`, no call summaries.
pub fn memory_of(module: &Module, f: FuncId) -> Result<MemDeps, PreError> {
    let func = module.function(f).ok_or(PreError::NoFunction(f))?;
    MemDep::new().compute_function(module, func, None).map_err(PreError::Memory)
}
