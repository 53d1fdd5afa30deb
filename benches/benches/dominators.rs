//! Dominator trees against the Rust peers, on the same graphs
//! (`cargo bench -p benches --bench dominators`).
//!
//! Peers, each on its own best path (inputs built outside the timed loop):
//! - `cfg-dom`: `DomTree::compute` on a prebuilt `CsrGraph`, one `DomTree`
//!   reused across iterations (the crate's `compute` lifecycle);
//! - `petgraph`: `algo::dominators::simple_fast` on a prebuilt `DiGraph`
//!   (Cooper–Harvey–Kennedy iteration; the result is a fresh `HashMap`);
//! - `cranelift`: `DominatorTree::compute` on a prebuilt `Function` (one
//!   block per node, terminators giving exactly its successors) and its
//!   `ControlFlowGraph`, one `DominatorTree` reused.
//!
//! Shapes (`benches::shape`): structured, chain, ladder, irreducible, random,
//! at 10^3..10^6 nodes. Before timing a graph, the three are checked to
//! agree on the immediate dominator of every node (the benchmark panics
//! otherwise). A peer whose first (checking) run of a graph takes longer
//! than `SKIP_ABOVE` is not timed on it; the run says so on stderr. Group
//! `dominators-SHAPE`, function = peer, parameter = nominal size; results
//! in `target/criterion/dominators-SHAPE/PEER/SIZE/new/estimates.json`.

use benches::{BenchGraph, SHAPES, assert_same_idoms, idoms_cfg_dom, idoms_cranelift, idoms_petgraph, shape};
use cfg_dom::DomTree;
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use petgraph::algo::dominators::simple_fast;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Nominal sizes (nodes).
const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// A peer slower than this on a graph's checking run is not timed on it.
const SKIP_ABOVE: Duration = Duration::from_secs(2);

/// Times `f` once.
fn once<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

fn dominators(c: &mut Criterion) {
    for name in SHAPES {
        let mut group = c.benchmark_group(format!("dominators-{name}"));
        for n in SIZES {
            let g = BenchGraph::new(shape(name, n));
            let csr = g.to_csr();
            let digraph = g.to_digraph();
            let func = g.to_cranelift();
            let cfg = ControlFlowGraph::with_function(&func);

            // Check the answers (and take a first timing) before measuring.
            let mut ours = DomTree::new();
            let ((), t_ours) = once(|| ours.compute(&csr));
            let (pd, t_petgraph) = once(|| simple_fast(&digraph, g.petgraph_entry()));
            let mut cl = DominatorTree::new();
            let ((), t_cranelift) = once(|| cl.compute(&func, &cfg));
            let what = format!("{name} n={n} ({} nodes, {} edges)", g.nodes, g.edges.len());
            assert_same_idoms(
                &what,
                &idoms_cfg_dom(&ours, g.nodes),
                &[("petgraph", &idoms_petgraph(&pd, g.nodes)), ("cranelift", &idoms_cranelift(&cl, g.nodes))],
            );
            drop(pd);
            let reachable = (0..g.nodes as u32).filter(|&v| ours.is_reachable(v)).count();
            eprintln!(
                "{what}: {reachable} reachable; idoms agree; first runs: cfg-dom {t_ours:?}, \
                 petgraph {t_petgraph:?}, cranelift {t_cranelift:?}"
            );

            group.throughput(Throughput::Elements(g.nodes as u64));
            if n >= 100_000 {
                group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5));
            } else {
                group.sample_size(30).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(3));
            }
            let skip = |peer: &str, t: Duration| {
                let slow = t > SKIP_ABOVE;
                if slow {
                    eprintln!("{what}: SKIPPED {peer}: {t:?} per run (> {SKIP_ABOVE:?})");
                }
                slow
            };

            if !skip("cfg-dom", t_ours) {
                group.bench_function(BenchmarkId::new("cfg-dom", n), |b| {
                    b.iter(|| {
                        ours.compute(black_box(&csr));
                        black_box(ours.root())
                    })
                });
            }
            if !skip("petgraph", t_petgraph) {
                group.bench_function(BenchmarkId::new("petgraph", n), |b| {
                    b.iter(|| simple_fast(black_box(&digraph), g.petgraph_entry()))
                });
            }
            if !skip("cranelift", t_cranelift) {
                group.bench_function(BenchmarkId::new("cranelift", n), |b| {
                    b.iter(|| {
                        cl.compute(black_box(&func), black_box(&cfg));
                        black_box(cl.is_valid())
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, dominators);
criterion_main!(benches);
