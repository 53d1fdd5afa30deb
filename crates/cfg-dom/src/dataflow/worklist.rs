//! The worklist both dataflow solvers share: the visiting order (reverse
//! postorder forward, postorder backward, of one DFS from the entry, then,
//! for [`Scope::All`], from each still-unvisited node in id order), each
//! node's position in it, and an in-queue bitset over positions.
//!
//! Invariant: `pop` takes the next dirty position at or after the last one
//! taken, wrapping round, so the solvers sweep the dirty nodes in the
//! visiting order and their results and visit counts are deterministic.
//! Nothing recurses; successor ids out of range are ignored.

use super::framework::{Direction, Scope};
use crate::graph::{Graph, NONE, Node};

/// The worklist shared by both solvers: the visiting order, each node's
/// position in it, and the in-queue bitset over positions.
#[derive(Clone, Debug, Default)]
pub(super) struct Worklist {
    /// Solved nodes in visiting order.
    pub(super) order: Vec<Node>,
    /// Position of each node in `order`; `NONE` outside the scope.
    pub(super) pos: Vec<u32>,
    /// Bit `i` set: `order[i]` is waiting.
    dirty: Vec<u64>,
    pending: usize,
    cursor: usize,
    stack: Vec<(Node, bool)>,
    buf: Vec<Node>,
}

impl Worklist {
    pub(super) fn clear(&mut self) {
        self.order.clear();
        self.pos.clear();
        self.dirty.clear();
        self.pending = 0;
        self.cursor = 0;
        self.stack.clear();
        self.buf.clear();
    }

    /// The order for `direction` over the nodes of `scope`, all dirty.
    pub(super) fn build(&mut self, g: &impl Graph, n: usize, direction: Direction, scope: Scope) {
        self.clear();
        self.pos.resize(n, NONE);
        if let Some(entry) = g.entry().filter(|&e| (e as usize) < n) {
            self.postorder_from(g, n, entry);
        }
        if scope == Scope::All {
            for root in 0..n as Node {
                if self.pos[root as usize] == NONE {
                    self.postorder_from(g, n, root);
                }
            }
        }
        if direction == Direction::Forward {
            self.order.reverse();
        }
        for (i, &v) in self.order.iter().enumerate() {
            self.pos[v as usize] = i as u32;
        }
        let m = self.order.len();
        self.dirty.resize(m.div_ceil(64), !0);
        if !m.is_multiple_of(64)
            && let Some(last) = self.dirty.last_mut()
        {
            *last = (1u64 << (m % 64)) - 1;
        }
        self.pending = m;
    }

    /// Appends the postorder of a DFS from `root` over unvisited nodes;
    /// `pos` marks visited nodes (0) until `build` numbers them.
    fn postorder_from(&mut self, g: &impl Graph, n: usize, root: Node) {
        self.stack.push((root, false));
        while let Some((v, exit)) = self.stack.pop() {
            if exit {
                self.order.push(v);
                continue;
            }
            if self.pos[v as usize] != NONE {
                continue;
            }
            self.pos[v as usize] = 0;
            self.stack.push((v, true));
            self.buf.clear();
            let pos = &self.pos;
            self.buf.extend(g.successors(v).filter(|&s| (s as usize) < n && pos[s as usize] == NONE));
            self.stack.extend(self.buf.iter().rev().map(|&s| (s, false)));
        }
    }

    pub(super) fn in_scope(&self, v: Node) -> bool {
        self.pos.get(v as usize).is_some_and(|&p| p != NONE)
    }

    /// Queues `v` if it is solved and not already waiting.
    pub(super) fn push(&mut self, v: Node) {
        let Some(&p) = self.pos.get(v as usize) else { return };
        if p == NONE {
            return;
        }
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if self.dirty[w] & bit == 0 {
            self.dirty[w] |= bit;
            self.pending += 1;
        }
    }

    /// The next waiting node at or after the cursor, wrapping round.
    pub(super) fn pop(&mut self) -> Option<Node> {
        while self.pending > 0 {
            match next_one(&self.dirty, self.cursor) {
                Some(p) => {
                    self.dirty[p / 64] &= !(1u64 << (p % 64));
                    self.pending -= 1;
                    self.cursor = p + 1;
                    return Some(self.order[p]);
                }
                None if self.cursor == 0 => {
                    // Unreachable: `pending` counts the set bits.
                    self.pending = 0;
                }
                None => self.cursor = 0,
            }
        }
        None
    }
}

/// The first set bit at index `>= from`.
fn next_one(words: &[u64], from: usize) -> Option<usize> {
    let mut i = from / 64;
    let mut w = *words.get(i)? & (!0u64 << (from % 64));
    loop {
        if w != 0 {
            return Some(i * 64 + w.trailing_zeros() as usize);
        }
        i += 1;
        w = *words.get(i)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn the_worklist_sweeps_in_order_and_wraps() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3.
        let g = CsrGraph::from_edges(5, Some(0), [(0, 1), (1, 2), (2, 1), (2, 3)]).unwrap();
        let mut w = Worklist::default();
        w.build(&g, 5, Direction::Forward, Scope::Reachable);
        assert_eq!(w.order, [0, 1, 2, 3]);
        assert!(!w.in_scope(4));
        assert_eq!(w.pop(), Some(0));
        assert_eq!(w.pop(), Some(1));
        w.push(0);
        w.push(4);
        assert_eq!([w.pop(), w.pop(), w.pop(), w.pop()], [Some(2), Some(3), Some(0), None]);
        w.build(&g, 5, Direction::Backward, Scope::All);
        assert_eq!(w.order, [3, 2, 1, 0, 4]);
    }
}
