//! Loops by definition: the reference for [`crate::LoopForest`].
//!
//! [`loop_forest`] computes the loop nesting forest of Havlak (TOPLAS 1997)
//! straight from its definition, with none of the algorithm's machinery (no
//! union-find, no edge classification): on the DFS tree of [`crate::Dfs`],
//! a reachable node `h` is a header iff a reachable predecessor `p` has `h`
//! as a DFS ancestor (or is `h`); its body is found by a backward search
//! from `h` that never leaves `h`'s DFS subtree; parents, innermost loops
//! and depths come from comparing bodies as sets; a loop is irreducible iff
//! some edge from a reachable node outside the body reaches a body node
//! other than the header. [`natural_loops`] is the textbook reducible-graph
//! definition, from dominance computed by path removal (not from
//! [`crate::DomTree`]): for every back edge `t -> h` with `h` dominating
//! `t`, `h` plus the nodes that reach `t` without passing through `h`.
//!
//! Invariants: unreachable nodes and their edges are ignored (they are in
//! no loop); bodies are sorted; loops are listed in reverse DFS preorder of
//! their headers, which is the id order of [`crate::LoopForest`]. Quadratic
//! or worse; no recursion.

use crate::graph::{Graph, Node};
use crate::traversal::Dfs;

/// One loop of [`OracleLoops`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OracleLoop {
    /// The header.
    pub header: Node,
    /// Every node of the loop, nested loops and the header included, sorted.
    pub body: Vec<Node>,
    /// The index (in [`OracleLoops::loops`]) of the smallest loop whose
    /// body strictly contains this one's.
    pub parent: Option<usize>,
    /// True when an edge from a reachable node outside the body enters a
    /// body node other than the header.
    pub irreducible: bool,
}

/// The loop nesting forest by definition (see the module documentation).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct OracleLoops {
    /// Every loop, in reverse DFS preorder of headers.
    pub loops: Vec<OracleLoop>,
    /// By node: the index of the loop with the smallest body containing it.
    pub innermost: Vec<Option<usize>>,
    /// By node: the number of loops whose body contains it.
    pub depth: Vec<u32>,
}

impl OracleLoops {
    /// The index of the loop headed by `h`, if `h` is a header.
    pub fn loop_with_header(&self, h: Node) -> Option<usize> {
        self.loops.iter().position(|l| l.header == h)
    }
}

/// Reachable predecessors of `x` (in range and reached by `dfs`).
fn reachable_preds<'a>(g: &'a impl Graph, dfs: &'a Dfs, x: Node) -> impl Iterator<Item = Node> + 'a {
    g.predecessors(x).filter(move |&p| dfs.is_reachable(p))
}

/// The loop nesting forest of `g` by definition: headers from retreating
/// edges of [`Dfs`], bodies by backward search inside the header's DFS
/// subtree, nesting by set inclusion.
pub fn loop_forest(g: &impl Graph) -> OracleLoops {
    let n = g.num_nodes();
    let dfs = Dfs::of(g);
    let mut out = OracleLoops { loops: Vec::new(), innermost: vec![None; n], depth: vec![0; n] };
    for &h in dfs.preorder().iter().rev() {
        if !reachable_preds(g, &dfs, h).any(|p| dfs.is_ancestor(h, p)) {
            continue;
        }
        // Backward search from `h`, never leaving its subtree.
        let mut inside = vec![false; n];
        inside[h as usize] = true;
        let mut stack = vec![h];
        while let Some(x) = stack.pop() {
            for p in reachable_preds(g, &dfs, x) {
                if dfs.is_ancestor(h, p) && !inside[p as usize] {
                    inside[p as usize] = true;
                    stack.push(p);
                }
            }
        }
        let body: Vec<Node> = (0..n as Node).filter(|&y| inside[y as usize]).collect();
        let irreducible =
            body.iter().filter(|&&z| z != h).any(|&z| reachable_preds(g, &dfs, z).any(|p| !inside[p as usize]));
        out.loops.push(OracleLoop { header: h, body, parent: None, irreducible });
    }
    // Nesting by inclusion: the smallest strictly larger body containing
    // the header (bodies are laminar and distinct).
    let contains = |outer: &OracleLoop, x: Node| outer.body.binary_search(&x).is_ok();
    let smallest = |x: Node, except: Option<usize>, loops: &[OracleLoop]| {
        (0..loops.len())
            .filter(|&j| Some(j) != except && contains(&loops[j], x))
            .min_by_key(|&j| (loops[j].body.len(), j))
    };
    for i in 0..out.loops.len() {
        let h = out.loops[i].header;
        let parent = smallest(h, Some(i), &out.loops);
        if let Some(p) = parent {
            let (inner, outer) = (&out.loops[i].body, &out.loops[p].body);
            assert!(
                inner.len() < outer.len() && inner.iter().all(|&x| outer.binary_search(&x).is_ok()),
                "loop bodies are not laminar"
            );
        }
        out.loops[i].parent = parent;
    }
    for x in 0..n as Node {
        out.innermost[x as usize] = smallest(x, None, &out.loops);
        out.depth[x as usize] = out.loops.iter().filter(|l| contains(l, x)).count() as u32;
    }
    out
}

/// A natural loop of a reducible graph: all back edges to one header
/// together.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NaturalLoop {
    /// The header: it dominates every node of the body.
    pub header: Node,
    /// The header and every reachable node that reaches the source of a
    /// back edge to it without passing through it, sorted.
    pub body: Vec<Node>,
}

/// Natural loops by the dominance definition, one per header (the union of
/// the natural loops of its back edges), sorted by header. A back edge is
/// `t -> h` with `t` reachable and `h` dominating `t`, self-loops included;
/// `h` dominates `t` iff `t` is `h` or cannot be reached from the entry
/// once `h` is removed. On a reducible graph these are exactly the loops of
/// [`loop_forest`]; on an irreducible one they can differ (a retreating
/// edge whose target does not dominate its source makes no natural loop).
pub fn natural_loops(g: &impl Graph) -> Vec<NaturalLoop> {
    let n = g.num_nodes();
    let dfs = Dfs::of(g);
    let mut out = Vec::new();
    let Some(entry) = g.entry().filter(|&e| (e as usize) < n) else { return out };
    for h in 0..n as Node {
        if !dfs.is_reachable(h) {
            continue;
        }
        // Nodes reachable from the entry without passing through `h`.
        let mut avoid = vec![false; n];
        if entry != h {
            avoid[entry as usize] = true;
            let mut stack = vec![entry];
            while let Some(x) = stack.pop() {
                for s in g.successors(x) {
                    if (s as usize) < n && s != h && !avoid[s as usize] {
                        avoid[s as usize] = true;
                        stack.push(s);
                    }
                }
            }
        }
        let latches: Vec<Node> = reachable_preds(g, &dfs, h).filter(|&t| t == h || !avoid[t as usize]).collect();
        if latches.is_empty() {
            continue;
        }
        let mut inside = vec![false; n];
        inside[h as usize] = true;
        let mut stack = Vec::new();
        for t in latches {
            if !inside[t as usize] {
                inside[t as usize] = true;
                stack.push(t);
            }
        }
        while let Some(x) = stack.pop() {
            for p in reachable_preds(g, &dfs, x) {
                if !inside[p as usize] {
                    inside[p as usize] = true;
                    stack.push(p);
                }
            }
        }
        out.push(NaturalLoop { header: h, body: (0..n as Node).filter(|&y| inside[y as usize]).collect() });
    }
    out
}
