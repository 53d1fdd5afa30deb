//! Helpers shared by the dominance tests: graphs from `ir_gen::graphs`
//! edge lists, strategies over the named shapes and over the CFGs of
//! generated modules, the DU-chain document's worked example, and a graph
//! wrapper with an arbitrary (possibly out-of-range) entry.

#![allow(dead_code)]

use cfg_dom::{CsrGraph, Graph, Node};
use ir_core::{Function, Module};
use ir_gen::graphs::{self, EdgeList};
use ir_gen::{GenConfig, generate};
use proptest::prelude::*;

/// Proptest cases per property: a few hundred, so that every test file
/// checks thousands of graphs in a few seconds.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// The edge list as a graph with entry 0 (no entry when it has no nodes).
pub fn csr(e: &EdgeList) -> CsrGraph {
    edges(e.nodes, &e.edges)
}

/// A graph with entry 0 from explicit edges.
pub fn edges(nodes: usize, edges: &[(Node, Node)]) -> CsrGraph {
    CsrGraph::from_edges(nodes, (nodes > 0).then_some(0), edges.iter().copied()).expect("edges in range")
}

/// A seed for the def sets of iterated-frontier checks.
pub fn seed_of(e: &EdgeList) -> u64 {
    e.edges
        .iter()
        .fold(e.nodes as u64, |h, &(a, b)| (h ^ u64::from(a) << 20 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Each named shape of `ir_gen::graphs` with its own parameters, small:
/// chains, ladders, nested loops, structured, irreducible (with a varying
/// number of extra loop entries), random (degree 1 to 4), and any of them
/// with unreachable nodes.
pub fn named_shape(max: usize) -> impl Strategy<Value = EdgeList> {
    let base = prop_oneof![
        (1..max).prop_map(graphs::chain),
        (0..max / 3).prop_map(graphs::ladder),
        (1..max / 2).prop_map(graphs::nested_loops),
        (1..max, any::<u64>()).prop_map(|(n, s)| graphs::structured(n, s)),
        (1..max, 0..8usize, any::<u64>()).prop_map(|(n, x, s)| graphs::irreducible(n, x, s)),
        (1..max, 1..5usize, any::<u64>()).prop_map(|(n, d, s)| graphs::random(n, d, s)),
    ];
    (base, 0..6usize, any::<u64>()).prop_map(|(g, k, s)| if k < 3 { g } else { graphs::with_unreachable(g, k * 2, s) })
}

/// Configurations for generated modules: plain, irreducible with
/// unreachable blocks, deeply nested, flat with early exits, switches and
/// phis.
pub fn gen_configs() -> Vec<GenConfig> {
    let base = GenConfig { blocks: 40, vars: 8, defs_per_var: 1.0, memory: 0.0, ..GenConfig::default() };
    vec![
        base.clone(),
        GenConfig { irreducible: 0.5, unreachable: 0.3, functions: 2, ..base.clone() },
        GenConfig { max_depth: 6, max_trips: 2, blocks: 60, ..base.clone() },
        GenConfig { max_depth: 0, unreachable: 0.2, ..base.clone() },
        GenConfig { phis: 0.5, irreducible: 0.2, functions: 3, ..base },
    ]
}

/// A generated module: configuration `kind % 5` of [`gen_configs`], seed
/// `seed`.
pub fn generated(kind: usize, seed: u64) -> Module {
    let configs = gen_configs();
    generate(&configs[kind % configs.len()], seed).module
}

/// Every function of `m` with its CFG.
pub fn cfgs(m: &Module) -> Vec<(&Function, CsrGraph)> {
    m.functions().map(|(_, f)| (f, f.cfg())).collect()
}

/// The DU-chain document's CFG (digest §000): entry = 0, bb1..bb6 = 1..6.
pub fn du_graph() -> CsrGraph {
    CsrGraph::from_edges(7, Some(0), [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4), (4, 5), (5, 2), (5, 6)]).unwrap()
}

/// `docs/examples/du_chains.kir`, parsed.
pub fn du_module() -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/du_chains.kir");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ir_core::text::parse(&text).unwrap_or_else(|d| panic!("{d:?}")).0
}

/// A graph seen with another entry (anything, even out of range or
/// `u32::MAX`): what a user's `Graph` implementation may hand over.
#[derive(Debug)]
pub struct WithEntry<'a> {
    pub graph: &'a CsrGraph,
    pub entry: Option<Node>,
}

impl Graph for WithEntry<'_> {
    fn num_nodes(&self) -> usize {
        self.graph.num_nodes()
    }
    fn entry(&self) -> Option<Node> {
        self.entry
    }
    fn successors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.graph.successors(n)
    }
    fn predecessors(&self, n: Node) -> impl Iterator<Item = Node> + '_ {
        self.graph.predecessors(n)
    }
}

/// Runs `f` on a thread with a small stack: nothing may recurse per node.
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(256 << 10).spawn(f).expect("spawn").join().expect("no panic")
}
