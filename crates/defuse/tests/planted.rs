//! The agreement checks can fail: with a folding bug planted in the SSA
//! method (`fuzzing::Bug`: a guarded definition that kills, a phi that
//! keeps only its first operand; a pruned placement, past the phi budget,
//! that loses a phi), `via_ssa` disagrees with the iterative baseline on
//! generated programs, and agrees without it.

use defuse::fuzzing::{Bug, with_bug};
use defuse::{ViaSsa, iterative, via_ssa};
use ir_gen::{GenConfig, generate};

/// Functions (of 60 generated modules) on which `via_ssa` disagrees with
/// the iterative baseline.
fn disagreements() -> usize {
    let config = GenConfig { blocks: 40, vars: 12, predication: 0.3, ..GenConfig::default() };
    let mut n = 0;
    for seed in 0..60 {
        let g = generate(&config, seed);
        n += g
            .module
            .functions()
            .filter(|(_, f)| via_ssa(&f.cfg(), *f).unwrap() != iterative(&f.cfg(), *f).unwrap())
            .count();
    }
    n
}

#[test]
fn planted_folding_bugs_are_caught() {
    assert_eq!(disagreements(), 0, "the methods must agree without a bug");
    assert!(with_bug(Bug::GuardKills, disagreements) > 0, "dropping may-leave links went unnoticed");
    assert!(with_bug(Bug::FirstOperandOnly, disagreements) > 0, "dropping phi operands went unnoticed");
    assert_eq!(disagreements(), 0, "the bug is gone after its scope");
}

/// Functions (of 60 generated modules) on which the SSA method with a phi
/// budget of 0 (always the pruned fallback) disagrees with the iterative
/// baseline, and how many of them fell back at all.
fn pruned_disagreements() -> (usize, usize) {
    let config = GenConfig { blocks: 40, vars: 12, predication: 0.3, ..GenConfig::default() };
    let mut ssa = ViaSsa::new();
    ssa.set_phi_budget(Some(0));
    let (mut wrong, mut fell_back) = (0, 0);
    for seed in 0..60 {
        let g = generate(&config, seed);
        for (_, f) in g.module.functions() {
            let chains = ssa.compute(&f.cfg(), f).unwrap();
            fell_back += usize::from(ssa.phi_fallback().is_some());
            wrong += usize::from(chains != iterative(&f.cfg(), f).unwrap());
        }
    }
    (wrong, fell_back)
}

#[test]
fn planted_pruned_placement_bug_is_caught() {
    let (wrong, fell_back) = pruned_disagreements();
    assert_eq!(wrong, 0, "pruned phis must give the same chains");
    assert!(fell_back > 0, "a budget of 0 must make placement fall back");
    assert!(with_bug(Bug::PrunedDropsPhi, pruned_disagreements).0 > 0, "a lost pruned phi went unnoticed");
}
