//! Semantic PRE on the SVFG vs lazy code motion (bit vectors), in the same
//! run: generated redundant programs (`svfg_pre::fuzzing::programs`) from
//! about 10^2 to 2·10^4 blocks (10^5 is left out: both methods are
//! superlinear, about 7 minutes per sample at 2·10^5 blocks), and the largest functions of the WebAssembly
//! corpus when it is present (`corpus/` or `KEEL_CORPUS`). Each iteration
//! transforms a fresh copy of the function in SSA form (the copy is made
//! outside the timed part). Ratios are in `docs/benchmarks-svfg-pre.md`.
//!
//! `cargo bench -p benches --bench svfg_pre`

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use ir_core::{Function, Module};
use std::path::PathBuf;
use std::time::Duration;

fn main_function(m: &Module) -> Function {
    let f = m.function_by_name("main").expect("main");
    m.function(f).expect("main").clone()
}

fn compare(c: &mut Criterion, group: &str, label: &str, func: &Function) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    g.bench_function(BenchmarkId::new("svfg", label), |b| {
        b.iter_batched(|| func.clone(), |mut f| svfg_pre::svfg_pre(&mut f).expect("SSA input"), BatchSize::LargeInput)
    });
    g.bench_function(BenchmarkId::new("lcm", label), |b| {
        b.iter_batched(|| func.clone(), |mut f| svfg_pre::lcm(&mut f, u64::MAX), BatchSize::LargeInput)
    });
    g.finish();
}

fn generated(c: &mut Criterion) {
    for regions in [30usize, 300, 1_500, 3_000] {
        let (m, _) = svfg_pre::fuzzing::programs::redundant(42, regions);
        let m = svfg_pre::fuzzing::to_ssa(&m).expect("SSA");
        let f = main_function(&m);
        let label = format!("{}blocks", f.num_blocks());
        compare(c, "svfg_pre/generated", &label, &f);
    }
}

fn corpus(c: &mut Criterion) {
    let dir = std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"));
    let Ok(bytes) = std::fs::read(dir.join("sql-wasm.wasm")) else {
        eprintln!("no corpus in {}: corpus benchmarks skipped", dir.display());
        return;
    };
    let imported = wasm_import::import(&bytes, &Default::default()).expect("valid module");
    let m = svfg_pre::fuzzing::to_ssa(&imported.module).expect("SSA");
    let mut funcs: Vec<(ir_core::FuncId, &Function)> = m.functions().collect();
    funcs.sort_by_key(|(_, f)| std::cmp::Reverse(f.num_insts()));
    for &(_, f) in funcs.iter().take(3) {
        let label = format!("{}-{}insts", f.name(), f.num_insts());
        // Real code has loads: PRE numbers them as `keel pre` does (the
        // memory walks, memdep when one is unsure), timed with it, on the
        // copy it rewrites.
        let mut g = c.benchmark_group("svfg_pre/corpus");
        g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
        g.bench_function(BenchmarkId::new("svfg+memdep", &label), |b| {
            b.iter_batched(
                || f.clone(),
                |mut f| {
                    let (plan, _) = svfg_pre::plan_in(&m, &f, svfg_pre::Method::Svfg).expect("SSA input");
                    svfg_pre::apply(&mut f, &plan).expect("a fresh plan")
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_function(BenchmarkId::new("lcm", &label), |b| {
            b.iter_batched(|| f.clone(), |mut f| svfg_pre::lcm(&mut f, u64::MAX), BatchSize::LargeInput)
        });
        g.finish();
    }
}

criterion_group!(benches, generated, corpus);
criterion_main!(benches);
