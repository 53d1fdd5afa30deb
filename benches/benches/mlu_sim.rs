//! Simulator throughput (`cargo bench -p benches --bench mlu_sim`), with a
//! baseline in the same run for each figure:
//! - `scalar`: a loop of integer ALU instructions, functional, against
//!   ir-core's reference interpreter running the same loop as Keel IR;
//! - `vector`: `vadd.f32` over 16 Ki elements in NRAM, functional, against
//!   a plain Rust loop adding two `Vec<f32>` (the host's own speed);
//! - `cycle`: the scalar loop and a copy/compute/sync loop with the cycle
//!   model, against the same programs functional;
//! - `races`: a load/store loop with the race detector on and off.
//!
//! Figures and ratios are in `docs/benchmarks-mlu.md`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ir_core::Imm;
use mlu_isa::{MachineConfig, Program, text};
use mlu_sim::{Mode, RaceMode, SimOptions, Simulator};
use std::hint::black_box;
use std::time::Duration;

const ITERS: u64 = 200_000;

fn program(src: &str) -> Program {
    text::parse(src).expect("valid").0
}

fn scalar_loop() -> Program {
    program(&format!(
        "    mov.i64 %r1, {ITERS}\n    mov.i64 %r3, 7\nloop:\n    add.i64 %r2, %r2, %r1\n    mul.i64 %r3, %r3, 3\n    xor.i64 %r4, %r2, %r3\n    shl.i64 %r5, %r4, 3\n    sub.i64 %r1, %r1, 1\n    br %r1, loop\n    exit\n"
    ))
}

/// The same loop as Keel IR.
const SCALAR_IR: &str = "\
func @main(%n: i64) -> i64 {
    var %i: i64
    var %s: i64
    var %m: i64
    var %x: i64
    var %y: i64
    var %c: i1
bb0:
    %i = copy %n
    %s = const 0
    %m = const 7
    jump bb1
bb1:
    %s = add %s, %i
    %m = mul %m, 3
    %x = xor %s, %m
    %y = shl %x, 3
    %i = sub %i, 1
    %c = setp.ne %i, 0
    br %c, bb1, bb2
bb2:
    ret %y
}
";

fn run(p: &Program, mode: Mode, races: RaceMode) -> u64 {
    let opts = SimOptions { cores: Some(1), mode, races, ..SimOptions::default() };
    let mut sim = Simulator::new(p, &MachineConfig::mlu370(), opts).expect("loads");
    let o = sim.run().expect("runs");
    o.stats.instructions
}

fn scalar(c: &mut Criterion) {
    let mut g = c.benchmark_group("mlu_sim/scalar");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let p = scalar_loop();
    let insts = run(&p, Mode::Functional, RaceMode::Error);
    g.throughput(Throughput::Elements(insts));
    g.bench_function("mlu-sim functional", |b| b.iter(|| run(black_box(&p), Mode::Functional, RaceMode::Error)));
    let (m, _) = ir_core::text::parse(SCALAR_IR).expect("valid");
    let f = m.function_by_name("main").expect("main");
    // Per loop iteration the interpreter visits 7 instructions to mlu-sim's
    // 6; the throughput unit stays "simulated MLU instructions" so the two
    // lines compare time for the same work.
    g.bench_function("ir-core interpreter (same loop)", |b| {
        b.iter(|| {
            ir_core::interp::run(&m, f, &[Imm::int(ir_core::Type::I64, ITERS as i64)], Default::default())
                .expect("runs")
        })
    });
    g.finish();
}

fn vector(c: &mut Criterion) {
    let mut g = c.benchmark_group("mlu_sim/vector");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let k = 200u64;
    let n = 16_384u64;
    let p = program(&format!(
        ".mem @a: f32[{n}] nram\n.mem @b: f32[{n}] nram\n    mov.i64 %r1, {k}\nloop:\n    vadd.f32 nram[@a], nram[@a], nram[@b], {n}\n    sub.i64 %r1, %r1, 1\n    br %r1, loop\n    exit\n"
    ));
    g.throughput(Throughput::Elements(k * n));
    g.bench_function("mlu-sim functional vadd.f32", |b| {
        b.iter(|| run(black_box(&p), Mode::Functional, RaceMode::Error))
    });
    g.bench_function("plain Rust loop (same adds)", |b| {
        let mut a = vec![1.0f32; n as usize];
        let bv = vec![0.5f32; n as usize];
        b.iter(|| {
            for _ in 0..k {
                for (x, y) in a.iter_mut().zip(&bv) {
                    *x += *y;
                }
                black_box(&mut a);
            }
        })
    });
    g.finish();
}

fn cycle(c: &mut Criterion) {
    let mut g = c.benchmark_group("mlu_sim/cycle");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let scalar = scalar_loop();
    let iters = 20_000;
    let mixed = program(&format!(
        ".mem @x: f32[64] dram\n.mem @a: f32[64] nram\n    mov.i64 %r1, {iters}\nloop:\n    dma nram[@a], dram[@x], 256\n    sync.io\n    vadd.f32 nram[@a], nram[@a], 1.0, 64\n    sync.compute\n    dma dram[@x], nram[@a], 256\n    sync.io\n    sub.i64 %r1, %r1, 1\n    br %r1, loop\n    exit\n"
    ));
    for (name, p) in [("scalar loop", &scalar), ("copy-compute-sync loop", &mixed)] {
        let insts = run(p, Mode::Cycle, RaceMode::Error);
        g.throughput(Throughput::Elements(insts));
        g.bench_with_input(BenchmarkId::new("cycle model", name), p, |b, p| {
            b.iter(|| run(p, Mode::Cycle, RaceMode::Error))
        });
        g.bench_with_input(BenchmarkId::new("functional", name), p, |b, p| {
            b.iter(|| run(p, Mode::Functional, RaceMode::Error))
        });
    }
    g.finish();
}

fn races(c: &mut Criterion) {
    let mut g = c.benchmark_group("mlu_sim/races");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let p = program(&format!(
        ".mem @a: i64[1024] nram\n    mov.i64 %r1, {ITERS}\nloop:\n    and.i64 %r2, %r1, 1023\n    shl.i64 %r2, %r2, 3\n    ld.i64 %r3, nram[@a + %r2]\n    add.i64 %r3, %r3, %r1\n    st.i64 nram[@a + %r2], %r3\n    sub.i64 %r1, %r1, 1\n    br %r1, loop\n    exit\n"
    ));
    g.throughput(Throughput::Elements(run(&p, Mode::Functional, RaceMode::Off)));
    for (name, mode) in [("detector on", RaceMode::Error), ("detector off", RaceMode::Off)] {
        g.bench_function(name, |b| b.iter(|| run(black_box(&p), Mode::Functional, mode)));
    }
    g.finish();
}

criterion_group!(benches, scalar, vector, cycle, races);
criterion_main!(benches);
