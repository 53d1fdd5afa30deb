//! The oracles on generated programs (10,200 modules, three runs each):
//! the dynamic last-writer check (every observed dependence reported, at
//! every call level; loop-carried answers allow every observed distance),
//! the byte-granular static oracle and the naive baseline (both equal to
//! the analysis without symbols), and the exhaustive enumeration of
//! affine loop accesses. The three planted bugs are each caught.

use ir_core::interp::Memory;
use ir_core::{Imm, Mem};
use ir_gen::fuzzing::arguments;
use ir_gen::{GenConfig, Generated, generate};
use memdep::fuzzing::{Bug, Report, check, check_module, plant};

fn ext(name: &str, args: &[Imm], m: &mut Memory) -> Result<(Vec<Imm>, Vec<(bool, Mem, u64)>), String> {
    ir_gen::ext_touch(name, args, m).map(|(r, t)| (r, t.iter().map(|t| (t.write, t.mem, t.index)).collect()))
}

fn base() -> GenConfig {
    GenConfig {
        blocks: 30,
        vars: 10,
        memory: 0.5,
        predication: 0.3,
        functions: 2,
        phis: 0.2,
        irreducible: 0.2,
        unreachable: 0.1,
        extern_calls: 0.04,
        max_trips: 4,
        ..GenConfig::default()
    }
}

fn exact() -> GenConfig {
    GenConfig { exact_memory: true, ..base() }
}

fn mixed() -> GenConfig {
    GenConfig { symbolic: 0.3, tiles: 0.4, functions: 3, ..base() }
}

fn loops() -> GenConfig {
    GenConfig { tiles: 0.6, symbolic: 0.2, max_depth: 4, max_trips: 5, irreducible: 0.1, ..base() }
}

/// Three argument sets per module.
fn runs(g: &Generated, seed: u64) -> Vec<Vec<Imm>> {
    (0..3).map(|k| arguments(g, seed * 7 + k)).collect()
}

fn sum(total: &mut Report, r: &Report) {
    total.functions += r.functions;
    total.oracle_functions += r.oracle_functions;
    total.flow_edges += r.flow_edges;
    total.dynamic.add(&r.dynamic);
    total.affine_pairs += r.affine_pairs;
    total.affine_unknown += r.affine_unknown;
}

fn run(config: &GenConfig, seeds: std::ops::Range<u64>) -> Report {
    let mut total = Report::default();
    for seed in seeds {
        let g = generate(config, seed);
        sum(&mut total, &check(&g.module, g.main, &runs(&g, seed), g.fuel, Some(ext)));
    }
    total
}

/// Modules per configuration: 3 × 3,400 = 10,200.
const SEEDS: u64 = 3400;

#[test]
fn exact_descriptors_equal_the_byte_oracle_and_are_sound() {
    let r = run(&exact(), 0..SEEDS);
    eprintln!("exact: {r:?}");
    assert_eq!(r.oracle_functions, r.functions);
    assert!(r.flow_edges > 30_000 && r.dynamic.flow > 10_000 && r.dynamic.anti > 5_000, "{r:?}");
    assert!(r.dynamic.carried > 5_000 && r.affine_pairs > 20_000, "{r:?}");
}

#[test]
fn symbols_and_tiles_are_sound_and_exact_in_the_affine_cases() {
    let r = run(&mixed(), 0..SEEDS);
    eprintln!("mixed: {r:?}");
    assert!(r.dynamic.flow > 10_000 && r.dynamic.output > 10_000 && r.dynamic.carried > 3_000, "{r:?}");
    assert!(r.affine_pairs > 5_000, "{r:?}");
}

#[test]
fn deep_loops_of_tiles_are_sound() {
    let r = run(&loops(), 0..SEEDS);
    eprintln!("loops: {r:?}");
    assert!(r.dynamic.flow > 10_000 && r.dynamic.carried > 3_000 && r.affine_pairs > 5_000, "{r:?}");
}

/// Plants `bug`, checks modules until the dynamic oracle and the static
/// comparisons have each flagged one, and removes it; nothing is flagged
/// without it on the same modules.
fn caught(bug: Bug, config: &GenConfig) {
    let (mut dynamic, mut statics, mut tried) = (0, 0, 0);
    for seed in 0..400 {
        let g = generate(config, seed);
        let runs = runs(&g, seed);
        plant(Some(bug));
        let r = check_module(&g.module, g.main, &runs, g.fuel, Some(ext));
        plant(None);
        tried += 1;
        dynamic += r.dynamic.failures.len();
        statics += r.failures.len() - r.dynamic.failures.len();
        if dynamic > 0 && statics > 0 {
            break;
        }
    }
    assert!(dynamic > 0, "{bug:?}: the dynamic oracle missed it over {tried} modules");
    assert!(statics > 0, "{bug:?}: the static oracles missed it over {tried} modules");
    for seed in 0..tried {
        let g = generate(config, seed);
        check(&g.module, g.main, &runs(&g, seed), g.fuel, Some(ext));
    }
}

#[test]
fn a_planted_inexact_kill_is_caught() {
    caught(Bug::InexactKills, &base());
}

#[test]
fn a_planted_guarded_kill_is_caught() {
    caught(Bug::GuardedKills, &exact());
}

#[test]
fn a_planted_join_that_unions_kills_is_caught() {
    caught(Bug::JoinIntersects, &exact());
}
