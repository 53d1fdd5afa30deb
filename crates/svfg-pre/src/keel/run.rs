//! The Keel entry points: each builds the function's CFG and its
//! [`KeelCode`], runs the generic pass ([`crate::plan`],
//! [`crate::analyze`], [`crate::verify_svfg_of`]) and, for the transforms,
//! applies the plan ([`apply`]). Loads are numbered through `memdep` when
//! its dependences are given, or, for a function of a module, through
//! answers made on demand ([`LazyMemory`]).
//!
//! Invariant: a refused function is left unchanged (the plan is made, and
//! the input checked, before anything is edited).

use super::apply::{Stats, apply_unchecked};
use super::code::{KeelCode, KeelOp, KeelValueNumbers};
use super::error::PreError;
use super::memory::{LazyMemory, MemoryCounts, memory_options};
use crate::construct::Method;
use crate::plan::{Plan, plan};
use crate::pre::analyze;
use crate::svfg::{Svfg, SvfgError};
use crate::verify::verify_svfg_of;
use ir_core::{FuncId, Function, Imm, Module};
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

/// [`run`] on function `f` of `module`, loads numbered through memory
/// answers made on demand ([`LazyMemory`]: a walk between the two loads,
/// `memdep`'s dependences when the walk is unsure).
pub fn run_in(module: &mut Module, f: FuncId, method: Method) -> Result<Stats, PreError> {
    run_in_counted(module, f, method).map(|(stats, _)| stats)
}

/// [`run_in`], with how the memory questions were answered.
pub fn run_in_counted(module: &mut Module, f: FuncId, method: Method) -> Result<(Stats, MemoryCounts), PreError> {
    let func = module.function(f).ok_or(PreError::NoFunction(f))?;
    let (plan, counts) = plan_in(module, func, method)?;
    let func = module.function_mut(f).ok_or(PreError::NoFunction(f))?;
    Ok((apply_unchecked(func, &plan), counts))
}

/// The plan [`run_in`] applies to `func`, a function of `module` (or a
/// copy of one: `module` gives the memory objects), and how its memory
/// questions were answered.
pub fn plan_in(
    module: &Module,
    func: &Function,
    method: Method,
) -> Result<(Plan<KeelOp, Imm>, MemoryCounts), PreError> {
    let memory = LazyMemory::new(module, func);
    let code = KeelCode::with_lazy_memory(func, &memory);
    let plan = plan(&func.cfg(), &code, method).map_err(|e| PreError::of_input(func, e))?;
    Ok((plan, memory.counts()))
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

/// [`build_svfg`] with loads numbered as [`run_in`] numbers them
/// (`memory`'s answers).
pub fn build_svfg_lazy(func: &Function, memory: &LazyMemory<'_>) -> Result<(Svfg, KeelValueNumbers), PreError> {
    let code = KeelCode::with_lazy_memory(func, memory);
    let a = analyze(&func.cfg(), &code, Method::Svfg).map_err(|e| PreError::of_input(func, e))?;
    Ok((a.svfg, a.vns))
}

/// Checks `svfg`, built from `func` and numbered `vns`, against the SVFG
/// conditions and its construction ([`verify_svfg_of`] on Keel's IR).
pub fn verify_svfg(func: &Function, vns: &KeelValueNumbers, svfg: &Svfg) -> Result<(), SvfgError> {
    verify_svfg_of(&func.cfg(), &KeelCode::new(func), vns, svfg)
}

/// The memory dependences [`run_in`] numbers loads with when a walk is
/// unsure ([`LazyMemory`]), computed here for callers of [`run_with`]: `memdep` on
/// function `f` of `module` with [`memory_options`], no call summaries.
pub fn memory_of(module: &Module, f: FuncId) -> Result<MemDeps, PreError> {
    let func = module.function(f).ok_or(PreError::NoFunction(f))?;
    MemDep::with_options(memory_options()).compute_function(module, func, None).map_err(PreError::Memory)
}
