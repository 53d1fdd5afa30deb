//! Folding: each use's value becomes the set of real definitions it stands
//! for, written straight into the UD rows of the [`crate::Chains`].
//!
//! A real value is itself. A node's set is the union over its successors:
//! a guarded node's own definition and the value it may leave; a phi's
//! operands. The node graph's strongly connected parts (phi webs around
//! loops) are found by an iterative Tarjan pass (strongly connected
//! components: "Depth-first search and linear graph algorithms", SIAM J.
//! Comput. 1972) started from used nodes
//! only, and each part gets one sorted set, computed once from its
//! successors' sets (parts finish in reverse topological order, so those
//! are ready). The Tarjan scan reads each successor once and gathers, on
//! two stacks, the real definitions and the finished parts' sets the part
//! is made of. A part that adds no definition of its own and reaches a
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

/// A frame of the Tarjan walk.
#[derive(Copy, Clone, Debug)]
struct Frame {
    node: u32,
    /// Successors scanned so far.
    done: u32,
    /// Lengths of the gathering stacks when the node was visited.
    defs: u32,
    refs: u32,
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
    call: Vec<Frame>,
    /// What the parts on the stack are made of (see `Fold::tarjan`).
    defs: Vec<DefId>,
    refs: Vec<(u32, u32)>,
    next: u32,
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
        self.defs.clear();
        self.refs.clear();
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
    /// frame of `call` is a node, how many of its successors are done, and
    /// where the gathering stacks stood when it was visited; a frame scans
    /// on until it meets an unvisited node (pushed, and the scan resumes
    /// there when it is finished) or runs out.
    ///
    /// The scan also gathers what the sets are made of, so no successor is
    /// read twice: real definitions go on `defs` (a guarded node's own on
    /// its visit), and the set of every finished part a node reaches on
    /// `refs` (on the scan when it was finished before, on the return from
    /// the child frame when the child's part has just finished). Parts
    /// finish last-in first-out, so when the part rooted at `x` finishes,
    /// the entries above `x`'s marks are exactly its members'.
    fn tarjan(&mut self, root: u32, nodes: &Nodes<'_>) {
        self.visit(root, nodes);
        'frames: while let Some(&Frame { node: x, done, .. }) = self.call.last() {
            let succs = nodes.succs(x);
            let mut k = done as usize;
            while k < succs.len() {
                let v = succs[k];
                k += 1;
                let Some(w) = nodes.node(v) else {
                    if v != NO_VALUE {
                        self.defs.push(v);
                    }
                    continue;
                };
                let ws = self.node[w as usize];
                if ws.index == u32::MAX {
                    if let Some(frame) = self.call.last_mut() {
                        frame.done = k as u32;
                    }
                    self.visit(w, nodes);
                    continue 'frames;
                } else if ws.set == UNSET {
                    // On the stack: the same part (finished parts have
                    // their set).
                    let xs = &mut self.node[x as usize];
                    xs.low = xs.low.min(ws.index);
                } else if ws.set.1 > 0 {
                    self.refs.push(ws.set);
                }
            }
            let Some(frame) = self.call.pop() else { break };
            let xs = self.node[x as usize];
            let finished = xs.low == xs.index;
            if finished {
                self.finish_part(x, frame.defs as usize, frame.refs as usize);
            }
            if let Some(&Frame { node: parent, .. }) = self.call.last() {
                if finished {
                    // The parent reaches this finished part's set.
                    let set = self.node[x as usize].set;
                    if set.1 > 0 {
                        self.refs.push(set);
                    }
                } else {
                    let ps = &mut self.node[parent as usize];
                    ps.low = ps.low.min(xs.low);
                }
            }
        }
    }

    fn visit(&mut self, x: u32, nodes: &Nodes<'_>) {
        let xs = &mut self.node[x as usize];
        xs.index = self.next;
        xs.low = self.next;
        self.next += 1;
        self.stack.push(x);
        self.call.push(Frame { node: x, done: 0, defs: self.defs.len() as u32, refs: self.refs.len() as u32 });
        if x < nodes.num_guarded {
            self.defs.push(nodes.g_def[x as usize]);
        }
    }

    /// Pops the part rooted at `x` and gives its members one set: the
    /// definitions and finished parts' sets gathered above the marks
    /// `defs_from` and `refs_from`. A part with no definition of its own
    /// that reaches one other part's set only shares that set.
    fn finish_part(&mut self, x: u32, defs_from: usize, refs_from: usize) {
        let top = self.stack.iter().rposition(|&m| m == x).expect("x is on the stack");
        // Each other part's set once (a web often reaches one part from
        // many members).
        sort_dedup_tail(&mut self.refs, refs_from);
        let refs = &self.refs[refs_from..];
        let range = match refs {
            &[r] if self.defs.len() == defs_from => r,
            _ => {
                // The part's definitions are already on `defs`: the other
                // sets join them there, and the sorted, deduplicated
                // result goes to the pool.
                for &(s, l) in refs {
                    self.defs.extend_from_slice(&self.pool[s as usize..(s + l) as usize]);
                }
                sort_dedup_tail(&mut self.defs, defs_from);
                let start = self.pool.len() as u32;
                self.pool.extend_from_slice(&self.defs[defs_from..]);
                (start, self.pool.len() as u32 - start)
            }
        };
        self.defs.truncate(defs_from);
        self.refs.truncate(refs_from);
        for m in self.stack.drain(top..) {
            self.node[m as usize].set = range;
        }
    }
}

/// Sorts `v[from..]` and drops its repeats, in place (`Vec::dedup` for a
/// tail: the part of a gathering stack that belongs to one part).
fn sort_dedup_tail<T: Ord + Copy>(v: &mut Vec<T>, from: usize) {
    if v.len() - from < 2 {
        return;
    }
    v[from..].sort_unstable();
    let mut w = from + 1;
    for r in from + 1..v.len() {
        if v[r] != v[w - 1] {
            v[w] = v[r];
            w += 1;
        }
    }
    v.truncate(w);
}
