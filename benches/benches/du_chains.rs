//! DU/UD chains through SSA against iterative reaching definitions
//! (`cargo bench -p benches --bench du_chains`).
//!
//! Peers, both on a prebuilt `ir-core` function (`benches::programs`), each
//! through its reusable context, warm (one context per peer, kept across
//! iterations, as a compiler analysing many functions would, and as
//! `keel du` does per thread):
//! - `via-ssa`: `defuse::ViaSsa::compute_function` (dominators, semi-pruned phi
//!   placement, one renaming walk recording versions, folding phis and
//!   guarded links onto real definitions);
//! - `iterative`: `defuse::Iterative::compute_function`, the baseline (reaching
//!   definitions over dense bit vectors, definitions numbered by var, a
//!   worklist in reverse postorder). Warm, its bit matrices are neither
//!   allocated nor page-faulted again: a cold run pays that too, and at
//!   10^4 blocks it is a third to a half of its time, so timing cold runs
//!   would flatter the SSA method.
//!
//! Grid: shapes `structured` and `irreducible` x blocks 10^2..10^5 x vars
//! 16..4096 x predication 0% and 10%, seed 1; plus `chain`, straight-line
//! blocks with early exits (`max_depth = 0`), at 10^4 and 10^5 blocks.
//! Before timing a cell, the two peers' chains are checked equal (the
//! benchmark panics otherwise) and a line on stderr gives the program's
//! profile, the number of chain edges and each peer's phase times: the
//! checking run's (cold, a fresh context) and the best of three warm runs
//! when one takes under a second.
//!
//! The baseline is skipped, with a line on stderr saying why, where its
//! four bit matrices (gen, kill, in, out: blocks x definitions bits each)
//! would need more than `KEEL_DU_BASELINE_GB` gigabytes (default 2), or
//! where its checking run takes longer than `KEEL_DU_BASELINE_SECS` seconds
//! (default 3). Every 10^5-block cell needs 5-7 GB and 5-10 s per run, so
//! by default none is timed, and the `via-ssa` chains of a cell whose
//! baseline is skipped for memory are not checked (the stderr line says
//! so). `KEEL_DU_BASELINE_GB=8 KEEL_DU_BASELINE_SECS=30` checks and times
//! them too: about 7 s more per 10^5-block cell for the check, and 1.5
//! minutes per timed cell (use a filter).
//!
//! Ids: group `du-chains-SHAPE`, function `via-ssa` or `iterative`,
//! parameter `BLOCKSxVARSpPERCENT` (e.g. `10000x1024p10`); results in
//! `target/criterion/du-chains-SHAPE/PEER/BLOCKSxVARSpPERCENT/new/estimates.json`.
//! Filters are regexes on `group/function/parameter`, for example
//! `-- 'du-chains-structured/.*/10000x1024'` (both predications) or
//! `-- 'du-chains-chain/via-ssa/'`.

use benches::programs::{Profile, Shape, Spec, human_bytes, is_chain_with_exits};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use defuse::{Chains, Iterative, ViaSsa};
use std::hint::black_box;
use std::time::Duration;

/// Blocks of the grid's programs.
const BLOCKS: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// Vars of the grid's programs.
const VARS: [usize; 5] = [16, 64, 256, 1024, 4096];

/// Predication rates of the grid, in percent.
const PREDICATION: [u32; 2] = [0, 10];

/// The chain group's cells: (blocks, vars).
const CHAINS: [(usize, usize); 4] = [(10_000, 64), (10_000, 1024), (100_000, 64), (100_000, 1024)];

/// The default memory limit of the baseline, in gigabytes.
const DEFAULT_BASELINE_GB: f64 = 2.0;

/// The default time limit of the baseline's checking run, in seconds.
const DEFAULT_BASELINE_SECS: f64 = 3.0;

/// The baseline's limits: memory in bytes (`KEEL_DU_BASELINE_GB`, default
/// 2) and the time of its checking run (`KEEL_DU_BASELINE_SECS`, default 3).
fn baseline_limits() -> (u64, Duration) {
    let var = |name: &str, default: f64| {
        std::env::var(name).ok().and_then(|s| s.parse::<f64>().ok()).filter(|x| *x >= 0.0).unwrap_or(default)
    };
    let gb = var("KEEL_DU_BASELINE_GB", DEFAULT_BASELINE_GB);
    let secs = var("KEEL_DU_BASELINE_SECS", DEFAULT_BASELINE_SECS);
    ((gb * 1e9) as u64, Duration::from_secs_f64(secs))
}

/// The fastest of `first` (the checking run's phases) and, when that run
/// took under a second, two more runs of `run`.
fn best_phases<P: Copy>(first: P, total: impl Fn(&P) -> Duration, mut run: impl FnMut() -> P) -> P {
    let mut best = first;
    if total(&first) < Duration::from_secs(1) {
        for _ in 0..2 {
            let p = run();
            if total(&p) < total(&best) {
                best = p;
            }
        }
    }
    best
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Checks and registers one cell.
fn cell(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    spec: Spec,
    limits: (u64, Duration),
) {
    let (limit, skip_above) = limits;
    let func = spec.build();
    let profile = Profile::of(&func);
    if spec.shape == Shape::Chain {
        assert!(is_chain_with_exits(&func), "{}: the chain program is not a chain", spec.id());
    }
    let what = format!("{} {}", spec.shape.name(), spec.id());

    // Check (and take a first, cold timing) before measuring.
    let (ours, first_ours): (Chains, _) = ViaSsa::new().compute_function_timed(&func).expect("a valid program");
    let bytes = profile.bitvector_bytes();
    let baseline = if bytes > limit {
        eprintln!(
            "{what}: SKIPPED iterative: its bit vectors need {} (4 x {} blocks x {} defs bits), above the \
             {} limit (KEEL_DU_BASELINE_GB); via-ssa NOT CHECKED against it",
            human_bytes(bytes),
            profile.blocks,
            profile.defs,
            human_bytes(limit)
        );
        None
    } else {
        let (theirs, first_theirs) = Iterative::new().compute_function_timed(&func).expect("a valid program");
        if ours != theirs {
            let diff = ours.differences(&theirs);
            panic!("{what}: via_ssa and iterative differ on {} uses; first: {:?}", diff.len(), diff.first());
        }
        let t = first_theirs.total();
        if t > skip_above {
            eprintln!(
                "{what}: SKIPPED iterative: {t:?} per run (> {skip_above:?}, KEEL_DU_BASELINE_SECS); chains agree"
            );
            None
        } else {
            Some(first_theirs)
        }
    };
    let mut ours_ctx = ViaSsa::new();
    let mut theirs_ctx = Iterative::new();
    let p_ours = best_phases(
        ours_ctx.compute_function_timed(&func).unwrap().1,
        |p| p.total(),
        || ours_ctx.compute_function_timed(&func).unwrap().1,
    );
    let phases_theirs = baseline.map(|first| {
        let p = best_phases(
            theirs_ctx.compute_function_timed(&func).unwrap().1,
            |p| p.total(),
            || theirs_ctx.compute_function_timed(&func).unwrap().1,
        );
        format!(
            "; iterative cold {}, warm best {} (setup {}, solve {}, extract {})",
            ms(first.total()),
            ms(p.total()),
            ms(p.setup),
            ms(p.solve),
            ms(p.extract)
        )
    });
    eprintln!(
        "{what}: {profile}; {} chain edges{}; via-ssa cold {}, warm best {} (dominators {}, walk {}, frontiers {}, \
         placement {}, renaming {}, folding {}){}",
        ours.num_edges(),
        if baseline.is_some() { ", chains agree" } else { "" },
        ms(first_ours.total()),
        ms(p_ours.total()),
        ms(p_ours.dominators),
        ms(p_ours.walk),
        ms(p_ours.frontiers),
        ms(p_ours.placement),
        ms(p_ours.renaming),
        ms(p_ours.folding),
        phases_theirs.unwrap_or_default()
    );
    drop(ours);

    group.throughput(Throughput::Elements(profile.blocks as u64));
    if spec.blocks >= 10_000 {
        group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(3));
    } else {
        group.sample_size(20).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(2));
    }
    group.warm_up_time(Duration::from_secs(1));
    let id = spec.id();
    group.bench_function(BenchmarkId::new("via-ssa", &id), |b| b.iter(|| ours_ctx.compute_function(black_box(&func))));
    if baseline.is_some() {
        group.bench_function(BenchmarkId::new("iterative", &id), |b| {
            b.iter(|| theirs_ctx.compute_function(black_box(&func)))
        });
    }
}

fn du_chains(c: &mut Criterion) {
    let limits = baseline_limits();
    for shape in [Shape::Structured, Shape::Irreducible] {
        let mut group = c.benchmark_group(format!("du-chains-{}", shape.name()));
        for blocks in BLOCKS {
            for vars in VARS {
                for predication in PREDICATION {
                    cell(&mut group, Spec { shape, blocks, vars, predication }, limits);
                }
            }
        }
        group.finish();
    }
    let mut group = c.benchmark_group("du-chains-chain");
    for (blocks, vars) in CHAINS {
        cell(&mut group, Spec { shape: Shape::Chain, blocks, vars, predication: 0 }, limits);
    }
    group.finish();
}

criterion_group!(benches, du_chains);
criterion_main!(benches);
