//! `DominanceFrontiers` and `IteratedFrontiers` against the definitions of
//! `cfg_dom::oracle` (DF(x) = the nodes y such that x dominates a
//! predecessor of y and does not strictly dominate y; DF⁺ by iterating DF
//! to a fixpoint): every node's frontier and random def sets, on proptest
//! graphs of every shape, on the CFGs of generated modules (with the def
//! blocks of their vars, as phi placement asks), on petgraph views, on the
//! DU-chain document's worked example, and on adversarial graphs. One
//! `IteratedFrontiers` is reused across many queries and graphs, to catch
//! stale scratch marks; `DominanceFrontiers::compute` reuse gives fresh
//! results.

mod common;

use cfg_dom::fuzzing::{check_frontiers, check_iterated_frontiers};
use cfg_dom::{CsrGraph, DomTree, DominanceFrontiers, Graph, IteratedFrontiers, Node, oracle};
use common::*;
use ir_core::{Block, Function};
use ir_gen::SplitMix64;
use ir_gen::graphs;
use proptest::prelude::*;

fn idf(g: &impl Graph, dt: &DomTree, defs: &[Node]) -> Vec<Node> {
    let mut out = Vec::new();
    IteratedFrontiers::of(g, dt).unwrap().query(defs.iter().copied(), &mut out);
    out
}

fn all_frontiers(df: &DominanceFrontiers, n: usize) -> Vec<Vec<Node>> {
    (0..=n as Node).map(|x| df.frontier(x).to_vec()).collect()
}

/// The blocks (as nodes) holding a definition of each var of `f`.
fn def_blocks(f: &Function) -> Vec<Vec<Node>> {
    let mut defs = vec![Vec::new(); f.num_vars()];
    for b in f.blocks() {
        for i in f.block_insts(b) {
            for &v in f.results(i) {
                defs[v.as_u32() as usize].push(ir_core::node(b));
            }
        }
    }
    defs
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn frontiers_match_the_definition_on_any_graph(e in graphs::arb_graph(64)) {
        let g = csr(&e);
        check_frontiers(&g);
        check_iterated_frontiers(&g, &mut IteratedFrontiers::new(), seed_of(&e));
    }

    #[test]
    fn frontiers_match_the_definition_on_each_named_shape(e in named_shape(80)) {
        let g = csr(&e);
        check_frontiers(&g);
        check_iterated_frontiers(&g, &mut IteratedFrontiers::new(), seed_of(&e));
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// One `IteratedFrontiers` and one `DominanceFrontiers` over a run of
    /// graphs of different sizes: every answer as fresh ones give.
    #[test]
    fn reused_frontiers_answer_as_fresh_ones(run in prop::collection::vec(graphs::arb_graph(64), 1..8)) {
        let mut idf = IteratedFrontiers::new();
        let mut df = DominanceFrontiers::new();
        let mut dt = DomTree::new();
        for e in &run {
            let g = csr(e);
            dt.compute(&g);
            df.compute(&g, &dt).unwrap();
            let fresh = DominanceFrontiers::of(&g, &DomTree::of(&g)).unwrap();
            prop_assert_eq!(all_frontiers(&df, e.nodes), all_frontiers(&fresh, e.nodes));
            check_iterated_frontiers(&g, &mut idf, seed_of(e));
        }
        df.clear();
        prop_assert!(df.frontier(0).is_empty());
    }

    #[test]
    fn frontiers_of_generated_functions(kind in 0..5usize, seed in any::<u64>()) {
        let m = generated(kind, seed);
        let mut idf = IteratedFrontiers::new();
        let mut out = Vec::new();
        for (func, g) in cfgs(&m) {
            check_frontiers(&g);
            check_iterated_frontiers(&g, &mut idf, seed);
            // Phi placement: the IDF of each var's def blocks.
            let dt = DomTree::of(&g);
            let frontiers = oracle::frontiers(&g);
            idf.compute(&g, &dt).unwrap();
            for defs in def_blocks(func) {
                idf.query(defs.iter().copied(), &mut out);
                prop_assert_eq!(&out, &oracle::iterate_frontiers(&frontiers, defs.iter().copied()), "defs {:?}", defs);
            }
        }
    }

    /// Frontiers do not depend on successor order: a petgraph view (newest
    /// edge first) and the edge list's `CsrGraph` agree.
    #[test]
    fn petgraph_views_have_the_same_frontiers(e in graphs::arb_graph(48), sets in prop::collection::vec(prop::collection::vec(0u32..40, 0..6), 1..6)) {
        let mut pg = petgraph::graph::DiGraph::<(), ()>::new();
        let ids: Vec<_> = (0..e.nodes).map(|_| pg.add_node(())).collect();
        for &(a, b) in &e.edges {
            pg.add_edge(ids[a as usize], ids[b as usize], ());
        }
        let view = cfg_dom::Petgraph::new(&pg, ids[0]);
        let g = csr(&e);
        let (dv, dg) = (DomTree::of(&view), DomTree::of(&g));
        prop_assert_eq!(all_frontiers(&DominanceFrontiers::of(&view, &dv).unwrap(), e.nodes), all_frontiers(&DominanceFrontiers::of(&g, &dg).unwrap(), e.nodes));
        for defs in &sets {
            prop_assert_eq!(idf(&view, &dv, defs), idf(&g, &dg, defs));
        }
    }
}

/// Stale scratch marks: one `IteratedFrontiers` over hundreds of graphs
/// of sizes going up and down, many queries each.
#[test]
fn one_iterated_frontiers_across_many_graphs() {
    let mut idf = IteratedFrontiers::new();
    let mut rng = SplitMix64::new(42);
    for round in 0..300u64 {
        let n = [3usize, 60, 7, 120, 1, 30][round as usize % 6] + (rng.next_u64() % 8) as usize;
        let e = graphs::shape(rng.next_u64() as u8, n, rng.next_u64());
        let e = if round % 3 == 0 { graphs::with_unreachable(e, 4, round) } else { e };
        check_iterated_frontiers(&csr(&e), &mut idf, round);
    }
}

// ---- the worked example ---------------------------------------------------------

fn assert_worked_example(g: &impl Graph, x_defs: &[Node]) {
    let dt = DomTree::of(g);
    let df = DominanceFrontiers::of(g, &dt).unwrap();
    assert_eq!(df.frontier(2), [2], "DF(bb2)");
    assert_eq!(df.frontier(4), [2], "DF(bb4)");
    assert_eq!(df.frontier(3), [4], "DF(bb3)");
    assert_eq!(df.frontier(5), [2], "DF(bb5)");
    for x in [0, 1, 6] {
        assert!(df.frontier(x).is_empty(), "DF(bb{x})");
    }
    // x is defined in bb1, bb3 and bb4: phis at bb2 and bb4.
    assert_eq!(x_defs, [1, 3, 4]);
    assert_eq!(idf(g, &dt, x_defs), [2, 4]);
    // The oracles say the same.
    assert_eq!(oracle::frontier(g, 2), [2]);
    assert_eq!(oracle::frontier(g, 4), [2]);
    assert_eq!(oracle::frontier(g, 3), [4]);
    assert_eq!(oracle::iterated_frontier(g, x_defs.iter().copied()), [2, 4]);
    check_frontiers(g);
    check_iterated_frontiers(g, &mut IteratedFrontiers::new(), 1);
}

#[test]
fn the_worked_example_from_edges() {
    assert_worked_example(&du_graph(), &[1, 3, 4]);
}

#[test]
fn the_worked_example_from_the_kir_file() {
    let m = du_module();
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let g = f.cfg();
    let x = f.var_by_name("x").unwrap();
    let x_defs = &def_blocks(f)[x.as_u32() as usize];
    assert_eq!(x_defs.iter().map(|&n| Block::from_u32(n)).collect::<Vec<_>>(), [1, 3, 4].map(Block::from_u32));
    assert_worked_example(&g, x_defs);
}

// ---- adversarial graphs -----------------------------------------------------------

#[test]
fn a_long_chain_has_empty_frontiers() {
    on_small_stack(|| {
        let n = 100_000;
        let g = csr(&graphs::chain(n));
        let dt = DomTree::of(&g);
        let df = DominanceFrontiers::of(&g, &dt).unwrap();
        assert!((0..n as Node).all(|x| df.frontier(x).is_empty()));
        let all: Vec<Node> = (0..n as Node).collect();
        assert!(idf(&g, &dt, &all).is_empty());
    });
}

#[test]
fn a_long_ladder() {
    on_small_stack(|| {
        let rungs = 33_333;
        let g = csr(&graphs::ladder(rungs));
        let dt = DomTree::of(&g);
        let df = DominanceFrontiers::of(&g, &dt).unwrap();
        for r in 0..rungs as Node {
            let (top, left, right, join) = (3 * r, 3 * r + 1, 3 * r + 2, 3 * r + 3);
            assert!(df.frontier(top).is_empty());
            assert_eq!([df.frontier(left), df.frontier(right)], [[join], [join]]);
        }
        let mut ifs = IteratedFrontiers::of(&g, &dt).unwrap();
        let mut out = Vec::new();
        let lefts: Vec<Node> = (0..rungs as Node).map(|r| 3 * r + 1).collect();
        ifs.query(lefts.iter().copied(), &mut out);
        assert_eq!(out, (1..=rungs as Node).map(|r| 3 * r).collect::<Vec<_>>());
        for r in [0, 7, rungs as Node - 1] {
            ifs.query([3 * r + 2], &mut out);
            assert_eq!(out, [3 * r + 3]);
        }
    });
}

#[test]
fn ten_thousand_nested_loops() {
    on_small_stack(|| {
        // DF(h_j) = DF(l_j) = {h_0, ..., h_j}: the frontiers are quadratic in
        // size, so only the (linear) iterated frontiers run at 10^4.
        let d = 10_000 as Node;
        let g = csr(&graphs::nested_loops(d as usize));
        let dt = DomTree::of(&g);
        let mut ifs = IteratedFrontiers::of(&g, &dt).unwrap();
        let mut out = Vec::new();
        let headers = |k: Node| (0..=k).map(|i| 2 * i).collect::<Vec<_>>();
        ifs.query([2 * d - 1], &mut out);
        assert_eq!(out, headers(d - 1));
        for k in [0, 1, 4321, d - 1] {
            ifs.query([2 * k], &mut out);
            assert_eq!(out, headers(k), "IDF(h{k})");
            ifs.query([2 * k + 1, 2 * d], &mut out);
            assert_eq!(out, headers(k), "IDF(l{k}, exit)");
        }
    });
}

#[test]
fn a_thousand_nested_loops_have_quadratic_frontiers() {
    let d = 1000 as Node;
    let g = csr(&graphs::nested_loops(d as usize));
    let dt = DomTree::of(&g);
    let df = DominanceFrontiers::of(&g, &dt).unwrap();
    for j in 0..d {
        let headers: Vec<Node> = (0..=j).map(|i| 2 * i).collect();
        assert_eq!(df.frontier(2 * j), headers, "DF(h{j})");
        assert_eq!(df.frontier(2 * j + 1), headers, "DF(l{j})");
    }
    assert!(df.frontier(2 * d).is_empty());
}

#[test]
fn dense_irreducible_graphs() {
    let mut idf = IteratedFrontiers::new();
    for seed in 0..3 {
        let g = csr(&graphs::random(300, 4, seed));
        check_frontiers(&g);
        check_iterated_frontiers(&g, &mut idf, seed);
    }
}

#[test]
fn special_graphs() {
    let mut idf = IteratedFrontiers::new();
    let graphs = [
        // Many unreachable nodes pointing in.
        csr(&graphs::with_unreachable(graphs::structured(30, 3), 100, 3)),
        // An entry with predecessors: the entry is in frontiers.
        CsrGraph::from_edges(4, Some(0), [(0, 1), (1, 2), (2, 0), (2, 3), (1, 0)]).unwrap(),
        // Self-loops and duplicate edges.
        CsrGraph::from_edges(4, Some(0), [(0, 0), (0, 1), (0, 1), (1, 1), (1, 2), (1, 3), (2, 3), (2, 3), (3, 3)])
            .unwrap(),
        CsrGraph::from_edges(1, Some(0), [(0, 0)]).unwrap(),
        // Empty graphs.
        CsrGraph::new(),
        CsrGraph::from_edges(3, None, [(0, 1), (1, 2)]).unwrap(),
    ];
    for (i, g) in graphs.iter().enumerate() {
        check_frontiers(g);
        check_iterated_frontiers(g, &mut idf, i as u64);
    }
    let g = &graphs[1];
    let df = DominanceFrontiers::of(g, &DomTree::of(g)).unwrap();
    assert_eq!([df.frontier(0), df.frontier(1), df.frontier(2)], [&[0][..], &[0], &[0]]);
    let g = &graphs[2];
    let df = DominanceFrontiers::of(g, &DomTree::of(g)).unwrap();
    assert_eq!([df.frontier(0), df.frontier(1), df.frontier(2), df.frontier(3)], [&[0][..], &[1], &[3], &[3]]);
    // An entry out of range: nothing is reachable, every answer is empty.
    let base = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 2), (2, 0)]).unwrap();
    for entry in [Some(3), Some(u32::MAX), None] {
        let g = WithEntry { graph: &base, entry };
        check_frontiers(&g);
        check_iterated_frontiers(&g, &mut idf, 9);
        let dt = DomTree::of(&g);
        assert!(idf_all_empty(&g, &dt));
    }
}

fn idf_all_empty(g: &impl Graph, dt: &DomTree) -> bool {
    let df = DominanceFrontiers::of(g, dt).unwrap();
    (0..g.num_nodes() as Node).all(|x| df.frontier(x).is_empty()) && idf(g, dt, &[0, 1, 2]).is_empty()
}

/// A nest of `d` loops: header `i` (1..=d) enters `i + 1`; the innermost
/// body `d + 1` and each latch branch back to a header or out.
fn loop_nest(d: u32) -> CsrGraph {
    let mut edges = vec![(0, 1)];
    for i in 1..=d {
        edges.push((i, i + 1));
    }
    edges.push((d + 1, d));
    edges.push((d + 1, d + 2));
    for k in 1..d {
        let b = d + 1 + k;
        edges.push((b, d - k));
        edges.push((b, b + 1));
    }
    CsrGraph::from_edges(2 * d as usize + 2, Some(0), edges).unwrap()
}

#[test]
fn idf_stays_linear_on_deep_loop_nests() {
    use cfg_dom::{Idf, IdfMethod};
    // Depth 2000: the frontier sets would hold about 2·10^6 entries, over
    // the budget of 8 (n + m) + 4096; a shallow nest stays within it.
    let deep = loop_nest(2000);
    let dt = DomTree::of(&deep);
    let mut idf = Idf::of(&deep, &dt).unwrap();
    assert_eq!(idf.method(), IdfMethod::SubtreeWalks);
    let mut out = Vec::new();
    idf.query([2000], &mut out);
    out.sort_unstable();
    let df = DominanceFrontiers::of(&deep, &dt).unwrap();
    assert_eq!(out, oracle::iterate_frontiers(&all_frontiers(&df, deep.num_nodes()), [2000]));
    let shallow = loop_nest(20);
    assert_eq!(Idf::of(&shallow, &DomTree::of(&shallow)).unwrap().method(), IdfMethod::FrontierSets);
    // Handed another graph's tree: an error.
    assert!(Idf::of(&shallow, &dt).is_err());
}
