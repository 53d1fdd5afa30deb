//! Text format throughput: print, parse and verify a generated function at
//! 10^3..10^5 blocks (`cargo bench -p benches --bench text`).
//!
//! There is no peer to compare against yet (the claim of this benchmark is
//! only that parse and verify scale linearly); the report gives time and
//! bytes per second for each phase at each size, so the slope reads off.

use benches::program;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ir_core::{Module, VerifyOptions, text, verify_module};
use std::hint::black_box;

fn text_format(c: &mut Criterion) {
    let mut g = c.benchmark_group("text");
    g.sample_size(10);
    for blocks in [1_000usize, 10_000, 100_000] {
        let m: Module = program(blocks).module;
        let src = text::print_module(&m);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(BenchmarkId::new("print", blocks), &m, |b, m| b.iter(|| text::print_module(black_box(m))));
        g.bench_with_input(BenchmarkId::new("parse", blocks), &src, |b, s| {
            b.iter(|| text::parse(black_box(s)).expect("valid"))
        });
        let (parsed, _) = text::parse(&src).expect("valid");
        g.bench_with_input(BenchmarkId::new("verify", blocks), &parsed, |b, m| {
            b.iter(|| verify_module(black_box(m), &VerifyOptions::default()).expect("valid"))
        });
        g.bench_with_input(BenchmarkId::new("verify-ssa-level", blocks), &parsed, |b, m| {
            // Generated code is not SSA; this measures the SSA checks' cost, errors included.
            b.iter(|| verify_module(black_box(m), &VerifyOptions { ssa: true }).is_err())
        });
    }
    g.finish();
}

criterion_group!(benches, text_format);
criterion_main!(benches);
