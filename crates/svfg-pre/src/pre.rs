//! Semantic PRE over the semi-SVFG (digest §001, steps 2–5) and plain GVN
//! (the same dominator-tree walk with no phis, so no insertion).
//!
//! 1. Number values ([`crate::ValueNumbers`]); collect the occurrences of
//!    each insertable expression number `t` (`J0(t)`) and compute `dn(t)`,
//!    the deepest of its operands' `dn` (a leaf's is its defining node).
//! 2. Place the phis of `t` at `IDF(J0(t))` restricted to the nodes
//!    `dn(t)` strictly dominates, and ε_t at `DF(dn(t))`.
//! 3. `Search`: one preorder walk of the dominator tree with a stack per
//!    value number. A computation of `t` with a real definition of `t` on
//!    top becomes a copy; with a phi on top it is recorded as that phi's
//!    use; it then pushes itself. At the end of each node the successors'
//!    phi operands take the tops (with the vars holding `t`'s operands
//!    there, from the array of available vars per value number), and a
//!    phi on top when an edge enters an ε node or the function ends is
//!    not down-safe.
//! 4. Down-safety (mds) and can-be-available (cus, with the insertability
//!    of each operand: `t`'s operands must be available at the end of the
//!    predecessor and the operation must not trap) as greatest fixpoints
//!    by worklists; a phi that is down-safe but cannot be made available
//!    withdraws the phis that feed it without a computation between, so
//!    that every insertion is paid for by a deletion on each path.
//! 5. Insert: each used, available phi becomes a Keel phi; a ⊥ operand
//!    (or one from a phi that stays unavailable) gets the computation at
//!    the end of its predecessor, splitting a critical edge; unused phis
//!    are never materialized (dead-phi elimination); replaced
//!    computations become copies.
//!
//! Safety rules: operations that can trap (`sdiv`, `udiv`, `srem`, `urem`,
//! `fptosi`, `fptoui`, `load`) are never inserted, only removed when a
//! dominating computation of the same number exists; guarded instructions
//! define opaque numbers (available nowhere); calls, intrinsics, stores and
//! tensor instructions are never moved or removed.

use crate::properties::properties;
use crate::svfg::{ArgSource, Source, Svfg, SvfgPhi};
use crate::vn::{ValueKind, ValueNumber, ValueNumbers, can_trap, is_computation};
use cfg_dom::{DomTree, Graph, Idf, Node};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Block, Format, FuncId, Function, FunctionBuilder, Imm, Inst, Module, Opcode, Var, block, node};
use memdep::{MemDep, MemDeps};
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// Which transform [`run`] applies.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Method {
    /// Semantic PRE on the SVFG.
    #[default]
    Svfg,
    /// Plain GVN: dominator-based removal, no insertion.
    Gvn,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Computations turned into copies.
    pub removed: usize,
    /// Computations inserted.
    pub inserted: usize,
    /// The var each inserted computation defines, with the value number it
    /// computes (for the per-value "never worse" oracle).
    pub inserted_values: Vec<(Var, ValueNumber)>,
    /// Phis of value numbers placed in the semi-SVFG.
    pub phis_placed: usize,
    /// Placed phis materialized as Keel phis.
    pub phis_created: usize,
    /// Placed phis deleted (unused or unavailable).
    pub phis_deleted: usize,
    /// Critical edges split for insertions.
    pub edges_split: usize,
    /// Time numbering values.
    pub time_vn: Duration,
    /// Time building the SVFG and its properties.
    pub time_svfg: Duration,
    /// Time rewriting.
    pub time_rewrite: Duration,
}

/// Why a function was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PreError {
    /// The function has no entry block.
    NoBlocks,
    /// A var is defined more than once: the input is not in SSA form.
    NotSsa(String),
    /// The function id names no function of the module.
    NoFunction,
    /// The memory dependences could not be computed, or are stale.
    Memory(String),
}

impl core::fmt::Display for PreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PreError::NoBlocks => f.write_str("the function has no blocks"),
            PreError::NoFunction => f.write_str("no such function in the module"),
            PreError::Memory(e) => write!(f, "memory dependences: {e}"),
            PreError::NotSsa(v) => {
                write!(f, "not in SSA form: %{v} is defined more than once (run ssa::construct first)")
            }
        }
    }
}

impl std::error::Error for PreError {}

/// Test-only planted bugs, for the oracle tests.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Plant {
    /// Treat every phi as down-safe (insertions on non-down-safe edges).
    pub ignore_down_safety: bool,
    /// Number `sub` as if it commuted (merges non-equal expressions).
    pub sub_commutes: bool,
    /// Let loads share a number whatever memdep says lies between them.
    pub loads_ignore_writes: bool,
}

/// Semantic PRE on `func` (SSA form): see the module doc. Without the
/// module there are no memory dependences, so no two loads share a value
/// number; [`svfg_pre_in`] numbers loads through `memdep`.
pub fn svfg_pre(func: &mut Function) -> Result<Stats, PreError> {
    run(func, Method::Svfg, Plant::default())
}

/// Semantic PRE on function `f` of `module` (SSA form), its loads numbered
/// through `memdep`'s dependences (computed here with no call summaries:
/// a call may write anything).
pub fn svfg_pre_in(module: &mut Module, f: FuncId) -> Result<Stats, PreError> {
    run_in(module, f, Method::Svfg, Plant::default())
}

/// Plain GVN on `func` (SSA form): dominated recomputations become copies.
pub fn gvn(func: &mut Function) -> Result<Stats, PreError> {
    run(func, Method::Gvn, Plant::default())
}

/// Builds the semi-SVFG of `func` (SSA form) with its properties, without
/// rewriting anything (for `keel dot --what svfg` and the verifier); loads
/// are numbered through `memory` when given.
pub fn build_svfg(func: &Function, memory: Option<&MemDeps>) -> Result<(Svfg, ValueNumbers), PreError> {
    let w = Walk::new(func, Method::Svfg, Plant::default(), memory)?;
    Ok((w.svfg, w.vns))
}

/// The memory dependences [`run_in`] numbers loads with: `memdep` on
/// function `f` of `module`, no call summaries.
pub fn memory_of(module: &Module, f: FuncId) -> Result<MemDeps, PreError> {
    let func = module.function(f).ok_or(PreError::NoFunction)?;
    MemDep::new().compute_function(module, func, None).map_err(|e| PreError::Memory(e.to_string()))
}

/// [`svfg_pre`] or [`gvn`] with planted bugs (for oracle tests only), no
/// memory dependences.
pub fn run(func: &mut Function, method: Method, plant: Plant) -> Result<Stats, PreError> {
    run_with(func, method, plant, None)
}

/// [`run`] on function `f` of `module`, loads numbered through
/// [`memory_of`].
pub fn run_in(module: &mut Module, f: FuncId, method: Method, plant: Plant) -> Result<Stats, PreError> {
    let memory = memory_of(module, f)?;
    let func = module.function_mut(f).ok_or(PreError::NoFunction)?;
    run_with(func, method, plant, Some(&memory))
}

/// [`run`] with loads numbered through `memory`, the dependences of `func`
/// as it is now ([`PreError::Memory`] when they are stale).
pub fn run_with(
    func: &mut Function,
    method: Method,
    plant: Plant,
    memory: Option<&MemDeps>,
) -> Result<Stats, PreError> {
    let t0 = Instant::now();
    let w = Walk::new(func, method, plant, memory)?;
    let t2 = Instant::now();
    let mut stats = w.rewrite(func);
    stats.time_vn = w.time_vn;
    stats.time_svfg = w.time_svfg.saturating_sub(w.time_vn);
    stats.time_rewrite = t2.elapsed();
    let _ = t0;
    Ok(stats)
}

/// A phi to create: its node, `(predecessor, value)` pairs, its var.
type PendingPhi = (Node, Vec<(Node, Arg)>, Var);

/// How a computation is rewritten.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Repl {
    Keep,
    Var(Var),
    Phi(u32),
}

struct Walk {
    vns: ValueNumbers,
    svfg: Svfg,
    /// Computations and their rewrites, in walk order.
    occurrences: Vec<(Inst, Repl)>,
    preds: Vec<SmallVec<[Node; 2]>>,
    time_vn: Duration,
    time_svfg: Duration,
}

/// Checks single definitions; returns the node defining each var.
fn def_nodes(func: &Function, entry: Node) -> Result<Vec<Option<Node>>, PreError> {
    let mut def = vec![None; func.num_vars()];
    for &p in func.params() {
        def[p.index()] = Some(entry);
    }
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            for &r in func.results(inst) {
                let slot = &mut def[r.index()];
                if slot.is_some() {
                    return Err(PreError::NotSsa(func.var_name(r).to_string()));
                }
                *slot = Some(node(b));
            }
        }
    }
    Ok(def)
}

impl Walk {
    fn new(func: &Function, method: Method, plant: Plant, memory: Option<&MemDeps>) -> Result<Walk, PreError> {
        let t0 = Instant::now();
        let entry = func.entry_block().ok_or(PreError::NoBlocks)?;
        let def = def_nodes(func, node(entry))?;
        let mut vns = ValueNumbers::default();
        #[cfg(any(test, feature = "fuzzing"))]
        {
            vns.plant_sub_commutes = plant.sub_commutes;
            vns.plant_loads_ignore_writes = plant.loads_ignore_writes;
        }
        vns.compute_with(func, memory).map_err(|e| PreError::Memory(e.to_string()))?;
        let time_vn = t0.elapsed();
        let cfg = func.cfg();
        let dt = DomTree::of(&cfg);
        let n = cfg.num_nodes();
        let preds: Vec<SmallVec<[Node; 2]>> =
            (0..n as Node).map(|b| cfg.pred_slice(b).iter().copied().collect()).collect();

        // dn of every number, and the occurrence nodes of each.
        let nv = vns.len();
        let mut dn: Vec<Option<Node>> = vec![None; nv];
        let root = node(entry);
        let deeper = |a: Option<Node>, b: Option<Node>| match (a, b) {
            (Some(x), Some(y)) => {
                if dt.depth(x) >= dt.depth(y) {
                    Some(x)
                } else {
                    Some(y)
                }
            }
            _ => None,
        };
        for i in 0..nv {
            let vn = ValueNumber(i as u32);
            dn[i] = match vns.kind(vn) {
                Some(ValueKind::Const(_)) => Some(root),
                Some(ValueKind::Opaque(v)) => def.get(v.index()).copied().flatten(),
                Some(ValueKind::Phi(b, _)) => Some(node(*b)),
                Some(ValueKind::Load { site, .. }) => func.layout().inst_block(*site).map(node),
                Some(ValueKind::Expr(k)) => {
                    k.args.iter().try_fold(root, |acc, a| deeper(Some(acc), dn.get(a.index()).copied().flatten()))
                }
                None => None,
            };
        }
        let insertable = |vn: ValueNumber| match vns.kind(vn) {
            Some(ValueKind::Expr(k)) => !can_trap(k.opcode),
            _ => false,
        };
        let mut j0: Vec<SmallVec<[Node; 2]>> = vec![SmallVec::new(); if method == Method::Svfg { nv } else { 0 }];
        if method == Method::Svfg {
            for &b in dt.preorder() {
                for inst in func.block_insts(block(b)) {
                    if is_computation(func, inst) {
                        let vn = vns.of_var(func.results(inst)[0]);
                        if vn != ValueNumber::NONE && insertable(vn) && j0[vn.index()].last() != Some(&b) {
                            j0[vn.index()].push(b);
                        }
                    }
                }
            }
        }

        // Phis at IDF(J0) below dn, and ε at DF(dn).
        let mut svfg = Svfg {
            dn: vec![None; nv],
            phis: Vec::new(),
            phis_at: vec![SmallVec::new(); n],
            eps_at: vec![SmallVec::new(); n],
        };
        let mut with_phis: Vec<ValueNumber> = Vec::new();
        if method == Method::Svfg {
            let mut idf = Idf::of(&cfg, &dt).expect("the tree belongs to the graph");
            let mut out = Vec::new();
            let mut frontier = Vec::new();
            for (i, occ) in j0.iter().enumerate() {
                if occ.is_empty() {
                    continue;
                }
                let Some(d) = dn[i] else { continue };
                out.clear();
                // Only phis strictly below dn are kept: ask for the IDF
                // deeper than dn (linear on deep loop nests, where the
                // whole IDF of each value is as deep as the nest).
                idf.query_deeper(occ.iter().copied(), dt.depth(d), &mut out);
                out.sort_unstable();
                let vn = ValueNumber(i as u32);
                let mut any = false;
                for &x in &out {
                    if dt.strictly_dominates(d, x) {
                        let id = svfg.phis.len() as u32;
                        let k = preds[x as usize].len();
                        svfg.phis.push(SvfgPhi {
                            value: vn,
                            node: x,
                            sources: SmallVec::from_elem(Source::Bottom, k),
                            insert_args: SmallVec::from_elem(None, k),
                            down_safe: true,
                            can_be_avail: true,
                            used: false,
                        });
                        svfg.phis_at[x as usize].push(id);
                        any = true;
                    }
                }
                if any {
                    svfg.dn[i] = Some(d);
                    with_phis.push(vn);
                    idf.frontier(d, &mut frontier);
                    for &y in &frontier {
                        svfg.eps_at[y as usize].push(vn);
                    }
                }
            }
        }

        let phi_of: rustc_hash::FxHashMap<(u32, Node), u32> =
            svfg.phis.iter().enumerate().map(|(i, p)| ((p.value.0, p.node), i as u32)).collect();
        // Search: the dominator-tree walk with a stack per value number
        // (sources of t) and one per value number of available vars.
        let mut stack: Vec<Vec<Source>> = vec![Vec::new(); nv];
        let mut avail: Vec<Vec<Var>> = vec![Vec::new(); nv];
        for &p in func.params() {
            let vn = vns.of_var(p);
            if vn != ValueNumber::NONE {
                avail[vn.index()].push(p);
            }
        }
        let mut occurrences = Vec::new();
        // Undo log: (number, was a source push) per push.
        let mut undo: Vec<(u32, bool)> = Vec::new();
        let mut marks: Vec<usize> = Vec::new();
        let mut work: Vec<(Node, bool)> = vec![(root, true)];
        while let Some((b, enter)) = work.pop() {
            if !enter {
                let m = marks.pop().unwrap_or(0);
                while undo.len() > m {
                    let (vn, src) = undo.pop().unwrap_or((0, false));
                    if src {
                        stack[vn as usize].pop();
                    } else {
                        avail[vn as usize].pop();
                    }
                }
                continue;
            }
            marks.push(undo.len());
            work.push((b, false));
            for &c in dt.children(b).iter().rev() {
                work.push((c, true));
            }
            for &p in &svfg.phis_at[b as usize] {
                let vn = svfg.phis[p as usize].value;
                stack[vn.index()].push(Source::Phi(p));
                undo.push((vn.0, true));
            }
            for inst in func.block_insts(block(b)) {
                let results = func.results(inst);
                if is_computation(func, inst) {
                    let r = results[0];
                    let vn = vns.of_var(r);
                    if vn != ValueNumber::NONE
                        && matches!(vns.kind(vn), Some(ValueKind::Expr(_) | ValueKind::Load { .. }))
                    {
                        let repl = match stack[vn.index()].last() {
                            Some(Source::Real(v)) => Repl::Var(*v),
                            Some(Source::Phi(p)) => Repl::Phi(*p),
                            _ => Repl::Keep,
                        };
                        occurrences.push((inst, repl));
                        stack[vn.index()].push(Source::Real(r));
                        undo.push((vn.0, true));
                    }
                }
                for &r in results {
                    let vn = vns.of_var(r);
                    if vn != ValueNumber::NONE {
                        avail[vn.index()].push(r);
                        undo.push((vn.0, false));
                    }
                }
            }
            let succs = cfg.succ_slice(b);
            for &s in succs {
                let k = preds[s as usize].iter().position(|&p| p == b).unwrap_or(0);
                for &p in &svfg.phis_at[s as usize] {
                    let vn = svfg.phis[p as usize].value;
                    let top = stack[vn.index()].last().copied().unwrap_or(Source::Bottom);
                    let args = match vns.kind(vn) {
                        Some(ValueKind::Expr(key)) => {
                            let mut out: SmallVec<[ArgSource; 3]> = SmallVec::new();
                            let mut ok = true;
                            for &a in &key.args {
                                match vns.kind(a) {
                                    Some(ValueKind::Const(_)) => out.push(ArgSource::Imm),
                                    _ => match (avail[a.index()].last(), phi_of.get(&(a.0, s))) {
                                        (Some(&v), _) => out.push(ArgSource::Var(v)),
                                        (None, Some(&q)) => out.push(ArgSource::Phi(q)),
                                        (None, None) => ok = false,
                                    },
                                }
                            }
                            ok.then_some(out)
                        }
                        _ => None,
                    };
                    let phi = &mut svfg.phis[p as usize];
                    phi.sources[k] = top;
                    phi.insert_args[k] = args;
                }
                for &vn in &svfg.eps_at[s as usize] {
                    if let Some(Source::Phi(p)) = stack[vn.index()].last() {
                        svfg.phis[*p as usize].down_safe = false;
                    }
                }
            }
            if succs.is_empty() {
                for &vn in &with_phis {
                    if let Some(Source::Phi(p)) = stack[vn.index()].last() {
                        svfg.phis[*p as usize].down_safe = false;
                    }
                }
            }
        }
        // Operands from unreachable predecessors.
        for phi in &mut svfg.phis {
            for (k, &p) in preds[phi.node as usize].iter().enumerate() {
                if !dt.is_reachable(p) {
                    phi.sources[k] = Source::Unreachable;
                }
            }
        }
        if plant.ignore_down_safety {
            for phi in &mut svfg.phis {
                phi.down_safe = true;
            }
        }
        properties(&mut svfg, &mut occurrences, plant);
        Ok(Walk { vns, svfg, occurrences, preds, time_vn, time_svfg: t0.elapsed() })
    }

    fn rewrite(&self, func: &mut Function) -> Stats {
        let svfg = &self.svfg;
        let mut stats = Stats { phis_placed: svfg.phis.len(), ..Stats::default() };
        let mut phi_var: Vec<Option<Var>> = vec![None; svfg.phis.len()];
        for (i, phi) in svfg.phis.iter().enumerate() {
            if phi.used && phi.can_be_avail {
                let ty = match self.vns.kind(phi.value) {
                    Some(ValueKind::Expr(k)) => k.ty,
                    _ => continue,
                };
                phi_var[i] = Some(func.add_var(&format!("pre{}", phi.value.0), ty));
            }
        }
        // Split edges and insert, then create the phis.
        let mut split: rustc_hash::FxHashMap<(Node, Node), Block> = Default::default();
        let mut pending: Vec<PendingPhi> = Vec::new();
        // The value each materialized phi takes on each edge (sub-values
        // inserted on an edge are reused by the values built on them).
        let mut edge_value: Vec<SmallVec<[Option<Arg>; 2]>> = vec![SmallVec::new(); svfg.phis.len()];
        for (i, phi) in svfg.phis.iter().enumerate() {
            let Some(dst) = phi_var[i] else { continue };
            let Some(ValueKind::Expr(key)) = self.vns.kind(phi.value) else { continue };
            let mut incoming = Vec::new();
            for (k, &src) in phi.sources.iter().enumerate() {
                let p = self.preds[phi.node as usize][k];
                let value = match src {
                    Source::Real(v) => Arg::Var(v),
                    Source::Phi(q) if phi_var[q as usize].is_some() => Arg::Var(phi_var[q as usize].unwrap_or(dst)),
                    Source::Unreachable => Arg::Imm(Imm::from_bits(key.ty, 0)),
                    Source::Bottom | Source::Phi(_) => {
                        let at = self.insertion_block(func, p, phi.node, &mut split, &mut stats);
                        let v = func.add_var(&format!("pre{}.i", phi.value.0), key.ty);
                        let args: SmallVec<[Arg; 3]> = key
                            .args
                            .iter()
                            .zip(phi.insert_args[k].iter().flatten())
                            .map(|(&a, &src)| match (src, self.vns.kind(a)) {
                                (ArgSource::Var(var), _) => Arg::Var(var),
                                (ArgSource::Imm, Some(ValueKind::Const(imm))) => Arg::Imm(*imm),
                                (ArgSource::Phi(q), _) => {
                                    edge_value[q as usize].get(k).copied().flatten().unwrap_or(Arg::Var(dst))
                                }
                                _ => Arg::Var(dst),
                            })
                            .collect();
                        emit(func, at, key.opcode, key.cc, v, &args);
                        stats.inserted += 1;
                        stats.inserted_values.push((v, phi.value));
                        Arg::Var(v)
                    }
                };
                incoming.push((p, value));
            }
            edge_value[i] = incoming.iter().map(|&(_, v)| Some(v)).collect();
            pending.push((phi.node, incoming, dst));
        }
        for (s, incoming, dst) in pending {
            let b = block(s);
            let incoming: Vec<(Block, Arg)> =
                incoming.into_iter().map(|(p, v)| (split.get(&(p, s)).copied().unwrap_or(block(p)), v)).collect();
            let mut fb = FunctionBuilder::new(func);
            match fb.func().layout().first_inst(b) {
                Some(first) => fb.position_before(first),
                None => fb.switch_to_block(b),
            }
            fb.ins().phi(dst, &incoming);
            stats.phis_created += 1;
        }
        stats.phis_deleted = stats.phis_placed - stats.phis_created;
        for &(inst, repl) in &self.occurrences {
            let src = match repl {
                Repl::Var(v) => v,
                Repl::Phi(p) => match phi_var[p as usize] {
                    Some(v) => v,
                    None => continue,
                },
                Repl::Keep => continue,
            };
            let r = func.results(inst)[0];
            FunctionBuilder::new(func).replace(inst).copy(r, src);
            stats.removed += 1;
        }
        stats
    }

    /// The block where a computation for edge `p -> s` goes: `p` itself
    /// when `s` is its only successor, else a new block on the edge.
    fn insertion_block(
        &self,
        func: &mut Function,
        p: Node,
        s: Node,
        split: &mut rustc_hash::FxHashMap<(Node, Node), Block>,
        stats: &mut Stats,
    ) -> Block {
        if let Some(&b) = split.get(&(p, s)) {
            return b;
        }
        let pb = block(p);
        let distinct = {
            let mut succ: SmallVec<[Block; 4]> = func.block_successors(pb).collect();
            succ.sort_unstable();
            succ.dedup();
            succ.len()
        };
        if distinct <= 1 {
            return pb;
        }
        let e = crate::lcm::split_edge(func, pb, block(s));
        split.insert((p, s), e);
        stats.edges_split += 1;
        e
    }
}

/// Emits `dst = op args` before the terminator of `at`.
fn emit(func: &mut Function, at: Block, op: Opcode, cc: u8, dst: Var, args: &[Arg]) {
    let mut fb = FunctionBuilder::new(func);
    match fb.func().terminator(at) {
        Some(t) => fb.position_before(t),
        None => fb.switch_to_block(at),
    }
    let a = |i: usize| args.get(i).copied().unwrap_or(Arg::Var(dst));
    match op.format() {
        Format::Binary => fb.ins().binary(op, dst, a(0), a(1)),
        Format::Unary => fb.ins().unary(op, dst, a(0)),
        Format::Convert => fb.ins().convert(op, dst, a(0)),
        Format::Select => fb.ins().select(dst, a(0), a(1), a(2)),
        _ if op == Opcode::Setp => fb.ins().setp(ir_core::IntCC::ALL[cc as usize], dst, a(0), a(1)),
        _ => fb.ins().fsetp(ir_core::FloatCC::ALL[cc as usize], dst, a(0), a(1)),
    };
}
