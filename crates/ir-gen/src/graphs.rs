//! Control-flow graph shapes as plain edge lists, for the oracle tests,
//! benchmarks and fuzzing of graph analyses (`cfg-dom`).
//!
//! Invariants: node 0 is the entry; node ids are dense `0..nodes`; every
//! generator is deterministic in its arguments (seeded with [`SplitMix64`])
//! and runs in time linear in its output without recursion, so 10^6- and
//! 10^7-node graphs are cheap. Shapes: long chains, ladders of diamonds,
//! deeply nested loops, random structured (reducible) CFGs, the same with
//! extra entries into loops (irreducible), dense random digraphs, and any of
//! them with unreachable nodes pointing in.

use crate::source::{Source, SplitMix64};
use proptest::prelude::*;

/// A graph as an edge list with entry node 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeList {
    /// Number of nodes; ids are `0..nodes`.
    pub nodes: usize,
    /// Directed edges, in order (duplicates possible).
    pub edges: Vec<(u32, u32)>,
}

impl EdgeList {
    /// Successor lists, node by node, in edge order.
    pub fn successors(&self) -> Vec<Vec<u32>> {
        let mut s = vec![Vec::new(); self.nodes];
        for &(a, b) in &self.edges {
            s[a as usize].push(b);
        }
        s
    }
}

/// `0 -> 1 -> ... -> n-1`.
pub fn chain(n: usize) -> EdgeList {
    let n = n.max(1);
    EdgeList { nodes: n, edges: (1..n as u32).map(|i| (i - 1, i)).collect() }
}

/// A ladder: `rungs` diamonds in a row (`3 * rungs + 1` nodes).
pub fn ladder(rungs: usize) -> EdgeList {
    let mut edges = Vec::with_capacity(rungs * 4);
    for r in 0..rungs as u32 {
        let (top, left, right, join) = (3 * r, 3 * r + 1, 3 * r + 2, 3 * r + 3);
        edges.extend([(top, left), (top, right), (left, join), (right, join)]);
    }
    EdgeList { nodes: 3 * rungs + 1, edges }
}

/// `depth` loops nested inside each other, each with a body block and an
/// exit: node `2i` is the header at depth `i`, `2i+1` its latch.
pub fn nested_loops(depth: usize) -> EdgeList {
    let d = depth.max(1) as u32;
    let mut edges = Vec::new();
    // Headers 0, 2, ..., 2(d-1) enter one another; the innermost header
    // goes to latch 2d-1, each latch back to its header and out to the
    // next outer latch; the outermost latch exits to node 2d.
    for i in 0..d {
        let (h, l) = (2 * i, 2 * i + 1);
        if i + 1 < d {
            edges.push((h, h + 2));
        } else {
            edges.push((h, l));
        }
        edges.push((l, h));
        edges.push((l, if i == 0 { 2 * d } else { l - 2 }));
    }
    EdgeList { nodes: 2 * d as usize + 1, edges }
}

/// A random structured CFG of `n` to `n + 40` nodes (closing open loops adds
/// a few): a sequence of straight
/// blocks, diamonds, loops (with a back edge to the header and an exit) and
/// multi-way switches, nested. Always reducible.
pub fn structured(n: usize, seed: u64) -> EdgeList {
    Builder::new(seed).structured(n.max(2))
}

/// [`structured`] plus `extra` random edges from a node to a node of an
/// earlier loop body, giving loops several entries (irreducible).
pub fn irreducible(n: usize, extra: usize, seed: u64) -> EdgeList {
    let mut b = Builder::new(seed);
    let mut g = b.structured(n.max(2));
    let bodies = std::mem::take(&mut b.loop_bodies);
    for _ in 0..extra {
        if bodies.is_empty() {
            break;
        }
        let (lo, hi) = bodies[b.rng.choose(bodies.len() as u64) as usize];
        let target = lo + b.rng.choose(u64::from(hi - lo).max(1)) as u32;
        let from = b.rng.choose(lo.max(1) as u64) as u32;
        g.edges.push((from, target));
    }
    g
}

/// A dense random digraph: `n` nodes, `n * degree` edges between random
/// nodes (node 0 first gets an edge, so it is rarely isolated). Mostly
/// irreducible, with unreachable parts.
pub fn random(n: usize, degree: usize, seed: u64) -> EdgeList {
    let mut rng = SplitMix64::new(seed);
    let n = n.max(1);
    let mut edges = Vec::with_capacity(n * degree);
    for _ in 0..n * degree {
        let a = rng.choose(n as u64) as u32;
        let b = rng.choose(n as u64) as u32;
        edges.push((a, b));
    }
    if n > 1 {
        edges.push((0, 1 + rng.choose(n as u64 - 1) as u32));
    }
    EdgeList { nodes: n, edges }
}

/// `g` plus `k` unreachable nodes, each with an edge into `g` and some among
/// themselves.
pub fn with_unreachable(mut g: EdgeList, k: usize, seed: u64) -> EdgeList {
    let mut rng = SplitMix64::new(seed);
    let base = g.nodes as u32;
    for i in 0..k as u32 {
        let u = base + i;
        g.edges.push((u, rng.choose(u64::from(base)) as u32));
        if i > 0 {
            g.edges.push((u, base + rng.choose(u64::from(i)) as u32));
        }
    }
    g.nodes += k;
    g
}

/// Any shape, small, from proptest: chains, ladders, nested loops,
/// structured, irreducible and random graphs, some with unreachable nodes.
pub fn arb_graph(max_nodes: usize) -> impl Strategy<Value = EdgeList> {
    let max = max_nodes.max(4);
    (0u8..7, 1..max, any::<u64>(), 0usize..4).prop_map(move |(kind, n, seed, unreachable)| {
        let g = shape(kind, n, seed);
        if unreachable > 0 { with_unreachable(g, unreachable, seed ^ 0x5555) } else { g }
    })
}

/// The shape `kind % 7` at size about `n`.
pub fn shape(kind: u8, n: usize, seed: u64) -> EdgeList {
    match kind % 7 {
        0 => chain(n),
        1 => ladder(n / 3 + 1),
        2 => nested_loops(n / 2 + 1),
        3 => structured(n, seed),
        4 => irreducible(n, n / 4 + 1, seed),
        5 => random(n, 2, seed),
        _ => random(n, 1, seed),
    }
}

/// Any shape from fuzz bytes: the first byte picks the shape, the next two
/// the size (at most `max_nodes`), the rest seed the generator.
pub fn graph_from_bytes(bytes: &[u8], max_nodes: usize) -> EdgeList {
    let get = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let n = 1 + (usize::from(get(1)) | usize::from(get(2)) << 8) % max_nodes.max(1);
    let seed = bytes.iter().skip(3).fold(0u64, |h, &b| h.wrapping_mul(0x100_0000_01b3) ^ u64::from(b));
    let g = shape(get(0), n, seed);
    let unreachable = usize::from(get(0) >> 4) % 4;
    if unreachable > 0 { with_unreachable(g, unreachable, seed) } else { g }
}

/// Emits structured regions without recursion: an explicit stack of open
/// loop regions.
struct Builder {
    rng: SplitMix64,
    edges: Vec<(u32, u32)>,
    next: u32,
    /// Node ranges `[lo, hi)` of loop bodies, for [`irreducible`].
    loop_bodies: Vec<(u32, u32)>,
}

impl Builder {
    fn new(seed: u64) -> Builder {
        Builder { rng: SplitMix64::new(seed), edges: Vec::new(), next: 1, loop_bodies: Vec::new() }
    }

    fn node(&mut self) -> u32 {
        let n = self.next;
        self.next += 1;
        n
    }

    /// A sequence of regions from node 0 until about `n` nodes exist.
    fn structured(&mut self, n: usize) -> EdgeList {
        // Open loops: (header, depth). Closing one adds the back edge from
        // the current tail and an exit.
        let mut open: Vec<u32> = Vec::new();
        let mut tail = 0u32;
        while (self.next as usize) < n {
            match self.rng.choose(8) {
                0 | 1 => {
                    let x = self.node();
                    self.edges.push((tail, x));
                    tail = x;
                }
                2 | 3 => {
                    let (l, r, j) = (self.node(), self.node(), self.node());
                    self.edges.extend([(tail, l), (tail, r), (l, j), (r, j)]);
                    tail = j;
                }
                4 if open.len() < 16 => {
                    let h = self.node();
                    self.edges.push((tail, h));
                    open.push(h);
                    tail = h;
                }
                5 => {
                    // A switch with 2..=4 arms.
                    let arms = 2 + self.rng.choose(3);
                    let j = self.node();
                    for _ in 0..arms {
                        let a = self.node();
                        self.edges.extend([(tail, a), (a, j)]);
                    }
                    // The join was numbered before the arms; fine for a CFG.
                    tail = j;
                }
                6 if !open.is_empty() => {
                    // An early exit from the innermost loop to a new block
                    // that rejoins after it closes: modelled as a side exit.
                    let x = self.node();
                    self.edges.push((tail, x));
                    let c = self.node();
                    self.edges.push((tail, c));
                    self.edges.push((x, c));
                    tail = c;
                }
                _ => {
                    if let Some(h) = open.pop() {
                        let exit = self.node();
                        self.edges.extend([(tail, h), (tail, exit)]);
                        self.loop_bodies.push((h, self.next - 1));
                        tail = exit;
                    }
                }
            }
        }
        while let Some(h) = open.pop() {
            let exit = self.node();
            self.edges.extend([(tail, h), (tail, exit)]);
            self.loop_bodies.push((h, self.next - 1));
            tail = exit;
        }
        EdgeList { nodes: self.next as usize, edges: std::mem::take(&mut self.edges) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_well_formed_and_deterministic() {
        for kind in 0..7 {
            for n in [1, 2, 5, 40] {
                let g = shape(kind, n, 9);
                assert!(g.edges.iter().all(|&(a, b)| (a as usize) < g.nodes && (b as usize) < g.nodes), "{kind} {n}");
                assert_eq!(g, shape(kind, n, 9));
            }
        }
        assert_eq!(ladder(2).nodes, 7);
        assert_eq!(nested_loops(3).nodes, 7);
        let big = structured(1_000_000, 1);
        assert!(big.nodes >= 1_000_000 && big.nodes < 1_000_064, "{}", big.nodes);
    }
}
