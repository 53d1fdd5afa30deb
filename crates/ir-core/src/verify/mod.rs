//! The verifier: every structural and type rule of `docs/ir.md`, checked
//! without stopping at the first failure.
//!
//! Invariants: the verifier never panics, whatever the builder produced
//! (unknown entities, malformed instructions, lists of the wrong length);
//! each error names its function and, where it has one, its block,
//! instruction or var, plus a class ([`ErrorKind`]) that tests and tools can
//! match on. The base level is what every pass may assume; the opt-in SSA
//! level ([`VerifyOptions::ssa`]) adds single definition and dominance.
//! Both are linear in the size of the module (near-linear for the SSA
//! level, which builds `cfg-dom`'s semi-NCA dominator tree on the
//! function's CFG; its dominance queries are O(1)). This is Keel's one SSA
//! verifier: `ssa::verify` runs it.
//!
//! Files: `error.rs` (the report), `context.rs` (the per-function state the
//! checks share), `checks.rs` (the base level), `tensor.rs` (tensor
//! operands), `ssa.rs` (the SSA level).

mod checks;
mod context;
mod error;
mod ssa;
mod tensor;

pub use error::{ErrorKind, Location, VerifierError, VerifierErrors, VerifyOptions};

use crate::entities::FuncId;
use crate::module::Module;
use context::Ctx;

/// Verifies every function and memory object of a module.
pub fn verify_module(m: &Module, opts: &VerifyOptions) -> Result<(), VerifierErrors> {
    let mut errors = Vec::new();
    checks::check_mems(m, &mut errors);
    for f in m.function_ids() {
        check_function(m, f, opts, &mut errors);
    }
    if errors.is_empty() { Ok(()) } else { Err(VerifierErrors(errors)) }
}

/// Verifies one function of a module (an unknown `f` is an error).
pub fn verify_function(m: &Module, f: FuncId, opts: &VerifyOptions) -> Result<(), VerifierErrors> {
    let mut errors = Vec::new();
    if m.function(f).is_none() {
        errors.push(VerifierError {
            location: Location::default(),
            kind: ErrorKind::UnknownEntity,
            message: format!("{f} is not a function of this module"),
        });
    }
    check_function(m, f, opts, &mut errors);
    if errors.is_empty() { Ok(()) } else { Err(VerifierErrors(errors)) }
}

/// Checks one function at the base level, then the SSA level if asked.
fn check_function(m: &Module, fid: FuncId, opts: &VerifyOptions, errors: &mut Vec<VerifierError>) {
    let Some(func) = m.function(fid) else { return };
    let mut cx = Ctx { m, fid, func, errors, block: None, inst: None };
    let Some(cfg) = checks::check_function(&mut cx) else { return };
    if opts.ssa {
        ssa::check(&mut cx, &cfg);
    }
}
