//! The agreement checks can fail: with a folding bug planted in the SSA
//! method (`fuzzing::Bug`: a guarded definition that kills, a phi that
//! keeps only its first operand), `via_ssa` disagrees with the iterative
//! baseline on generated programs, and agrees without it.

use defuse::fuzzing::{Bug, with_bug};
use defuse::{iterative, via_ssa};
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
