//! The dataflow framework on plain graphs (`ir_gen::graphs` shapes):
//! reachability as a forward may-problem equals `Dfs`; dominators as a
//! forward must-problem equal `DomTree`; random gen/kill problems in every
//! direction, confluence and scope equal a path-based oracle; the general
//! `Analysis` form computes BFS distances and agrees with the bitset solver;
//! buffers are reused; bogus graphs and problems do not panic.

use cfg_dom::{
    Analysis, BitDataflow, Confluence, CsrGraph, DataflowResults, Dfs, Direction, DomTree, Flow, GenKill, Graph,
    JoinSemiLattice, Node, Scope,
};
use fixedbitset::FixedBitSet;
use ir_gen::graphs::{EdgeList, arb_graph, shape, structured, with_unreachable};
use proptest::prelude::*;
use std::collections::VecDeque;

fn csr(e: &EdgeList) -> CsrGraph {
    CsrGraph::from_edges(e.nodes, Some(0), e.edges.iter().copied()).expect("valid edges")
}

const DIRECTIONS: [Direction; 2] = [Direction::Forward, Direction::Backward];
const SCOPES: [Scope; 2] = [Scope::Reachable, Scope::All];

/// Which nodes a flow solves.
fn solved(g: &CsrGraph, scope: Scope) -> Vec<bool> {
    let dfs = Dfs::of(g);
    (0..g.num_nodes() as Node).map(|n| scope == Scope::All || dfs.is_reachable(n)).collect()
}

#[test]
fn reachability_is_a_forward_may_problem() {
    for kind in 0..7u8 {
        for seed in 0..6 {
            let e = with_unreachable(shape(kind, 30, seed), (seed % 4) as usize, seed);
            let g = csr(&e);
            let dfs = Dfs::of(&g);
            for scope in SCOPES {
                let mut p =
                    GenKill::with_size(Flow::new(Direction::Forward, Confluence::May).with_scope(scope), e.nodes, 1);
                p.insert_boundary(0);
                let s = BitDataflow::of(&g, &p);
                for n in 0..e.nodes as Node {
                    assert_eq!(s.contains_in(n, 0), dfs.is_reachable(n), "{kind} {seed} {scope:?} {n}");
                    assert_eq!(s.contains_out(n, 0), dfs.is_reachable(n));
                    assert_eq!(s.is_solved(n), scope == Scope::All || dfs.is_reachable(n));
                }
            }
        }
    }
}

/// Dominators as the classical must-problem: `dom(n) = {n} ∪ ⋂ dom(p)`.
fn dominators(g: &CsrGraph) -> BitDataflow {
    let n = g.num_nodes();
    let mut p = GenKill::with_size(Flow::new(Direction::Forward, Confluence::Must), n, n);
    for v in 0..n as Node {
        p.insert_gen(v, v as usize);
    }
    BitDataflow::of(g, &p)
}

fn check_dominators(g: &CsrGraph) {
    let dt = DomTree::of(g);
    let doms = dominators(g);
    let n = g.num_nodes() as Node;
    for b in 0..n {
        for a in 0..n {
            assert_eq!(doms.contains_out(b, a as usize), dt.dominates(a, b), "{a} dom {b}");
            assert_eq!(doms.contains_in(b, a as usize), dt.strictly_dominates(a, b), "{a} sdom {b}");
        }
    }
}

#[test]
fn dominators_as_a_must_problem_equal_the_dominator_tree() {
    // The DU-chain document's CFG, plus an unreachable node pointing in.
    let g = CsrGraph::from_edges(8, Some(0), [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6), (7, 4)])
        .expect("valid");
    check_dominators(&g);
    let doms = dominators(&g);
    assert_eq!(doms.iter_out(6).collect::<Vec<_>>(), [0, 1, 2, 4, 5, 6]);
    assert_eq!(doms.iter_out(7).count(), 0, "nothing is known of an unreachable node");
    // An entry with predecessors: nothing enters it but the boundary.
    let g = CsrGraph::from_edges(3, Some(0), [(0, 1), (1, 0), (1, 2)]).expect("valid");
    check_dominators(&g);
}

/// A random gen/kill problem (join-gen sets only for may-problems).
fn random_problem(flow: Flow, nodes: usize, domain: usize, seed: u64) -> GenKill {
    let mut rng = seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut p = GenKill::with_size(flow, nodes, domain);
    for v in 0..nodes as Node {
        for e in 0..domain {
            match next() % 8 {
                0 => {
                    p.insert_gen(v, e);
                }
                1 | 2 => {
                    p.insert_kill(v, e);
                }
                3 => {
                    p.insert_gen(v, e);
                    p.insert_kill(v, e);
                }
                4 if flow.confluence == Confluence::May && next() % 4 == 0 => {
                    p.insert_join_gen(v, e);
                }
                _ => {}
            }
        }
    }
    for e in 0..domain {
        if next() % 2 == 0 {
            p.insert_boundary(e);
        }
    }
    p
}

fn has(row: &[u64], e: usize) -> bool {
    row.get(e / 64).is_some_and(|w| w >> (e % 64) & 1 == 1)
}

/// The least solution of a may-problem by its path definition: `e` holds
/// at the confluence side of `n` when a chain of neighbours upstream reaches
/// a node that generates it (or the boundary, or a join-gen set) with
/// no node in between killing it. No fixpoint over sets, one element at a
/// time.
fn may_oracle(g: &CsrGraph, p: &GenKill, scope: &[bool], n: Node, e: usize) -> (bool, bool) {
    let forward = p.flow().direction == Direction::Forward;
    let upstream = |x: Node| -> Vec<Node> { if forward { g.pred_slice(x).to_vec() } else { g.succ_slice(x).to_vec() } };
    let is_boundary = |x: Node| if forward { g.entry() == Some(x) } else { g.succ_slice(x).is_empty() };
    // Confluence side of `n`.
    let mut seen = vec![false; g.num_nodes()];
    let mut stack = vec![n];
    seen[n as usize] = true;
    let mut join = false;
    while let Some(x) = stack.pop() {
        if (is_boundary(x) && has(p.boundary_row(), e)) || has(p.join_gen_row(x), e) {
            join = true;
            break;
        }
        for q in upstream(x) {
            if !scope[q as usize] {
                continue;
            }
            if has(p.gen_row(q), e) {
                join = true;
                break;
            }
            if !has(p.kill_row(q), e) && !seen[q as usize] {
                seen[q as usize] = true;
                stack.push(q);
            }
        }
        if join {
            break;
        }
    }
    let transferred = has(p.gen_row(n), e) || (!has(p.kill_row(n), e) && join);
    (join, transferred)
}

/// The dual may-problem of a must-problem: `¬e` is generated where `e` is
/// killed and not generated, and killed where `e` is generated.
fn dual(p: &GenKill, nodes: usize) -> GenKill {
    let f = p.flow();
    let mut d = GenKill::with_size(Flow { confluence: Confluence::May, ..f }, nodes, p.domain_size());
    for v in 0..nodes as Node {
        for e in 0..p.domain_size() {
            let (gn, k) = (has(p.gen_row(v), e), has(p.kill_row(v), e));
            if k && !gn {
                d.insert_gen(v, e);
            }
            if gn {
                d.insert_kill(v, e);
            }
        }
    }
    for e in 0..p.domain_size() {
        if !has(p.boundary_row(), e) {
            d.insert_boundary(e);
        }
    }
    d
}

fn check_against_oracle(e: &EdgeList, domain: usize, seed: u64) {
    let g = csr(e);
    let mut s = BitDataflow::new();
    for direction in DIRECTIONS {
        for scope in SCOPES {
            let in_scope = solved(&g, scope);
            for confluence in [Confluence::May, Confluence::Must] {
                let flow = Flow { direction, confluence, scope };
                let p = random_problem(flow, e.nodes, domain, seed);
                s.compute(&g, &p);
                let (oracle_problem, negate) = match confluence {
                    Confluence::May => (p.clone(), false),
                    Confluence::Must => (dual(&p, e.nodes), true),
                };
                for n in 0..e.nodes as Node {
                    for x in 0..domain {
                        let (join, transferred) = if in_scope[n as usize] {
                            let (j, t) = may_oracle(&g, &oracle_problem, &in_scope, n, x);
                            (j != negate, t != negate)
                        } else {
                            (false, false)
                        };
                        let (top, bottom) = match direction {
                            Direction::Forward => (join, transferred),
                            Direction::Backward => (transferred, join),
                        };
                        assert_eq!(s.contains_in(n, x), top, "{flow:?}: {x} in at {n}");
                        assert_eq!(s.contains_out(n, x), bottom, "{flow:?}: {x} out at {n}");
                    }
                }
                assert!(s.visits() >= in_scope.iter().filter(|&&b| b).count() as u64);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn gen_kill_equals_the_path_oracle(e in arb_graph(24), domain in 1usize..140, seed in any::<u64>()) {
        check_against_oracle(&e, domain, seed);
    }

    #[test]
    fn dominators_equal_the_tree_on_any_shape(e in arb_graph(40)) {
        check_dominators(&csr(&e));
    }

    #[test]
    fn the_general_form_agrees_with_the_bitset_solver(e in arb_graph(40), domain in 1usize..100, seed in any::<u64>()) {
        let g = csr(&e);
        general_equals_bitset::<true, false>(&g, domain, seed);
        general_equals_bitset::<false, false>(&g, domain, seed);
        general_equals_bitset::<true, true>(&g, domain, seed);
        general_equals_bitset::<false, true>(&g, domain, seed);
        distances(&g);
    }
}

/// Shortest distances as a general analysis over `(ℕ ∪ {∞}, min)`: joins
/// take the minimum, each block adds one edge.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Dist(u32);

impl JoinSemiLattice for Dist {
    fn join(&mut self, other: &Dist) -> bool {
        let changed = other.0 < self.0;
        self.0 = self.0.min(other.0);
        changed
    }
}

struct Distance<const FORWARD: bool>;

impl<const FORWARD: bool> Analysis for Distance<FORWARD> {
    type Domain = Dist;
    const DIRECTION: Direction = if FORWARD { Direction::Forward } else { Direction::Backward };
    fn bottom(&self) -> Dist {
        Dist(u32::MAX)
    }
    fn boundary(&self, state: &mut Dist) {
        state.0 = 0;
    }
    fn transfer_block(&self, _: Node, state: &mut Dist) {
        state.0 = state.0.saturating_add(1);
    }
}

/// Breadth-first distances from `sources` along `next`.
fn bfs(n: usize, sources: &[Node], next: impl Fn(Node) -> Vec<Node>) -> Vec<u32> {
    let mut d = vec![u32::MAX; n];
    let mut q = VecDeque::new();
    for &s in sources {
        d[s as usize] = 0;
        q.push_back(s);
    }
    while let Some(v) = q.pop_front() {
        for w in next(v) {
            if d[w as usize] == u32::MAX {
                d[w as usize] = d[v as usize] + 1;
                q.push_back(w);
            }
        }
    }
    d
}

fn distances(g: &CsrGraph) {
    let n = g.num_nodes();
    let dfs = Dfs::of(g);
    // Forward: the in state is the distance from the entry.
    let r = DataflowResults::of(g, &Distance::<true>);
    let from_entry = bfs(n, &[0], |v| g.succ_slice(v).to_vec());
    for v in 0..n as Node {
        assert_eq!(r.state_in(v).map(|d| d.0), Some(from_entry[v as usize]));
        assert_eq!(r.state_out(v).map(|d| d.0), Some(from_entry[v as usize].saturating_add(1)));
        assert_eq!(r.is_solved(v), dfs.is_reachable(v));
    }
    // Backward: the out state is the distance to the nearest exit; every
    // path from a reachable node stays among reachable nodes.
    let r = DataflowResults::of(g, &Distance::<false>);
    let exits: Vec<Node> = (0..n as Node).filter(|&v| dfs.is_reachable(v) && g.succ_slice(v).is_empty()).collect();
    let to_exit = bfs(n, &exits, |v| g.pred_slice(v).iter().copied().filter(|&p| dfs.is_reachable(p)).collect());
    for v in 0..n as Node {
        let expect = if dfs.is_reachable(v) { to_exit[v as usize] } else { u32::MAX };
        assert_eq!(r.state_out(v).map(|d| d.0), Some(expect), "node {v}");
    }
    assert_eq!(r.state_in(n as Node), None);
}

#[test]
fn distances_on_every_shape() {
    for kind in 0..7u8 {
        for seed in 0..8 {
            distances(&csr(&with_unreachable(shape(kind, 40, seed), (seed % 3) as usize, seed)));
        }
    }
}

/// A gen/kill problem in the general form, over `FixedBitSet`s.
struct SetAnalysis<'a, const FORWARD: bool, const ALL: bool> {
    p: &'a GenKill,
}

impl<const FORWARD: bool, const ALL: bool> Analysis for SetAnalysis<'_, FORWARD, ALL> {
    type Domain = FixedBitSet;
    const DIRECTION: Direction = if FORWARD { Direction::Forward } else { Direction::Backward };
    const SCOPE: Scope = if ALL { Scope::All } else { Scope::Reachable };
    fn bottom(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(self.p.domain_size())
    }
    fn boundary(&self, state: &mut FixedBitSet) {
        for e in 0..self.p.domain_size() {
            if has(self.p.boundary_row(), e) {
                state.insert(e);
            }
        }
    }
    fn transfer_block(&self, node: Node, state: &mut FixedBitSet) {
        for e in 0..self.p.domain_size() {
            if has(self.p.gen_row(node), e) {
                state.insert(e);
            } else if has(self.p.kill_row(node), e) {
                state.remove(e);
            }
        }
    }
}

fn general_equals_bitset<const FORWARD: bool, const ALL: bool>(g: &CsrGraph, domain: usize, seed: u64) {
    let direction = if FORWARD { Direction::Forward } else { Direction::Backward };
    let scope = if ALL { Scope::All } else { Scope::Reachable };
    let flow = Flow { direction, confluence: Confluence::May, scope };
    let p = random_problem(flow, g.num_nodes(), domain, seed);
    // No join-gen sets in the general form.
    let mut plain = GenKill::with_size(flow, g.num_nodes(), domain);
    for v in 0..g.num_nodes() as Node {
        for e in 0..domain {
            if has(p.gen_row(v), e) {
                plain.insert_gen(v, e);
            }
            if has(p.kill_row(v), e) {
                plain.insert_kill(v, e);
            }
        }
    }
    for e in 0..domain {
        if has(p.boundary_row(), e) {
            plain.insert_boundary(e);
        }
    }
    let bits = BitDataflow::of(g, &plain);
    let general = DataflowResults::of(g, &SetAnalysis::<FORWARD, ALL> { p: &plain });
    for v in 0..g.num_nodes() as Node {
        let gin: Vec<usize> = general.state_in(v).expect("in range").ones().collect();
        let gout: Vec<usize> = general.state_out(v).expect("in range").ones().collect();
        assert_eq!(bits.iter_in(v).collect::<Vec<_>>(), gin, "{flow:?} in {v}");
        assert_eq!(bits.iter_out(v).collect::<Vec<_>>(), gout, "{flow:?} out {v}");
        assert_eq!(bits.is_solved(v), general.is_solved(v));
    }
}

#[test]
fn the_option_lattice_adds_a_bottom() {
    let mut x: Option<bool> = None;
    assert!(!x.join(&None));
    assert!(x.join(&Some(false)) && x == Some(false));
    assert!(!x.join(&Some(false)) && x.join(&Some(true)) && x == Some(true));
    let mut s = FixedBitSet::with_capacity(4);
    let mut t = FixedBitSet::with_capacity(70);
    t.insert(66);
    assert!(s.join(&t) && s.contains(66) && !s.join(&t));
}

#[test]
fn buffers_are_reused_and_results_deterministic() {
    let big = csr(&shape(3, 200, 9));
    let small = csr(&with_unreachable(shape(4, 30, 2), 3, 2));
    for direction in DIRECTIONS {
        let flow = Flow::new(direction, Confluence::May).with_scope(Scope::All);
        let pb = random_problem(flow, big.num_nodes(), 150, 1);
        let ps = random_problem(flow, small.num_nodes(), 20, 2);
        let mut s = BitDataflow::of(&big, &pb);
        let visits = s.visits();
        s.compute(&small, &ps);
        let fresh = BitDataflow::of(&small, &ps);
        assert_eq!(s.num_nodes(), small.num_nodes());
        for v in 0..small.num_nodes() as Node {
            assert_eq!(s.in_words(v), fresh.in_words(v));
            assert_eq!(s.out_words(v), fresh.out_words(v));
        }
        assert_eq!(s.visits(), fresh.visits());
        s.compute(&big, &pb);
        assert_eq!(s.visits(), visits);
        s.clear();
        assert_eq!((s.num_nodes(), s.in_words(0)), (0, &[][..]));
    }
    let mut p = GenKill::with_size(Flow::default(), 5, 10);
    p.insert_gen(1, 3);
    p.reset(Flow::default(), 3, 200);
    assert!(p.gen_row(1).iter().all(|&w| w == 0) && p.words_per_row() == 4 && p.num_nodes() == 3);
}

/// A graph whose adjacency lists also name nodes that do not exist.
struct Bogus(CsrGraph);

impl Graph for Bogus {
    fn num_nodes(&self) -> usize {
        self.0.num_nodes()
    }
    fn entry(&self) -> Option<Node> {
        self.0.entry()
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.0.successors(n).chain([self.0.num_nodes() as Node + 3, u32::MAX])
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.0.predecessors(n).chain([u32::MAX - 1])
    }
}

#[test]
fn odd_graphs_and_problems_do_not_panic() {
    // Out-of-range neighbours are ignored (a node whose only successors do
    // not exist is an exit).
    for direction in DIRECTIONS {
        let g = csr(&with_unreachable(shape(5, 25, 4), 2, 4));
        let flow = Flow::new(direction, Confluence::Must).with_scope(Scope::All);
        let p = random_problem(flow, g.num_nodes(), 70, 5);
        let clean = BitDataflow::of(&g, &p);
        let odd = BitDataflow::of(&Bogus(g.clone()), &p);
        for v in 0..g.num_nodes() as Node {
            assert_eq!(clean.in_words(v), odd.in_words(v));
            assert_eq!(clean.out_words(v), odd.out_words(v));
        }
        let d = DataflowResults::of(&Bogus(g.clone()), &Distance::<true>);
        assert_eq!(d.state_in(0), Some(&Dist(0)));
    }
    // No nodes; no entry; an empty domain; a problem with fewer rows than
    // the graph has nodes (missing rows are empty sets).
    let empty = CsrGraph::new();
    let s = BitDataflow::of(&empty, &GenKill::new());
    assert_eq!((s.num_nodes(), s.contains_in(0, 0), s.iter_out(7).count()), (0, false, 0));
    let no_entry = CsrGraph::from_edges(3, None, [(0, 1), (1, 2)]).expect("valid");
    for scope in SCOPES {
        let mut p = GenKill::with_size(Flow::new(Direction::Forward, Confluence::May).with_scope(scope), 1, 3);
        p.insert_gen(0, 2);
        let s = BitDataflow::of(&no_entry, &p);
        assert_eq!(s.contains_out(2, 2), scope == Scope::All);
        let p0 = GenKill::with_size(Flow::new(Direction::Backward, Confluence::Must).with_scope(scope), 3, 0);
        let s = BitDataflow::of(&no_entry, &p0);
        assert_eq!(s.in_words(1), &[][..]);
    }
    let r = DataflowResults::of(&no_entry, &Distance::<true>);
    assert!(!r.is_solved(0) && r.visits() == 0);
}

#[test]
fn a_million_node_problem_solves_in_a_blink() {
    // A structured CFG of 10^6 nodes with loops, 128 elements: backward may
    // (liveness-shaped), on a 2 MiB stack.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let g = csr(&structured(1_000_000, 3));
            let flow = Flow::new(Direction::Backward, Confluence::May).with_scope(Scope::All);
            let n = g.num_nodes();
            let mut p = GenKill::with_size(flow, n, 128);
            for v in 0..n as Node {
                p.insert_gen(v, (v as usize * 7) % 128);
                p.insert_kill(v, (v as usize * 13) % 128);
            }
            let s = BitDataflow::of(&g, &p);
            assert!(s.visits() >= n as u64);
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic");
}

proptest! {
    /// `insert_kill_range` sets exactly the bits `insert_kill` would, one
    /// by one, across word boundaries and past the domain's end.
    #[test]
    fn kill_ranges_equal_bit_by_bit_kills(domain in 0usize..300, a in 0usize..320, len in 0usize..320, node in 0u32..4) {
        let flow = Flow::new(Direction::Forward, Confluence::May);
        let (mut by_range, mut by_bit) = (GenKill::with_size(flow, 3, domain), GenKill::with_size(flow, 3, domain));
        by_range.insert_kill_range(node, a..a + len);
        for e in a..a + len {
            by_bit.insert_kill(node, e);
        }
        for n in 0..3 {
            prop_assert_eq!(by_range.kill_row(n), by_bit.kill_row(n), "node {}", n);
        }
    }
}
