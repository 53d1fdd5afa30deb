//! Shared inputs for Keel's criterion benchmarks.
//!
//! The benchmarks live in `benches/benches/*.rs`; run one with
//! `cargo bench -p benches --bench NAME`. Inputs come from `ir-gen` with
//! fixed seeds, so runs compare like with like.
//!
//! Besides [`program`] (whole generated modules), this crate turns one
//! `ir-gen` CFG shape into the input of each dominator peer — a
//! [`cfg_dom::CsrGraph`], a petgraph [`DiGraph`] and a Cranelift
//! [`Function`] with one block per node — and reads each peer's immediate
//! dominators back as node ids, so that the benchmarks can check that the
//! peers agree before timing them ([`BenchGraph`], [`assert_same_idoms`]).
//! For phi placement it provides seeded definition sets ([`def_sets`]) and
//! the classic worklist IDF over dominance-frontier sets ([`DfWorklist`]),
//! the baseline for `cfg_dom::IteratedFrontiers`.

#![deny(missing_docs)]

pub mod clif_ssa;
pub mod programs;
pub mod regalloc;
pub mod tensor;

use cfg_dom::{CsrGraph, DomTree, DominanceFrontiers, Node};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::ir::{self, Block, Function, InstBuilder, JumpTableData, types};
use ir_gen::graphs::{self, EdgeList};
use ir_gen::{GenConfig, Generated, Source, SplitMix64, generate};
use petgraph::algo::dominators::Dominators;
use petgraph::graph::{DiGraph, NodeIndex};

/// A generated single-function module of about `blocks` blocks with the
/// generator's default mix (loops, diamonds, switches, irreducible regions,
/// guards, memory), 8 vars per 100 blocks (at least 16), seed 1.
pub fn program(blocks: usize) -> Generated {
    let config = GenConfig { blocks, vars: (blocks / 12).max(16), ..GenConfig::default() };
    generate(&config, 1)
}

/// The CFG shapes of the `dominators` benchmark, by name.
pub const SHAPES: [&str; 5] = ["structured", "chain", "ladder", "irreducible", "random"];

/// The `ir-gen` graph of shape `name` (one of [`SHAPES`]) with about `n`
/// nodes, seed 1:
///
/// - `structured`: [`graphs::structured`]`(n, 1)`, a random reducible CFG
///   (sequences, diamonds, switches, loops nested up to 16 deep);
/// - `chain`: [`graphs::chain`]`(n)`;
/// - `ladder`: [`graphs::ladder`]`(n / 3)`, `n / 3` diamonds in a row;
/// - `irreducible`: [`graphs::irreducible`]`(n, n / 4 + 1, 1)`, structured
///   plus `n / 4 + 1` extra entries into loop bodies (as `ir_gen::graphs::shape`
///   sizes them);
/// - `random`: [`graphs::random`]`(n, 2, 1)`, `2n` random edges (mostly
///   irreducible, about a fifth of the nodes unreachable).
///
/// # Panics
///
/// On an unknown name.
pub fn shape(name: &str, n: usize) -> EdgeList {
    match name {
        "structured" => graphs::structured(n, 1),
        "chain" => graphs::chain(n),
        "ladder" => graphs::ladder(n / 3),
        "irreducible" => graphs::irreducible(n, n / 4 + 1, 1),
        "random" => graphs::random(n, 2, 1),
        _ => panic!("unknown shape {name:?}; expected one of {SHAPES:?}"),
    }
}

/// A CFG given to every peer alike: dense node ids `0..nodes`, edges in
/// order (duplicates kept), and an entry with no predecessors.
///
/// The `ir-gen` shapes use node 0 as the entry, but some (`random`) give it
/// predecessors, which a Cranelift entry block may not have;
/// [`BenchGraph::new`] then adds a fresh entry node `nodes` with a single
/// edge to node 0, for all peers.
#[derive(Clone, Debug)]
pub struct BenchGraph {
    /// Number of nodes; ids are `0..nodes`.
    pub nodes: usize,
    /// Directed edges, in order.
    pub edges: Vec<(Node, Node)>,
    /// The entry node; it has no predecessors.
    pub entry: Node,
}

impl BenchGraph {
    /// The graph `g` entered at node 0, or at a fresh node before node 0 if
    /// node 0 has predecessors.
    pub fn new(g: EdgeList) -> BenchGraph {
        let EdgeList { nodes, mut edges } = g;
        if edges.iter().any(|&(_, b)| b == 0) {
            let fresh = nodes as Node;
            edges.push((fresh, 0));
            BenchGraph { nodes: nodes + 1, edges, entry: fresh }
        } else {
            BenchGraph { nodes, edges, entry: 0 }
        }
    }

    /// Successor lists, node by node, in edge order.
    pub fn successors(&self) -> Vec<Vec<Node>> {
        let mut s = vec![Vec::new(); self.nodes];
        for &(a, b) in &self.edges {
            s[a as usize].push(b);
        }
        s
    }

    /// The graph as `cfg-dom`'s compressed adjacency lists.
    pub fn to_csr(&self) -> CsrGraph {
        CsrGraph::from_edges(self.nodes, Some(self.entry), self.edges.iter().copied()).expect("ids are in range")
    }

    /// The graph as a petgraph `DiGraph` (node `i` is `NodeIndex::new(i)`);
    /// its root is [`BenchGraph::petgraph_entry`].
    pub fn to_digraph(&self) -> DiGraph<(), ()> {
        let mut g = DiGraph::with_capacity(self.nodes, self.edges.len());
        for _ in 0..self.nodes {
            g.add_node(());
        }
        g.extend_with_edges(self.edges.iter().copied());
        g
    }

    /// The entry as a petgraph node index.
    pub fn petgraph_entry(&self) -> NodeIndex {
        NodeIndex::new(self.entry as usize)
    }

    /// The graph as a Cranelift function: block `i` (`Block::from_u32(i)`)
    /// is node `i`, the entry block is laid out first, and each block holds
    /// just the terminator that gives exactly its successors, in order:
    /// `return` for none, `jump` for one, `brif` on the entry's `i32` block
    /// parameter for two, and `br_table` on that parameter (default = first
    /// successor, table = the rest) for more. The function is not verified
    /// (its signature returns nothing and it has no other instructions), but
    /// it is a well-formed CFG: every block ends in one branch.
    pub fn to_cranelift(&self) -> Function {
        let mut func = Function::new();
        let blocks: Vec<Block> = (0..self.nodes).map(|_| func.dfg.make_block()).collect();
        let entry = blocks[self.entry as usize];
        let cond = func.dfg.append_block_param(entry, types::I32);
        func.layout.append_block(entry);
        for &b in blocks.iter().filter(|&&b| b != entry) {
            func.layout.append_block(b);
        }
        for (i, succs) in self.successors().iter().enumerate() {
            let to = |s: &Node| blocks[*s as usize];
            match succs.as_slice() {
                [] => {
                    FuncCursor::new(&mut func).at_bottom(blocks[i]).ins().return_(&[]);
                }
                [s] => {
                    FuncCursor::new(&mut func).at_bottom(blocks[i]).ins().jump(to(s), &[]);
                }
                [s, t] => {
                    FuncCursor::new(&mut func).at_bottom(blocks[i]).ins().brif(cond, to(s), &[], to(t), &[]);
                }
                [first, rest @ ..] => {
                    let default = func.dfg.block_call(to(first), &[]);
                    let table: Vec<ir::BlockCall> = rest.iter().map(|s| func.dfg.block_call(to(s), &[])).collect();
                    let jt = func.create_jump_table(JumpTableData::new(default, &table));
                    FuncCursor::new(&mut func).at_bottom(blocks[i]).ins().br_table(cond, jt);
                }
            }
        }
        func
    }
}

/// Immediate dominators by node id from a [`DomTree`] (`None` for the entry
/// and for unreachable nodes).
pub fn idoms_cfg_dom(t: &DomTree, nodes: usize) -> Vec<Option<Node>> {
    (0..nodes as Node).map(|v| t.idom(v)).collect()
}

/// Immediate dominators by node id from petgraph's `simple_fast` result
/// (`None` for the root and for unreachable nodes).
pub fn idoms_petgraph(d: &Dominators<NodeIndex>, nodes: usize) -> Vec<Option<Node>> {
    (0..nodes).map(|v| d.immediate_dominator(NodeIndex::new(v)).map(|x| x.index() as Node)).collect()
}

/// Immediate dominators by node id from Cranelift's tree for
/// [`BenchGraph::to_cranelift`] (block `i` is node `i`).
pub fn idoms_cranelift(t: &DominatorTree, nodes: usize) -> Vec<Option<Node>> {
    (0..nodes as u32).map(|v| t.idom(Block::from_u32(v)).map(|b| b.as_u32())).collect()
}

/// Panics, naming the first node on which they differ, unless `ours` and
/// every `(peer name, idoms)` in `peers` agree on every node.
pub fn assert_same_idoms(what: &str, ours: &[Option<Node>], peers: &[(&str, &[Option<Node>])]) {
    for &(name, theirs) in peers {
        assert_eq!(ours.len(), theirs.len(), "{what}: cfg-dom and {name} disagree on the number of nodes");
        if let Some(v) = (0..ours.len()).find(|&v| ours[v] != theirs[v]) {
            panic!("{what}: idom({v}) is {:?} for cfg-dom but {:?} for {name}", ours[v], theirs[v]);
        }
    }
}

/// `vars` definition sets over nodes `0..nodes`, each of 1 to 8 distinct
/// nodes chosen uniformly (seeded, deterministic).
pub fn def_sets(nodes: usize, vars: usize, seed: u64) -> Vec<Vec<Node>> {
    let mut rng = SplitMix64::new(seed);
    (0..vars)
        .map(|_| {
            let k = 1 + rng.choose(8) as usize;
            let mut set: Vec<Node> = (0..k).map(|_| rng.choose(nodes as u64) as Node).collect();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect()
}

/// The classic iterated-dominance-frontier worklist (Cytron et al., 1991)
/// over precomputed [`DominanceFrontiers`], with query-stamped marks so a
/// query costs only the frontier entries it reads: the baseline a compiler
/// engineer would write, given DF sets.
#[derive(Clone, Debug, Default)]
pub struct DfWorklist {
    /// Query stamp per node: in the result already.
    has_already: Vec<u32>,
    /// Query stamp per node: pushed on the worklist already.
    work: Vec<u32>,
    query: u32,
    list: Vec<Node>,
}

impl DfWorklist {
    /// Empty scratch.
    pub fn new() -> DfWorklist {
        DfWorklist::default()
    }

    /// IDF of `defs` in a graph of `nodes` nodes into `out` (cleared
    /// first), sorted by node id.
    pub fn compute(&mut self, df: &DominanceFrontiers, nodes: usize, defs: &[Node], out: &mut Vec<Node>) {
        out.clear();
        if self.work.len() < nodes {
            self.has_already.resize(nodes, 0);
            self.work.resize(nodes, 0);
        }
        self.query = self.query.wrapping_add(1);
        if self.query == 0 {
            self.has_already.fill(0);
            self.work.fill(0);
            self.query = 1;
        }
        let q = self.query;
        self.list.clear();
        for &d in defs {
            if self.work[d as usize] != q {
                self.work[d as usize] = q;
                self.list.push(d);
            }
        }
        while let Some(x) = self.list.pop() {
            for &y in df.frontier(x) {
                if self.has_already[y as usize] != q {
                    self.has_already[y as usize] = q;
                    out.push(y);
                    if self.work[y as usize] != q {
                        self.work[y as usize] = q;
                        self.list.push(y);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}
