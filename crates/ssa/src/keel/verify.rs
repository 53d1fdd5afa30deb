//! The SSA verifier: `ir_core`'s, at its SSA level — single definition,
//! definitions dominate uses, a phi's operands dominate the end of their
//! predecessor, and guarded definitions name their fallbacks — on
//! `cfg-dom`'s dominator tree, linear in the size of the function.
//!
//! Invariant: there is one SSA verifier in Keel (`ir_core::verify`, with
//! `VerifyOptions { ssa: true }`); this is its name in the `ssa` crate.

use ir_core::{FuncId, Module, VerifierErrors, VerifyOptions};

/// Verifies that function `f` of `m` is valid and in SSA form: the
/// base-level rules and the SSA rules, reported together.
pub fn verify(m: &Module, f: FuncId) -> Result<(), VerifierErrors> {
    ir_core::verify_function(m, f, &VerifyOptions { ssa: true })
}
