//! A block's data-dependence DAG, built from the code (source document 004,
//! `docs/references.md`: "the data dependence graph of a basic block").
//!
//! Values are the block's *values*, not its vars: a var live into the
//! block and read before it is written is a **source** (value `(x,
//! entry)`); each definition is a new value `(x, k)` (the `k`-th definition
//! of `x` in the block). Renaming this way removes the anti and output
//! dependences of the text, so the DAG — and with it the allocation —
//! does not depend on statement order; only true dependences, the order of
//! effects and the terminator remain. A **sink** is the last value of a
//! var live out of the block.
//!
//! Extra edges that keep the result correct:
//! - a guarded definition of a var still wanted afterwards is *tied* to
//!   the var's previous value (a failed guard leaves the register as it
//!   was), which becomes an input;
//! - effects wait for the previous effect, in statement order;
//! - the operation computing a var's sink waits for every reader of that
//!   var's source, so the var's home slot is never needed by both at once;
//! - a var held in a global register (pinned) is written in place, so each
//!   definition waits for every reader of the register's previous value
//!   (its own var's, or another var's that shares the register) and for its
//!   writer.
//!
//! Ranks come from keys that statement order does not change: a source
//! by its var, an output by (var, k), an operation by its first output's
//! key, an operation without outputs by its position among such operations
//! (their order is fixed anyway).

use crate::class::RegClass;
use crate::dag::{Dag, DagBuilder, NONE, OpId, OpKind, Output, ValueId};
use crate::input::{InstKind, RegCode};
use cfg_dom::{Graph, Input, InstId, Liveness, Node, VarId};
use core::fmt;

/// Why a block's code cannot become a DAG.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CodeError {
    /// The code has a phi (take it out of SSA first).
    Phi {
        /// The phi.
        inst: InstId,
    },
    /// A terminator that is not its block's last instruction, or that
    /// defines vars.
    BadTerminator {
        /// The instruction.
        inst: InstId,
    },
    /// A guarded instruction defines one var twice.
    BadTie {
        /// The instruction.
        inst: InstId,
    },
}

impl fmt::Display for CodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CodeError::Phi { inst } => write!(f, "instruction {inst} is a phi: allocate code out of SSA form"),
            CodeError::BadTerminator { inst } => {
                write!(f, "instruction {inst} is a terminator but not its block's last instruction, or defines vars")
            }
            CodeError::BadTie { inst } => write!(f, "guarded instruction {inst} defines a var twice"),
        }
    }
}

impl std::error::Error for CodeError {}

/// A block's DAG and how it maps back to the code. Reused across blocks.
#[derive(Clone, Debug, Default)]
pub struct BlockDag {
    /// The DAG.
    pub dag: Dag,
    /// When set (off by default), the terminator of a block with no
    /// successors (a return) does not read its operands: their values are
    /// sinks instead, the block's results ([`BlockDag::results`]), as in
    /// source document 004's DAGs, which have no terminator.
    pub results_as_sinks: bool,
    /// With [`BlockDag::results_as_sinks`], the values of the returned
    /// operands, each once, in operand order.
    pub results: Vec<ValueId>,
    builder: DagBuilder,
    /// Per op: its instruction.
    pub op_inst: Vec<InstId>,
    /// Per value: its var.
    pub value_var: Vec<VarId>,
    /// Per value: the op computing it (`NONE` for a source).
    value_op: Vec<u32>,
    /// Per op: the value each use reads (in `VarCode::uses` order,
    /// duplicates included), CSR.
    pub use_start: Vec<u32>,
    /// See `use_start`.
    pub use_vals: Vec<ValueId>,
    /// Per op: the value of each definition, CSR.
    pub def_start: Vec<u32>,
    /// See `def_start`.
    pub def_vals: Vec<ValueId>,
    /// Live-out vars not pinned, with their last value in the block (a
    /// source for a var the block does not write), sorted by var. Vars that
    /// pass through in memory have no entry.
    pub exits: Vec<(VarId, ValueId)>,
    /// Sources: (var, value), sorted by var.
    pub sources: Vec<(VarId, ValueId)>,
    // Scratch.
    cur: Vec<u32>,
    cur_stamp: Vec<u32>,
    stamp: u32,
    live: Vec<bool>,
    live_after: Vec<bool>,
    reads: Vec<(ValueId, OpId)>,
    read_start: Vec<u32>,
    read_ops: Vec<OpId>,
    pinned_defs: Vec<(OpId, ValueId)>,
    /// The value last put in each pinned register in this block.
    reg_now: Vec<((RegClass, u32), ValueId)>,
    keys_v: Vec<u64>,
    keys_o: Vec<u64>,
    ins: Vec<ValueId>,
    outs: Vec<Output>,
    war: Vec<(OpId, OpId)>,
    k_of: Vec<u32>,
    count: Vec<(VarId, u32)>,
    order: Vec<(u64, u32)>,
}

impl BlockDag {
    /// The value var `x` has now in this block.
    fn now(&self, x: VarId) -> u32 {
        if self.cur_stamp[x as usize] == self.stamp { self.cur[x as usize] } else { NONE }
    }

    fn set_now(&mut self, x: VarId, v: ValueId) {
        self.cur_stamp[x as usize] = self.stamp;
        self.cur[x as usize] = v;
    }

    /// True when `v` is a source.
    pub fn is_source(&self, v: ValueId) -> bool {
        self.value_op[v as usize] == NONE
    }

    /// Builds the DAG of block `b`.
    ///
    /// `pinned[x]` is the global register of var `x` (or `NONE`);
    /// `starts_red(x)` says whether a var live through the block untouched
    /// starts in a register (then it gets a source, so the game can manage
    /// its register).
    pub fn build<G: Graph, C: RegCode>(
        &mut self,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        b: Node,
        pinned: &[u32],
        starts_red: impl Fn(VarId) -> bool,
    ) -> Result<(), CodeError> {
        let code = input.code();
        let nvars = input.num_vars();
        self.builder.clear();
        self.op_inst.clear();
        self.value_var.clear();
        self.value_op.clear();
        self.use_start.clear();
        self.use_start.push(0);
        self.use_vals.clear();
        self.def_start.clear();
        self.def_start.push(0);
        self.def_vals.clear();
        self.exits.clear();
        self.sources.clear();
        self.reads.clear();
        self.pinned_defs.clear();
        self.reg_now.clear();
        self.results.clear();
        if self.cur.len() < nvars {
            self.cur.resize(nvars, NONE);
            self.cur_stamp.resize(nvars, 0);
            self.live.resize(nvars, false);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.cur_stamp.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let insts = input.block_insts(b);
        self.wanted_after(input, liveness, b, insts);
        let mut last_effect: Option<OpId> = None;
        let mut ins = std::mem::take(&mut self.ins);
        let mut outs = std::mem::take(&mut self.outs);
        let mut def_pos = 0usize;
        for (pos, &i) in insts.iter().enumerate() {
            if input.is_phi(i) {
                return Err(CodeError::Phi { inst: i });
            }
            let kind = code.inst_kind(i);
            let defs = input.defs(i);
            if kind == InstKind::Terminator && (pos + 1 != insts.len() || !defs.is_empty()) {
                return Err(CodeError::BadTerminator { inst: i });
            }
            let op_kind = match kind {
                InstKind::Pure => OpKind::Pure,
                InstKind::Effect => OpKind::Effect,
                InstKind::Terminator => OpKind::Terminator,
            };
            ins.clear();
            let returns =
                self.results_as_sinks && kind == InstKind::Terminator && input.graph().successors(b).next().is_none();
            for u in input.uses(i) {
                let v = self.value_of(u.var, code.class(u.var), pinned[u.var as usize]);
                if !returns {
                    ins.push(v);
                } else if !self.results.contains(&v) {
                    self.results.push(v);
                }
            }
            let nuses = ins.len();
            let guarded = input.is_guarded(i);
            outs.clear();
            for (k, &d) in defs.iter().enumerate() {
                let class = code.class(d);
                if guarded && self.live_after[def_pos + k] {
                    if defs[..k].contains(&d) {
                        return Err(CodeError::BadTie { inst: i });
                    }
                    let old = self.value_of(d, class, pinned[d as usize]);
                    ins.push(old);
                    outs.push(Output::tied(class, old));
                } else {
                    outs.push(Output::new(class));
                }
            }
            def_pos += defs.len();
            let op = self.builder.op(op_kind, &ins, &outs);
            self.op_inst.push(i);
            self.use_vals.extend_from_slice(&ins[..nuses]);
            self.use_start.push(self.use_vals.len() as u32);
            for &v in self.builder.inputs(op) {
                self.reads.push((v, op));
            }
            if op_kind == OpKind::Effect {
                if let Some(prev) = last_effect {
                    self.builder.order(op, prev);
                }
                last_effect = Some(op);
            }
            for (k, &d) in defs.iter().enumerate() {
                let v = self.builder.outputs(op)[k];
                self.value_var.push(d);
                self.value_op.push(op);
                if pinned[d as usize] != NONE {
                    // Written in place: after the readers of what the
                    // register held (this var's previous value, or another
                    // var's sharing the register).
                    let key = (code.class(d), pinned[d as usize]);
                    if let Some(&(_, prev)) = self.reg_now.iter().find(|&&(k, _)| k == key) {
                        self.pinned_defs.push((op, prev));
                    }
                    self.put_reg(key, v);
                }
                self.set_now(d, v);
                self.def_vals.push(v);
            }
            self.def_start.push(self.def_vals.len() as u32);
        }
        // Readers per value, for the ordering edges.
        let nv = self.value_var.len();
        let reads = std::mem::take(&mut self.reads);
        cfg_dom::csr::bucket(nv, &reads, &mut self.read_start, &mut self.read_ops);
        self.reads = reads;
        self.ins = ins;
        self.outs = outs;
        let mut war = std::mem::take(&mut self.war);
        war.clear();
        for &(op, prev) in &self.pinned_defs {
            war.extend(self.readers(prev).iter().filter(|&&r| r != op).map(|&r| (op, r)));
            let w = self.value_op[prev as usize];
            if w != NONE && w != op {
                war.push((op, w));
            }
        }
        // Live-out vars: their last value is a sink. Pass-through vars that
        // start in a register get a source.
        let mut exits = std::mem::take(&mut self.exits);
        exits.clear();
        for x in liveness.live_out(b) {
            if pinned[x as usize] != NONE {
                continue;
            }
            let mut v = self.now(x);
            if v == NONE {
                if !starts_red(x) {
                    continue;
                }
                v = self.value_of(x, code.class(x), pinned[x as usize]);
            }
            exits.push((x, v));
        }
        // The sink's writer waits for the readers of the var's source.
        self.sources.sort_unstable();
        for &(x, v) in &exits {
            self.builder.sink(v);
            let w = self.value_op[v as usize];
            if w == NONE {
                continue;
            }
            if let Ok(k) = self.sources.binary_search_by_key(&x, |&(y, _)| y) {
                let src = self.sources[k].1;
                if (src as usize) < self.read_start.len().saturating_sub(1) {
                    war.extend(self.readers(src).iter().filter(|&&r| r != w).map(|&r| (w, r)));
                }
            }
        }
        for &v in &self.results {
            self.builder.sink(v);
        }
        war.sort_unstable();
        war.dedup();
        for &(op, before) in &war {
            if before < op {
                self.builder.order(op, before);
            }
        }
        self.war = war;
        self.exits = exits;
        self.set_ranks();
        self.builder.build_into(&mut self.dag).expect("a block DAG is well formed by construction");
        Ok(())
    }

    /// Per definition of the block's instructions, in order: whether its
    /// var is wanted after it (a backward walk from the live-out set).
    fn wanted_after<G: Graph, C: RegCode>(
        &mut self,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        b: Node,
        insts: &[InstId],
    ) {
        for x in liveness.live_out(b) {
            self.live[x as usize] = true;
        }
        let total: usize = insts.iter().map(|&i| input.defs(i).len()).sum();
        self.live_after.clear();
        self.live_after.resize(total, false);
        let mut end = total;
        for &i in insts.iter().rev() {
            let defs = input.defs(i);
            end -= defs.len();
            for (k, &d) in defs.iter().enumerate() {
                self.live_after[end + k] = self.live[d as usize];
            }
            if !input.is_guarded(i) {
                for &d in defs {
                    self.live[d as usize] = false;
                }
            }
            for u in input.uses(i) {
                self.live[u.var as usize] = true;
            }
        }
        // Leave the scratch all false.
        for &i in insts {
            for u in input.uses(i) {
                self.live[u.var as usize] = false;
            }
            for &d in input.defs(i) {
                self.live[d as usize] = false;
            }
        }
        for x in liveness.live_out(b) {
            self.live[x as usize] = false;
        }
    }

    fn readers(&self, v: ValueId) -> &[OpId] {
        cfg_dom::csr::row(&self.read_start, &self.read_ops, v as usize)
    }

    /// The value var `x` has now, making a source when the block has not
    /// seen it yet.
    fn value_of(&mut self, x: VarId, class: RegClass, pin: u32) -> ValueId {
        let v = self.now(x);
        if v != NONE {
            return v;
        }
        let v = self.builder.source(class);
        self.value_var.push(x);
        self.value_op.push(NONE);
        self.sources.push((x, v));
        self.set_now(x, v);
        if pin != NONE {
            self.put_reg((class, pin), v);
        }
        v
    }

    fn put_reg(&mut self, key: (RegClass, u32), v: ValueId) {
        match self.reg_now.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = v,
            None => self.reg_now.push((key, v)),
        }
    }

    /// Ranks from statement-order-independent keys (module doc).
    fn set_ranks(&mut self) {
        let nv = self.value_var.len();
        let no = self.op_inst.len();
        // k: the index of each output among its var's definitions, in
        // statement order (which is dependence order for one var).
        self.k_of.clear();
        self.k_of.resize(nv, 0);
        self.count.clear();
        for &v in &self.def_vals {
            let x = self.value_var[v as usize];
            match self.count.binary_search_by_key(&x, |&(y, _)| y) {
                Ok(p) => {
                    self.count[p].1 += 1;
                    self.k_of[v as usize] = self.count[p].1;
                }
                Err(p) => self.count.insert(p, (x, 0)),
            }
        }
        self.keys_v.clear();
        for v in 0..nv {
            let x = u64::from(self.value_var[v]);
            let key =
                if self.value_op[v] == NONE { x << 30 } else { (1u64 << 62) | (x << 30) | u64::from(self.k_of[v]) };
            self.keys_v.push(key);
        }
        self.keys_o.clear();
        let mut no_output = 0u64;
        for o in 0..no {
            let key = match self.def_vals[self.def_start[o] as usize..self.def_start[o + 1] as usize].first() {
                Some(&v) => self.keys_v[v as usize],
                None => {
                    no_output += 1;
                    (2u64 << 62) | no_output
                }
            };
            self.keys_o.push(key);
        }
        let vr = ranks_of(&self.keys_v, &mut self.order);
        let or = ranks_of(&self.keys_o, &mut self.order);
        self.builder.set_ranks(vr, or);
    }
}

/// Ranks of `keys` (ties by index).
fn ranks_of(keys: &[u64], order: &mut Vec<(u64, u32)>) -> Vec<u32> {
    order.clear();
    order.extend(keys.iter().enumerate().map(|(i, &k)| (k, i as u32)));
    order.sort_unstable();
    let mut rank = vec![0u32; keys.len()];
    for (r, &(_, i)) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    rank
}
