//! Folding: each use's value becomes the set of real definitions it stands
//! for, written straight into the UD rows of the [`crate::Chains`].
//!
//! A real value is itself. A node's set is the union over its successors:
//! a guarded node's own definition and the value it may leave; a phi's
//! operands. The node graph's strongly connected parts (phi webs around
//! loops) are found by an iterative Tarjan pass started from used nodes
//! only, and each part gets one sorted set, computed once from its
//! successors' sets (parts finish in reverse topological order, so those
//! are ready). A part that adds no definition of its own and reaches a
//! single other part *shares* that part's set (a phi web that only passes
//! a value along costs no copy): no per-use transitive expansion, and the
//! pool grows by the distinct sets only. Each use then copies its set into
//! its row (the expanded CSR the chains promise).
//!
//! Invariants: rows are sorted and free of duplicates (real values are
//! single; sets are sorted and deduplicated when built); work is the nodes
//! and edges reached from uses plus the distinct sets plus the output.

use crate::place::Placement;
use crate::resolve::Resolve;
use crate::sites::DefId;
use crate::walk::{Local, NO_VALUE, Value};

/// A set not computed yet.
const UNSET: (u32, u32) = (u32::MAX, 0);

/// A node's folding state.
#[derive(Copy, Clone, Debug)]
struct NodeState {
    /// Its set, a range of the pool ([`UNSET`] until its part finishes).
    set: (u32, u32),
    /// Tarjan's visit number (`u32::MAX` before the visit) and low link.
    index: u32,
    low: u32,
}

/// A node not visited yet.
const UNVISITED: NodeState = NodeState { set: UNSET, index: u32::MAX, low: 0 };

/// The folding's buffers, kept across functions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fold {
    /// Per node: its set (a range of `pool`) and its Tarjan numbers, side
    /// by side (one access per node visited).
    node: Vec<NodeState>,
    pool: Vec<DefId>,
    stack: Vec<u32>,
    call: Vec<(u32, u32)>,
    next: u32,
    scratch: Vec<DefId>,
}

/// The node graph as the walk, placement and renaming left it.
struct Nodes<'a> {
    num_defs: u32,
    num_guarded: u32,
    g_def: &'a [DefId],
    g_prev: &'a [Value],
    op_start: &'a [u32],
    ops: &'a [Value],
}

impl<'a> Nodes<'a> {
    /// The successors of node `x` (raw values: definitions, nodes, or
    /// [`NO_VALUE`]): a guarded node's `prev`, a phi's operands.
    #[inline]
    fn succs(&self, x: u32) -> &'a [Value] {
        if x < self.num_guarded {
            core::slice::from_ref(&self.g_prev[x as usize])
        } else {
            let j = (x - self.num_guarded) as usize;
            &self.ops[self.op_start[j] as usize..self.op_start[j + 1] as usize]
        }
    }

    /// The node a value names, if it is one.
    #[inline]
    fn node(&self, v: Value) -> Option<u32> {
        (v != NO_VALUE && v >= self.num_defs).then(|| v - self.num_defs)
    }
}

impl Fold {
    /// Empties the buffers, keeping capacity.
    pub(crate) fn clear(&mut self) {
        self.node.clear();
        self.pool.clear();
    }

    /// Writes every use's definitions into `ud_start`/`ud` (CSR by use).
    pub(crate) fn run(
        &mut self,
        local: &Local,
        place: &Placement,
        resolve: &Resolve,
        ud_start: &mut Vec<u32>,
        ud: &mut Vec<DefId>,
    ) {
        let nodes = Nodes {
            num_defs: local.num_defs,
            num_guarded: local.num_guarded(),
            g_def: &local.g_def,
            g_prev: &local.g_prev,
            op_start: &resolve.op_start,
            ops: &resolve.ops,
        };
        let nn = local.num_guarded() as usize + place.len();
        self.node.clear();
        self.node.resize(nn, UNVISITED);
        self.pool.clear();
        self.stack.clear();
        self.call.clear();
        self.next = 0;
        ud_start.clear();
        ud_start.reserve(local.use_val.len() + 1);
        ud_start.push(0);
        ud.clear();
        // Most uses read one definition.
        ud.reserve(local.use_val.len());
        let nd = local.num_defs;
        for &v in &local.use_val {
            if v < nd {
                ud.push(v);
            } else if v != NO_VALUE {
                let x = (v - nd) as usize;
                if self.node[x].set == UNSET {
                    self.tarjan(x as u32, &nodes);
                }
                let (s, l) = self.node[x].set;
                ud.extend_from_slice(&self.pool[s as usize..(s + l) as usize]);
            }
            ud_start.push(ud.len() as u32);
        }
    }

    /// Tarjan from `root`, setting the set of every part it finishes. Each
    /// frame of `call` is a node and how many of its successors are done;
    /// a frame scans on until it meets an unvisited node (pushed, and the
    /// scan resumes there when it is finished) or runs out.
    fn tarjan(&mut self, root: u32, nodes: &Nodes<'_>) {
        self.visit(root);
        'frames: while let Some(&(x, done)) = self.call.last() {
            let succs = nodes.succs(x);
            let mut k = done as usize;
            while k < succs.len() {
                let w = succs[k];
                k += 1;
                let Some(w) = nodes.node(w) else { continue };
                let ws = self.node[w as usize];
                if ws.index == u32::MAX {
                    if let Some(frame) = self.call.last_mut() {
                        frame.1 = k as u32;
                    }
                    self.visit(w);
                    continue 'frames;
                } else if ws.set == UNSET {
                    // On the stack (finished parts have their set).
                    let xs = &mut self.node[x as usize];
                    xs.low = xs.low.min(ws.index);
                }
            }
            self.call.pop();
            if let Some(&(parent, _)) = self.call.last() {
                let low = self.node[x as usize].low;
                let ps = &mut self.node[parent as usize];
                ps.low = ps.low.min(low);
            }
            let xs = self.node[x as usize];
            if xs.low == xs.index {
                self.finish_part(x, nodes);
            }
        }
    }

    fn visit(&mut self, x: u32) {
        let xs = &mut self.node[x as usize];
        xs.index = self.next;
        xs.low = self.next;
        self.next += 1;
        self.stack.push(x);
        self.call.push((x, 0));
    }

    /// Pops the part rooted at `x` and gives its members one set.
    fn finish_part(&mut self, x: u32, nodes: &Nodes<'_>) {
        let top = self.stack.iter().rposition(|&m| m == x).expect("x is on the stack");
        self.scratch.clear();
        // The one other part's set this part reaches, while it is one.
        let mut shared: Option<(u32, u32)> = None;
        let mut several = false;
        for &m in &self.stack[top..] {
            if m < nodes.num_guarded {
                self.scratch.push(nodes.g_def[m as usize]);
            }
            for &w in nodes.succs(m) {
                if w == NO_VALUE {
                    continue;
                }
                match nodes.node(w) {
                    None => self.scratch.push(w),
                    Some(t) => {
                        // Members of this part have no set yet: skipped.
                        let r = self.node[t as usize].set;
                        if r == UNSET || r.1 == 0 || shared == Some(r) {
                            continue;
                        }
                        if shared.is_none() && !several {
                            shared = Some(r);
                        } else {
                            several = true;
                            if let Some(s) = shared.take() {
                                self.scratch.extend_from_slice(&self.pool[s.0 as usize..(s.0 + s.1) as usize]);
                            }
                            self.scratch.extend_from_slice(&self.pool[r.0 as usize..(r.0 + r.1) as usize]);
                        }
                    }
                }
            }
        }
        let range = match shared {
            Some(r) if self.scratch.is_empty() => r,
            _ => {
                if let Some(s) = shared {
                    self.scratch.extend_from_slice(&self.pool[s.0 as usize..(s.0 + s.1) as usize]);
                }
                self.scratch.sort_unstable();
                self.scratch.dedup();
                let r = (self.pool.len() as u32, self.scratch.len() as u32);
                self.pool.extend_from_slice(&self.scratch);
                r
            }
        };
        for m in self.stack.drain(top..) {
            self.node[m as usize].set = range;
        }
    }
}
