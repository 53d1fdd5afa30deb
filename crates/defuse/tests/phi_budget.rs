//! The SSA method's phi budget (issue 30): semi-pruned placement on a deep
//! loop nest whose levels each define a var would place about depth²/2
//! dead phis; past the budget the method places pruned phis instead, and
//! the chains are those of the iterative baseline either way.

use defuse::{ViaSsa, iterative};
use ir_core::{Module, text};

fn nest(depth: usize) -> Module {
    text::parse(&ir_gen::shapes::nest_of_live_vars(depth)).unwrap_or_else(|d| panic!("{d:?}")).0
}

#[test]
fn a_deep_nest_falls_back_to_pruned_phis_with_the_same_chains() {
    let m = nest(2000);
    let f = m.function(m.function_by_name("nest").unwrap()).unwrap();
    let mut ssa = ViaSsa::new();
    let chains = ssa.compute_function(f).unwrap();
    let fb = ssa.phi_fallback().expect("2,000 levels pass the default budget");
    assert!(fb.operands > fb.budget);
    assert_eq!(chains, iterative(&f.cfg(), f).unwrap());
    // The same context on a small nest: within the budget, no fallback.
    let small = nest(20);
    let f = small.function(small.function_by_name("nest").unwrap()).unwrap();
    let chains = ssa.compute_function(f).unwrap();
    assert_eq!(ssa.phi_fallback(), None);
    assert_eq!(chains, iterative(&f.cfg(), f).unwrap());
    // A budget set by the caller holds across functions.
    ssa.set_phi_budget(Some(10));
    let chains = ssa.compute_function(f).unwrap();
    assert_eq!(ssa.phi_fallback().map(|fb| fb.budget), Some(10));
    assert_eq!(chains, iterative(&f.cfg(), f).unwrap());
}
