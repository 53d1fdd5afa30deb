//! The hand-written kernels of `docs/examples/mlu/`: each verifies, runs in
//! both modes with the same results, computes what a plain Rust loop
//! computes, and takes the cycles pinned here (the cycle model is
//! deterministic; a change to it shows up as a changed figure, to be
//! explained in `docs/benchmarks-mlu.md`). The double-buffered vector add
//! reaches at least 90% of its DMA roofline and the single-buffered one
//! does not.

use mlu_isa::{MachineConfig, Program, text, verify};
use mlu_sim::{Instance, Mode, Outcome, SimOptions, Simulator};
use std::path::Path;

fn load(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mlu").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let (p, _) = text::parse(&src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    verify(&p, &MachineConfig::mlu370()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    p
}

fn f32s(v: &[u64]) -> Vec<f32> {
    v.iter().map(|&b| f32::from_bits(b as u32)).collect()
}

fn bits(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

/// Runs `p` in both modes with the same inputs; returns the cycle run's
/// outcome and a reader of its DRAM objects. Panics if the modes differ.
fn run(
    p: &Program,
    (clusters, cores): (u32, Option<u32>),
    inputs: &[(&str, Vec<u64>)],
    outputs: &[&str],
) -> (Outcome, Vec<Vec<u64>>) {
    let cfg = MachineConfig::mlu370();
    let mut results = Vec::new();
    let mut outcome = None;
    for mode in [Mode::Functional, Mode::Cycle] {
        let mut sim = Simulator::new(
            p,
            &cfg,
            SimOptions { clusters, cores, mode, trace: Some(1 << 20), ..SimOptions::default() },
        )
        .unwrap();
        for (name, values) in inputs {
            sim.write(name, values).unwrap();
        }
        let o = sim.run().unwrap_or_else(|t| panic!("{mode:?}: {t}"));
        let outs: Vec<Vec<u64>> = outputs.iter().map(|n| sim.read(n, Instance::Global).unwrap()).collect();
        results.push(outs);
        outcome = Some(o);
    }
    assert_eq!(results[0], results[1], "functional and cycle runs differ");
    (outcome.unwrap(), results.pop().unwrap())
}

const N: usize = 1 << 20;
/// One core (BANG's Block task).
const BLOCK: (u32, Option<u32>) = (1, Some(1));
/// The four cores of one cluster (a Union1 task).
const UNION1: (u32, Option<u32>) = (1, None);

fn add_inputs() -> Vec<(&'static str, Vec<u64>)> {
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..N).map(|i| 1.0 - i as f32 / 3.0).collect();
    vec![("a", bits(&a)), ("b", bits(&b))]
}

fn check_add(out: &[u64]) {
    let c = f32s(out);
    for (i, &v) in c.iter().enumerate() {
        assert_eq!(v.to_bits(), (i as f32 * 0.5 + (1.0 - i as f32 / 3.0)).to_bits(), "c[{i}]");
    }
}

#[test]
fn double_buffered_vector_add() {
    let p = load("vector_add_double_buffered.mlu");
    let (o, out) = run(&p, BLOCK, &add_inputs(), &["c"]);
    check_add(&out[0]);
    let dma = o.stats.roofline("dma").unwrap();
    eprintln!("double-buffered: {} cycles, dma bound {} ({:.1}%)", o.stats.cycles, dma.bound, 100.0 * dma.fraction);
    assert!(dma.fraction >= 0.90, "{:.3}", dma.fraction);
    assert_eq!(dma.bound, 3 * 4 * N as u64 / 64);
    assert_eq!(o.stats.cycles, CYCLES_DOUBLE);
}

#[test]
fn single_buffered_vector_add_does_not_reach_the_roofline() {
    let p = load("vector_add_single_buffered.mlu");
    let (o, out) = run(&p, BLOCK, &add_inputs(), &["c"]);
    check_add(&out[0]);
    let dma = o.stats.roofline("dma").unwrap();
    eprintln!("single-buffered: {} cycles, dma bound {} ({:.1}%)", o.stats.cycles, dma.bound, 100.0 * dma.fraction);
    assert!(dma.fraction < 0.90, "{:.3}", dma.fraction);
    assert_eq!(o.stats.cycles, CYCLES_SINGLE);
}

#[test]
fn saxpy_on_four_cores() {
    let p = load("saxpy.mlu");
    let n = 131_072;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.25).collect();
    let alpha = 1.5f32;
    let (o, out) = run(&p, UNION1, &[("alpha", bits(&[alpha])), ("x", bits(&x)), ("y", bits(&y))], &["y"]);
    let got = f32s(&out[0]);
    for i in 0..n {
        assert_eq!(got[i].to_bits(), (alpha * x[i] + y[i]).to_bits(), "y[{i}]");
    }
    eprintln!("saxpy: {} cycles, dram {:?}", o.stats.cycles, o.stats.roofline("dram"));
    assert_eq!(o.stats.cycles, CYCLES_SAXPY);
}

#[test]
fn matmul_tile() {
    let p = load("matmul_tile.mlu");
    let (m, k, n) = (64, 128, 64);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 23) as f32 / 8.0 - 1.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 19) as f32 / 4.0 - 2.0).collect();
    let (o, out) = run(&p, BLOCK, &[("A", bits(&a)), ("B", bits(&b))], &["C"]);
    let c = f32s(&out[0]);
    for i in 0..m {
        for j in 0..n {
            let mut acc = a[i * k] * b[j];
            for q in 1..k {
                acc += a[i * k + q] * b[q * n + j];
            }
            let want = if acc > 0.0 { acc } else { 0.0f32.max(acc) };
            assert_eq!(c[i * n + j].to_bits(), want.to_bits(), "C[{i},{j}]");
        }
    }
    eprintln!("matmul: {} cycles, matrix {:?}", o.stats.cycles, o.stats.roofline("matrix"));
    assert_eq!(o.stats.cycles, CYCLES_MATMUL);
}

fn quarter_sums(x: &[f32], parts: usize) -> Vec<f32> {
    x.chunks(x.len() / parts).map(|q| q.iter().skip(1).fold(q[0], |s, &v| s + v)).collect()
}

#[test]
fn reduction_on_four_cores_through_sram() {
    let p = load("reduce_4core.mlu");
    let x: Vec<f32> = (0..16384).map(|i| ((i * 31) % 101) as f32 * 0.125 - 3.0).collect();
    let (o, out) = run(&p, UNION1, &[("x", bits(&x))], &["sum"]);
    let q = quarter_sums(&x, 4);
    let want = ((q[0] + q[1]) + q[2]) + q[3];
    assert_eq!(f32s(&out[0])[0].to_bits(), want.to_bits());
    eprintln!("reduce: {} cycles", o.stats.cycles);
    assert_eq!(o.stats.cycles, CYCLES_REDUCE);
}

#[test]
fn two_clusters_with_a_global_barrier() {
    let p = load("global_2cluster.mlu");
    let x: Vec<f32> = (0..32768).map(|i| ((i * 17) % 89) as f32 * 0.25 - 7.0).collect();
    let (o, out) = run(&p, (2, None), &[("x", bits(&x))], &["sum", "cluster_sums"]);
    let e = quarter_sums(&x, 8);
    let c0 = ((e[0] + e[1]) + e[2]) + e[3];
    let c1 = ((e[4] + e[5]) + e[6]) + e[7];
    assert_eq!(f32s(&out[1]), [c0, c1]);
    assert_eq!(f32s(&out[0])[0].to_bits(), (c0 + c1).to_bits());
    eprintln!("global: {} cycles", o.stats.cycles);
    assert_eq!(o.stats.cycles, CYCLES_GLOBAL);
}

const CYCLES_DOUBLE: u64 = 205863;
const CYCLES_SINGLE: u64 = 246657;
const CYCLES_SAXPY: u64 = 11557;
const CYCLES_MATMUL: u64 = 3739;
const CYCLES_REDUCE: u64 = 1034;
const CYCLES_GLOBAL: u64 = 2087;
