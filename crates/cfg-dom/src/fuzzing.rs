//! The dominance analyses checked against the oracles of
//! [`crate::oracle`], shared by the `cfg` fuzz target, the smoke test that
//! runs it under `cargo test`, and the property tests.
//!
//! Every `check_*` function **panics** when an analysis disagrees with its
//! oracle (or when two independent oracles disagree with each other), with
//! a message naming the analysis, the node(s), the expected and actual
//! answers, and the whole graph. They are meant for graphs of at most a
//! few hundred nodes ([`MAX_NODES`] in the fuzz target): the oracles are
//! quadratic or worse.
//!
//! The fuzz input is decoded into a graph by
//! `ir_gen::graphs::graph_from_bytes(bytes, MAX_NODES)` in the fuzz target
//! and in the tests (`ir-gen` is only a dev-dependency of this crate), then
//! handed to [`check_edges`]:
//!
//! ```
//! // What the `cfg` fuzz target does with its input bytes.
//! let g = ir_gen::graphs::graph_from_bytes(b"\x03\x20\x00seed", cfg_dom::fuzzing::MAX_NODES);
//! cfg_dom::fuzzing::check_edges(g.nodes, &g.edges);
//! ```

use crate::graph::{CsrGraph, Graph, Node};
use crate::oracle;
use crate::{
    Dfs, DomTree, DominanceFrontiers, Idf, IdfMethod, IteratedFrontiers, PostDomTree, ReverseGraph, is_reducible,
};
use core::fmt::Write as _;
use fixedbitset::FixedBitSet;

/// The largest graph the fuzz target decodes (the oracles stay fast).
pub const MAX_NODES: usize = 200;

/// The graph as text for failure messages: node count, entry, edges.
pub fn describe(g: &impl Graph) -> String {
    let mut s = format!("graph: {} nodes, entry {:?}, edges [", g.num_nodes(), g.entry());
    for a in 0..g.num_nodes() as Node {
        for b in g.successors(a) {
            let _ = write!(s, "({a}, {b}), ");
        }
    }
    s.push(']');
    s
}

/// Panics with `what` and the graph unless `expected == actual`.
#[track_caller]
fn same<T: PartialEq + core::fmt::Debug>(g: &impl Graph, what: impl core::fmt::Display, expected: T, actual: T) {
    if expected != actual {
        panic!("{what}: expected {expected:?}, got {actual:?}\n{}", describe(g));
    }
}

fn entry_of(g: &impl Graph) -> Option<Node> {
    g.entry().filter(|&e| (e as usize) < g.num_nodes())
}

/// Every check of this module on the edge list with entry node 0 (the
/// `ir_gen::graphs` convention; no entry when `nodes == 0`): as a
/// [`CsrGraph`] and, with the `petgraph` feature, as a petgraph view
/// ([`check_all`], [`check_petgraph`]). Panics on any disagreement, and
/// when an edge names a node `>= nodes`.
pub fn check_edges(nodes: usize, edges: &[(Node, Node)]) {
    let entry = (nodes > 0).then_some(0);
    let g = CsrGraph::from_edges(nodes, entry, edges.iter().copied()).expect("edges in range");
    let seed = edges
        .iter()
        .fold(nodes as u64, |h, &(a, b)| (h ^ (u64::from(a) << 32 | u64::from(b))).wrapping_mul(0x100_0000_01b3));
    check_all(&g, seed);
    #[cfg(feature = "petgraph")]
    check_petgraph(nodes, edges);
}

/// Every check of this module on `g`: [`check_dfs`], [`check_dom_tree`],
/// [`check_post_dom_tree`], [`check_frontiers`],
/// [`check_iterated_frontiers`] (with def sets drawn from `seed`),
/// [`check_reducible`], [`check_recompute`].
pub fn check_all(g: &impl Graph, seed: u64) {
    check_dfs(g);
    check_dom_tree(g);
    check_post_dom_tree(g);
    check_frontiers(g);
    check_iterated_frontiers(g, &mut IteratedFrontiers::new(), seed);
    check_reducible(g);
    check_recompute(g);
}

/// [`Dfs`] against [`oracle::depth_first`]: the same preorder, postorder
/// (so both are permutations of the reachable set, [`oracle::reachable`])
/// and parents (each a predecessor); numbers consistent with the orders;
/// `is_ancestor` for all pairs as the parent chains say; `back_edges`
/// exactly the edges, in preorder and successor order, to an ancestor.
pub fn check_dfs(g: &impl Graph) {
    let n = g.num_nodes();
    let want = oracle::depth_first(g);
    let reach = oracle::reachable(g);
    let dfs = Dfs::of(g);
    same(g, "Dfs: preorder", &want.preorder[..], dfs.preorder());
    same(g, "Dfs: postorder", &want.postorder[..], dfs.postorder());
    let rpo: Vec<Node> = want.postorder.iter().rev().copied().collect();
    same(g, "Dfs: reverse postorder", rpo, dfs.reverse_postorder().collect());
    same(g, "Dfs: reachable set", &reach, &dfs.reachable_set());
    let mut reached: Vec<Node> = dfs.preorder().to_vec();
    reached.sort_unstable();
    same(g, "Dfs: preorder as a set", reach.ones().map(|v| v as Node).collect::<Vec<_>>(), reached);
    for v in 0..n as Node {
        let i = v as usize;
        same(g, format_args!("Dfs: is_reachable({v})"), reach.contains(i), dfs.is_reachable(v));
        same(g, format_args!("Dfs: parent({v})"), want.parent[i], dfs.parent(v));
        if let Some(p) = dfs.parent(v) {
            same(g, format_args!("Dfs: parent {p} of {v} is a predecessor"), true, g.successors(p).any(|s| s == v));
        }
        let pos = |order: &[Node]| order.iter().position(|&x| x == v).map(|p| p as u32);
        same(g, format_args!("Dfs: pre_number({v})"), pos(&want.preorder), dfs.pre_number(v));
        same(g, format_args!("Dfs: post_number({v})"), pos(&want.postorder), dfs.post_number(v));
    }
    // Ancestors by walking parent chains.
    let mut ancestors: Vec<FixedBitSet> = vec![FixedBitSet::with_capacity(n); n];
    for b in reach.ones() {
        let mut x = Some(b as Node);
        while let Some(y) = x {
            ancestors[b].insert(y as usize);
            x = want.parent[y as usize];
        }
    }
    for a in 0..n as Node {
        for b in 0..n as Node {
            let expected = ancestors[b as usize].contains(a as usize);
            same(g, format_args!("Dfs: is_ancestor({a}, {b})"), expected, dfs.is_ancestor(a, b));
        }
    }
    let mut back = Vec::new();
    for &u in &want.preorder {
        for v in g.successors(u).filter(|&v| (v as usize) < n) {
            if ancestors[u as usize].contains(v as usize) {
                back.push((u, v));
            }
        }
    }
    same(g, "Dfs: back_edges", Ok(back), dfs.back_edges(g));
    let out = n as Node;
    same(g, "Dfs: queries out of range", (false, None, None, false), {
        (dfs.is_reachable(out), dfs.parent(out), dfs.pre_number(out), dfs.is_ancestor(out, out))
    });
}

/// [`DomTree`] against [`oracle::dominators`] (after checking that oracle
/// against [`oracle::dominated_by_removal`] for every node): root, reachable
/// set, `idom`, `dominates` and `strictly_dominates` for all pairs, `depth`
/// (the number of strict dominators), `children` (exactly the nodes whose
/// idom it is, in the graph's DFS preorder), tree preorder numbers (a
/// permutation, parents first), `nearest_common_dominator` for all pairs,
/// `preorder`, and nothing for unreachable or out-of-range nodes.
pub fn check_dom_tree(g: &impl Graph) {
    let n = g.num_nodes();
    let dom = oracle::dominators(g);
    let reach = oracle::reachable(g);
    for (a, by_removal) in oracle::all_dominated_by_removal(g).into_iter().enumerate() {
        let mut by_sets = FixedBitSet::with_capacity(n);
        by_sets
            .extend(dom.iter().enumerate().filter(|(_, d)| d.as_ref().is_some_and(|d| d.contains(a))).map(|(b, _)| b));
        same(g, format_args!("ORACLES DISAGREE: nodes dominated by {a}, dataflow vs removal"), by_sets, by_removal);
    }
    let idom = oracle::immediate(&dom);
    let dt = DomTree::of(g);
    same(g, "DomTree: root", entry_of(g), dt.root());
    same(g, "DomTree: num_nodes", n, dt.num_nodes());
    same(g, "DomTree: stamp", g.stamp(), dt.stamp());
    let pre = oracle::depth_first(g).preorder;
    same(g, "DomTree: preorder", &pre[..], dt.preorder());
    let pre_pos = |v: Node| pre.iter().position(|&x| x == v);
    let dominates = |a: Node, b: Node| dom[b as usize].as_ref().is_some_and(|d| d.contains(a as usize));
    let mut pre_numbers = Vec::new();
    for b in 0..n as Node {
        let i = b as usize;
        same(g, format_args!("DomTree: is_reachable({b})"), reach.contains(i), dt.is_reachable(b));
        same(g, format_args!("DomTree: idom({b})"), idom[i], dt.idom(b));
        let depth = dom[i].as_ref().map(|d| d.count_ones(..) as u32 - 1);
        same(g, format_args!("DomTree: depth({b})"), depth, dt.depth(b));
        for a in 0..n as Node {
            same(g, format_args!("DomTree: dominates({a}, {b})"), dominates(a, b), dt.dominates(a, b));
            let strict = a != b && dominates(a, b);
            same(g, format_args!("DomTree: strictly_dominates({a}, {b})"), strict, dt.strictly_dominates(a, b));
        }
        let mut kids: Vec<Node> = (0..n as Node).filter(|&c| idom[c as usize] == Some(b)).collect();
        kids.sort_by_key(|&c| pre_pos(c));
        same(g, format_args!("DomTree: children({b})"), &kids[..], dt.children(b));
        match (dt.tree_pre_number(b), idom[i]) {
            (Some(p), Some(d)) => {
                let pd = dt.tree_pre_number(d);
                same(g, format_args!("DomTree: tree preorder of {b} after its idom {d}"), true, pd < Some(p));
                pre_numbers.push(p);
            }
            (Some(p), None) => pre_numbers.push(p),
            (None, _) => {
                same(g, format_args!("DomTree: tree_pre_number({b}) of an unreachable node"), false, reach.contains(i))
            }
        }
    }
    pre_numbers.sort_unstable();
    same(g, "DomTree: tree preorder numbers", (0..reach.count_ones(..) as u32).collect::<Vec<_>>(), pre_numbers);
    // The nearest common dominator of reachable `a` and `b` is the common
    // dominator `r` whose own dominator set is the whole common set (the
    // common dominators form a chain from the root, and `Dom(r)` is always
    // inside it): here checked by counting rather than searched for.
    let counts: Vec<usize> = dom.iter().map(|d| d.as_ref().map_or(0, |d| d.count_ones(..))).collect();
    for a in 0..n as Node {
        for b in 0..n as Node {
            let actual = dt.nearest_common_dominator(a, b);
            let ok = match (&dom[a as usize], &dom[b as usize], actual) {
                (Some(da), Some(db), Some(r)) => {
                    da.contains(r as usize)
                        && db.contains(r as usize)
                        && da.intersection_count(db) == counts[r as usize]
                }
                (Some(_), Some(_), None) => false,
                (_, _, r) => r.is_none(),
            };
            if !ok {
                let expected = oracle::nearest_common_dominator(&dom, a, b);
                same(g, format_args!("DomTree: nearest_common_dominator({a}, {b})"), expected, actual);
            }
        }
    }
    let out = n as Node;
    let answers = (dt.idom(out), dt.depth(out), dt.is_reachable(out), dt.children(out).len(), dt.dominates(out, out));
    same(g, "DomTree: queries out of range", (None, None, false, 0, false), answers);
    same(g, "DomTree: nearest_common_dominator out of range", None, dt.nearest_common_dominator(out, 0));
}

/// [`ReverseGraph`] and [`PostDomTree`] against the removal definition of
/// post-dominance ([`oracle::post_dominators`], [`oracle::exit_sources`]):
/// the reversed graph has exactly the reversed edges among reachable nodes
/// plus an edge from the virtual exit to each exit source; the tree's
/// `post_dominates` for all pairs and `ipdom` for every node agree; the
/// virtual exit post-dominates nothing through the node-level API.
pub fn check_post_dom_tree(g: &impl Graph) {
    let n = g.num_nodes();
    let exit = n as Node;
    let reach = oracle::reachable(g);
    let sources = oracle::exit_sources(g);
    let rev = ReverseGraph::of(g);
    same(g, "ReverseGraph: num_nodes", n + 1, rev.num_nodes());
    same(g, "ReverseGraph: exit", exit, rev.exit());
    same(g, "ReverseGraph: entry", Some(exit), rev.entry());
    let mut want: Vec<(Node, Node)> = sources.iter().map(|&s| (exit, s)).collect();
    for u in reach.ones() {
        want.extend(g.successors(u as Node).filter(|&v| (v as usize) < n).map(|v| (v, u as Node)));
    }
    want.sort_unstable();
    let mut got: Vec<(Node, Node)> = Vec::new();
    for a in 0..=exit {
        got.extend(rev.successors(a).map(|b| (a, b)));
    }
    got.sort_unstable();
    same(g, "ReverseGraph: edges (sorted; (exit, x) are virtual exit edges)", want, got);
    let pdom = oracle::post_dominators(g);
    let ipdom = oracle::immediate(&pdom);
    let pdt = PostDomTree::of(g);
    same(g, "PostDomTree: exit", exit, pdt.exit());
    same(g, "PostDomTree: tree root", Some(exit), pdt.tree().root());
    same(g, "PostDomTree: tree num_nodes", n + 1, pdt.tree().num_nodes());
    same(g, "PostDomTree: stamp", g.stamp(), pdt.tree().stamp());
    for b in 0..n as Node {
        let i = b as usize;
        same(g, format_args!("PostDomTree: ipdom({b})"), ipdom[i], pdt.ipdom(b));
        same(g, format_args!("PostDomTree: {b} in the tree"), reach.contains(i), pdt.tree().is_reachable(b));
        for a in 0..n as Node {
            let expected = pdom[i].as_ref().is_some_and(|s| s.contains(a as usize));
            same(g, format_args!("PostDomTree: post_dominates({a}, {b})"), expected, pdt.post_dominates(a, b));
        }
        same(g, format_args!("PostDomTree: post_dominates(exit, {b})"), false, pdt.post_dominates(exit, b));
    }
    same(g, "PostDomTree: ipdom out of range", None, pdt.ipdom(exit + 1));
}

/// [`DominanceFrontiers`] against [`oracle::frontiers`] for every node (and
/// an empty frontier out of range).
pub fn check_frontiers(g: &impl Graph) {
    let want = oracle::frontiers(g);
    let dt = DomTree::of(g);
    let df = DominanceFrontiers::of(g, &dt).expect("the tree of g");
    for (x, w) in want.iter().enumerate() {
        same(g, format_args!("DominanceFrontiers: DF({x})"), &w[..], df.frontier(x as Node));
    }
    same(g, "DominanceFrontiers: out of range", &[] as &[Node], df.frontier(want.len() as Node));
}

/// [`IteratedFrontiers`] against [`oracle::iterate_frontiers`], reusing the
/// caller's `idf` for every query (so stale scratch marks from earlier
/// queries, or earlier graphs, would show): the empty set, every
/// singleton, all nodes, the reachable nodes, and 24 random sets drawn from
/// `seed` (with duplicates, unreachable and out-of-range ids), each random
/// one asked twice.
pub fn check_iterated_frontiers(g: &impl Graph, idf: &mut IteratedFrontiers, seed: u64) {
    let n = g.num_nodes();
    let frontiers = oracle::frontiers(g);
    let dt = DomTree::of(g);
    let mut sets: Vec<Vec<Node>> = vec![Vec::new()];
    sets.extend((0..n as Node).map(|x| vec![x]));
    sets.push((0..n as Node).collect());
    sets.push(oracle::reachable(g).ones().map(|v| v as Node).collect());
    let mut state = seed;
    let mut next = move || {
        // SplitMix64.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for _ in 0..24 {
        let len = next() % (n as u64 / 2 + 3);
        let set: Vec<Node> = (0..len).map(|_| (next() % (n as u64 + 2)) as Node).collect();
        sets.push(set.clone());
        sets.push(set);
    }
    sets.push(vec![u32::MAX, n as Node]);
    let mut out = Vec::new();
    idf.compute(g, &dt).expect("the tree of g");
    same(g, "IteratedFrontiers: stamp", g.stamp(), idf.stamp());
    for defs in &sets {
        idf.query(defs.iter().copied(), &mut out);
        let want = oracle::iterate_frontiers(&frontiers, defs.iter().copied());
        same(g, format_args!("IteratedFrontiers: IDF({defs:?})"), want, out.clone());
    }
    // Single-node frontiers, by subtree walk, against the definition.
    let none: Vec<Node> = Vec::new();
    for x in 0..n as Node + 2 {
        idf.frontier(x, &mut out);
        let mut want = frontiers.get(x as usize).unwrap_or(&none).clone();
        want.sort_unstable();
        same(g, format_args!("IteratedFrontiers: DF({x})"), want, out.clone());
    }
    // `Idf` gives the same sets by either method: frontier sets (no
    // budget), subtree walks (no room for one entry), and whichever its
    // default budget picks. Its output is unordered, so it is sorted here.
    let mut by = Idf::new();
    for budget in [Some(usize::MAX), Some(0), Some(n / 2), None] {
        by.compute_with_budget(g, &dt, budget).expect("the tree of g");
        if budget == Some(usize::MAX) {
            same(g, "Idf without a budget uses frontier sets", IdfMethod::FrontierSets, by.method());
        }
        for defs in &sets {
            out.clear();
            by.query(defs.iter().copied(), &mut out);
            out.sort_unstable();
            let want = oracle::iterate_frontiers(&frontiers, defs.iter().copied());
            same(g, format_args!("Idf ({:?}, budget {budget:?}): IDF({defs:?})", by.method()), want, out.clone());
        }
        for x in 0..n as Node + 2 {
            by.frontier(x, &mut out);
            let mut want = frontiers.get(x as usize).unwrap_or(&none).clone();
            want.sort_unstable();
            same(g, format_args!("Idf ({:?}, budget {budget:?}): DF({x})", by.method()), want, out.clone());
        }
    }
}

/// [`is_reducible`] against [`oracle::reducible_by_t1_t2`], after checking
/// that oracle against a second definition (every retreating edge of
/// [`oracle::depth_first`] goes to a dominator of its source, by
/// [`oracle::dominators`]).
pub fn check_reducible(g: &impl Graph) {
    let by_collapse = oracle::reducible_by_t1_t2(g);
    let dfs = oracle::depth_first(g);
    let dom = oracle::dominators(g);
    let n = g.num_nodes();
    let by_back_edges = dfs.preorder.iter().all(|&u| {
        g.successors(u)
            .filter(|&v| (v as usize) < n)
            .all(|v| !dfs.is_ancestor(v, u) || dom[u as usize].as_ref().is_some_and(|d| d.contains(v as usize)))
    });
    same(g, "ORACLES DISAGREE: reducible by T1/T2 vs by retreating edges", by_collapse, by_back_edges);
    same(g, "is_reducible", by_collapse, is_reducible(g));
}

type TreeNode = (Option<Node>, Option<u32>, Option<u32>, Vec<Node>);

/// What a [`Dfs`] answers: preorder, postorder, and per node its parent,
/// preorder and postorder numbers.
type DfsAnswers = (Vec<Node>, Vec<Node>, Vec<(Option<Node>, Option<u32>, Option<u32>)>);

/// Everything a [`DomTree`] answers, node by node, to compare two trees.
#[derive(PartialEq, Debug)]
struct TreeAnswers {
    root: Option<Node>,
    num_nodes: usize,
    /// Per node: idom, depth, tree preorder number, children.
    nodes: Vec<TreeNode>,
    preorder: Vec<Node>,
    stamp: Option<u64>,
}

fn tree_answers(dt: &DomTree) -> TreeAnswers {
    let nodes = (0..dt.num_nodes() as Node + 1)
        .map(|v| (dt.idom(v), dt.depth(v), dt.tree_pre_number(v), dt.children(v).to_vec()))
        .collect();
    TreeAnswers {
        root: dt.root(),
        num_nodes: dt.num_nodes(),
        nodes,
        preorder: dt.preorder().to_vec(),
        stamp: dt.stamp(),
    }
}

fn dfs_answers(d: &Dfs, n: usize) -> DfsAnswers {
    let nodes = (0..n as Node + 1).map(|v| (d.parent(v), d.pre_number(v), d.post_number(v))).collect();
    (d.preorder().to_vec(), d.postorder().to_vec(), nodes)
}

fn frontier_answers(df: &DominanceFrontiers, n: usize) -> Vec<Vec<Node>> {
    (0..n as Node + 1).map(|x| df.frontier(x).to_vec()).collect()
}

/// The `compute` lifecycle: a [`DomTree`], [`DominanceFrontiers`] and
/// [`Dfs`] first computed on another graph (the reverse of `g`, one node
/// larger), then recomputed on `g` — and again after `clear` — answer
/// exactly as fresh ones do.
pub fn check_recompute(g: &impl Graph) {
    let n = g.num_nodes();
    let fresh_dt = DomTree::of(g);
    let fresh_df = DominanceFrontiers::of(g, &fresh_dt).expect("the tree of g");
    let fresh_dfs = Dfs::of(g);
    let rev = ReverseGraph::of(g);
    let mut dt = DomTree::of(&rev);
    let mut df = DominanceFrontiers::of(&rev, &dt).expect("the tree of the reverse graph");
    // The reverse graph's tree, one node larger, does not belong to g.
    same(g, "DominanceFrontiers with another graph's tree", true, DominanceFrontiers::of(g, &dt).is_err());
    same(g, "IteratedFrontiers with another graph's tree", true, IteratedFrontiers::of(g, &dt).is_err());
    let mut dfs = Dfs::of(&rev);
    for round in ["after another graph", "after clear"] {
        dt.compute(g);
        df.compute(g, &dt).expect("the tree of g");
        dfs.compute(g);
        same(g, format_args!("DomTree recomputed {round}"), tree_answers(&fresh_dt), tree_answers(&dt));
        same(
            g,
            format_args!("DominanceFrontiers recomputed {round}"),
            frontier_answers(&fresh_df, n),
            frontier_answers(&df, n),
        );
        same(g, format_args!("Dfs recomputed {round}"), dfs_answers(&fresh_dfs, n), dfs_answers(&dfs, n));
        dt.clear();
        df.clear();
        dfs.clear();
        same(g, "DomTree after clear", (None, 0, None), (dt.root(), dt.num_nodes(), dt.idom(0)));
    }
}

/// The same edges as a `petgraph` `DiGraph` seen through
/// [`crate::Petgraph`] (entry `NodeIndex(0)`, out of range when there are
/// no nodes): the view answers exactly as a [`CsrGraph`] with its successor
/// order (petgraph lists edges newest first), and as the edge list's own
/// [`CsrGraph`] for every answer that does not depend on successor order
/// (dominance, frontiers, reducibility); with at most 64 nodes,
/// [`check_all`] runs on the view too (the oracles are slow).
#[cfg(feature = "petgraph")]
pub fn check_petgraph(nodes: usize, edges: &[(Node, Node)]) {
    use petgraph::graph::{DiGraph, NodeIndex};
    let mut pg = DiGraph::<(), ()>::with_capacity(nodes, edges.len());
    for _ in 0..nodes {
        pg.add_node(());
    }
    for &(a, b) in edges {
        pg.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
    }
    let view = crate::Petgraph::new(&pg, NodeIndex::new(0));
    if nodes <= 64 {
        check_all(&view, nodes as u64);
    }
    let same_order: Vec<(Node, Node)> =
        (0..nodes as Node).flat_map(|a| view.successors(a).map(move |b| (a, b)).collect::<Vec<_>>()).collect();
    let entry = (nodes > 0).then_some(0);
    let csr = CsrGraph::from_edges(nodes, entry, same_order).expect("edges in range");
    same(&view, "Petgraph vs CsrGraph: Dfs", dfs_answers(&Dfs::of(&csr), nodes), dfs_answers(&Dfs::of(&view), nodes));
    let (dt_csr, dt_view) = (DomTree::of(&csr), DomTree::of(&view));
    same(&view, "Petgraph vs CsrGraph: DomTree", tree_answers(&dt_csr), tree_answers(&dt_view));
    let (p_csr, p_view) = (PostDomTree::of(&csr), PostDomTree::of(&view));
    same(&view, "Petgraph vs CsrGraph: PostDomTree", tree_answers(p_csr.tree()), tree_answers(p_view.tree()));
    let df_view = frontier_answers(&DominanceFrontiers::of(&view, &dt_view).expect("the view's tree"), nodes);
    same(
        &view,
        "Petgraph vs CsrGraph: frontiers",
        frontier_answers(&DominanceFrontiers::of(&csr, &dt_csr).expect("the graph's tree"), nodes),
        df_view.clone(),
    );
    // Against the edge list's own order: order-independent answers only.
    let orig = CsrGraph::from_edges(nodes, entry, edges.iter().copied()).expect("edges in range");
    let dt_orig = DomTree::of(&orig);
    let idoms = |dt: &DomTree| (0..nodes as Node).map(|v| (dt.idom(v), dt.depth(v))).collect::<Vec<_>>();
    same(&view, "Petgraph vs edge-order CsrGraph: idoms", idoms(&dt_orig), idoms(&dt_view));
    let df_orig = frontier_answers(&DominanceFrontiers::of(&orig, &dt_orig).expect("the graph's tree"), nodes);
    same(&view, "Petgraph vs edge-order CsrGraph: frontiers", df_orig, df_view);
    same(&view, "Petgraph vs edge-order CsrGraph: is_reducible", is_reducible(&orig), is_reducible(&view));
}
