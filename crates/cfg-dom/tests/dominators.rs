//! `DomTree` and `PostDomTree` against the textbook definitions of
//! `cfg_dom::oracle` (iterative dominator sets, dominance by removal,
//! post-dominance by removal with the virtual-exit rule): on proptest graphs
//! of every shape, on the CFGs of generated modules, on petgraph views, on
//! the DU-chain document's worked example, and on adversarial graphs (10^5
//! nodes, 10^4 nested loops, dense irreducible, unreachable nodes, entry
//! with predecessors, self-loops, duplicate edges, empty graph, entry out
//! of range). Also the `compute` lifecycle and stale-result detection.

mod common;

use cfg_dom::fuzzing::{check_all, check_dom_tree, check_post_dom_tree, check_recompute};
use cfg_dom::{CsrGraph, DomTree, Graph, Node, PostDomTree, ReverseGraph, Stale, oracle};
use common::*;
use ir_core::{Arg, Block, Opcode};
use ir_gen::graphs;
use proptest::prelude::*;

/// Per node: idom, depth, tree preorder number, children.
type NodeAnswers = (Option<Node>, Option<u32>, Option<u32>, Vec<Node>);

/// Everything a tree answers: root, size, reverse postorder, and each node
/// (one past the end too).
fn answers(dt: &DomTree) -> (Option<Node>, usize, Vec<Node>, Vec<NodeAnswers>) {
    let nodes = (0..=dt.num_nodes() as Node)
        .map(|v| (dt.idom(v), dt.depth(v), dt.tree_pre_number(v), dt.children(v).to_vec()))
        .collect();
    (dt.root(), dt.num_nodes(), dt.preorder().to_vec(), nodes)
}

fn idoms(dt: &DomTree, n: usize) -> Vec<Option<Node>> {
    (0..n as Node).map(|v| dt.idom(v)).collect()
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn dominators_match_the_oracles_on_any_graph(e in graphs::arb_graph(64)) {
        let g = csr(&e);
        check_dom_tree(&g);
        check_post_dom_tree(&g);
    }

    #[test]
    fn dominators_match_the_oracles_on_each_named_shape(e in named_shape(80)) {
        let g = csr(&e);
        check_dom_tree(&g);
        check_post_dom_tree(&g);
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn dominators_of_generated_functions(kind in 0..5usize, seed in any::<u64>()) {
        let m = generated(kind, seed);
        for (func, g) in cfgs(&m) {
            check_dom_tree(&g);
            check_post_dom_tree(&g);
            let dt = DomTree::of(&g);
            prop_assert_eq!(dt.check(func), Ok(()));
            prop_assert_eq!(PostDomTree::of(&g).tree().check(func), Ok(()));
            prop_assert_eq!(dt.root(), func.entry_block().map(|b| b.as_u32()));
        }
    }

    /// petgraph views answer as the oracles say, as a `CsrGraph` with the
    /// same successor order, and as the edge list's `CsrGraph` wherever the
    /// order does not matter.
    #[test]
    fn petgraph_views_agree_with_csr_graphs(e in graphs::arb_graph(48)) {
        cfg_dom::fuzzing::check_petgraph(e.nodes, &e.edges);
    }

    /// One tree recomputed over a run of graphs of different sizes answers
    /// exactly as fresh trees do.
    #[test]
    fn a_reused_tree_answers_as_a_fresh_one(run in prop::collection::vec(graphs::arb_graph(64), 1..8)) {
        let mut dt = DomTree::new();
        for e in &run {
            let g = csr(e);
            dt.compute(&g);
            prop_assert_eq!(answers(&dt), answers(&DomTree::of(&g)));
            check_recompute(&g);
        }
        dt.clear();
        prop_assert_eq!(answers(&dt), answers(&DomTree::new()));
    }
}

// ---- the oracles themselves, on graphs worked by hand -------------------------

#[test]
fn the_oracles_on_the_worked_example() {
    let g = du_graph();
    let dom = oracle::dominators(&g);
    let sets: Vec<Vec<usize>> = dom.iter().map(|s| s.as_ref().unwrap().ones().collect()).collect();
    assert_eq!(
        sets,
        [
            vec![0],
            vec![0, 1],
            vec![0, 1, 2],
            vec![0, 1, 2, 3],
            vec![0, 1, 2, 4],
            vec![0, 1, 2, 4, 5],
            vec![0, 1, 2, 4, 5, 6]
        ]
    );
    assert_eq!(oracle::idoms(&g), [None, Some(0), Some(1), Some(2), Some(2), Some(4), Some(5)]);
    assert!(oracle::dominates_by_removal(&g, 2, 6) && !oracle::dominates_by_removal(&g, 3, 4));
    assert!(oracle::dominates_by_removal(&g, 4, 4) && oracle::dominates_by_removal(&g, 0, 5));
    // Post-dominance: bb6 is the only exit; bb5 -> bb2 loops back.
    assert_eq!(oracle::exit_sources(&g), [6]);
    assert_eq!(oracle::ipdoms(&g), [Some(1), Some(2), Some(4), Some(4), Some(5), Some(6), None]);
    assert!(oracle::post_dominates(&g, 4, 3) && !oracle::post_dominates(&g, 3, 2));
    assert_eq!(oracle::nearest_common_dominator(&dom, 3, 6), Some(2));
}

#[test]
fn the_post_dominance_oracle_on_infinite_loops_and_several_exits() {
    // 0 -> 1 -> {2, 3}; 2 exits; 3 -> 4 -> 3 loops forever; 5 unreachable.
    let g = CsrGraph::from_edges(6, Some(0), [(0, 1), (1, 2), (1, 3), (3, 4), (4, 3), (5, 4)]).unwrap();
    // DFS postorder: 2, 4, 3, 1, 0; 4 is the first that cannot reach an exit.
    assert_eq!(oracle::depth_first(&g).postorder, [2, 4, 3, 1, 0]);
    assert_eq!(oracle::exit_sources(&g), [2, 4]);
    assert_eq!(oracle::ipdoms(&g), [Some(1), None, None, Some(4), None, None]);
    assert!(!oracle::post_dominates(&g, 2, 1) && oracle::post_dominates(&g, 1, 0));
    assert!(!oracle::post_dominates(&g, 5, 5), "unreachable nodes take no part");
    check_all(&g, 1);
    // Two loops, the second reached only through the first.
    let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (3, 4), (4, 3)]).unwrap();
    assert_eq!(oracle::depth_first(&g).postorder, [4, 3, 2, 1, 0]);
    // No exit at all: 4 comes first in postorder, and everything reaches it.
    assert_eq!(oracle::exit_sources(&g), [4]);
    assert_eq!(oracle::ipdoms(&g), [Some(1), Some(2), Some(3), Some(4), None]);
    check_all(&g, 2);
}

// ---- the worked example ---------------------------------------------------------

fn assert_worked_example(g: &impl Graph) {
    let dt = DomTree::of(g);
    // entry -> bb1 -> bb2 -> {bb3, bb4}, bb4 -> bb5 -> bb6.
    assert_eq!(idoms(&dt, 7), [None, Some(0), Some(1), Some(2), Some(2), Some(4), Some(5)]);
    assert_eq!(dt.children(0), [1]);
    assert_eq!(dt.children(1), [2]);
    assert_eq!(dt.children(2), [3, 4]);
    assert_eq!(dt.children(3), [] as [Node; 0]);
    assert_eq!(dt.children(4), [5]);
    assert_eq!(dt.children(5), [6]);
    assert_eq!((0..7).map(|v| dt.depth(v).unwrap()).collect::<Vec<_>>(), [0, 1, 2, 3, 3, 4, 5]);
    assert!(dt.dominates(2, 6) && !dt.dominates(3, 4) && dt.dominates(4, 4) && !dt.strictly_dominates(4, 4));
    assert_eq!(dt.nearest_common_dominator(3, 6), Some(2));
    let pdt = PostDomTree::of(g);
    assert_eq!(
        (0..7).map(|v| pdt.ipdom(v)).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(4), Some(4), Some(5), Some(6), None]
    );
    check_all(g, 7);
}

#[test]
fn the_worked_example_from_edges() {
    assert_worked_example(&du_graph());
}

#[test]
fn the_worked_example_from_the_kir_file() {
    let m = du_module();
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let g = f.cfg();
    assert_eq!(g.num_nodes(), 7);
    let mut got: Vec<(Node, Node)> = (0..7).flat_map(|a| g.successors(a).map(move |b| (a, b))).collect();
    got.sort_unstable();
    assert_eq!(got, [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6)]);
    assert_worked_example(&g);
    DomTree::of(&g).check(f).unwrap();
}

// ---- stale results ------------------------------------------------------------

#[test]
fn results_from_a_function_go_stale_on_cfg_edits_only() {
    let mut m = du_module();
    let id = m.function_by_name("du_example").unwrap();
    let f = m.function(id).unwrap();
    let g = f.cfg();
    let dt = DomTree::of(&g);
    let pdt = PostDomTree::of(&g);
    let computed = f.cfg_epoch().as_u64();
    assert_eq!(dt.stamp(), Some(computed));
    assert_eq!(dt.check(f), Ok(()));
    assert_eq!(pdt.tree().check(f), Ok(()));
    assert_eq!(ReverseGraph::of(&g).stamp(), Some(computed));
    // A clone is another function.
    assert!(matches!(dt.check(&f.clone()), Err(Stale::Changed { .. })));

    // An operand-only edit: `%x = add %a, %c` in bb1 becomes `add %a, %b`.
    let f = m.function_mut(id).unwrap();
    let add = f.block_insts(Block::from_u32(1)).find(|&i| f.opcode(i) == Opcode::Add).unwrap();
    let b = f.var_by_name("b").unwrap();
    let op = f.operand(Arg::Var(b));
    assert!(f.set_operand(add, 1, op));
    assert_eq!(dt.check(f), Ok(()), "operands are not the CFG");
    assert_eq!(pdt.tree().check(f), Ok(()));

    // A CFG edit: a new block in the layout.
    let new = f.create_block();
    f.append_block(new).unwrap();
    let now = f.cfg_epoch().as_u64();
    assert_ne!(now, computed);
    assert_eq!(dt.check(f), Err(Stale::Changed { computed, current: Some(now) }));
    assert!(matches!(pdt.tree().check(f), Err(Stale::Changed { .. })));
    // Recomputed, fresh again; the new block is unreachable.
    let mut g2 = g.clone();
    f.compute_cfg(&mut g2);
    let dt2 = DomTree::of(&g2);
    assert_eq!(dt2.check(f), Ok(()));
    assert!(!dt2.is_reachable(new.as_u32()) && dt2.idom(new.as_u32()).is_none());
}

#[test]
fn redirecting_a_successor_makes_results_stale() {
    let mut m = du_module();
    let id = m.function_by_name("du_example").unwrap();
    let g = m.function(id).unwrap().cfg();
    let dt = DomTree::of(&g);
    let f = m.function_mut(id).unwrap();
    // bb2: `br %s, bb3, bb4` becomes `br %s, bb4, bb4`.
    let br = f.terminator(Block::from_u32(2)).unwrap();
    assert!(f.set_successor(br, 0, Block::from_u32(4)));
    assert!(matches!(dt.check(f), Err(Stale::Changed { .. })));
    let g = f.cfg();
    let dt = DomTree::of(&g);
    dt.check(f).unwrap();
    assert_eq!(idoms(&dt, 7), [None, Some(0), Some(1), None, Some(2), Some(4), Some(5)]);
    check_all(&g, 3);
}

#[test]
fn results_from_plain_graphs_are_unstamped() {
    let m = du_module();
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let g = du_graph();
    assert_eq!(DomTree::of(&g).check(f), Err(Stale::Unstamped));
    assert_eq!(PostDomTree::of(&g).tree().check(f), Err(Stale::Unstamped));
    assert_eq!(DomTree::new().check(f), Err(Stale::Unstamped));
}

// ---- adversarial graphs -----------------------------------------------------------

const BIG: usize = 100_000;

#[test]
fn a_long_chain() {
    on_small_stack(|| {
        let g = csr(&graphs::chain(BIG));
        let n = BIG as Node;
        let dt = DomTree::of(&g);
        for v in 1..n {
            assert_eq!(dt.idom(v), Some(v - 1));
            assert_eq!(dt.depth(v), Some(v));
        }
        assert!(dt.dominates(0, n - 1) && !dt.dominates(n - 1, 0) && dt.dominates(n / 2, n / 2 + 7));
        assert_eq!(dt.children(n / 2), [n / 2 + 1]);
        assert_eq!(dt.nearest_common_dominator(n - 1, 17), Some(17));
        let pdt = PostDomTree::of(&g);
        for v in 0..n - 1 {
            assert_eq!(pdt.ipdom(v), Some(v + 1));
        }
        assert_eq!(pdt.ipdom(n - 1), None);
        assert!(pdt.post_dominates(n - 1, 0) && !pdt.post_dominates(0, 1));
    });
}

#[test]
fn a_long_ladder() {
    on_small_stack(|| {
        let rungs = BIG / 3;
        let g = csr(&graphs::ladder(rungs));
        assert_eq!(g.num_nodes(), 3 * rungs + 1);
        let dt = DomTree::of(&g);
        let pdt = PostDomTree::of(&g);
        for r in 0..rungs as Node {
            let (top, left, right, join) = (3 * r, 3 * r + 1, 3 * r + 2, 3 * r + 3);
            assert_eq!([dt.idom(left), dt.idom(right), dt.idom(join)], [Some(top); 3]);
            assert_eq!(dt.depth(top), Some(r));
            assert_eq!(dt.children(top).len(), 3);
            assert!(!dt.dominates(left, join) && dt.dominates(top, join));
            assert_eq!(dt.nearest_common_dominator(left, right), Some(top));
            assert_eq!([pdt.ipdom(top), pdt.ipdom(left), pdt.ipdom(right)], [Some(join); 3]);
        }
        assert_eq!(pdt.ipdom(3 * rungs as Node), None);
    });
}

#[test]
fn ten_thousand_nested_loops() {
    on_small_stack(|| {
        let d = 10_000 as Node;
        let g = csr(&graphs::nested_loops(d as usize));
        // The dominator tree is one path: headers h0..h(d-1), then latches
        // l(d-1)..l0, then the exit 2d; post-dominance follows it too.
        let path: Vec<Node> = (0..d).map(|i| 2 * i).chain((0..d).rev().map(|i| 2 * i + 1)).chain([2 * d]).collect();
        let dt = DomTree::of(&g);
        let pdt = PostDomTree::of(&g);
        for (k, w) in path.windows(2).enumerate() {
            assert_eq!(dt.idom(w[1]), Some(w[0]), "idom of {}", w[1]);
            assert_eq!(dt.depth(w[1]), Some(k as u32 + 1));
            assert_eq!(pdt.ipdom(w[0]), Some(w[1]), "ipdom of {}", w[0]);
        }
        assert_eq!(pdt.ipdom(2 * d), None);
        assert!(dt.dominates(0, 2 * d) && dt.dominates(2 * d - 2, 1) && !dt.dominates(1, 2 * d - 2));
    });
}

#[test]
fn dense_irreducible_graphs() {
    for seed in 0..3 {
        let e = graphs::random(300, 4, seed);
        let g = csr(&e);
        check_dom_tree(&g);
        check_post_dom_tree(&g);
        assert!(!cfg_dom::is_reducible(&g));
    }
}

#[test]
fn many_unreachable_nodes() {
    for seed in 0..4 {
        let e = graphs::with_unreachable(graphs::structured(40, seed), 150, seed);
        let g = csr(&e);
        check_all(&g, seed);
        let dt = DomTree::of(&g);
        assert!((e.nodes - 150..e.nodes).all(|v| !dt.is_reachable(v as Node) && dt.idom(v as Node).is_none()));
    }
    // Nothing reachable but the entry.
    let g = CsrGraph::from_edges(50, Some(0), (1..50).map(|i| (i, (i + 1) % 50))).unwrap();
    check_all(&g, 9);
    assert_eq!(DomTree::of(&g).preorder(), [0]);
}

#[test]
fn an_entry_with_predecessors() {
    // 0 -> 1 -> 2 -> 0, 2 -> 3; 1 -> 0.
    let g = CsrGraph::from_edges(4, Some(0), [(0, 1), (1, 2), (2, 0), (2, 3), (1, 0)]).unwrap();
    let dt = DomTree::of(&g);
    assert_eq!(idoms(&dt, 4), [None, Some(0), Some(1), Some(2)]);
    assert_eq!(dt.depth(0), Some(0));
    check_all(&g, 1);
    // The entry is a loop header reached from an inner, irreducible loop.
    let g = CsrGraph::from_edges(4, Some(0), [(0, 1), (0, 2), (1, 2), (2, 1), (2, 0), (1, 3)]).unwrap();
    check_all(&g, 2);
}

#[test]
fn self_loops_and_duplicate_edges() {
    let g = CsrGraph::from_edges(4, Some(0), [(0, 0), (0, 1), (0, 1), (1, 1), (1, 2), (1, 3), (2, 3), (2, 3), (3, 3)])
        .unwrap();
    let dt = DomTree::of(&g);
    assert_eq!(idoms(&dt, 4), [None, Some(0), Some(1), Some(1)]);
    check_all(&g, 1);
    // Only self-loops: the single node is its own infinite loop.
    let g = CsrGraph::from_edges(1, Some(0), [(0, 0), (0, 0)]).unwrap();
    check_all(&g, 2);
    let pdt = PostDomTree::of(&g);
    assert_eq!(pdt.ipdom(0), None);
    assert!(pdt.post_dominates(0, 0));
}

#[test]
fn empty_graphs() {
    for g in
        [CsrGraph::new(), CsrGraph::from_edges(0, None, []).unwrap(), CsrGraph::from_edges(3, None, [(0, 1)]).unwrap()]
    {
        check_all(&g, 0);
        let dt = DomTree::of(&g);
        assert_eq!((dt.root(), dt.num_nodes()), (None, g.num_nodes()));
        assert!(dt.preorder().is_empty() && !dt.dominates(0, 0) && dt.idom(0).is_none());
        let pdt = PostDomTree::of(&g);
        assert_eq!(pdt.exit(), g.num_nodes() as Node);
        assert!(!pdt.post_dominates(0, 0) && pdt.ipdom(0).is_none());
    }
}

#[test]
fn an_entry_out_of_range_does_not_panic() {
    assert!(CsrGraph::from_edges(3, Some(3), [(0, 1)]).is_err());
    let base = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 2), (2, 0)]).unwrap();
    for entry in [Some(3), Some(4), Some(u32::MAX - 1), Some(u32::MAX), None] {
        let g = WithEntry { graph: &base, entry };
        check_all(&g, 5);
        let dt = DomTree::of(&g);
        assert_eq!(dt.root(), None);
        assert!((0..3).all(|v| !dt.is_reachable(v)));
        let pdt = PostDomTree::of(&g);
        assert!((0..3).all(|v| pdt.ipdom(v).is_none() && !pdt.post_dominates(v, v)));
    }
    // A petgraph view with an entry index past its nodes.
    let mut pg = petgraph::graph::DiGraph::<(), ()>::new();
    let [a, b] = [pg.add_node(()), pg.add_node(())];
    pg.add_edge(a, b, ());
    let view = cfg_dom::Petgraph::new(&pg, petgraph::graph::NodeIndex::new(9));
    check_all(&view, 6);
    assert_eq!(DomTree::of(&view).root(), None);
}

// ---- other petgraph graph types -----------------------------------------------------

#[test]
fn stable_graphs_with_removed_nodes() {
    use petgraph::stable_graph::{NodeIndex, StableDiGraph};
    for seed in 0..40u64 {
        let e = graphs::random(12, 2, seed);
        let mut sg = StableDiGraph::<(), ()>::new();
        let ids: Vec<NodeIndex> = (0..e.nodes).map(|_| sg.add_node(())).collect();
        for &(a, b) in &e.edges {
            sg.add_edge(ids[a as usize], ids[b as usize], ());
        }
        // Remove a node other than the entry: it stays as a hole.
        let gone = 1 + (seed as usize % (e.nodes - 1));
        sg.remove_node(ids[gone]);
        let view = cfg_dom::Petgraph::new(&sg, ids[0]);
        // The node bound drops when the last index goes.
        let nv = view.num_nodes();
        assert_eq!(nv, if gone == e.nodes - 1 { e.nodes - 1 } else { e.nodes });
        check_all(&view, seed);
        let kept: Vec<(Node, Node)> =
            e.edges.iter().copied().filter(|&(a, b)| a as usize != gone && b as usize != gone).collect();
        let g = edges(e.nodes, &kept);
        let (dv, dg) = (DomTree::of(&view), DomTree::of(&g));
        assert_eq!(idoms(&dv, nv), idoms(&dg, nv), "seed {seed}");
    }
}

#[test]
fn graph_maps() {
    use petgraph::graphmap::DiGraphMap;
    for seed in 0..40u64 {
        let e = graphs::random(12, 2, seed);
        let mut gm = DiGraphMap::<u32, ()>::new();
        for v in 0..e.nodes as u32 {
            gm.add_node(v);
        }
        for &(a, b) in &e.edges {
            gm.add_edge(a, b, ());
        }
        let view = cfg_dom::Petgraph::new(&gm, 0);
        check_all(&view, seed);
        let g = csr(&e);
        assert_eq!(idoms(&DomTree::of(&view), e.nodes), idoms(&DomTree::of(&g), e.nodes), "seed {seed}");
    }
}
