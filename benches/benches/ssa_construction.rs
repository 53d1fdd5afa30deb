//! SSA construction: `ssa::construct` against Cranelift's SSA builder
//! (`cranelift-frontend`), on the `du_chains` benchmark's programs
//! (`cargo bench -p benches --bench ssa_construction`).
//!
//! The two do not start from the same place: `cranelift-frontend` builds
//! Cranelift IR and SSA form together from a stream of `def_var` /
//! `use_var` calls, while `ssa::construct` converts an already-built
//! non-SSA function. So both are timed from the same starting point, the
//! generated non-SSA function read in layout order
//! (`benches::clif_ssa`), each building its own IR on the way:
//! - `cranelift-seal-asap`: `ClifReplay::build` with `Sealing::Asap`, each
//!   block sealed as soon as its last predecessor is filled (the schedule
//!   is computed outside the timed loop), one `FunctionBuilderContext`
//!   reused across iterations as Cranelift recommends;
//! - `cranelift-seal-end`: the same with one `seal_all_blocks` at the end;
//! - `keel-build-construct`: `keel_replay` (a copy through `ir-core`'s
//!   `FunctionBuilder`) then `ssa::construct` with the default options
//!   (semi-pruned, trivial and dead phis removed): the pairing with the
//!   Cranelift lines;
//! - `keel-construct`: `ssa::construct` alone, on a clone of the prebuilt
//!   non-SSA function (cloned outside the timed part);
//! - `keel-build`: `keel_replay` alone, to show what building costs.
//!
//! Every timed call returns the function it built, which is dropped outside
//! the timed part (`iter_batched`, `BatchSize::LargeInput`). Before timing
//! a cell, the Keel copy must print exactly like the source, its SSA form
//! must pass `ssa::verify`, and both Cranelift functions must pass
//! Cranelift's verifier (the benchmark panics otherwise); a line on stderr
//! gives the phis each produced and a first (cold) time per peer.
//!
//! Grid: shapes `structured` and `irreducible` x blocks 10^3..10^5 x vars
//! 64, 256, 1024 x predication 0% and 10%, seed 1. Ids: group
//! `ssa-construction-SHAPE`, function = peer, parameter
//! `BLOCKSxVARSpPERCENT`; filter with e.g. `-- 'ssa-construction-structured/.*/10000x1024p10'`.

use benches::clif_ssa::{ClifReplay, Sealing, clif_phis, clif_verify, keel_replay};
use benches::programs::{Profile, Shape, Spec};
use cranelift_frontend::FunctionBuilderContext;
use criterion::{BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ir_core::Module;
use ir_core::text::print_module;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Blocks of the programs.
const BLOCKS: [usize; 3] = [1_000, 10_000, 100_000];

/// Vars of the programs.
const VARS: [usize; 3] = [64, 256, 1024];

/// Predication rates, in percent.
const PREDICATION: [u32; 2] = [0, 10];

/// Times `f` once.
fn once<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

fn ssa_construction(c: &mut Criterion) {
    let options = ssa::Options::default();
    for shape in [Shape::Structured, Shape::Irreducible] {
        let mut group = c.benchmark_group(format!("ssa-construction-{}", shape.name()));
        for blocks in BLOCKS {
            for vars in VARS {
                for predication in PREDICATION {
                    let spec = Spec { shape, blocks, vars, predication };
                    let src = spec.build();
                    let profile = Profile::of(&src);
                    let what = format!("{} {}", shape.name(), spec.id());
                    let replay = ClifReplay::new(&src);
                    let mut ctx = FunctionBuilderContext::new();

                    // Check both sides (and take a first timing) before measuring.
                    let (copy, t_build) = once(|| keel_replay(&src));
                    let mut module = Module::new();
                    module.push_function(src.clone()).expect("a fresh module");
                    let text = print_module(&module);
                    let mut copied = Module::new();
                    let f = copied.push_function(copy).expect("a fresh module");
                    assert!(print_module(&copied) == text, "{what}: the Keel replay is not an exact copy");
                    let (stats, t_keel) = once(|| {
                        let mut g = keel_replay(&src);
                        let s = ssa::construct(&mut g, &options).expect("a valid program");
                        *copied.function_mut(f).expect("pushed above") = g;
                        s
                    });
                    if let Err(e) = ssa::verify(&copied, f) {
                        panic!("{what}: ssa::verify rejects Keel's SSA form: {e}");
                    }
                    let (asap, t_asap) = once(|| replay.build(&src, &mut ctx, Sealing::Asap));
                    let (end, t_end) = once(|| replay.build(&src, &mut ctx, Sealing::AtEnd));
                    for (name, func) in [("seal-asap", &asap), ("seal-end", &end)] {
                        if let Err(e) = clif_verify(func) {
                            panic!("{what}: Cranelift's verifier rejects the {name} function: {e}");
                        }
                    }
                    let keel_phis = stats.phis_placed - stats.phis_trivial - stats.phis_dead;
                    eprintln!(
                        "{what}: {profile}; Keel: copy exact, SSA verifies, {keel_phis} phis ({} placed, {} trivial, \
                         {} dead), {} versions, {} undefs; Cranelift: both verify, {} block params (seal-asap), {} \
                         (seal-end); first runs: keel-build {t_build:?}, keel-build-construct {t_keel:?}, \
                         cranelift-seal-asap {t_asap:?}, cranelift-seal-end {t_end:?}",
                        stats.phis_placed,
                        stats.phis_trivial,
                        stats.phis_dead,
                        stats.versions,
                        stats.undefs,
                        clif_phis(&asap),
                        clif_phis(&end),
                    );
                    drop((asap, end, module));
                    let prebuilt = keel_replay(&src);

                    group.throughput(Throughput::Elements(profile.blocks as u64));
                    if blocks >= 10_000 {
                        group
                            .sample_size(10)
                            .sampling_mode(SamplingMode::Flat)
                            .measurement_time(Duration::from_secs(3));
                    } else {
                        group
                            .sample_size(20)
                            .sampling_mode(SamplingMode::Auto)
                            .measurement_time(Duration::from_secs(2));
                    }
                    group.warm_up_time(Duration::from_secs(1));
                    let id = spec.id();
                    let large = BatchSize::LargeInput;
                    group.bench_function(BenchmarkId::new("cranelift-seal-asap", &id), |b| {
                        b.iter_batched(|| (), |()| replay.build(black_box(&src), &mut ctx, Sealing::Asap), large)
                    });
                    group.bench_function(BenchmarkId::new("cranelift-seal-end", &id), |b| {
                        b.iter_batched(|| (), |()| replay.build(black_box(&src), &mut ctx, Sealing::AtEnd), large)
                    });
                    group.bench_function(BenchmarkId::new("keel-build-construct", &id), |b| {
                        b.iter_batched(
                            || (),
                            |()| {
                                let mut g = keel_replay(black_box(&src));
                                ssa::construct(&mut g, &options).expect("a valid program");
                                g
                            },
                            large,
                        )
                    });
                    group.bench_function(BenchmarkId::new("keel-construct", &id), |b| {
                        b.iter_batched(
                            || prebuilt.clone(),
                            |mut g| {
                                ssa::construct(black_box(&mut g), &options).expect("a valid program");
                                g
                            },
                            large,
                        )
                    });
                    group.bench_function(BenchmarkId::new("keel-build", &id), |b| {
                        b.iter_batched(|| (), |()| keel_replay(black_box(&src)), large)
                    });
                }
            }
        }
        group.finish();
    }
}

criterion_group!(benches, ssa_construction);
criterion_main!(benches);
