//! The symbolic checker can fail: with spill stores planted away
//! (`fuzzing::Bug::DropStores`, a later reload reads a slot that never got
//! the value), it rejects most allocations of generated programs at four
//! registers, and it rejects none without the bug. With spill slots shared
//! across a conflict (`Bug::ShareConflictingSlots`: a copy group whose
//! vars are live at once still gets one slot), it rejects many (94 of the
//! 194 allocations with phis at four registers when written).

use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::{Bug, with_bug};
use regalloc_pebble::{GlobalStep, Options, allocate, check, lower_phis};

/// Allocates `seeds` generated programs of `config` (phis lowered to
/// copies) with `opts` and counts the allocations the checker rejects,
/// of those allocated.
fn rejected_of(config: &GenConfig, seeds: u64, opts: &Options) -> (usize, usize) {
    let (mut bad, mut total) = (0, 0);
    for seed in 0..seeds {
        let g = generate(config, seed);
        let mut f = g.module.function(g.main).expect("main").clone();
        lower_phis(&mut f);
        let cfg = f.cfg();
        let Ok(a) = allocate(&cfg, &f, opts) else { continue };
        total += 1;
        bad += usize::from(check(&cfg, &f, &a).is_err());
    }
    (bad, total)
}

/// 60 programs at four registers with the block games, no global step.
fn rejected() -> (usize, usize) {
    let config = GenConfig { blocks: 16, vars: 10, ..GenConfig::default() };
    rejected_of(&config, 60, &Options { global: GlobalStep::Off, carry: false, ..Options::with_regs(4) })
}

#[test]
fn the_checker_catches_a_planted_bug() {
    assert_eq!(rejected().0, 0, "a correct allocator is never rejected");
    let (bad, total) = with_bug(Bug::DropStores, rejected);
    assert!(total > 40 && bad * 2 > total, "the planted bug is caught in {bad} of {total} allocations");
    assert_eq!(rejected().0, 0, "the bug is gone after its scope");
}

/// 200 programs with phis (lowered to copies, the copy groups that share
/// slots) at four registers with the whole-function sweep.
fn rejected_with_phis() -> (usize, usize) {
    let config = GenConfig { blocks: 16, vars: 10, phis: 0.5, ..GenConfig::default() };
    rejected_of(&config, 200, &Options::with_regs(4))
}

#[test]
fn the_checker_catches_slots_shared_across_a_conflict() {
    assert_eq!(rejected_with_phis().0, 0, "a correct allocator is never rejected");
    let (bad, total) = with_bug(Bug::ShareConflictingSlots, rejected_with_phis);
    assert!(total > 150 && bad * 4 > total, "the planted bug is caught in {bad} of {total} allocations");
}
