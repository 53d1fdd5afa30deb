//! The SSA method's renaming, for global vars only: one walk of the
//! dominator tree (Cytron et al., 1991, SEARCH; the DU-chain document's
//! step 4) that answers the walk's requests and gives every phi its
//! operands, without touching instructions again.
//!
//! Per block: push its phis, answer its requests (the value of each var at
//! the block's entry is the top of the var's stack), push its exits (the
//! value of each global var it defines, at its end), then hand each
//! successor's phis their operand from this block. Stacks are a top array
//! plus an undo log (a push is one write and one log entry; leaving a
//! subtree truncates the log). Explicit stack, no recursion.
//!
//! Invariants: phi `j` is the node `num_guarded + j`; its operands are
//! `ops[op_start[j]..op_start[j + 1]]`, one slot per predecessor edge (plus
//! one for the params when the entry has predecessors), [`NO_VALUE`] for
//! edges from unreachable blocks and for nothing reaching.

use crate::place::Placement;
use crate::planted::{Bug, planted};
use crate::walk::{Local, NO_VALUE, Value};
use cfg_dom::{DomTree, Graph, Input, Node, VarCode, VarId};

/// Marks a block to enter (not to leave) on the walk's stack.
const ENTER: u32 = u32::MAX;

/// The walk's state and the phis' operands.
#[derive(Clone, Debug, Default)]
pub(crate) struct Resolve {
    /// Per phi: where its operands start; one more entry at the end.
    pub(crate) op_start: Vec<u32>,
    pub(crate) ops: Vec<Value>,
    /// Per block with phis: how many predecessors supplied operands.
    fill: Vec<u32>,
    top: Vec<Value>,
    log: Vec<(VarId, Value)>,
    stack: Vec<(Node, u32)>,
}

impl Resolve {
    /// Empties the operands, keeping buffers.
    pub(crate) fn clear(&mut self) {
        self.op_start.clear();
        self.ops.clear();
    }

    /// The walk (see the module doc).
    pub(crate) fn run<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        dt: &DomTree,
        local: &mut Local,
        place: &Placement,
        loop_entry: bool,
    ) {
        let g = input.graph();
        let n = g.num_nodes();
        let Some(root) = dt.root() else { return };
        let base = local.num_defs + local.num_guarded();
        // Operand slots: per phi, one per edge into its block.
        self.op_start.clear();
        self.op_start.push(0);
        let mut total = 0u32;
        for b in 0..n as Node {
            let phis = place.phis(b);
            if phis.is_empty() {
                continue;
            }
            let edges = g.predecessors(b).count() as u32 + u32::from(loop_entry && b == root);
            for _ in phis {
                total += edges;
                self.op_start.push(total);
            }
        }
        self.ops.clear();
        self.ops.resize(total as usize, NO_VALUE);
        self.fill.clear();
        self.fill.resize(n, 0);
        self.top.clear();
        self.top.resize(local.global.len(), NO_VALUE);
        if loop_entry {
            for (i, &p) in input.params().iter().enumerate() {
                self.top[p as usize] = i as Value;
            }
        }
        self.log.clear();
        self.stack.clear();
        self.stack.push((root, ENTER));
        while let Some((b, mark)) = self.stack.pop() {
            if mark != ENTER {
                while self.log.len() > mark as usize {
                    let (v, old) = self.log.pop().expect("the log is longer than the mark");
                    self.top[v as usize] = old;
                }
                continue;
            }
            let mark = self.log.len() as u32;
            let phis = place.phis(b);
            if loop_entry && b == root {
                self.supply(b, phis.clone(), place);
            }
            for j in phis {
                let v = place.phi_var[j as usize];
                self.log.push((v, self.top[v as usize]));
                self.top[v as usize] = base + j;
            }
            for k in local.req_start[b as usize]..local.req_start[b as usize + 1] {
                let (v, slot) = local.reqs[k as usize];
                local.answer(slot, self.top[v as usize]);
            }
            if !local.late_start.is_empty() {
                for k in local.late_start[b as usize]..local.late_start[b as usize + 1] {
                    let (v, slot) = local.late[k as usize];
                    if v != u32::MAX {
                        local.answer(slot, self.top[v as usize]);
                    }
                }
            }
            for &(v, x) in local.exits(b) {
                self.log.push((v, self.top[v as usize]));
                self.top[v as usize] = x;
            }
            for s in g.successors(b) {
                let phis = place.phis(s);
                if !phis.is_empty() {
                    self.supply(s, phis, place);
                }
            }
            self.stack.push((b, mark));
            for &c in dt.children(b) {
                self.stack.push((c, ENTER));
            }
        }
    }

    /// One more predecessor of `s` gives its phis the current values.
    #[inline]
    fn supply(&mut self, s: Node, phis: core::ops::Range<u32>, place: &Placement) {
        let k = self.fill[s as usize];
        self.fill[s as usize] += 1;
        if k > 0 && planted(Bug::FirstOperandOnly) {
            return;
        }
        // A block's phis have the same number of operand slots (one per
        // edge) and sit side by side, so slot k of its phis is a stride.
        let (first, end) = (phis.start as usize, phis.end as usize);
        if first == end {
            return;
        }
        let stride = (self.op_start[first + 1] - self.op_start[first]) as usize;
        let mut at = (self.op_start[first] + k) as usize;
        for &v in &place.phi_var[first..end] {
            self.ops[at] = self.top[v as usize];
            at += stride;
        }
    }
}
