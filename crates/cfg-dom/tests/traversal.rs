//! `Dfs` against the textbook recursive depth-first search of
//! `cfg_dom::oracle` (orders, parents, ancestry, back edges), and
//! `is_reducible` against T1/T2 reduction (Hecht–Ullman): on proptest
//! graphs of every shape, on the CFGs of generated modules, and on
//! adversarial graphs (10^5 nodes, 10^4 nested loops, dense irreducible,
//! self-loops, duplicate edges, empty graph, entry out of range). Also the
//! `compute` lifecycle.

mod common;

use cfg_dom::fuzzing::{check_dfs, check_reducible};
use cfg_dom::{CsrGraph, Dfs, Graph, Node, is_reducible, oracle};
use common::*;
use ir_gen::graphs::{self, EdgeList};
use ir_gen::{GenConfig, generate};
use proptest::prelude::*;

type DfsAnswers = (Vec<Node>, Vec<Node>, Vec<(Option<Node>, Option<u32>, Option<u32>, bool)>);

fn answers(d: &Dfs, n: usize) -> DfsAnswers {
    let nodes = (0..=n as Node).map(|v| (d.parent(v), d.pre_number(v), d.post_number(v), d.is_reachable(v))).collect();
    (d.preorder().to_vec(), d.postorder().to_vec(), nodes)
}

/// Shapes that are reducible by construction (with or without unreachable
/// nodes, which take no part).
fn reducible_shape() -> impl Strategy<Value = EdgeList> {
    let base = prop_oneof![
        (1..60usize).prop_map(graphs::chain),
        (0..20usize).prop_map(graphs::ladder),
        (1..30usize).prop_map(graphs::nested_loops),
        (1..60usize, any::<u64>()).prop_map(|(n, s)| graphs::structured(n, s)),
    ];
    (base, 0..5usize, any::<u64>()).prop_map(|(g, k, s)| graphs::with_unreachable(g, k, s))
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn dfs_and_reducibility_match_the_oracles_on_any_graph(e in graphs::arb_graph(64)) {
        let g = csr(&e);
        check_dfs(&g);
        check_reducible(&g);
    }

    #[test]
    fn dfs_and_reducibility_match_the_oracles_on_each_named_shape(e in named_shape(80)) {
        let g = csr(&e);
        check_dfs(&g);
        check_reducible(&g);
    }

    #[test]
    fn structured_shapes_are_reducible(e in reducible_shape()) {
        let g = csr(&e);
        prop_assert!(oracle::reducible_by_t1_t2(&g));
        prop_assert!(is_reducible(&g));
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn dfs_of_generated_functions(kind in 0..5usize, seed in any::<u64>()) {
        let m = generated(kind, seed);
        for (_, g) in cfgs(&m) {
            check_dfs(&g);
            check_reducible(&g);
        }
    }

    /// Without irreducible cycles, generated CFGs are reducible.
    #[test]
    fn generated_functions_without_irreducible_cycles_are_reducible(seed in any::<u64>(), depth in 0..7u32) {
        let config = GenConfig { blocks: 50, vars: 8, defs_per_var: 1.0, irreducible: 0.0, unreachable: 0.3, max_depth: depth, functions: 2, ..GenConfig::default() };
        let m = generate(&config, seed).module;
        for (_, g) in cfgs(&m) {
            prop_assert!(is_reducible(&g));
            prop_assert!(oracle::reducible_by_t1_t2(&g));
        }
    }

    #[test]
    fn a_reused_dfs_answers_as_a_fresh_one(run in prop::collection::vec(graphs::arb_graph(64), 1..8)) {
        let mut d = Dfs::new();
        for e in &run {
            let g = csr(e);
            d.compute(&g);
            prop_assert_eq!(answers(&d, e.nodes), answers(&Dfs::of(&g), e.nodes));
        }
        d.clear();
        prop_assert!(d.preorder().is_empty() && d.postorder().is_empty() && !d.is_reachable(0));
    }
}

// ---- the oracles themselves, on graphs worked by hand -------------------------

#[test]
fn the_dfs_oracle_by_hand() {
    // 0 -> {1, 3}, 1 -> 2, 2 -> {1, 3}; 4 unreachable.
    let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (0, 3), (1, 2), (2, 1), (2, 3), (4, 3)]).unwrap();
    let d = oracle::depth_first(&g);
    assert_eq!(d.preorder, [0, 1, 2, 3]);
    assert_eq!(d.postorder, [3, 2, 1, 0]);
    assert_eq!(d.parent, [None, Some(0), Some(1), Some(2), None]);
    assert!(d.is_ancestor(1, 3) && d.is_ancestor(3, 3) && !d.is_ancestor(3, 1) && !d.is_ancestor(4, 4));
    check_dfs(&g);
    let dfs = Dfs::of(&g);
    assert_eq!(dfs.back_edges(&g).unwrap(), [(2, 1)]);
}

#[test]
fn the_t1_t2_oracle_by_hand() {
    let g = |n: usize, e: &[(Node, Node)]| CsrGraph::from_edges(n, Some(0), e.iter().copied()).unwrap();
    // The classic irreducible triangle: a loop entered at 1 and at 2.
    assert!(!oracle::reducible_by_t1_t2(&g(3, &[(0, 1), (0, 2), (1, 2), (2, 1)])));
    // Loops, self-loops, duplicate edges, back edges to the entry.
    assert!(oracle::reducible_by_t1_t2(&g(3, &[(0, 1), (1, 1), (1, 2), (2, 1), (2, 1), (2, 0)])));
    assert!(oracle::reducible_by_t1_t2(&g(1, &[(0, 0)])));
    assert!(oracle::reducible_by_t1_t2(&du_graph()));
    // Irreducibility in an unreachable part does not count.
    assert!(oracle::reducible_by_t1_t2(&g(4, &[(0, 1), (3, 1), (3, 2), (1, 2), (2, 1)])));
    // A loop entered from its middle through a nested loop.
    assert!(!oracle::reducible_by_t1_t2(&g(5, &[(0, 1), (1, 2), (2, 3), (3, 1), (0, 4), (4, 3)])));
    assert!(oracle::reducible_by_t1_t2(&CsrGraph::new()));
    for e in [vec![(0, 1), (0, 2), (1, 2), (2, 1)], vec![(0, 1), (1, 2), (2, 3), (3, 1), (0, 4), (4, 3)]] {
        check_reducible(&g(5, &e));
    }
}

// ---- adversarial graphs -----------------------------------------------------------

#[test]
fn a_long_chain() {
    on_small_stack(|| {
        let n = 100_000 as Node;
        let g = csr(&graphs::chain(n as usize));
        let d = Dfs::of(&g);
        assert!(d.preorder().iter().copied().eq(0..n));
        assert!(d.postorder().iter().copied().eq((0..n).rev()));
        assert!((1..n).all(|v| d.parent(v) == Some(v - 1)));
        assert!(d.is_ancestor(0, n - 1) && !d.is_ancestor(n - 1, 0));
        assert!(d.back_edges(&g).unwrap().is_empty());
        assert!(is_reducible(&g));
    });
}

#[test]
fn a_long_ladder() {
    on_small_stack(|| {
        let g = csr(&graphs::ladder(33_333));
        let n = g.num_nodes();
        let d = Dfs::of(&g);
        assert_eq!((d.preorder().len(), d.postorder().len()), (n, n));
        for v in 1..n as Node {
            let p = d.parent(v).unwrap();
            assert!(g.successors(p).any(|s| s == v));
            assert!(d.is_ancestor(p, v) && d.pre_number(p) < d.pre_number(v) && d.post_number(p) > d.post_number(v));
        }
        assert!(d.back_edges(&g).unwrap().is_empty());
        assert!(is_reducible(&g));
    });
}

#[test]
fn ten_thousand_nested_loops() {
    on_small_stack(|| {
        let depth = 10_000 as Node;
        let g = csr(&graphs::nested_loops(depth as usize));
        let d = Dfs::of(&g);
        // Down the headers, back up the latches, out.
        let path: Vec<Node> =
            (0..depth).map(|i| 2 * i).chain((0..depth).rev().map(|i| 2 * i + 1)).chain([2 * depth]).collect();
        assert_eq!(d.preorder(), path);
        let back: Vec<(Node, Node)> = (0..depth).rev().map(|i| (2 * i + 1, 2 * i)).collect();
        assert_eq!(d.back_edges(&g).unwrap(), back);
        assert!(is_reducible(&g));
    });
}

#[test]
fn dense_irreducible_graphs() {
    for seed in 0..3 {
        let g = csr(&graphs::random(300, 4, seed));
        check_dfs(&g);
        check_reducible(&g);
        assert!(!is_reducible(&g));
    }
}

#[test]
fn self_loops_and_duplicate_edges_are_back_edges_each_time() {
    let g = CsrGraph::from_edges(3, Some(0), [(0, 0), (0, 1), (0, 1), (1, 0), (1, 0), (1, 2), (2, 2)]).unwrap();
    let d = Dfs::of(&g);
    assert_eq!(d.back_edges(&g).unwrap(), [(0, 0), (1, 0), (1, 0), (2, 2)]);
    assert!(is_reducible(&g));
    check_dfs(&g);
    check_reducible(&g);
}

#[test]
fn empty_graphs_and_entries_out_of_range() {
    let base = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 2), (2, 1), (0, 2)]).unwrap();
    assert!(!is_reducible(&base));
    for entry in [Some(3), Some(u32::MAX - 1), Some(u32::MAX), None] {
        let g = WithEntry { graph: &base, entry };
        check_dfs(&g);
        check_reducible(&g);
        let d = Dfs::of(&g);
        assert!(d.preorder().is_empty() && d.back_edges(&g).unwrap().is_empty() && d.reachable_set().is_clear());
        assert!(is_reducible(&g));
    }
    for g in [CsrGraph::new(), CsrGraph::from_edges(0, None, []).unwrap()] {
        check_dfs(&g);
        check_reducible(&g);
        assert!(Dfs::of(&g).preorder().is_empty() && is_reducible(&g));
    }
}
