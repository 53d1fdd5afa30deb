//! Memory dependence (`memdep`) against its baselines in the same run
//! (`cargo bench -p benches --bench memdep`).
//!
//! Peers, each through a reusable context kept across iterations (as a
//! compiler analysing many functions would), on a prebuilt
//! `memdep::KeelCode` (the Keel adapter's SSA-derived offsets are built
//! outside the timing; `memdep-function` times them too):
//! - `memdep`: `memdep::MemDep::compute` with default options (flow, anti
//!   and output dependences, UD and the DU transpose; symbolic and affine
//!   offsets);
//! - `memdep-function`: `MemDep::compute_function` (the adapter included);
//! - `memdep-flow`: `MemDep::compute` with `anti_and_output: false`: the
//!   UD chains and their DU transpose only (what the first memdep issue's
//!   10 ms target named), to show what anti and output dependences cost;
//! - `naive`: `memdep::Naive::compute`, the baseline the issue names:
//!   from every use (and every definition, for anti and output), a
//!   backward search along the reaching paths checking every definition
//!   met against the element intervals still uncovered (interval sets,
//!   tuned: one visit per block and interval set);
//! - `byte-oracle`: `memdep::fuzzing::byte_oracle`, element-granular
//!   reaching definitions, one element at a time (the static oracle).
//!
//! Before timing a cell, `naive` is checked equal to `MemDep` with
//! `symbolic: false` (the same question: affine offsets read as unknown)
//! and `byte-oracle` too where it runs; the benchmark panics otherwise. A
//! line on stderr per cell gives the function's profile (instructions,
//! blocks, accesses, use and definition sites) and the edge counts of each
//! form ([`memdep::EdgeCounts`]: pairs written out, grouped, range form).
//!
//! The baselines are skipped, with a line on stderr saying so, on
//! functions of more than `KEEL_MEMDEP_BASELINE_ACCESSES` accesses
//! (default 6,000; the naive search is quadratic), when their checking run
//! takes longer than `KEEL_MEMDEP_BASELINE_SECS` seconds (default 2), and
//! for the byte oracle on modules whose objects hold more than 2^16
//! elements (it searches each element of each site on its own, and an
//! unknown offset covers the whole object).
//!
//! Groups: `memdep-kernel` (one tensor kernel function of 10^3, 10^4 and
//! 10^5 tensor instructions, `benches::tensor::kernel`, seed 1; the
//! parameter is the instruction count; `200-dram2048` is a kernel of 200
//! instructions with DRAM objects of 2,048 elements, where the byte
//! oracle fits) and `memdep-corpus` (the 20
//! largest functions of the WebAssembly corpus by instruction count,
//! with call summaries of their module; parameter `RANK-MODULE-FUNC`;
//! skipped with a note when the corpus is absent: `scripts/fetch-corpus`).
//! Results in `target/criterion/GROUP/PEER/PARAM/new/estimates.json`.

use benches::tensor;
use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use ir_core::{Function, Module};
use memdep::{KeelCode, MemDep, MemDeps, Naive, Options, Summaries};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Tensor instructions of the kernel cells.
const KERNEL: [usize; 3] = [1_000, 10_000, 100_000];

/// The kernel cell the byte oracle runs on: (tensor instructions, DRAM
/// objects' elements). At (1,000, 4,096) it takes 14 s per run.
const ORACLE_CELL: (usize, u64) = (200, 2048);

/// The baselines run only on functions with at most this many accesses
/// (`KEEL_MEMDEP_BASELINE_ACCESSES`, default 6,000): the naive search is
/// quadratic (about 0.2 s at 2,200 accesses, 230 s at 22,000), so its
/// checking run is skipped where it could not be timed anyway.
fn baseline_accesses() -> usize {
    std::env::var("KEEL_MEMDEP_BASELINE_ACCESSES").ok().and_then(|s| s.parse().ok()).unwrap_or(6_000)
}

/// The byte oracle runs only on modules whose objects hold at most this
/// many elements in all: it searches every element of every site on its
/// own, and an access with an unknown offset covers its whole object.
const ORACLE_ELEMENTS: u64 = 1 << 16;

/// Corpus functions timed.
const LARGEST: usize = 20;

/// The corpus modules (`docs/corpus.md`).
const MODULES: [&str; 4] = ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"];

/// The baselines' time limit for their checking run
/// (`KEEL_MEMDEP_BASELINE_SECS`, default 2).
fn baseline_limit() -> Duration {
    let secs = std::env::var("KEEL_MEMDEP_BASELINE_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|x| *x >= 0.0)
        .unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"))
}

/// Memory accesses (descriptors) of `f`.
fn accesses(m: &Module, f: &Function) -> usize {
    f.blocks().flat_map(|b| f.block_insts(b)).map(|i| f.accesses(i, m).len()).sum()
}

/// Times one run of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// Panics unless `a` and `b` give the same dependences.
fn assert_same(id: &str, what: &str, a: &MemDeps, b: &MemDeps) {
    let d = a.differences(b);
    assert!(d.is_empty(), "{id}: {what} differs on {} sites, first {:?}", d.len(), d[0]);
}

/// Benchmarks one function: checks the peers, prints its profile, times
/// the peers that fit.
fn cell(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    m: &Module,
    f: &Function,
) {
    let summaries = Summaries::of(m);
    let code = KeelCode::new(m, f, Some(&summaries));
    let cfg = f.cfg();
    let limit = baseline_limit();
    let (ours, t_ours) = timed(|| MemDep::new().compute(&cfg, &code).expect("a verified function"));
    let plain_options = Options { symbolic: false, ..Options::default() };
    let plain = MemDep::with_options(plain_options).compute(&cfg, &code).expect("a verified function");
    let n_accesses = accesses(m, f);
    let fits = n_accesses <= baseline_accesses();
    let with_oracle = fits && m.mems().map(|(_, mem)| mem.len).sum::<u64>() <= ORACLE_ELEMENTS;
    let (naive, t_naive) = if fits {
        timed(|| Naive::new().compute(&cfg, &code).expect("a verified function"))
    } else {
        (plain.clone(), Duration::ZERO)
    };
    assert_same(id, "naive vs memdep without symbols", &naive, &plain);
    let run_naive = fits && t_naive <= limit;
    let (oracle, t_oracle) = if run_naive && with_oracle {
        timed(|| memdep::fuzzing::byte_oracle(&cfg, &code).expect("a verified function"))
    } else {
        (plain.clone(), Duration::ZERO)
    };
    assert_same(id, "byte oracle vs memdep without symbols", &oracle, &plain);
    let run_oracle = run_naive && with_oracle && t_oracle <= limit;
    let c = ours.counts();
    let insts: usize = f.blocks().map(|b| f.block_insts(b).count()).sum();
    eprintln!(
        "{id}: {insts} insts, {} blocks, {} accesses, {} uses, {} defs; flow edges: {} pairs, {} distinct sets, \
         {} grouped, {} range form; checking runs: memdep {t_ours:.2?}, naive {}, byte oracle {}",
        f.num_blocks(),
        n_accesses,
        c.uses,
        c.defs,
        c.pairs,
        c.distinct_sets,
        c.grouped,
        c.ranges,
        if !fits {
            "not run (too many accesses)".to_string()
        } else if run_naive {
            format!("{t_naive:.2?}")
        } else {
            format!("{t_naive:.2?} (over the limit: not timed)")
        },
        if !run_naive || !with_oracle {
            "not run".to_string()
        } else if run_oracle {
            format!("{t_oracle:.2?}")
        } else {
            format!("{t_oracle:.2?} (over the limit: not timed)")
        },
    );
    let mut ctx = MemDep::new();
    group.bench_function(BenchmarkId::new("memdep", id), |b| {
        b.iter(|| ctx.compute(black_box(&cfg), black_box(&code)).map_or(0, |d| d.sites().num_uses()))
    });
    group.bench_function(BenchmarkId::new("memdep-function", id), |b| {
        b.iter(|| {
            ctx.compute_function(black_box(m), black_box(f), Some(&summaries)).map_or(0, |d| d.sites().num_uses())
        })
    });
    let mut flow_only = MemDep::with_options(Options { anti_and_output: false, ..Options::default() });
    group.bench_function(BenchmarkId::new("memdep-flow", id), |b| {
        b.iter(|| flow_only.compute(black_box(&cfg), black_box(&code)).map_or(0, |d| d.sites().num_uses()))
    });
    if run_naive {
        let mut base = Naive::new();
        group.bench_function(BenchmarkId::new("naive", id), |b| {
            b.iter(|| base.compute(black_box(&cfg), black_box(&code)).map_or(0, |d| d.sites().num_uses()))
        });
    }
    if run_oracle {
        group.bench_function(BenchmarkId::new("byte-oracle", id), |b| {
            b.iter(|| {
                memdep::fuzzing::byte_oracle(black_box(&cfg), black_box(&code)).map_or(0, |d| d.sites().num_uses())
            })
        });
    }
}

fn memdep_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("memdep-kernel");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    let (n, dram) = ORACLE_CELL;
    let small = (format!("{n}-dram{dram}"), tensor::kernel_sized(n, 1, dram));
    for (id, m) in KERNEL.iter().map(|&n| (n.to_string(), tensor::kernel(n, 1))).chain([small]) {
        let (_, f) = m.functions().next().expect("the kernel has a function");
        cell(&mut group, &id, &m, f);
    }
    group.finish();

    let dir = corpus_dir();
    let mut modules: Vec<(String, Module)> = Vec::new();
    for name in MODULES {
        let path = dir.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("memdep: SKIPPED {name}: not found at {} (run scripts/fetch-corpus)", path.display());
            continue;
        };
        let imported = wasm_import::import(&bytes, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: the corpus module does not import: {e}"));
        modules.push((name.trim_end_matches(".wasm").to_string(), imported.module));
    }
    let insts = |f: &Function| f.blocks().map(|b| f.block_insts(b).count()).sum::<usize>();
    let mut all: Vec<(&str, &Module, &Function)> =
        modules.iter().flat_map(|(stem, m)| m.functions().map(move |(_, f)| (stem.as_str(), m, f))).collect();
    all.sort_by(|a, b| insts(b.2).cmp(&insts(a.2)).then(a.0.cmp(b.0)).then(a.2.name().cmp(b.2.name())));
    let mut group = c.benchmark_group("memdep-corpus");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (rank, (stem, m, f)) in all.iter().take(LARGEST).enumerate() {
        cell(&mut group, &format!("{:02}-{stem}-{}", rank + 1, f.name()), m, f);
    }
    group.finish();
}

criterion_group!(benches, memdep_bench);
criterion_main!(benches);
