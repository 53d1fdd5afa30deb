//! The order the fixpoint visits blocks in: Bourdoncle's weak
//! topological order ("Efficient chaotic iteration strategies with
//! widenings", Formal Methods in Programming and Their Applications, 1993),
//! built from a reverse postorder and the loop nesting
//! forest instead of his recursive decomposition.
//!
//! Invariants of [`iteration_order`]: it lists every reachable block once;
//! every loop's blocks are contiguous with its header first; forward (non
//! retreating) edges go forward in it. Explicit stack, no recursion.

use cfg_dom::Node;

/// A reverse postorder in which every loop's blocks are contiguous, its
/// header first (Bourdoncle's weak topological order): the reverse
/// postorder `rpo` with each loop collapsed into its header, expanded
/// loop by loop. Forward edges go forward in it (an edge leaving a loop
/// goes from after the loop's header to after the whole loop, since the
/// header precedes its target in `rpo`). Reachable blocks only; explicit
/// stack.
pub(crate) fn iteration_order(rpo: &[Node], loops: &cfg_dom::LoopForest) -> Vec<Node> {
    // Items per loop (and at the top, index `num_loops`), in `rpo` order:
    // a block, or a child loop at its header's place.
    #[derive(Copy, Clone)]
    enum Item {
        Block(Node),
        Loop(u32),
    }
    let top = loops.num_loops();
    let mut items: Vec<Vec<Item>> = vec![Vec::new(); top + 1];
    for &b in rpo {
        match loops.innermost_loop(b) {
            None => items[top].push(Item::Block(b)),
            Some(l) => {
                if loops.header(l) == b {
                    let parent = loops.parent(l).map_or(top, |p| p.index());
                    items[parent].push(Item::Loop(l.as_u32()));
                }
                items[l.index()].push(Item::Block(b));
            }
        }
    }
    let mut order = Vec::with_capacity(rpo.len());
    let mut stack: Vec<(usize, usize)> = vec![(top, 0)];
    while let Some((list, k)) = stack.last_mut() {
        let Some(&item) = items[*list].get(*k) else {
            stack.pop();
            continue;
        };
        *k += 1;
        match item {
            Item::Block(b) => order.push(b),
            Item::Loop(l) => stack.push((l as usize, 0)),
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfg_dom::{CsrGraph, Dfs, Graph, LoopForest};

    /// On random (mostly irreducible) and structured graphs: the order is
    /// the reachable blocks, each once, forward edges go forward in it,
    /// and every loop is contiguous with its header first.
    #[test]
    fn every_loop_is_contiguous_header_first() {
        for seed in 0..200u64 {
            let n = 2 + (seed as usize * 7) % 60;
            let g = if seed % 2 == 0 {
                ir_gen::graphs::random(n, 2, seed)
            } else {
                ir_gen::graphs::irreducible(n, n / 4 + 1, seed)
            };
            let g = CsrGraph::from_edges(g.nodes, Some(0), g.edges.iter().copied()).unwrap();
            let mut dfs = Dfs::new();
            dfs.compute(&g);
            let loops = LoopForest::of(&g);
            let rpo: Vec<Node> = dfs.reverse_postorder().collect();
            let order = iteration_order(&rpo, &loops);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            let mut reachable = rpo.clone();
            reachable.sort_unstable();
            assert_eq!(sorted, reachable, "seed {seed}");
            let mut pos = vec![usize::MAX; g.num_nodes()];
            for (k, &b) in order.iter().enumerate() {
                pos[b as usize] = k;
            }
            for l in loops.loops() {
                let h = pos[loops.header(l) as usize];
                let body = loops.body(l);
                let hi = body.iter().map(|&b| pos[b as usize]).max().unwrap();
                assert!(body.iter().all(|&b| pos[b as usize] >= h), "seed {seed}: header not first");
                assert_eq!(hi - h + 1, body.len(), "seed {seed}: loop not contiguous");
            }
            // Edges that are not retreating in the DFS go forward.
            for &b in &rpo {
                for s in g.successors(b) {
                    let retreating = dfs.is_ancestor(s, b);
                    assert!(retreating || pos[s as usize] > pos[b as usize], "seed {seed}: {b} -> {s}");
                }
            }
        }
    }
}
