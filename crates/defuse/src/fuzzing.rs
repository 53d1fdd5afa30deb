//! The methods' agreement as a check, shared by the `defuse` fuzz target
//! and `cargo test` smoke runs (feature `fuzzing`): [`check`] panics
//! (naming the first differing use) when the SSA method, the iterative
//! baseline and, for small functions, the oracle disagree on any IR;
//! `check_function` does it for a Keel function (feature `keel`). Planted
//! bugs ([`Bug`], [`with_bug`]) show the checks can fail. Each method runs twice:
//! with a fresh context, and with a context kept per thread across every
//! call, so that state leaking from one function into the next is caught
//! too; the SSA method also refills one per-thread [`Chains`] in place,
//! and runs a third time with a phi budget of 0, so that its fallback to
//! pruned placement is checked on every input.

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

use crate::{Chains, Iterative, ViaSsa, iterative, oracle, via_ssa};
use cfg_dom::{Graph, VarCode};
use std::cell::RefCell;

thread_local! {
    /// Warm contexts, reused by every call on this thread.
    static WARM: RefCell<(ViaSsa, Iterative)> = RefCell::new((ViaSsa::new(), Iterative::new()));
    /// Chains refilled in place by every call on this thread
    /// ([`ViaSsa::compute_into`]): stale rows of an earlier function must
    /// never show through.
    static REUSED: RefCell<Chains> = RefCell::new(Chains::new());
    /// A context whose phi budget is 0: its placement is always the
    /// pruned fallback ([`ViaSsa::set_phi_budget`]).
    static PRUNED: RefCell<ViaSsa> = RefCell::new({
        let mut v = ViaSsa::new();
        v.set_phi_budget(Some(0));
        v
    });
}

/// Functions with at most this many instructions are also checked against
/// the (quadratic) oracle.
pub const ORACLE_LIMIT: usize = 400;

/// Panics unless every method gives the same chains for `code` on `graph`
/// (a well-formed input: each method must accept it).
pub fn check<G: Graph, C: VarCode>(graph: &G, code: &C) {
    let ssa = via_ssa(graph, code).expect("via_ssa accepts the input");
    let it = iterative(graph, code).expect("iterative accepts the input");
    assert_agree("via_ssa", &ssa, "iterative", &it);
    let (warm_ssa, warm_it) = WARM.with(|w| {
        let (v, i) = &mut *w.borrow_mut();
        (v.compute(graph, code), i.compute(graph, code))
    });
    assert_agree("via_ssa", &ssa, "a reused ViaSsa", &warm_ssa.expect("a reused ViaSsa accepts the input"));
    WARM.with(|w| {
        REUSED.with(|c| {
            let chains = &mut *c.borrow_mut();
            w.borrow_mut().0.compute_into(graph, code, chains).expect("compute_into accepts the input");
            assert_agree("via_ssa", &ssa, "ViaSsa::compute_into (reused chains)", chains);
        })
    });
    let pruned = PRUNED.with(|p| p.borrow_mut().compute(graph, code));
    assert_agree("via_ssa", &ssa, "via_ssa with pruned phis (budget 0)", &pruned.expect("idem"));
    assert_agree("iterative", &it, "a reused Iterative", &warm_it.expect("a reused Iterative accepts the input"));
    if code.num_insts() <= ORACLE_LIMIT {
        assert_agree("via_ssa", &ssa, "oracle", &oracle(graph, code).expect("the oracle accepts the input"));
    }
}

/// [`check`] on a Keel function and its CFG, plus the contexts' own Keel
/// entry points ([`ViaSsa::compute_function`],
/// [`Iterative::compute_function`]).
#[cfg(feature = "keel")]
pub fn check_function(func: &ir_core::Function) {
    let cfg = func.cfg();
    check(&cfg, func);
    let (ssa, it) = WARM.with(|w| {
        let (v, i) = &mut *w.borrow_mut();
        (v.compute_function(func), i.compute_function(func))
    });
    let ssa = ssa.expect("compute_function accepts a verified function");
    assert_agree("ViaSsa::compute_function", &ssa, "Iterative::compute_function", &it.expect("idem"));
    assert_agree("ViaSsa::compute_function", &ssa, "via_ssa", &via_ssa(&cfg, func).expect("idem"));
    WARM.with(|w| {
        REUSED.with(|c| {
            let chains = &mut *c.borrow_mut();
            w.borrow_mut().0.compute_function_into(func, chains).expect("idem");
            assert_agree("ViaSsa::compute_function", &ssa, "ViaSsa::compute_function_into", chains);
        })
    });
}

fn assert_agree(a: &str, ca: &Chains, b: &str, cb: &Chains) {
    if let Some(&(u, da, db)) = ca.differences(cb).first() {
        let s = ca.sites();
        panic!(
            "{a} and {b} disagree on use {u} ({:?}, var {:?}): {a} says {:?}, {b} says {:?}",
            s.use_at(u),
            s.use_var(u),
            da.iter().map(|&d| s.def(d)).collect::<Vec<_>>(),
            db.iter().map(|&d| cb.sites().def(d)).collect::<Vec<_>>(),
        );
    }
}
