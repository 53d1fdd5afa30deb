//! Phi placement by iterated dominance frontiers for many variables
//! (`cargo bench -p benches --bench phi_placement`).
//!
//! On `structured(n, 1)` graphs of 10^4..10^6 nodes, `VARS` variables are
//! each defined in 1 to 8 random blocks (`benches::def_sets`, seed 2), and
//! the IDF of every variable is computed:
//! - `idf-cfg-dom`: `IteratedFrontiers::query` (Sreedhar–Gao, no DF sets,
//!   with pruned subtree walks), one index reused for all variables;
//! - `idf-df-worklist`: the classic worklist over precomputed
//!   `DominanceFrontiers` (`benches::DfWorklist`), the baseline.
//!
//! Reported separately, per graph: `domtree` (`DomTree::compute`), `df`
//! (`DominanceFrontiers::compute`, which only the baseline needs) and
//! `idf-index` (`IteratedFrontiers::compute`, which only cfg-dom needs). The IDF
//! benchmarks' throughput is in variables, so criterion's "elem/s" is
//! queries per second. Before timing, both IDFs are checked to agree for
//! every variable, and the mean number of nodes the Sreedhar–Gao walk
//! would visit per query without pruning (the union of the dominator subtrees of the definitions
//! and of the IDF) is printed on stderr.

use benches::{DfWorklist, def_sets};
use cfg_dom::{CsrGraph, DomTree, DominanceFrontiers, IteratedFrontiers, Node};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ir_gen::graphs::structured;
use std::hint::black_box;
use std::time::Instant;

/// Number of variables placed per graph.
const VARS: usize = 1000;

/// Nominal sizes (nodes).
const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// Number of nodes in the union of the dominator subtrees of `roots`: what
/// the Sreedhar–Gao walk visits when `roots` are the definitions plus the
/// IDF.
fn walked(dt: &DomTree, subtree: &[u32], roots: impl Iterator<Item = Node>) -> usize {
    let mut intervals: Vec<(u32, u32)> =
        roots.filter_map(|r| dt.tree_pre_number(r).map(|p| (p, p + subtree[r as usize]))).collect();
    intervals.sort_unstable();
    let (mut total, mut end) = (0usize, 0u32);
    for (lo, hi) in intervals {
        let lo = lo.max(end);
        if hi > lo {
            total += (hi - lo) as usize;
            end = hi;
        }
    }
    total
}

fn phi_placement(c: &mut Criterion) {
    let mut group = c.benchmark_group("phi-placement");
    for n in SIZES {
        let edges = structured(n, 1);
        let nodes = edges.nodes;
        let g = CsrGraph::from_edges(nodes, Some(0), edges.edges.iter().copied()).expect("ids are in range");
        let defs = def_sets(nodes, VARS, 2);

        let mut dt = DomTree::of(&g);
        let mut df = DominanceFrontiers::of(&g, &dt).expect("the tree of g");
        let mut idf = IteratedFrontiers::of(&g, &dt).expect("the tree of g");
        let mut classic = DfWorklist::new();

        // Check that both IDFs agree, and measure the walk.
        let mut subtree = vec![1u32; nodes];
        for &v in dt.preorder().iter().rev() {
            if let Some(p) = dt.idom(v) {
                subtree[p as usize] += subtree[v as usize];
            }
        }
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut phis, mut visited) = (0usize, 0usize);
        let start = Instant::now();
        for (i, d) in defs.iter().enumerate() {
            idf.query(d.iter().copied(), &mut ours);
            classic.compute(&df, nodes, d, &mut theirs);
            assert_eq!(ours, theirs, "structured n={n}: IDFs of variable {i} (defs {d:?}) differ");
            phis += ours.len();
            visited += walked(&dt, &subtree, d.iter().chain(&ours).copied());
        }
        let dfs = (0..nodes as Node).map(|v| df.frontier(v).len()).sum::<usize>();
        eprintln!(
            "structured n={n}: {nodes} nodes, {} edges, {dfs} DF entries; {VARS} vars, IDFs agree; \
             mean {:.1} phis and {:.0} nodes in an unpruned walk per var; checking run {:?}",
            edges.edges.len(),
            phis as f64 / VARS as f64,
            visited as f64 / VARS as f64,
            start.elapsed()
        );

        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(nodes as u64));
        group.bench_function(BenchmarkId::new("domtree", n), |b| {
            b.iter(|| {
                dt.compute(black_box(&g));
                black_box(dt.root())
            })
        });
        group.bench_function(BenchmarkId::new("df", n), |b| {
            b.iter(|| {
                df.compute(black_box(&g), &dt).expect("the tree of g");
                black_box(df.frontier(0).len())
            })
        });
        group.bench_function(BenchmarkId::new("idf-index", n), |b| {
            b.iter(|| {
                idf.compute(black_box(&g), &dt).expect("the tree of g");
                black_box(idf.stamp())
            })
        });
        group.throughput(Throughput::Elements(VARS as u64));
        group.bench_function(BenchmarkId::new("idf-cfg-dom", n), |b| {
            b.iter(|| {
                let mut total = 0;
                for d in &defs {
                    idf.query(black_box(d.iter().copied()), &mut ours);
                    total += ours.len();
                }
                total
            })
        });
        group.bench_function(BenchmarkId::new("idf-df-worklist", n), |b| {
            b.iter(|| {
                let mut total = 0;
                for d in &defs {
                    classic.compute(black_box(&df), nodes, d, &mut theirs);
                    total += theirs.len();
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, phi_placement);
criterion_main!(benches);
