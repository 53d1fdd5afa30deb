//! Compile time of `keel compile --target mlu` per IR instruction, with
//! each register allocator in the same run: `regalloc-pebble` (the
//! default) against `HomeAllocator` (slice 1's baseline), over the 1,000
//! generated programs of `crates/target-mlu/tests/generated.rs` (118,373 IR
//! instructions). Figures are in `docs/design/target-mlu.md`.
//!
//! `cargo bench -p benches --bench mlu_compile`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use target_mlu::compile::{AllocatorChoice, CompileOptions, compile};

fn allocators(c: &mut Criterion) {
    let configs = target_mlu::fuzzing::configs();
    let programs: Vec<ir_gen::Generated> =
        (0..1000u64).map(|seed| ir_gen::generate(&configs[(seed % configs.len() as u64) as usize], seed)).collect();
    let config = mlu_isa::MachineConfig::mlu370();
    let mut g = c.benchmark_group("mlu_compile/generated-1000");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    for (name, allocator) in [("pebble", AllocatorChoice::Pebble), ("home", AllocatorChoice::Home)] {
        let options = CompileOptions { allocator, ..CompileOptions::default() };
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                for p in &programs {
                    let _ = black_box(compile(&p.module, p.main, &config, &options));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, allocators);
criterion_main!(benches);
