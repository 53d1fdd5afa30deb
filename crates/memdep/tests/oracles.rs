//! The oracles on generated programs (10,200 modules, three runs each):
//! the dynamic last-writer check (every observed dependence reported, at
//! every call level; loop-carried answers allow every observed distance),
//! the byte-granular static oracle and the naive baseline (both equal to
//! the analysis without symbols), and the exhaustive enumeration of
//! affine loop accesses. The three planted bugs are each caught.

use ir_core::Imm;
use ir_gen::fuzzing::arguments;
use ir_gen::{GenConfig, Generated, generate};
use memdep::fuzzing::{Bug, Report, check, check_module, configs, ext_touch as ext, with_bug};

fn exact() -> GenConfig {
    configs()[0].clone()
}

fn mixed() -> GenConfig {
    configs()[1].clone()
}

fn loops() -> GenConfig {
    configs()[2].clone()
}

/// The configurations' common base, without exact descriptors.
fn base() -> GenConfig {
    GenConfig { exact_memory: false, ..exact() }
}

/// Three argument sets per module.
fn runs(g: &Generated, seed: u64) -> Vec<Vec<Imm>> {
    (0..3).map(|k| arguments(g, seed * 7 + k)).collect()
}

fn run(config: &GenConfig, seeds: std::ops::Range<u64>) -> Report {
    let mut total = Report::default();
    for seed in seeds {
        let g = generate(config, seed);
        total.add(&check(&g.module, g.main, &runs(&g, seed), g.fuel, Some(ext)));
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
        let r = with_bug(bug, || check_module(&g.module, g.main, &runs, g.fuel, Some(ext)));
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

/// Flow dependences do not depend on [`memdep::Options::anti_and_output`]
/// (what `svfg-pre` relies on when it asks for flow only): the same sites
/// and, per read, the same reaching writes, with and without.
#[test]
fn flow_dependences_are_the_same_without_anti_and_output() {
    let flow_only = memdep::Options { anti_and_output: false, ..memdep::Options::default() };
    let (mut full, mut lean) = (memdep::MemDep::new(), memdep::MemDep::with_options(flow_only));
    let mut reads = 0usize;
    for config in [exact(), mixed(), loops()] {
        for seed in 0..300 {
            let g = generate(&config, seed);
            for (_, func) in g.module.functions() {
                let a = full.compute_function(&g.module, func, None).expect("a generated function");
                let b = lean.compute_function(&g.module, func, None).expect("a generated function");
                assert!(a.has_anti_output() && !b.has_anti_output());
                assert_eq!(a.sites().num_uses(), b.sites().num_uses(), "seed {seed}");
                for u in 0..a.sites().num_uses() as memdep::UseId {
                    assert_eq!(a.defs_of(u), b.defs_of(u), "seed {seed}, {}: read {u:?}", func.name());
                    reads += 1;
                }
            }
        }
    }
    assert!(reads > 10_000, "{reads} reads compared");
}
