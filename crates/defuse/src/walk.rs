//! The SSA method's one walk over the code: every reachable block's
//! instructions once, in block order, doing what used to take three passes
//! (var facts, the renaming walk's per-instruction work, site numbering).
//!
//! Per block it keeps, for each var defined so far in the block, the
//! *value* a use reads ([`Value`]: a real definition, or a guarded node
//! standing for "this guarded definition, or what was there before"). A
//! use of a var already defined in the block is resolved on the spot: most
//! uses of real code are (wasm's stack temporaries, expression trees), and
//! they never reach placement or renaming. A use of a var not yet defined
//! in the block is *exposed*: it becomes a request for the var's value at
//! the block's entry (after its phis), answered by the dominator-tree walk
//! of `resolve.rs`, and its var becomes *global* (Briggs et al. 1998's
//! non-local names, the DU-chain document's `global_prs`). Only global vars
//! get phis and take part in the tree walk. At the end of a block its
//! *exits* (var, value at the block's end) are recorded for every var it
//! defines: the definition blocks phi placement needs and the values the
//! tree walk pushes. Once the walk is over and globality known, only
//! global vars' exits are kept (most definitions of real code are
//! block-local temporaries, which neither later phase reads).
//!
//! Invariants: rows of requests and exits are CSR by block id (empty for
//! unreachable blocks, whose uses read nothing); values below
//! [`Local::num_defs`] are definition ids, values from it on are nodes
//! (guarded nodes `0..`, then the phis placement adds); a guarded
//! definition generates without killing, so its node's `prev` is the value
//! before it (a request when that comes from outside the block, which makes
//! the var global). An input phi's operand is read at the end of its
//! predecessor (`finish_phi_reads`): the predecessor's exit value when it
//! defines the var (so SSA input stays local), else a request at the
//! predecessor. Params are definitions at the entry, before its code; when
//! the entry has predecessors (a foreign CFG may loop back to it), they are
//! instead the value flowing in from outside, given to the tree walk.

use crate::planted::{Bug, planted};
use crate::sites::DefId;
use cfg_dom::{DomTree, Graph, Input, Node, VarCode, VarId, csr};

/// What a use reads: a definition id (below [`Local::num_defs`]), a node
/// (guarded or phi, from `num_defs` on), or [`NO_VALUE`].
pub(crate) type Value = u32;

/// Nothing reaches.
pub(crate) const NO_VALUE: Value = u32::MAX;

/// "No block" and "no var" in scratch arrays.
const NONE: u32 = u32::MAX;

/// The walk's product and its scratch, kept across functions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Local {
    /// Definitions (params, then results): values below are real.
    pub(crate) num_defs: u32,
    /// Per use id: its value (filled by the walk, or by the tree walk for
    /// exposed uses); [`NO_VALUE`] for uses in unreachable code.
    pub(crate) use_val: Vec<Value>,
    /// Per guarded node: its definition and the value it may leave.
    pub(crate) g_def: Vec<DefId>,
    pub(crate) g_prev: Vec<Value>,
    /// Requests by block: `(var, slot)`, the var's value at the block's
    /// entry goes to `slot` (a use id below the number of uses, else
    /// `num_uses + g`, guarded node g's `prev`).
    pub(crate) req_start: Vec<u32>,
    pub(crate) reqs: Vec<(VarId, u32)>,
    /// Requests from input-phi operands, by predecessor (var [`NONE`] once
    /// answered locally).
    pub(crate) late_start: Vec<u32>,
    pub(crate) late: Vec<(VarId, u32)>,
    /// Exits by block: `(var, value at the block's end)` for each global
    /// var the block defines, in order of first definition (the walk
    /// records every var's; `keep_global_exits` drops the others once
    /// globality is known).
    pub(crate) exit_start: Vec<u32>,
    pub(crate) exits: Vec<(VarId, Value)>,
    /// Per var: global (some request names it).
    pub(crate) global: Vec<bool>,
    pub(crate) num_global: usize,
    /// Scratch: per var, the block whose walk defined it last and its
    /// value there (side by side: one access per use); per block, the phi
    /// block it is a predecessor of.
    state: Vec<(Node, Value)>,
    pred_mark: Vec<u32>,
    phi_reads: Vec<(Node, (VarId, u32))>,
}

impl Local {
    /// Empties the product, keeping buffers.
    pub(crate) fn clear(&mut self) {
        self.num_defs = 0;
        for v in [&mut self.use_val, &mut self.g_def, &mut self.g_prev, &mut self.req_start, &mut self.late_start] {
            v.clear();
        }
        self.exit_start.clear();
        self.reqs.clear();
        self.late.clear();
        self.exits.clear();
        self.global.clear();
        self.num_global = 0;
    }

    /// Number of guarded nodes.
    #[inline]
    pub(crate) fn num_guarded(&self) -> u32 {
        self.g_def.len() as u32
    }

    /// Writes the answer of a request to its slot.
    #[inline]
    pub(crate) fn answer(&mut self, slot: u32, value: Value) {
        let nu = self.use_val.len() as u32;
        if slot < nu {
            self.use_val[slot as usize] = value;
        } else {
            self.g_prev[(slot - nu) as usize] = value;
        }
    }

    /// The walk (see the module doc). `loop_entry`: the entry has
    /// predecessors, so params are not definitions inside it.
    pub(crate) fn run<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>, dt: &DomTree, loop_entry: bool) {
        let g = input.graph();
        let n = g.num_nodes();
        let nv = input.num_vars();
        let params = input.params();
        let np = params.len() as u32;
        let (all_defs, all_uses) = (input.all_defs(), input.all_uses());
        let (def_starts, use_starts) = (input.def_starts(), input.use_starts());
        let nd = np + all_defs.len() as u32;
        let nu = all_uses.len() as u32;
        self.clear();
        self.num_defs = nd;
        self.use_val.resize(nu as usize, NO_VALUE);
        self.global.resize(nv, false);
        self.state.clear();
        self.state.resize(nv, (NONE, NO_VALUE));
        self.phi_reads.clear();
        let has_phis = input.num_phis() > 0;
        if has_phis {
            self.pred_mark.clear();
            self.pred_mark.resize(n, NONE);
        }
        let entry = dt.root();
        let Local { use_val, g_def, g_prev, req_start, reqs, exit_start, exits, global, state, pred_mark, .. } = self;
        let phi_reads = &mut self.phi_reads;
        req_start.reserve(n + 1);
        exit_start.reserve(n + 1);
        for b in 0..n as Node {
            req_start.push(reqs.len() as u32);
            exit_start.push(exits.len() as u32);
            if !dt.is_reachable(b) {
                continue;
            }
            let first_exit = exits.len();
            if Some(b) == entry && !loop_entry {
                for (i, &p) in params.iter().enumerate() {
                    let s = &mut state[p as usize];
                    if s.0 != b {
                        exits.push((p, NO_VALUE));
                    }
                    *s = (b, i as Value);
                }
            }
            let insts = input.block_insts(b);
            if has_phis && insts.first().is_some_and(|&i| input.is_phi(i)) {
                for p in g.predecessors(b) {
                    pred_mark[p as usize] = b;
                }
            }
            for &inst in insts {
                let i = inst as usize;
                let (u0, u1) = (use_starts[i] as usize, use_starts[i + 1] as usize);
                for (k, (u, out)) in all_uses[u0..u1].iter().zip(&mut use_val[u0..u1]).enumerate() {
                    let (at, x) = state[u.var as usize];
                    match u.pred {
                        None if at == b => *out = x,
                        None => {
                            reqs.push((u.var, (u0 + k) as u32));
                            global[u.var as usize] = true;
                        }
                        // Read at the end of p, if it is a reachable
                        // predecessor (the input is checked: p < n).
                        Some(p) => {
                            if pred_mark[p as usize] == b && dt.is_reachable(p) {
                                phi_reads.push((p, (u.var, (u0 + k) as u32)));
                            }
                        }
                    }
                }
                let (d0, d1) = (def_starts[i] as usize, def_starts[i + 1] as usize);
                if d0 == d1 {
                    continue;
                }
                let guarded = input.is_guarded(inst);
                for (k, &r) in all_defs[d0..d1].iter().enumerate() {
                    let s = &mut state[r as usize];
                    let d = np + (d0 + k) as u32;
                    let value = if guarded {
                        let node = g_def.len() as u32;
                        let prev = if planted(Bug::GuardKills) {
                            NO_VALUE
                        } else if s.0 == b {
                            s.1
                        } else {
                            reqs.push((r, nu + node));
                            global[r as usize] = true;
                            NO_VALUE
                        };
                        g_def.push(d);
                        g_prev.push(prev);
                        nd + node
                    } else {
                        d
                    };
                    if s.0 != b {
                        exits.push((r, NO_VALUE));
                    }
                    *s = (b, value);
                }
            }
            for e in &mut exits[first_exit..] {
                e.1 = state[e.0 as usize].1;
            }
        }
        req_start.push(reqs.len() as u32);
        exit_start.push(exits.len() as u32);
        self.finish_phi_reads(n);
        self.num_global = self.global.iter().filter(|&&x| x).count();
        self.keep_global_exits();
    }

    /// Drops the exits of vars that are not global, in place: placement
    /// and renaming read only global vars' exits, and in real code most
    /// definitions are block-local temporaries.
    fn keep_global_exits(&mut self) {
        let (exit_start, exits, global) = (&mut self.exit_start, &mut self.exits, &self.global);
        let mut w = 0;
        let mut from = 0;
        for b in 0..exit_start.len().saturating_sub(1) {
            let end = exit_start[b + 1] as usize;
            exit_start[b] = w as u32;
            for k in from..end {
                let e = exits[k];
                if global[e.0 as usize] {
                    exits[w] = e;
                    w += 1;
                }
            }
            from = end;
        }
        if let Some(last) = exit_start.last_mut() {
            *last = w as u32;
        }
        exits.truncate(w);
    }

    /// Answers input-phi operands from their predecessor's exits, and turns
    /// the others into requests at the predecessor (`late`).
    fn finish_phi_reads(&mut self, n: usize) {
        self.late_start.clear();
        self.late.clear();
        if self.phi_reads.is_empty() {
            return;
        }
        csr::bucket(n, &self.phi_reads, &mut self.late_start, &mut self.late);
        for p in 0..n {
            let (l0, l1) = (self.late_start[p] as usize, self.late_start[p + 1] as usize);
            if l0 == l1 {
                continue;
            }
            let (e0, e1) = (self.exit_start[p] as usize, self.exit_start[p + 1] as usize);
            for &(v, x) in &self.exits[e0..e1] {
                self.state[v as usize] = (p as u32, x);
            }
            for k in l0..l1 {
                let (v, slot) = self.late[k];
                let (at, x) = self.state[v as usize];
                if at == p as u32 {
                    self.use_val[slot as usize] = x;
                    self.late[k].0 = NONE;
                } else {
                    self.global[v as usize] = true;
                }
            }
        }
    }

    /// The exits of block `b`.
    #[inline]
    pub(crate) fn exits(&self, b: Node) -> &[(VarId, Value)] {
        csr::row(&self.exit_start, &self.exits, b as usize)
    }
}
