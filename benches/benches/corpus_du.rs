//! DU/UD chains through SSA against iterative reaching definitions on real
//! compiled code: the WebAssembly corpus of `docs/corpus.md`
//! (`scripts/fetch-corpus`, then `cargo bench -p benches --bench corpus_du`).
//!
//! Two groups, both on functions imported by `wasm-import` (outside the
//! timed part):
//! - `corpus-du-largest`: the corpus's 20 largest functions by instructions
//!   in the layout, one cell each, parameter `RANK-MODULE-FUNC`;
//! - `corpus-du-module`: every imported function of one module, one after
//!   the other on one thread (the per-method work `keel du` spreads over
//!   threads), parameter = the module's file stem.
//!
//! Peers `via-ssa` (`defuse::ViaSsa`) and `iterative` (`defuse::Iterative`),
//! each through one warm context reused across functions and iterations,
//! as in the `du_chains` benchmark and in `keel du`. Before timing a cell the two are checked
//! equal on every function of the cell (the benchmark panics otherwise) and
//! a line on stderr gives its size. When the corpus is absent (no `corpus/`
//! and no `KEEL_CORPUS`), the benchmark says so on stderr and times nothing.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use defuse::{Iterative, ViaSsa};
use ir_core::Function;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// How many of the largest functions get a cell of their own.
const LARGEST: usize = 20;

/// The corpus modules, in `scripts/corpus.txt` order.
const MODULES: [&str; 4] = ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"];

fn corpus_dir() -> PathBuf {
    std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"))
}

/// One imported module: its stem and its functions.
struct Loaded {
    stem: String,
    functions: Vec<Function>,
}

fn load() -> Vec<Loaded> {
    let dir = corpus_dir();
    let mut out = Vec::new();
    for name in MODULES {
        let path = dir.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("corpus_du: SKIPPED {name}: not found at {} (run scripts/fetch-corpus)", path.display());
            continue;
        };
        let imported = wasm_import::import(&bytes, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: the corpus module does not import: {e}"));
        let stem = name.trim_end_matches(".wasm").to_string();
        let functions = imported.module.functions().map(|(_, f)| f.clone()).collect();
        out.push(Loaded { stem, functions });
    }
    out
}

fn insts(f: &Function) -> usize {
    f.blocks().map(|b| f.block_insts(b).count()).sum()
}

/// Panics unless both methods give the same chains on every function.
fn check(what: &str, functions: &[&Function]) -> usize {
    let mut edges = 0;
    for f in functions {
        let (ours, theirs) = (
            ViaSsa::new().compute_function(f).expect("a verified function"),
            Iterative::new().compute_function(f).expect("a verified function"),
        );
        if ours != theirs {
            panic!("{what}: @{}: via_ssa and iterative differ on {} uses", f.name(), ours.differences(&theirs).len());
        }
        edges += ours.num_edges();
    }
    edges
}

fn cell(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, id: &str, fs: &[&Function]) {
    let edges = check(id, fs);
    let (n_insts, n_blocks): (usize, usize) =
        fs.iter().fold((0, 0), |(i, b), f| (i + insts(f), b + f.layout().num_blocks()));
    eprintln!(
        "{id}: {} functions, {n_blocks} blocks, {n_insts} instructions, {} vars, {edges} chain edges; chains agree",
        fs.len(),
        fs.iter().map(|f| f.num_vars()).sum::<usize>()
    );
    group.throughput(Throughput::Elements(n_insts as u64));
    let mut ours = ViaSsa::new();
    group.bench_function(BenchmarkId::new("via-ssa", id), |b| {
        b.iter(|| fs.iter().map(|f| ours.compute_function(black_box(f)).map_or(0, |c| c.num_edges())).sum::<usize>())
    });
    let mut theirs = Iterative::new();
    group.bench_function(BenchmarkId::new("iterative", id), |b| {
        b.iter(|| fs.iter().map(|f| theirs.compute_function(black_box(f)).map_or(0, |c| c.num_edges())).sum::<usize>())
    });
}

fn corpus_du(c: &mut Criterion) {
    let modules = load();
    if modules.is_empty() {
        eprintln!("corpus_du: SKIPPED: no corpus module found in {}", corpus_dir().display());
        return;
    }
    let mut all: Vec<(&str, &Function)> =
        modules.iter().flat_map(|m| m.functions.iter().map(|f| (m.stem.as_str(), f))).collect();
    // Largest first; ties by module and name so the selection is stable.
    all.sort_by(|a, b| insts(b.1).cmp(&insts(a.1)).then(a.0.cmp(b.0)).then(a.1.name().cmp(b.1.name())));

    let mut group = c.benchmark_group("corpus-du-largest");
    group.sample_size(20).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(2));
    group.warm_up_time(Duration::from_millis(500));
    for (rank, (stem, f)) in all.iter().take(LARGEST).enumerate() {
        cell(&mut group, &format!("{:02}-{stem}-{}", rank + 1, f.name()), &[f]);
    }
    group.finish();

    let mut group = c.benchmark_group("corpus-du-module");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(4));
    group.warm_up_time(Duration::from_secs(1));
    for m in &modules {
        let fs: Vec<&Function> = m.functions.iter().collect();
        cell(&mut group, &m.stem, &fs);
    }
    group.finish();
}

criterion_group!(benches, corpus_du);
criterion_main!(benches);
