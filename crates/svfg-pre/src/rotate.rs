//! Loop rotation, the plan (issue 33): which top-tested natural loops to
//! turn into a guard plus a bottom-tested loop, so that PRE can move an
//! invariant of a loop that may run zero times into the guarded preheader
//! with no path computing more (LLVM runs loop rotation before LICM and
//! GVN-PRE for this reason).
//!
//! A loop with header `h` is rotated by *duplicating `h` onto its incoming
//! edges*: a guard block `g`, a copy of `h`, takes the edges from outside
//! the loop, and a test block `t`, another copy, takes the back edges; `h`
//! is then unreachable and goes. Every arrival at `h` ran `h`'s
//! instructions once and so does every arrival at `g` or `t`, in the same
//! order, so the program computes what it computed; the loop's new header
//! is `h`'s successor inside it, entered from `g` and from `t` at the
//! bottom.
//!
//! What is rotated (one plan, one pass): a reducible loop whose header is
//! not the function's entry, has exactly two successors, one inside the
//! loop and one outside (a top test), the inside one not the header itself
//! (a one-block loop is tested at its bottom already). Left alone, each
//! with its reason ([`Skip`]): irreducible loops, headers that are the
//! entry, headers whose test is not a two-way top test, and, so that the
//! plan's edges stay those of the graph the adapter edits, a loop whose
//! header is a successor of another rotated header (rotating one changes
//! the other's incoming edges; running the pass again rotates it). Loops
//! with other exits besides the header's are rotated: only the header is
//! duplicated.
//!
//! Invariants: plain data, nodes of the graph given, in header order;
//! linear in the graph plus the loop forest.

use cfg_dom::{Graph, LoopForest, Node};

/// One loop to rotate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// The header, duplicated onto its incoming edges and then removed.
    pub header: Node,
    /// Its successor inside the loop: the new header.
    pub inside: Node,
    /// Its successor outside the loop.
    pub exit: Node,
    /// Its predecessors outside the loop (they go to the guard).
    pub entries: Vec<Node>,
    /// Its predecessors inside the loop (they go to the bottom test).
    pub latches: Vec<Node>,
}

/// Why a loop is not rotated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// The loop has several entries.
    Irreducible,
    /// Its header is the function's entry (no preheader to guard).
    EntryHeader,
    /// Its header does not end in a two-way test with one successor in
    /// the loop and one outside.
    NotTopTested,
    /// A one-block loop: tested at its bottom already.
    BottomTested,
    /// Its header is a successor of another rotated header (run again).
    AdjacentHeader,
    /// Its header has phis (seen by the adapter: the plan knows only the
    /// graph).
    HeaderPhis,
}

/// The loops to rotate and the loops left alone, by header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RotationPlan {
    /// The loops to rotate, in header order.
    pub rotations: Vec<Rotation>,
    /// `(header, why)` for each loop left alone, in header order.
    pub skipped: Vec<(Node, Skip)>,
}

/// The rotation plan of `graph` (see the module doc).
pub fn rotation_plan<G: Graph>(graph: &G) -> RotationPlan {
    let loops = LoopForest::of(graph);
    let entry = graph.entry();
    let mut plan = RotationPlan::default();
    // Headers taken so far, and the successors of those headers.
    let n = graph.num_nodes();
    let mut taken = vec![false; n];
    let mut next_to_taken = vec![false; n];
    let mut by_header: Vec<_> = loops.loops().map(|l| (loops.header(l), l)).collect();
    by_header.sort_unstable_by_key(|&(h, _)| h);
    for (h, l) in by_header {
        let why = if loops.is_irreducible(l) {
            Some(Skip::Irreducible)
        } else if Some(h) == entry {
            Some(Skip::EntryHeader)
        } else {
            None
        };
        if let Some(why) = why {
            plan.skipped.push((h, why));
            continue;
        }
        let succ: Vec<Node> = graph.successors(h).collect();
        let (inside, exit) = match succ[..] {
            [a, b] if a != b && loops.contains(l, a) != loops.contains(l, b) => {
                if loops.contains(l, a) {
                    (a, b)
                } else {
                    (b, a)
                }
            }
            _ => {
                plan.skipped.push((h, Skip::NotTopTested));
                continue;
            }
        };
        if inside == h {
            plan.skipped.push((h, Skip::BottomTested));
            continue;
        }
        if next_to_taken[h as usize] || succ.iter().any(|&s| taken[s as usize]) {
            plan.skipped.push((h, Skip::AdjacentHeader));
            continue;
        }
        let (mut entries, mut latches) = (Vec::new(), Vec::new());
        for p in graph.predecessors(h) {
            if loops.contains(l, p) { latches.push(p) } else { entries.push(p) }
        }
        entries.sort_unstable();
        entries.dedup();
        latches.sort_unstable();
        latches.dedup();
        taken[h as usize] = true;
        for &s in &succ {
            next_to_taken[s as usize] = true;
        }
        plan.rotations.push(Rotation { header: h, inside, exit, entries, latches });
    }
    plan
}
