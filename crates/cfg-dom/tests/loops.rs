//! Loop nesting forests: hand-written cases (single, nested, shared-header,
//! self and irreducible loops, the DU-chain document's CFG), the definition
//! (`cfg_dom::oracle::loop_forest`) and natural loops on thousands of
//! generated graphs and IR functions, buffer reuse, staleness, odd graphs,
//! and deep inputs on a 2 MiB stack (a 10^7-node chain, a 10^5-deep nest, a
//! 10^5-deep nest entered 10^5 times from outside — quadratic for Havlak's
//! original algorithm).

use cfg_dom::oracle::{loop_forest, natural_loops};
use cfg_dom::{CsrGraph, Dfs, Graph, LoopForest, LoopId, Node, Stale, is_reducible};
use ir_core::node;
use ir_gen::graphs::{self, EdgeList};
use ir_gen::{GenConfig, generate};
use proptest::prelude::*;

fn graph(n: usize, edges: &[(Node, Node)]) -> CsrGraph {
    CsrGraph::from_edges(n, Some(0), edges.iter().copied()).unwrap()
}

fn from_list(e: &EdgeList, entry: Node) -> CsrGraph {
    CsrGraph::from_edges(e.nodes, Some(entry), e.edges.iter().copied()).unwrap()
}

fn id(i: u32) -> LoopId {
    LoopId::from_u32(i)
}

fn sorted(xs: &[Node]) -> Vec<Node> {
    let mut v = xs.to_vec();
    v.sort_unstable();
    v
}

/// The loop headed by `h`, which must be a header.
fn loop_of(f: &LoopForest, h: Node) -> LoopId {
    f.header_loop(h).unwrap_or_else(|| panic!("node {h} heads no loop"))
}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// Everything `f` says about `g` agrees with the definition (and, on
/// reducible graphs, with natural loops); the API is self-consistent.
fn check(g: &impl Graph, f: &LoopForest) -> Result<(), String> {
    let n = g.num_nodes();
    let o = loop_forest(g);
    ensure!(f.num_nodes() == n, "num_nodes {} != {n}", f.num_nodes());
    ensure!(f.num_loops() == o.loops.len(), "{} loops, expected {:?}", f.num_loops(), o.loops);
    ensure!(f.loops().len() == f.num_loops(), "loops() length");
    for (i, ol) in o.loops.iter().enumerate() {
        let l = id(i as u32);
        let h = f.header(l);
        ensure!(h == ol.header, "{l}: header {h}, expected {} (ids in reverse preorder of headers)", ol.header);
        let body = f.body(l);
        ensure!(sorted(body) == ol.body, "{l} (header {h}): body {body:?}, expected {:?}", ol.body);
        let own = f.own_nodes(l);
        ensure!(own.windows(2).all(|w| w[0] < w[1]), "{l}: own nodes {own:?} not sorted");
        ensure!(body.starts_with(own), "{l}: body {body:?} does not start with own nodes {own:?}");
        ensure!(own.contains(&h), "{l}: header not among own nodes {own:?}");
        for &x in own {
            ensure!(f.innermost_loop(x) == Some(l), "{l}: own node {x} has innermost {:?}", f.innermost_loop(x));
        }
        let kids = f.children(l);
        ensure!(kids.windows(2).all(|w| w[0] < w[1]), "{l}: children {kids:?} not in id order");
        let expected_kids: Vec<LoopId> =
            (0..o.loops.len()).filter(|&j| o.loops[j].parent == Some(i)).map(|j| id(j as u32)).collect();
        ensure!(kids == expected_kids, "{l}: children {kids:?}, expected {expected_kids:?}");
        let mut rest = &body[own.len()..];
        for &c in kids {
            ensure!(rest.starts_with(f.body(c)), "{l}: child {c}'s body is not the next range of {body:?}");
            rest = &rest[f.body(c).len()..];
        }
        ensure!(rest.is_empty(), "{l}: body {body:?} has more than own nodes and children");
        let parent = f.parent(l);
        ensure!(parent.map(LoopId::index) == ol.parent, "{l}: parent {parent:?}, expected {:?}", ol.parent);
        ensure!(parent.is_none_or(|p| p > l), "{l}: parent {parent:?} has a smaller id");
        ensure!(f.depth(l) == parent.map_or(1, |p| f.depth(p) + 1), "{l}: depth {}", f.depth(l));
        ensure!(
            f.is_irreducible(l) == ol.irreducible,
            "{l} (header {h}): irreducible {}, expected {}",
            f.is_irreducible(l),
            ol.irreducible
        );
        ensure!(f.header_loop(h) == Some(l) && f.is_header(h), "{l}: header_loop({h})");
        for x in 0..n as Node {
            let inside = ol.body.binary_search(&x).is_ok();
            ensure!(f.contains(l, x) == inside, "{l}: contains({x}) = {}", f.contains(l, x));
        }
        ensure!(!f.contains(l, n as Node) && !f.contains(l, Node::MAX), "{l} contains an out-of-range node");
    }
    let roots: Vec<LoopId> = f.roots().collect();
    let expected_roots: Vec<LoopId> = f.loops().filter(|&l| f.parent(l).is_none()).collect();
    ensure!(roots == expected_roots, "roots {roots:?}");
    for x in 0..n as Node {
        let inner = f.innermost_loop(x).map(LoopId::index);
        ensure!(
            inner == o.innermost[x as usize],
            "node {x}: innermost {inner:?}, expected {:?}",
            o.innermost[x as usize]
        );
        ensure!(f.loop_depth(x) == o.depth[x as usize], "node {x}: depth {}", f.loop_depth(x));
        let header = o.loops.iter().any(|l| l.header == x);
        ensure!(f.is_header(x) == header, "node {x}: is_header {}", f.is_header(x));
    }
    for x in [n as Node, n as Node + 7, Node::MAX] {
        ensure!(f.innermost_loop(x).is_none() && f.loop_depth(x) == 0 && !f.is_header(x), "out-of-range node {x}");
    }
    let any_irreducible = f.loops().any(|l| f.is_irreducible(l));
    let reducible = is_reducible(g);
    ensure!(any_irreducible != reducible, "reducible {reducible} but irreducible loop flags {any_irreducible}");
    if reducible {
        let natural: Vec<(Node, Vec<Node>)> = natural_loops(g).into_iter().map(|l| (l.header, l.body)).collect();
        let mut ours: Vec<(Node, Vec<Node>)> = f.loops().map(|l| (f.header(l), sorted(f.body(l)))).collect();
        ours.sort();
        ensure!(ours == natural, "reducible graph: loops {ours:?}, natural loops {natural:?}");
    }
    ensure!(f.stamp() == g.stamp(), "stamp");
    Ok(())
}

/// Everything observable about one loop.
#[derive(PartialEq, Debug)]
struct LoopSnapshot {
    header: Node,
    parent: Option<LoopId>,
    children: Vec<LoopId>,
    depth: u32,
    irreducible: bool,
    body: Vec<Node>,
    own: Vec<Node>,
}

/// Everything observable, for comparing two forests.
#[derive(PartialEq, Debug)]
struct Snapshot {
    loops: Vec<LoopSnapshot>,
    nodes: Vec<(Option<LoopId>, u32, bool)>,
}

fn snapshot(f: &LoopForest) -> Snapshot {
    Snapshot {
        loops: f
            .loops()
            .map(|l| LoopSnapshot {
                header: f.header(l),
                parent: f.parent(l),
                children: f.children(l).to_vec(),
                depth: f.depth(l),
                irreducible: f.is_irreducible(l),
                body: f.body(l).to_vec(),
                own: f.own_nodes(l).to_vec(),
            })
            .collect(),
        nodes: (0..f.num_nodes() as Node).map(|x| (f.innermost_loop(x), f.loop_depth(x), f.is_header(x))).collect(),
    }
}

fn checked(g: &impl Graph) -> LoopForest {
    let f = LoopForest::of(g);
    check(g, &f).unwrap();
    f
}

// ---- hand-written cases ------------------------------------------------------

#[test]
fn a_single_loop() {
    // 0 -> 1 -> 2 -> 1, 2 -> 3.
    let g = graph(4, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 1);
    let l = id(0);
    assert_eq!((f.header(l), f.body(l), f.parent(l), f.is_irreducible(l)), (1, &[1, 2][..], None, false));
    assert_eq!((0..4).map(|x| f.loop_depth(x)).collect::<Vec<_>>(), [0, 1, 1, 0]);
    assert_eq!(f.innermost_loop(2), Some(l));
    assert_eq!(f.innermost_loop(3), None);
    assert!(f.is_header(1) && !f.is_header(2) && f.contains(l, 2) && !f.contains(l, 0));
    assert_eq!(l.to_string(), "loop0");
    assert_eq!(id(17).to_string(), "loop17");
}

#[test]
fn nested_loops_and_an_entry_with_predecessors() {
    // Headers 0, 2, 4 (the entry is the outermost header), latches 1, 3, 5,
    // exit 6.
    let g = from_list(&graphs::nested_loops(3), 0);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 3);
    // Found innermost first.
    let headers: Vec<Node> = f.loops().map(|l| f.header(l)).collect();
    assert_eq!(headers, [4, 2, 0]);
    let (inner, middle, outer) = (id(0), id(1), id(2));
    assert_eq!(sorted(f.body(outer)), [0, 1, 2, 3, 4, 5]);
    assert_eq!(sorted(f.body(middle)), [2, 3, 4, 5]);
    assert_eq!(f.body(inner), [4, 5]);
    assert_eq!(f.own_nodes(outer), [0, 1]);
    assert_eq!((f.parent(inner), f.parent(middle), f.parent(outer)), (Some(middle), Some(outer), None));
    assert_eq!(f.children(outer), [middle]);
    assert_eq!(f.roots().collect::<Vec<_>>(), [outer]);
    assert_eq!((0..7).map(|x| f.loop_depth(x)).collect::<Vec<_>>(), [1, 1, 2, 2, 3, 3, 0]);
    assert_eq!((f.depth(inner), f.depth(outer)), (3, 1));
    assert_eq!(f.loops().rev().collect::<Vec<_>>(), [outer, middle, inner]);
}

#[test]
fn two_latches_share_a_header() {
    // 1 -> 2 -> 1 and 1 -> 3 -> 1: one loop, the union of both natural loops.
    let g = graph(5, &[(0, 1), (1, 2), (2, 1), (1, 3), (3, 1), (3, 4)]);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 1);
    assert_eq!((f.header(id(0)), f.body(id(0))), (1, &[1, 2, 3][..]));
    assert_eq!(natural_loops(&g).len(), 1);
}

#[test]
fn self_loops() {
    // 1 -> 1; loop 2 <-> 3 with a self-loop on its latch 3.
    let g = graph(5, &[(0, 1), (1, 1), (1, 2), (2, 3), (3, 2), (3, 3), (3, 4)]);
    let f = checked(&g);
    let headers: Vec<Node> = f.loops().map(|l| f.header(l)).collect();
    assert_eq!(headers, [3, 2, 1]);
    let (l3, l2, l1) = (id(0), id(1), id(2));
    assert_eq!((f.body(l3), f.body(l2), f.body(l1)), (&[3][..], &[2, 3][..], &[1][..]));
    assert_eq!((f.parent(l3), f.parent(l2), f.parent(l1)), (Some(l2), None, None));
    assert_eq!((0..5).map(|x| f.loop_depth(x)).collect::<Vec<_>>(), [0, 1, 1, 2, 0]);
    // A lone self-loop on the entry.
    let f = checked(&graph(1, &[(0, 0), (0, 0)]));
    assert_eq!((f.num_loops(), f.body(id(0)), f.loop_depth(0)), (1, &[0][..], 1));
}

#[test]
fn the_classic_irreducible_region() {
    // 0 -> {1, 2}, 1 <-> 2: the DFS enters at 1, so 1 heads the loop and
    // 0 -> 2 is a second entry.
    let g = graph(3, &[(0, 1), (0, 2), (1, 2), (2, 1)]);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 1);
    assert_eq!((f.header(id(0)), f.body(id(0)), f.is_irreducible(id(0))), (1, &[1, 2][..], true));
    assert!(!is_reducible(&g));
    assert!(natural_loops(&g).is_empty());
}

#[test]
fn irreducibility_is_per_loop() {
    // Outer loop 1 (latch 3 -> 1) with inner loop 2 <-> 3, entered at 3 from
    // 4, a node of the outer loop only: the inner loop is irreducible, the
    // outer one is not.
    let g = graph(6, &[(0, 1), (1, 2), (2, 3), (3, 2), (3, 1), (1, 4), (4, 3), (3, 5)]);
    let f = checked(&g);
    let (inner, outer) = (loop_of(&f, 2), loop_of(&f, 1));
    assert_eq!(sorted(f.body(outer)), [1, 2, 3, 4]);
    assert_eq!(f.body(inner), [2, 3]);
    assert!(f.is_irreducible(inner) && !f.is_irreducible(outer));
    // A forward edge into a loop: 1 -> 3 enters 2 <-> 3 beside its header.
    let g = graph(5, &[(0, 1), (1, 2), (2, 3), (3, 2), (1, 3), (3, 4)]);
    let f = checked(&g);
    assert!(f.is_irreducible(loop_of(&f, 2)));
}

#[test]
fn the_du_chain_documents_cfg() {
    // entry = 0, bb1..bb6 = 1..6 (digest §000).
    let g = graph(7, &[(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6)]);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 1);
    let l = id(0);
    assert_eq!((f.header(l), f.body(l), f.is_irreducible(l)), (2, &[2, 3, 4, 5][..], false));
    assert_eq!((0..7).map(|x| f.loop_depth(x)).collect::<Vec<_>>(), [0, 0, 1, 1, 1, 1, 0]);
    // The same CFG from the example's IR.
    let (module, _) = ir_core::text::parse(include_str!("../../../docs/examples/du_chains.kir")).unwrap();
    let func = module.function(module.function_by_name("du_example").unwrap()).unwrap();
    let cfg = func.cfg();
    let f = checked(&cfg);
    let b = ir_core::Block::from_u32;
    assert_eq!(f.num_loops(), 1);
    assert_eq!(f.header(l), node(b(2)));
    assert_eq!(f.body(l), [2, 3, 4, 5].map(|i| node(b(i))));
    f.check(func).unwrap();
}

#[test]
fn unreachable_nodes_are_in_no_loop() {
    // 0 -> 1 <-> 2 -> 3; 4 and 5 unreachable: a self-loop on 4, a cycle
    // 4 <-> 5, and edges into the loop's latch (not an entry).
    let g = graph(6, &[(0, 1), (1, 2), (2, 1), (2, 3), (4, 4), (4, 5), (5, 4), (5, 2), (4, 1)]);
    let f = checked(&g);
    assert_eq!(f.num_loops(), 1);
    assert!(!f.is_irreducible(id(0)));
    for x in [4, 5] {
        assert_eq!((f.innermost_loop(x), f.loop_depth(x), f.is_header(x)), (None, 0, false));
    }
}

#[test]
fn empty_and_entryless_graphs() {
    for g in [CsrGraph::new(), CsrGraph::from_edges(3, None, [(0, 1), (1, 0), (2, 2)]).unwrap()] {
        let f = checked(&g);
        assert_eq!(f.num_loops(), 0);
        assert_eq!(f.loops().count(), 0);
        assert_eq!(f.roots().count(), 0);
        assert!((0..4).all(|x| f.loop_depth(x) == 0 && f.innermost_loop(x).is_none()));
    }
    // Duplicate edges everywhere.
    let g = graph(3, &[(0, 1), (0, 1), (1, 2), (1, 2), (2, 1), (2, 1), (0, 2), (0, 2)]);
    let f = checked(&g);
    assert!(f.is_irreducible(id(0)));
}

/// A graph that breaks the trait's invariants: ids out of range, an entry
/// out of range, predecessor lists that disagree with successor lists.
struct Lies {
    n: usize,
    entry: Option<Node>,
    succ: Vec<Vec<Node>>,
    pred: Vec<Vec<Node>>,
}

impl Graph for Lies {
    fn num_nodes(&self) -> usize {
        self.n
    }
    fn entry(&self) -> Option<Node> {
        self.entry
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.succ.get(n as usize).into_iter().flatten().copied()
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.pred.get(n as usize).into_iter().flatten().copied()
    }
}

#[test]
fn no_panic_on_graphs_that_break_the_invariants() {
    let succ = vec![vec![1, 9, 2], vec![2, 0, u32::MAX], vec![1, 2]];
    let pred = vec![vec![1, 2, 44], vec![0, 2, 2, u32::MAX], vec![0, 0, 1, 2, 7]];
    for entry in [Some(0), Some(2), Some(3), Some(u32::MAX), None] {
        let g = Lies { n: 3, entry, succ: succ.clone(), pred: pred.clone() };
        let f = LoopForest::of(&g);
        for l in f.loops() {
            assert!(f.contains(l, f.header(l)));
            let _ = (f.body(l), f.parent(l), f.children(l), f.is_irreducible(l));
        }
        for x in 0..5 {
            let _ = (f.innermost_loop(x), f.loop_depth(x), f.is_header(x));
        }
    }
}

#[test]
fn compute_reuses_buffers_and_clear_empties() {
    let mut f = LoopForest::of(&from_list(&graphs::nested_loops(40), 0));
    let g = graph(4, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
    f.compute(&g);
    assert_eq!(snapshot(&f), snapshot(&LoopForest::of(&g)));
    check(&g, &f).unwrap();
    f.clear();
    assert_eq!((f.num_loops(), f.num_nodes(), f.loop_depth(1), f.stamp()), (0, 0, 0, None));
    assert_eq!(snapshot(&f), snapshot(&LoopForest::new()));
}

#[test]
fn stale_after_a_cfg_edit_fresh_after_an_operand_edit() {
    let mut generated = generate(&GenConfig { blocks: 80, ..GenConfig::default() }, 11);
    let main = generated.main;
    let func = generated.module.function(main).unwrap();
    let forest = LoopForest::of(&func.cfg());
    assert!(forest.stamp().is_some());
    forest.check(func).unwrap();

    let func = generated.module.function_mut(main).unwrap();
    let blocks: Vec<_> = func.blocks().collect();
    let inst = blocks
        .iter()
        .flat_map(|&b| func.block_insts(b).collect::<Vec<_>>())
        .find(|&i| !func.operands(i).is_empty())
        .expect("an instruction with operands");
    let op = func.operands(inst)[0];
    let before = func.epoch();
    assert!(func.set_operand(inst, 0, op));
    assert_ne!(func.epoch(), before);
    forest.check(func).unwrap();

    let b = func.create_block();
    func.append_block(b).unwrap();
    assert!(matches!(forest.check(func), Err(Stale::Changed { .. })));
    // Recomputing makes it fresh again.
    let forest = LoopForest::of(&func.cfg());
    forest.check(func).unwrap();
    // A forest of a plain graph has no stamp.
    assert_eq!(LoopForest::of(&graph(2, &[(0, 1)])).check(func), Err(Stale::Unstamped));
}

// ---- deep inputs on a small stack ---------------------------------------------

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).unwrap().join().unwrap()
}

#[test]
fn a_ten_million_node_chain_on_a_small_stack() {
    on_small_stack(|| {
        // A chain whose second half is one loop of 5 * 10^6 nodes.
        let n = 10_000_000u32;
        let g =
            CsrGraph::from_edges(n as usize, Some(0), (0..n - 1).map(|i| (i, i + 1)).chain([(n - 1, n / 2)])).unwrap();
        let f = LoopForest::of(&g);
        assert_eq!(f.num_loops(), 1);
        let l = id(0);
        assert_eq!((f.header(l), f.body(l).len(), f.own_nodes(l).len()), (n / 2, n as usize / 2, n as usize / 2));
        assert_eq!((f.loop_depth(0), f.loop_depth(n / 2 - 1), f.loop_depth(n / 2), f.loop_depth(n - 1)), (0, 0, 1, 1));
        assert!(f.contains(l, n - 1) && !f.contains(l, 3));
        // And a plain chain has no loop at all.
        let g = CsrGraph::from_edges(n as usize, Some(0), (0..n - 1).map(|i| (i, i + 1))).unwrap();
        assert_eq!(LoopForest::of(&g).num_loops(), 0);
    });
}

#[test]
fn a_hundred_thousand_deep_loop_nest_on_a_small_stack() {
    on_small_stack(|| {
        let d = 100_000u32;
        let g = from_list(&graphs::nested_loops(d as usize), 0);
        let f = LoopForest::of(&g);
        assert_eq!(f.num_loops(), d as usize);
        // Headers 2i, latches 2i + 1, exit 2d; found innermost first.
        let inner = id(0);
        let outer = id(d - 1);
        assert_eq!((f.header(inner), f.header(outer)), (2 * (d - 1), 0));
        assert_eq!(f.loop_depth(2 * d - 1), d);
        assert_eq!(f.depth(inner), d);
        assert_eq!(f.loop_depth(2 * d), 0);
        assert_eq!(f.body(outer).len(), 2 * d as usize);
        assert_eq!(f.body(inner), [2 * d - 2, 2 * d - 1]);
        for l in f.loops() {
            let h = f.header(l);
            assert_eq!(f.own_nodes(l), [h, h + 1]);
            assert_eq!(f.parent(l), (l != outer).then(|| id(l.as_u32() + 1)));
            assert!(!f.is_irreducible(l));
            assert!(f.contains(l, 2 * d - 1) && (h == 0 || !f.contains(l, h - 1)));
        }
        // The total body length is quadratic, the storage is not.
        let total: u64 = f.loops().map(|l| f.body(l).len() as u64).sum();
        assert_eq!(total, u64::from(d) * u64::from(d + 1));
    });
}

#[test]
fn a_deep_nest_entered_from_outside_many_times_stays_fast() {
    // Entry 0 -> header h0 and 0 -> s; headers h_i = 1 + 2i nest, latches
    // l_i = 2 + 2i; s jumps into latches: each jump enters every loop around
    // its target. Havlak's original algorithm moves each jump up the nest one
    // loop at a time (10^10 steps here); Ramalingam's correction does not.
    on_small_stack(|| {
        let d = 100_000u32;
        let (h, l) = (|i: u32| 1 + 2 * i, |i: u32| 2 + 2 * i);
        let (exit, s) = (2 * d + 1, 2 * d + 2);
        let mut edges = vec![(0, h(0)), (0, s)];
        for i in 0..d {
            edges.push(if i + 1 < d { (h(i), h(i + 1)) } else { (h(i), l(i)) });
            edges.push((l(i), h(i)));
            edges.push((l(i), if i == 0 { exit } else { l(i - 1) }));
        }
        edges.extend((0..d).map(|k| (s, l(d - 1 - (k * 7919) % d))));
        let g = CsrGraph::from_edges(2 * d as usize + 3, Some(0), edges).unwrap();
        // No clock: a quadratic forest would take ~10^10 steps here, which
        // shows as a test that does not finish, not as a flaky assertion.
        let f = LoopForest::of(&g);
        assert_eq!(f.num_loops(), d as usize);
        assert!(f.loops().all(|x| f.is_irreducible(x)));
        assert_eq!(f.loop_depth(l(d - 1)), d);
        assert_eq!((f.loop_depth(s), f.loop_depth(exit)), (0, 0));
    });
}

// ---- properties -----------------------------------------------------------------

fn generated_functions(seed: u64, blocks: usize, irreducible: f64, max_depth: u32, unreachable: f64) -> Vec<CsrGraph> {
    let config = GenConfig {
        blocks,
        vars: 8,
        defs_per_var: 1.0,
        functions: 1 + (seed % 3) as usize,
        irreducible,
        max_depth,
        unreachable,
        ..GenConfig::default()
    };
    let g = generate(&config, seed);
    g.module.functions().map(|(_, f)| f.cfg()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2500, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_definition_on_generated_shapes(e in graphs::arb_graph(48)) {
        let g = from_list(&e, 0);
        let f = LoopForest::of(&g);
        check(&g, &f).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_definition_from_any_entry(e in graphs::arb_graph(24), entry in any::<u32>()) {
        let g = from_list(&e, entry % e.nodes as u32);
        let f = LoopForest::of(&g);
        check(&g, &f).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn recomputing_equals_computing_afresh(a in graphs::arb_graph(32), b in graphs::arb_graph(32)) {
        let (ga, gb) = (from_list(&a, 0), from_list(&b, 0));
        let mut f = LoopForest::of(&ga);
        f.compute(&gb);
        prop_assert_eq!(snapshot(&f), snapshot(&LoopForest::of(&gb)));
        f.compute(&ga);
        prop_assert_eq!(snapshot(&f), snapshot(&LoopForest::of(&ga)));
    }

    #[test]
    fn ids_follow_reverse_preorder_of_headers(e in graphs::arb_graph(48)) {
        let g = from_list(&e, 0);
        let f = LoopForest::of(&g);
        let dfs = Dfs::of(&g);
        let pre: Vec<u32> = f.loops().map(|l| dfs.pre_number(f.header(l)).unwrap()).collect();
        prop_assert!(pre.windows(2).all(|w| w[0] > w[1]), "{:?}", pre);
        // Every retreating edge's target heads a loop containing its source.
        for (u, v) in dfs.back_edges(&g).unwrap() {
            let l = f.header_loop(v);
            prop_assert!(l.is_some_and(|l| f.contains(l, u)), "{} -> {}", u, v);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_definition_on_generated_functions(
        seed in any::<u64>(),
        blocks in 1usize..160,
        irreducible in 0.0f64..0.6,
        max_depth in 0u32..=6,
        unreachable in 0.0f64..0.2,
    ) {
        for g in generated_functions(seed, blocks, irreducible, max_depth, unreachable) {
            let f = LoopForest::of(&g);
            check(&g, &f).map_err(TestCaseError::fail)?;
        }
    }
}
