//! The data-dependence DAG the pebble game is played on, as plain data with
//! no IR behind it: values (what pebbles sit on) and the operations that
//! compute them.
//!
//! A **value** is either a *source* (given at the start, in memory: a var
//! live into the block, a tensor already in DRAM) or an *output* of one
//! operation. An **operation** reads its distinct *inputs* (values) and
//! writes its *outputs*; an output may be *tied* to an input (it must take
//! that input's register: a predicated definition that keeps its old value
//! when the guard fails). Operations are *pure* (free to move), *effects*
//! (memory, calls: they may also wait for other operations through *order
//! edges*) or the block's *terminator* (last, reading its inputs at the
//! block's end). A *sink* is a value wanted after the DAG (live out of the
//! block, a result tensor).
//!
//! Invariants of a built [`Dag`] ([`DagBuilder::build`] checks them and
//! returns a [`DagError`] otherwise): every id is in range; an operation
//! reads only values made before it and waits only for operations made
//! before it, so the graph is acyclic by construction; inputs are distinct;
//! a tied output names one of its operation's inputs, of its own class, and
//! no two outputs tie the same input; at most one terminator, with no
//! outputs. Per-value user lists and per-operation waiter lists are CSR
//! (`cfg_dom::csr`), in rank order.
//!
//! **Ranks** give every value and operation a position in a canonical
//! order; the heuristic breaks every tie by rank and never looks at ids.
//! By default the rank is the creation order; a client that wants the
//! allocation to be independent of how it numbered things (Keel's block
//! DAGs: independent of statement order) sets ranks from a canonical key
//! ([`DagBuilder::set_ranks`]).

use crate::class::RegClass;
use cfg_dom::csr;
use core::fmt;

/// A value of a [`Dag`]: dense, `0..num_values()`.
pub type ValueId = u32;
/// An operation of a [`Dag`]: dense, `0..num_ops()`.
pub type OpId = u32;

/// "None" in `u32` tables.
pub(crate) const NONE: u32 = u32::MAX;

/// What an operation may do besides computing its outputs.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum OpKind {
    /// Computes its outputs from its inputs and nothing else: it may run at
    /// any point after its inputs.
    Pure,
    /// Touches memory, calls, may trap: it runs after the operations it
    /// waits for (order edges), which keeps effects in their order.
    Effect,
    /// Ends the block: runs last, after every other operation and after the
    /// sinks are where they must be.
    Terminator,
}

/// A malformed DAG description.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DagError {
    /// An operation reads a value that does not exist (yet).
    UnknownInput {
        /// The operation (its id once built).
        op: OpId,
        /// The value.
        value: ValueId,
    },
    /// An operation waits for an operation that does not exist (yet).
    UnknownOrder {
        /// The operation.
        op: OpId,
        /// The operation it names.
        after: OpId,
    },
    /// A tied output names a value that is not an input of its operation,
    /// is of another class, or is tied twice.
    BadTie {
        /// The operation.
        op: OpId,
        /// The input it names.
        input: ValueId,
    },
    /// A second terminator, or a terminator with outputs.
    BadTerminator {
        /// The operation.
        op: OpId,
    },
    /// A sink that is not a value.
    UnknownSink {
        /// The id.
        value: ValueId,
    },
    /// Ranks that are not a permutation of the ids.
    BadRanks,
}

impl fmt::Display for DagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DagError::UnknownInput { op, value } => {
                write!(f, "operation {op} reads value {value}, which is not made before it")
            }
            DagError::UnknownOrder { op, after } => {
                write!(f, "operation {op} waits for operation {after}, which is not made before it")
            }
            DagError::BadTie { op, input } => {
                write!(
                    f,
                    "operation {op} ties an output to value {input}, which is not one of its inputs of that class (or is tied twice)"
                )
            }
            DagError::BadTerminator { op } => {
                write!(f, "operation {op} is a second terminator or a terminator with outputs")
            }
            DagError::UnknownSink { value } => write!(f, "sink {value} is not a value"),
            DagError::BadRanks => write!(f, "ranks are not a permutation of the ids"),
        }
    }
}

impl std::error::Error for DagError {}

/// One output of an operation being built: its class, and the input it is
/// tied to, if any.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Output {
    /// The output's register class.
    pub class: RegClass,
    /// The input whose register it must take.
    pub tied: Option<ValueId>,
}

impl Output {
    /// An untied output of `class`.
    pub fn new(class: RegClass) -> Output {
        Output { class, tied: None }
    }

    /// An output tied to `input`'s register (same class).
    pub fn tied(class: RegClass, input: ValueId) -> Output {
        Output { class, tied: Some(input) }
    }
}

/// Builds a [`Dag`]: add sources and operations in dependence order, mark
/// sinks, then [`DagBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct DagBuilder {
    value_class: Vec<RegClass>,
    value_op: Vec<u32>,
    sink: Vec<bool>,
    op_kind: Vec<OpKind>,
    in_start: Vec<u32>,
    ins: Vec<ValueId>,
    out_start: Vec<u32>,
    outs: Vec<ValueId>,
    tied: Vec<u32>,
    after_pairs: Vec<(OpId, OpId)>,
    bad: Option<DagError>,
    unknown_sink: Option<ValueId>,
    value_rank: Option<Vec<u32>>,
    op_rank: Option<Vec<u32>>,
}

impl DagBuilder {
    /// An empty builder.
    pub fn new() -> DagBuilder {
        DagBuilder { in_start: vec![0], out_start: vec![0], ..DagBuilder::default() }
    }

    /// Empties the builder, keeping its buffers.
    pub fn clear(&mut self) {
        self.value_class.clear();
        self.value_op.clear();
        self.sink.clear();
        self.op_kind.clear();
        self.in_start.clear();
        self.in_start.push(0);
        self.ins.clear();
        self.out_start.clear();
        self.out_start.push(0);
        self.outs.clear();
        self.tied.clear();
        self.after_pairs.clear();
        self.bad = None;
        self.unknown_sink = None;
        self.value_rank = None;
        self.op_rank = None;
    }

    /// Number of values so far.
    pub fn num_values(&self) -> usize {
        self.value_class.len()
    }

    /// Number of operations so far.
    pub fn num_ops(&self) -> usize {
        self.op_kind.len()
    }

    /// A source value of `class`: given at the start, in memory.
    pub fn source(&mut self, class: RegClass) -> ValueId {
        self.value(class, NONE)
    }

    fn value(&mut self, class: RegClass, op: u32) -> ValueId {
        let v = self.value_class.len() as ValueId;
        self.value_class.push(class);
        self.value_op.push(op);
        self.sink.push(false);
        v
    }

    /// A pure operation with one output of `class` reading `inputs`
    /// (duplicates are read once); returns the output.
    pub fn node(&mut self, class: RegClass, inputs: &[ValueId]) -> ValueId {
        let op = self.op(OpKind::Pure, inputs, &[Output::new(class)]);
        self.outs[self.out_start[op as usize] as usize]
    }

    /// An operation of any shape; returns its id. Its outputs are
    /// [`DagBuilder::outputs`]`(op)`. Errors (an input not made yet, a bad
    /// tie) are reported by [`DagBuilder::build`].
    pub fn op(&mut self, kind: OpKind, inputs: &[ValueId], outputs: &[Output]) -> OpId {
        let op = self.op_kind.len() as OpId;
        self.op_kind.push(kind);
        let first = self.ins.len();
        for &v in inputs {
            if v as usize >= self.value_class.len() {
                self.bad.get_or_insert(DagError::UnknownInput { op, value: v });
                continue;
            }
            if !self.ins[first..].contains(&v) {
                self.ins.push(v);
            }
        }
        self.in_start.push(self.ins.len() as u32);
        let first_tie = self.tied.len();
        for out in outputs {
            let v = self.value(out.class, op);
            self.outs.push(v);
            match out.tied {
                Some(t) => {
                    let ok = self.ins[first..].contains(&t)
                        && self.value_class.get(t as usize) == Some(&out.class)
                        && !self.tied[first_tie..].contains(&t);
                    if !ok {
                        self.bad.get_or_insert(DagError::BadTie { op, input: t });
                    }
                    self.tied.push(t);
                }
                None => self.tied.push(NONE),
            }
        }
        self.out_start.push(self.outs.len() as u32);
        if kind == OpKind::Terminator
            && (!outputs.is_empty() || self.op_kind[..op as usize].contains(&OpKind::Terminator))
        {
            self.bad.get_or_insert(DagError::BadTerminator { op });
        }
        op
    }

    /// The outputs of `op` (empty for an unknown id).
    pub fn outputs(&self, op: OpId) -> &[ValueId] {
        csr::row(&self.out_start, &self.outs, op as usize)
    }

    /// The distinct inputs of `op` (empty for an unknown id).
    pub fn inputs(&self, op: OpId) -> &[ValueId] {
        csr::row(&self.in_start, &self.ins, op as usize)
    }

    /// `op` runs only after `before` (both must exist, `before` first).
    pub fn order(&mut self, op: OpId, before: OpId) {
        if before >= op || op as usize >= self.op_kind.len() {
            self.bad.get_or_insert(DagError::UnknownOrder { op, after: before });
            return;
        }
        self.after_pairs.push((op, before));
    }

    /// Marks `value` as a sink: wanted after the DAG.
    pub fn sink(&mut self, value: ValueId) {
        match self.sink.get_mut(value as usize) {
            Some(s) => *s = true,
            None => {
                self.unknown_sink.get_or_insert(value);
            }
        }
    }

    /// Sets the canonical order: `value_rank[v]` and `op_rank[o]` must be
    /// permutations of the value and operation ids (checked by `build`).
    pub fn set_ranks(&mut self, value_rank: Vec<u32>, op_rank: Vec<u32>) {
        self.value_rank = Some(value_rank);
        self.op_rank = Some(op_rank);
    }

    /// Checks and freezes the DAG.
    pub fn build(&self) -> Result<Dag, DagError> {
        let mut dag = Dag::default();
        self.build_into(&mut dag)?;
        Ok(dag)
    }

    /// [`DagBuilder::build`] into an existing [`Dag`], reusing its buffers.
    pub fn build_into(&self, dag: &mut Dag) -> Result<(), DagError> {
        if let Some(e) = &self.bad {
            return Err(e.clone());
        }
        if let Some(value) = self.unknown_sink {
            return Err(DagError::UnknownSink { value });
        }
        let (nv, no) = (self.value_class.len(), self.op_kind.len());
        let perm = |r: &Option<Vec<u32>>, n: usize, out: &mut Vec<u32>| -> Result<(), DagError> {
            out.clear();
            match r {
                None => out.extend(0..n as u32),
                Some(r) => {
                    if r.len() != n {
                        return Err(DagError::BadRanks);
                    }
                    let mut seen = vec![false; n];
                    for &x in r {
                        match seen.get_mut(x as usize) {
                            Some(s) if !*s => *s = true,
                            _ => return Err(DagError::BadRanks),
                        }
                    }
                    out.extend_from_slice(r);
                }
            }
            Ok(())
        };
        perm(&self.value_rank, nv, &mut dag.value_rank)?;
        perm(&self.op_rank, no, &mut dag.op_rank)?;
        dag.value_class.clone_from(&self.value_class);
        dag.value_op.clone_from(&self.value_op);
        dag.sink.clone_from(&self.sink);
        dag.op_kind.clone_from(&self.op_kind);
        dag.in_start.clone_from(&self.in_start);
        dag.ins.clone_from(&self.ins);
        dag.out_start.clone_from(&self.out_start);
        dag.outs.clone_from(&self.outs);
        dag.tied.clone_from(&self.tied);
        // Users per value and waiters per op, in rank order of the op (a
        // stable bucket of the pairs listed in that order).
        let mut scratch = std::mem::take(&mut dag.scratch);
        scratch.clear();
        scratch.extend((0..no as OpId).map(|o| (dag.op_rank[o as usize], o)));
        scratch.sort_unstable();
        let mut pairs = std::mem::take(&mut dag.pairs);
        pairs.clear();
        for &(_, o) in &scratch {
            pairs.extend(csr::row(&self.in_start, &self.ins, o as usize).iter().map(|&v| (v, o)));
        }
        csr::bucket(nv, &pairs, &mut dag.users_start, &mut dag.users);
        pairs.clear();
        pairs.extend_from_slice(&self.after_pairs);
        pairs.sort_unstable();
        pairs.dedup();
        csr::bucket(no, &pairs, &mut dag.before_start, &mut dag.before);
        scratch.clear();
        scratch.extend(pairs.iter().map(|&(o, b)| (b, o)));
        scratch.sort_unstable_by_key(|&(b, o)| (b, dag.op_rank[o as usize]));
        csr::bucket(no, &scratch, &mut dag.waiter_start, &mut dag.waiters);
        dag.scratch = scratch;
        dag.pairs = pairs;
        Ok(())
    }
}

/// A checked data-dependence DAG (see the module doc). Build one with
/// [`DagBuilder`].
#[derive(Clone, Debug, Default)]
pub struct Dag {
    value_class: Vec<RegClass>,
    value_op: Vec<u32>,
    sink: Vec<bool>,
    value_rank: Vec<u32>,
    op_kind: Vec<OpKind>,
    op_rank: Vec<u32>,
    in_start: Vec<u32>,
    ins: Vec<ValueId>,
    out_start: Vec<u32>,
    outs: Vec<ValueId>,
    tied: Vec<u32>,
    users_start: Vec<u32>,
    users: Vec<OpId>,
    before_start: Vec<u32>,
    before: Vec<OpId>,
    waiter_start: Vec<u32>,
    waiters: Vec<OpId>,
    /// Building scratch (not part of the DAG).
    scratch: Vec<(u32, u32)>,
    pairs: Vec<(u32, u32)>,
}

impl Dag {
    /// A builder.
    pub fn builder() -> DagBuilder {
        DagBuilder::new()
    }

    /// Number of values.
    #[inline]
    pub fn num_values(&self) -> usize {
        self.value_class.len()
    }

    /// Number of operations.
    #[inline]
    pub fn num_ops(&self) -> usize {
        self.op_kind.len()
    }

    /// The class of `v`.
    #[inline]
    pub fn class(&self, v: ValueId) -> RegClass {
        self.value_class[v as usize]
    }

    /// The operation computing `v`; `None` for a source.
    #[inline]
    pub fn def_op(&self, v: ValueId) -> Option<OpId> {
        let o = self.value_op[v as usize];
        (o != NONE).then_some(o)
    }

    /// True for a source.
    #[inline]
    pub fn is_source(&self, v: ValueId) -> bool {
        self.value_op[v as usize] == NONE
    }

    /// True for a sink.
    #[inline]
    pub fn is_sink(&self, v: ValueId) -> bool {
        self.sink[v as usize]
    }

    /// The sources, in id order.
    pub fn sources(&self) -> impl Iterator<Item = ValueId> + '_ {
        (0..self.num_values() as ValueId).filter(|&v| self.is_source(v))
    }

    /// The sinks, in id order.
    pub fn sinks(&self) -> impl Iterator<Item = ValueId> + '_ {
        (0..self.num_values() as ValueId).filter(|&v| self.is_sink(v))
    }

    /// The kind of `op`.
    #[inline]
    pub fn kind(&self, op: OpId) -> OpKind {
        self.op_kind[op as usize]
    }

    /// The distinct inputs of `op`.
    #[inline]
    pub fn inputs(&self, op: OpId) -> &[ValueId] {
        csr::row(&self.in_start, &self.ins, op as usize)
    }

    /// The outputs of `op`.
    #[inline]
    pub fn outputs(&self, op: OpId) -> &[ValueId] {
        csr::row(&self.out_start, &self.outs, op as usize)
    }

    /// For each output of `op`, the input it is tied to (`None`: untied).
    pub fn tied(&self, op: OpId) -> impl Iterator<Item = Option<ValueId>> + '_ {
        csr::row(&self.out_start, &self.tied, op as usize).iter().map(|&t| (t != NONE).then_some(t))
    }

    /// The input output `v` is tied to.
    pub fn tie_of(&self, v: ValueId) -> Option<ValueId> {
        let op = self.def_op(v)?;
        let k = self.outputs(op).iter().position(|&o| o == v)?;
        let t = self.tied[self.out_start[op as usize] as usize + k];
        (t != NONE).then_some(t)
    }

    /// The operations reading `v`, in rank order.
    #[inline]
    pub fn users(&self, v: ValueId) -> &[OpId] {
        csr::row(&self.users_start, &self.users, v as usize)
    }

    /// The operations `op` waits for (order edges).
    #[inline]
    pub fn waits_for(&self, op: OpId) -> &[OpId] {
        csr::row(&self.before_start, &self.before, op as usize)
    }

    /// The operations waiting for `op`, in rank order.
    #[inline]
    pub fn waiters(&self, op: OpId) -> &[OpId] {
        csr::row(&self.waiter_start, &self.waiters, op as usize)
    }

    /// The canonical rank of `v`.
    #[inline]
    pub fn value_rank(&self, v: ValueId) -> u32 {
        self.value_rank[v as usize]
    }

    /// The canonical rank of `op`.
    #[inline]
    pub fn op_rank(&self, op: OpId) -> u32 {
        self.op_rank[op as usize]
    }

    /// The terminator, if any.
    pub fn terminator(&self) -> Option<OpId> {
        (0..self.num_ops() as OpId).find(|&o| self.kind(o) == OpKind::Terminator)
    }

    /// The registers `op` needs of `class` at once: its distinct inputs of
    /// that class, or its outputs of that class if more (outputs may take
    /// the registers of inputs that die there).
    pub fn demand(&self, op: OpId, class: RegClass) -> u32 {
        let i = self.inputs(op).iter().filter(|&&v| self.class(v) == class).count();
        let o = self.outputs(op).iter().filter(|&&v| self.class(v) == class).count();
        i.max(o) as u32
    }

    /// The most registers of `class` any operation needs: the game cannot
    /// be played with fewer.
    pub fn max_demand(&self, class: RegClass) -> u32 {
        (0..self.num_ops() as OpId).map(|o| self.demand(o, class)).max().unwrap_or(0)
    }

    /// The lower bound on loads plus stores: every source some operation
    /// reads must be loaded once, and every sink an operation computes must
    /// be stored once (a source that is a sink is already in memory).
    /// Source document 004's "sources + sinks", made exact for sources
    /// nothing reads.
    pub fn lower_bound(&self) -> u64 {
        let loads = self.sources().filter(|&v| !self.users(v).is_empty()).count();
        let stores = self.sinks().filter(|&v| !self.is_source(v)).count();
        (loads + stores) as u64
    }
}
