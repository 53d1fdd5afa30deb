//! The symbolic checker can fail: with spill stores planted away
//! (`fuzzing::Bug::DropStores`, a later reload reads a slot that never got
//! the value), it rejects most allocations of generated programs at four
//! registers, and it rejects none without the bug.

use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::{Bug, with_bug};
use regalloc_pebble::{GlobalStep, Options, allocate, check, lower_phis};

/// Allocates generated programs at four registers and counts the
/// allocations the checker rejects, of those allocated.
fn rejected() -> (usize, usize) {
    let (mut bad, mut total) = (0, 0);
    for seed in 0..60 {
        let cfg = GenConfig { blocks: 16, vars: 10, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let mut f = g.module.function(g.main).expect("main").clone();
        lower_phis(&mut f);
        let cfg = f.cfg();
        let o = Options { global: GlobalStep::Off, carry: false, ..Options::with_regs(4) };
        let Ok(a) = allocate(&cfg, &f, &o) else { continue };
        total += 1;
        bad += usize::from(check(&cfg, &f, &a).is_err());
    }
    (bad, total)
}

#[test]
fn the_checker_catches_a_planted_bug() {
    assert_eq!(rejected().0, 0, "a correct allocator is never rejected");
    let (bad, total) = with_bug(Bug::DropStores, rejected);
    assert!(total > 40 && bad * 2 > total, "the planted bug is caught in {bad} of {total} allocations");
    assert_eq!(rejected().0, 0, "the bug is gone after its scope");
}
