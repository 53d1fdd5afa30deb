//! The methods' agreement as a check, shared by the `defuse` fuzz target
//! and `cargo test` smoke runs: [`check_function`] panics (naming the first
//! differing use) when the SSA method, the iterative baseline and, for
//! small functions, the oracle disagree.

use crate::{Chains, iterative, oracle, via_ssa};
use ir_core::Function;

/// Functions with at most this many instructions are also checked against
/// the (quadratic) oracle.
pub const ORACLE_LIMIT: usize = 400;

/// Panics unless every method gives the same chains for `func`.
pub fn check_function(func: &Function) {
    let ssa = via_ssa(func);
    let it = iterative(func);
    assert_agree("via_ssa", &ssa, "iterative", &it, func);
    if func.num_insts() <= ORACLE_LIMIT {
        assert_agree("via_ssa", &ssa, "oracle", &oracle(func), func);
    }
}

fn assert_agree(a: &str, ca: &Chains, b: &str, cb: &Chains, func: &Function) {
    if let Some(&(u, da, db)) = ca.differences(cb).first() {
        let at = ca.sites().use_at(u);
        panic!(
            "{a} and {b} disagree on the use of %{} at {} ({:?}): {a} says {:?}, {b} says {:?}",
            func.var_name(ca.sites().use_var(u)),
            at.inst,
            at.site,
            da.iter().map(|&d| ca.sites().def(d)).collect::<Vec<_>>(),
            db.iter().map(|&d| cb.sites().def(d)).collect::<Vec<_>>(),
        );
    }
}
