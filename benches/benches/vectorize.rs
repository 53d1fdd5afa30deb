//! Vectorization (`cargo bench -p benches --bench vectorize`).
//!
//! Group `vectorize-time`: the time to build `/p/` (input verification
//! included), per input node (`Throughput::Elements` is the input graph's
//! size), on two shapes at 10^3, 10^4 and 10^5 nodes:
//! - `flat`: straight-line scalar code (`fadd`/`fmul`/`fsub`/`fmin`/`fneg`,
//!   `fsetp` and `select` over random earlier values), three parameters
//!   batched and one not, so part of the graph stays unbatched;
//! - `structured`: the same with, every 50 nodes, an `if` on a batched
//!   condition over two small lambdas (one pure, so a `select`, or one that
//!   may trap, so masks) and, every 200 nodes, a `map` over an array
//!   parameter. The target is at most 1 µs per node, linear in the size.
//!
//! Group `vectorize-eval`: evaluating `/p/` once on 10^5 lanes against the
//! per-element loop (the reference evaluator called once per lane, warm:
//! one evaluator, its schedule built once), for `p(a, b, c) = a + b * c`,
//! `mean` over 10^5 rows of 0 to 4 elements, and a branchy program (a
//! masked `if` and a `while` whose trip count differs per lane); and the
//! lowered Keel function in `ir-core`'s interpreter (`lowered`). Results
//! are checked equal before timing.

use benches::vectorize_graphs::{IN_AXES, big_graph};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use vectorize::eval::{EvalConfig, Evaluator};
use vectorize::generate::{SplitMix64, random_value};
use vectorize::lower::{Lanes, LowerOptions, lower};
use vectorize::text::parse;
use vectorize::{Graph, Imm, ScalarTy, Sym, Value, Vectorizer};

fn vectorize_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("vectorize-time");
    group.sample_size(10);
    let vz = Vectorizer::default();
    for structured in [false, true] {
        let shape = if structured { "structured" } else { "flat" };
        for n in [1_000usize, 10_000, 100_000] {
            let (g, f) = big_graph(n, structured);
            let axes = IN_AXES;
            let v = vz.vectorize(&g, f, &axes).expect("vectorizes");
            eprintln!(
                "{shape} {n}: {} input nodes, {} output nodes, {} rewrites",
                g.len(),
                v.graph.len(),
                v.stats.rewrites
            );
            group.throughput(Throughput::Elements(g.len() as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &g, |b, g| {
                b.iter(|| vz.vectorize(black_box(g), f, &axes).expect("vectorizes"))
            });
        }
    }
    group.finish();
}

const LANES: usize = 100_000;

const P: &str = "func @p(%a: f32, %b: f32, %c: f32) -> f32 {\n    %t: f32 = fmul %b, %c\n    %r: f32 = fadd %a, %t\n    ret %r\n}\n";
const MEAN: &str = "func @mean(%arr: array<f32>) -> f32 {\n    %s: f32 = sum %arr\n    %n: i64 = length %arr\n    %len: f32 = sitofp %n\n    %m: f32 = fdiv %s, %len\n    ret %m\n}\n";
const BRANCHY: &str = "func @branchy(%a: i32, %b: i32) -> i32 {
    %z: i32 = const 0
    %c: i1 = setp.ne %b, %z
    %t = lambda (%x: i32, %y: i32) -> i32 {
        %q: i32 = sdiv %x, %y
        ret %q
    }
    %e = lambda (%x: i32, %y: i32) -> i32 {
        %w: i32 = mul %x, %x
        ret %w
    }
    %r: i32 = if %c, %t, %e, %a, %b
    %seven: i32 = const 7
    %n: i32 = and %a, %seven
    %lc = lambda (%i: i32, %k: i32, %acc: i32) -> i1 {
        %more: i1 = setp.slt %i, %k
        ret %more
    }
    %lb = lambda (%i: i32, %k: i32, %acc: i32) -> i32, i32, i32 {
        %one: i32 = const 1
        %j: i32 = add %i, %one
        %a2: i32 = add %acc, %i
        ret %j, %k, %a2
    }
    %w: (i32, i32, i32) = while %lc, %lb, %z, %n, %r
    %out: i32 = get.2 %w
    ret %out
}
";

/// Per-lane arguments of `func`'s parameter types, and the stacked batch.
fn inputs(g: &Graph, f: Sym) -> (Vec<Vec<Value>>, Vec<Value>) {
    let mut rng = SplitMix64::new(7);
    let tys = g.param_types(f);
    let lanes: Vec<Vec<Value>> = (0..LANES)
        .map(|_| {
            tys.iter()
                .map(|&t| match t.scalar {
                    // Small integers keep the branchy loop short and divisions defined.
                    ScalarTy::I32 => Value::Scalar(Imm::int(ScalarTy::I32, (rng.next_u64() % 9) as i64 - 2)),
                    _ => random_value(t, &mut rng),
                })
                .collect()
        })
        .collect();
    let batch = (0..tys.len())
        .map(|i| Value::array_of(tys[i], &lanes.iter().map(|l| l[i].clone()).collect::<Vec<_>>()).expect("one type"))
        .collect();
    (lanes, batch)
}

fn vectorize_eval(c: &mut Criterion) {
    let mut group = c.benchmark_group("vectorize-eval");
    group.sample_size(10);
    group.throughput(Throughput::Elements(LANES as u64));
    for (name, text) in [("p", P), ("mean", MEAN), ("branchy", BRANCHY)] {
        let (g, _) = parse(text).expect("valid");
        let f = g.functions()[0];
        let n = g.param_types(f).len();
        let v = Vectorizer::default().vectorize(&g, f, &vec![true; n]).expect("vectorizes");
        let (lanes, batch) = inputs(&g, f);
        let config = EvalConfig { fuel: u64::MAX, ..EvalConfig::default() };
        // Check before timing.
        let mut per = Evaluator::new(&g, config).expect("verifies");
        let want: Vec<Value> = lanes.iter().map(|l| per.call(f, l).expect("no trap")[0].clone()).collect();
        let mut vec_eval = Evaluator::new(&v.graph, config).expect("verifies");
        let got = vec_eval.call(v.func, &batch).expect("no trap");
        for (i, w) in want.iter().enumerate() {
            assert_eq!(&got[0].array().expect("an array").item(1, i), w, "{name}, lane {i}");
        }
        group.bench_function(BenchmarkId::new("per-element", name), |b| {
            b.iter(|| {
                for l in &lanes {
                    black_box(per.call(f, black_box(l)).expect("no trap"));
                }
            })
        });
        group.bench_function(BenchmarkId::new("vectorized", name), |b| {
            b.iter(|| black_box(vec_eval.call(v.func, black_box(&batch)).expect("no trap")))
        });
        {
            let l = lower(
                &v.graph,
                v.func,
                LowerOptions {
                    lanes: Lanes::Fixed(LANES as u64),
                    elements: 16 * LANES as u64,
                    on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP,
                },
            )
            .expect("lowers");
            let icfg = ir_core::interp::Config { fuel: u64::MAX, max_memory_bytes: 1 << 32, ..Default::default() };
            let out = l.run(&batch, icfg).expect("runs");
            assert_eq!(out[0], got[0], "{name}: lowered");
            group.bench_function(BenchmarkId::new("lowered", name), |b| {
                b.iter(|| black_box(l.run(black_box(&batch), icfg).expect("runs")))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, vectorize_time, vectorize_eval);
criterion_main!(benches);
