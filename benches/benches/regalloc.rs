//! Allocation time of `regalloc-pebble`, its Chaitin-Briggs baseline and
//! regalloc2 0.15.2 on the same functions (`benches::regalloc`: every peer
//! starts from the function's SSA form; the adapter and the out-of-SSA
//! step are built before timing). The quality of the same allocations
//! (loop-weighted loads + stores + moves) is counted by the
//! `regalloc_quality` example; `docs/benchmarks-regalloc.md` has both.
//!
//! Groups (throughput in instructions, or blocks for the scaling group):
//! - `regalloc-generated/P`: 100 `ir-gen` functions of 40 blocks and 24
//!   vars, one after the other, at P = 8 and 16 registers;
//! - `regalloc-corpus`: every function of `onigasm.wasm` (the corpus,
//!   `docs/corpus.md`) at 16 registers; skipped when the corpus is absent;
//! - `regalloc-blocks/N`: one generated function of N blocks (N = 250 to
//!   16000, vars N / 12), at 16 registers: time per block should stay flat
//!   (linear in blocks).
//!
//! Peers: `pebble` (`regalloc_pebble::Allocator::compute`, default
//! options, one context reused), `briggs` (`regalloc_pebble::briggs`),
//! `regalloc2` (`regalloc2::run_with_ctx`, Ion, one context reused). Each
//! cell first checks that every peer allocates every function (a refusal
//! drops the function from the cell for all peers).

use benches::regalloc::{Prepared, machine_env};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Allocator, Options, briggs};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// Keeps the functions every peer allocates at `p` registers.
fn allocatable(fs: Vec<Prepared>, p: u32) -> Vec<Prepared> {
    let env = machine_env(p);
    let mut ctx = regalloc2::Ctx::default();
    fs.into_iter()
        .filter(|f| {
            regalloc_pebble::allocate(&f.cfg, &f.lowered, &Options::with_regs(p)).is_ok()
                && briggs::allocate(&f.cfg, &f.lowered, &Options::with_regs(p)).is_ok()
                && regalloc2::run_with_ctx(&f.ra2, &env, &Default::default(), &mut ctx).is_ok()
        })
        .collect()
}

fn peers(c: &mut Criterion, group: &str, id: &str, fs: &[Prepared], p: u32, throughput: Throughput) {
    let mut g = c.benchmark_group(group);
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(4));
    g.throughput(throughput);
    let options = Options::with_regs(p);
    let mut ctx = Allocator::new();
    g.bench_function(BenchmarkId::new("pebble", id), |b| {
        b.iter(|| {
            for f in fs {
                black_box(ctx.compute(&f.cfg, &f.lowered, &options).expect("allocatable"));
            }
        })
    });
    g.bench_function(BenchmarkId::new("briggs", id), |b| {
        b.iter(|| {
            for f in fs {
                black_box(briggs::allocate(&f.cfg, &f.lowered, &Options::with_regs(p)).expect("allocatable"));
            }
        })
    });
    let env = machine_env(p);
    let mut rctx = regalloc2::Ctx::default();
    let ropts = regalloc2::RegallocOptions::default();
    g.bench_function(BenchmarkId::new("regalloc2", id), |b| {
        b.iter(|| {
            for f in fs {
                black_box(regalloc2::run_with_ctx(&f.ra2, &env, &ropts, &mut rctx).expect("allocatable").edits.len());
            }
        })
    });
    g.finish();
}

fn insts(fs: &[Prepared]) -> u64 {
    fs.iter().map(|f| f.insts as u64).sum()
}

fn generated(c: &mut Criterion) {
    let cfg = GenConfig { blocks: 40, vars: 24, functions: 1, ..GenConfig::default() };
    let all: Vec<Prepared> = (0..100)
        .map(|seed| {
            let g = generate(&cfg, seed);
            Prepared::new(g.module.function(g.main).expect("main"))
        })
        .collect();
    for p in [8u32, 16] {
        let fs = allocatable(all.iter().map(|f| Prepared::new(&f.ssa)).collect(), p);
        eprintln!("regalloc-generated/{p}: {} functions, {} instructions", fs.len(), insts(&fs));
        peers(c, "regalloc-generated", &p.to_string(), &fs, p, Throughput::Elements(insts(&fs)));
    }
}

fn corpus(c: &mut Criterion) {
    let dir = std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"));
    let Ok(bytes) = std::fs::read(dir.join("onigasm.wasm")) else {
        eprintln!("regalloc-corpus: SKIPPED (no corpus at {}; scripts/fetch-corpus)", dir.display());
        return;
    };
    let imp = wasm_import::import(&bytes, &Default::default()).expect("a valid module");
    let fs: Vec<Prepared> = imp.module.functions().map(|(_, f)| Prepared::new(f)).collect();
    let fs = allocatable(fs, 16);
    eprintln!("regalloc-corpus: onigasm, {} functions, {} instructions", fs.len(), insts(&fs));
    peers(c, "regalloc-corpus", "onigasm", &fs, 16, Throughput::Elements(insts(&fs)));
}

fn blocks(c: &mut Criterion) {
    for n in [250usize, 1000, 4000, 16000] {
        let cfg = GenConfig { blocks: n, vars: (n / 12).max(24), functions: 1, ..GenConfig::default() };
        let g = generate(&cfg, 1);
        let f = Prepared::new(g.module.function(g.main).expect("main"));
        let fs = allocatable(vec![f], 16);
        if fs.is_empty() {
            eprintln!("regalloc-blocks/{n}: refused by a peer, skipped");
            continue;
        }
        eprintln!("regalloc-blocks/{n}: {} instructions", insts(&fs));
        peers(c, "regalloc-blocks", &n.to_string(), &fs, 16, Throughput::Elements(n as u64));
    }
}

criterion_group!(benches, generated, corpus, blocks);
criterion_main!(benches);
