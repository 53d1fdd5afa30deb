//! The methods' agreement as a check, shared by the `defuse` fuzz target
//! and `cargo test` smoke runs: [`check_function`] panics (naming the first
//! differing use) when the SSA method, the iterative baseline and, for
//! small functions, the oracle disagree. Each method runs twice: with a
//! fresh context, and with a context kept per thread across every call, so
//! that state leaking from one function into the next is caught too.

use crate::{Chains, Iterative, ViaSsa, iterative, oracle, via_ssa};
use ir_core::Function;
use std::cell::RefCell;

thread_local! {
    /// Warm contexts, reused by every call on this thread.
    static WARM: RefCell<(ViaSsa, Iterative)> = RefCell::new((ViaSsa::new(), Iterative::new()));
}

/// Functions with at most this many instructions are also checked against
/// the (quadratic) oracle.
pub const ORACLE_LIMIT: usize = 400;

/// Panics unless every method gives the same chains for `func`.
pub fn check_function(func: &Function) {
    let ssa = via_ssa(func);
    let it = iterative(func);
    assert_agree("via_ssa", &ssa, "iterative", &it, func);
    let (warm_ssa, warm_it) = WARM.with(|w| {
        let (v, i) = &mut *w.borrow_mut();
        (v.compute(func), i.compute(func))
    });
    assert_agree("via_ssa", &ssa, "a reused ViaSsa", &warm_ssa, func);
    assert_agree("iterative", &it, "a reused Iterative", &warm_it, func);
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
