//! Loop unrolling under a bound: source document 004's alternative to
//! fix-up moves on a back edge (its global step; `docs/references.md`). Where a var sits in
//! different registers at a loop's bottom and top, the default allocation
//! inserts moves on the back edge; unrolling the loop `k` times gives each
//! copy its own registers, so the rotation can close after `k` iterations
//! instead of on every one.
//!
//! [`unroll_loops`] rewrites a Keel function (out of SSA form: no phis)
//! with every innermost, reducible loop unrolled `k` times: the body's
//! blocks are copied `k − 1` times, each copy's edges to the header go to
//! the next copy's header, the last copy's back to the original header;
//! exits keep their targets. Control flow and every instruction are
//! duplicated as they are, so the function computes exactly what it did
//! (the interpreter checks this in `tests/unroll.rs`).
//!
//! [`unrolled_cost`] compares allocations of differently unrolled copies
//! fairly: each edit counts its loop weight, divided by `k` inside an
//! unrolled loop (one trip through `k` copies is `k` iterations of the
//! original), as an exact fraction.
//!
//! Invariants: blocks are visited in layout order and loops by id, so the
//! result is deterministic; nothing recurses.

use crate::output::{Allocation, ProgPoint};
use cfg_dom::{Graph, LoopForest, Node};
use ir_core::{Block, Function, block, node};

/// An unrolled function: how many loops were unrolled and which blocks
/// (original and copies) belong to an unrolled loop.
#[derive(Clone, Debug, Default)]
pub struct Unrolled {
    /// The unroll factor.
    pub factor: u32,
    /// Loops unrolled.
    pub loops: usize,
    /// Per block (node id): whether it is in an unrolled loop.
    pub in_unrolled: Vec<bool>,
}

/// Unrolls every innermost reducible loop of `func` (no phis) `factor`
/// times; see the module doc. A factor below 2 or a function with a phi
/// changes nothing.
pub fn unroll_loops(func: &mut Function, factor: u32) -> Unrolled {
    let mut out = Unrolled { factor, loops: 0, in_unrolled: Vec::new() };
    let has_phi = func.blocks().any(|b| func.block_insts(b).any(|i| func.opcode(i) == ir_core::Opcode::Phi));
    if factor < 2 || has_phi {
        out.in_unrolled = vec![false; func.cfg().num_nodes()];
        return out;
    }
    let cfg = func.cfg();
    let loops = LoopForest::of(&cfg);
    let mut marked: Vec<Node> = Vec::new();
    for l in loops.loops() {
        if !loops.children(l).is_empty() || loops.is_irreducible(l) {
            continue;
        }
        let header = block(loops.header(l));
        let mut body: Vec<Block> = loops.body(l).iter().map(|&n| block(n)).collect();
        body.sort_unstable();
        // copies[j][i]: block i of the body in copy j (copy 0 = original).
        let mut copies: Vec<Vec<Block>> = vec![body.clone()];
        for _ in 1..factor {
            let fresh: Vec<Block> = body.iter().map(|_| func.create_block()).collect();
            for &b in &fresh {
                let _ = func.append_block(b);
            }
            copies.push(fresh);
        }
        let index_of = |b: Block| body.binary_search(&b).ok();
        let header_i = index_of(header).expect("the header is in its loop");
        // The copies first, from the untouched original; the original's
        // own back edges last.
        for j in (1..factor as usize).chain(std::iter::once(0)) {
            let next_header = copies[(j + 1) % factor as usize][header_i];
            for (i, &orig) in body.iter().enumerate() {
                let target_block = copies[j][i];
                let insts: Vec<ir_core::Inst> = func.block_insts(orig).collect();
                for inst in insts {
                    let placed = if j == 0 {
                        inst
                    } else {
                        let d = func.duplicate_inst(inst).expect("an instruction of this function");
                        let _ = func.append_inst(d, target_block);
                        d
                    };
                    let succs: Vec<Block> = func.successors(placed).collect();
                    for (k, s) in succs.into_iter().enumerate() {
                        let new = if s == header {
                            next_header
                        } else {
                            match index_of(s) {
                                Some(si) => copies[j][si],
                                None => s,
                            }
                        };
                        if new != s {
                            func.set_successor(placed, k, new);
                        }
                    }
                }
            }
        }
        for c in &copies {
            marked.extend(c.iter().map(|&b| node(b)));
        }
        out.loops += 1;
    }
    out.in_unrolled = vec![false; func.cfg().num_nodes()];
    for n in marked {
        if let Some(slot) = out.in_unrolled.get_mut(n as usize) {
            *slot = true;
        }
    }
    out
}

/// The loop-weighted cost of `allocation` of `graph` (loads + stores +
/// moves, each at `loop_weight^depth` of its block, or of the edge's
/// source for an edge edit), with edits in an unrolled loop divided by
/// the factor: `(numerator, denominator)`, compared by cross-multiplying.
pub fn unrolled_cost(
    graph: &impl Graph,
    allocation: &Allocation,
    unrolled: &Unrolled,
    loop_weight: u64,
) -> (u128, u128) {
    let loops = LoopForest::of(graph);
    let k = u128::from(unrolled.factor.max(1));
    let weight = |n: Node| -> u128 {
        let d = loops.loop_depth(n);
        u128::from(loop_weight).saturating_pow(d)
    };
    let mut num: u128 = 0;
    for (point, _) in allocation.edits() {
        let n = match *point {
            ProgPoint::Before { block, .. } => block,
            ProgPoint::OnEdge { from, .. } => from,
        };
        let inside = unrolled.in_unrolled.get(n as usize).copied().unwrap_or(false);
        let w = weight(n);
        num = num.saturating_add(if inside { w } else { w.saturating_mul(k) });
    }
    (num, k)
}

/// Whether cost `a` is below cost `b` (fractions from [`unrolled_cost`]).
pub fn cheaper(a: (u128, u128), b: (u128, u128)) -> bool {
    a.0.saturating_mul(b.1) < b.0.saturating_mul(a.1)
}
