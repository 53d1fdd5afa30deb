//! Semantic PRE over the SVFG (digest §001, steps 1–5) and plain GVN
//! (the same dominator-tree walk with no phis, so no insertion). The
//! construction and `Search` are in `construct.rs`, the extension step in
//! `extend.rs`, the fixpoints in `properties.rs`; this module drives them
//! and rewrites.
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
//! 4. Extension (t ∈ B): rounds of candidates, a build restricted to the
//!    values their smds depends on, smds of each ζ in one pass, and
//!    extension phis at `dn(t)` for those whose ζ is smds; then one full
//!    build with every extension.
//! 5. Down-safety (mds) and can-be-available (cus, with the insertability
//!    of each operand: `t`'s operands must be available at the end of the
//!    predecessor and the operation must not trap) as greatest fixpoints
//!    by worklists; a phi that is down-safe but cannot be made available
//!    withdraws the phis that feed it without a computation between, so
//!    that every insertion is paid for by a deletion on each path.
//! 6. Insert: each used, available phi becomes a Keel phi; a ⊥ operand
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

use crate::construct::{Built, Ctx, Extension, Scratch, State, build, extra_needs, real_occurrences};
use crate::extend::{
    MAX_ROUNDS, Probes, Translatable, Translations, candidates, distinct_preds, dn_of_expr, extend, followed,
    smds_of_zetas,
};
use crate::properties::properties;
use crate::svfg::{ArgSource, Source, Svfg};
use crate::vn::{ValueKind, ValueNumber, ValueNumbers};
use cfg_dom::{Dfs, DomTree, Graph, Node};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Block, Format, FuncId, Function, FunctionBuilder, Imm, Inst, Module, Opcode, Var, block, node};
use memdep::{MemDep, MemDeps};
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// Which transform [`run`] applies.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Method {
    /// Semantic PRE on the SVFG: the semi-SVFG extended for the values of
    /// B (phi translation; see `extend.rs`).
    #[default]
    Svfg,
    /// Semantic PRE on the semi-SVFG alone, without the extension step:
    /// fewer insertions and less time, no phi translation.
    SemiSvfg,
    /// Plain GVN: dominator-based removal, no insertion.
    Gvn,
}

impl Method {
    /// Whether the method places phis and inserts (PRE), as opposed to
    /// plain GVN.
    pub fn inserts(self) -> bool {
        matches!(self, Method::Svfg | Method::SemiSvfg)
    }
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
    /// For each materialized extension phi of a value `t`, the pairs
    /// `(t, t_k)` of `t` and the translation each operand carries (on the
    /// path through that operand, `t_k` is `t`).
    pub translations: Vec<(ValueNumber, ValueNumber)>,
    /// Values the extension step extended (phis placed at their `dn`).
    pub extended: usize,
    /// Rebuilds of the semi-SVFG the extension step made.
    pub extension_rounds: u32,
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
    /// Take an edge into an extension phi as the end of its operand
    /// value's region (ε) even though the phi consumes the value there, so
    /// that nested translations are never semi movable down-safe.
    pub extension_uses_end_regions: bool,
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
    build_svfg_with(func, memory, Plant::default())
}

/// [`build_svfg`] with planted bugs (for the verifier's tests only).
pub fn build_svfg_with(
    func: &Function,
    memory: Option<&MemDeps>,
    plant: Plant,
) -> Result<(Svfg, ValueNumbers), PreError> {
    let w = Walk::new(func, Method::Svfg, plant, memory)?;
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
        let root = node(entry);
        let distinct: Vec<SmallVec<[Block; 4]>> = preds.iter().map(|p| distinct_preds(p)).collect();
        let ctx = Ctx { func, cfg: &cfg, dt: &dt, preds: &preds, distinct: &distinct, root, method };

        // dn of every number: a leaf's definition node (the entry for a
        // constant), the deepest of the operands' for an expression (they
        // all dominate every occurrence, so they lie on one tree path).
        let mut dn: Vec<Option<Node>> = vec![None; vns.len()];
        for i in 0..vns.len() {
            dn[i] = match vns.kind(ValueNumber(i as u32)) {
                Some(ValueKind::Const(_)) => Some(root),
                Some(ValueKind::Opaque(v)) => def.get(v.index()).copied().flatten(),
                Some(ValueKind::Phi(b, _)) => Some(node(*b)),
                Some(ValueKind::Load { site, .. }) => func.layout().inst_block(*site).map(node),
                Some(ValueKind::Expr(_)) => dn_of_expr(&ctx, &vns, &dn, ValueNumber(i as u32)),
                None => None,
            };
        }
        let real = real_occurrences(&ctx, &vns);

        // Extend the values of B whose ζ is smds, round by round (each
        // round's smds from a build restricted to the values it depends
        // on), then build the whole semi-SVFG once (extend.rs).
        let mut exts: Vec<Extension> = Vec::new();
        let mut extended: Vec<bool> = Vec::new();
        let mut translatable = Translatable::new();
        let mut translations = Translations::default();
        let mut probes = Probes::default();
        let (mut rounds, mut capped) = (0, false);
        let mut scratch = Scratch::new(&cfg, &dt);
        let extending = method == Method::Svfg;
        if extending {
            let dfs = Dfs::of(&cfg);
            loop {
                let extra = extra_needs(&ctx, &exts);
                extended.resize(vns.len(), false);
                let cands = candidates(&ctx, &vns, &dn, &real, &extra, &extended, &mut translatable, &mut probes);
                if cands.is_empty() {
                    break;
                }
                let only = followed(vns.len(), &cands, &exts);
                let state = State { vns: &vns, dn: &dn, real: &real, extra: &extra, exts: &exts };
                let part = build(&ctx, &mut scratch, &state, &cands, Some(&only), plant.extension_uses_end_regions);
                let smds = smds_of_zetas(&part.svfg, &dfs, &dn, &cands, &part.zeta_bad);
                let chosen: Vec<ValueNumber> = cands.iter().zip(&smds).filter(|&(_, &s)| s).map(|(&t, _)| t).collect();
                if chosen.is_empty() {
                    break;
                }
                if rounds == MAX_ROUNDS {
                    capped = true;
                    break;
                }
                for &t in &chosen {
                    extended[t.index()] = true;
                }
                exts.extend(extend(&ctx, &mut vns, &mut dn, &mut translations, &chosen));
                rounds += 1;
            }
        }
        let extra = extra_needs(&ctx, &exts);
        let state = State { vns: &vns, dn: &dn, real: &real, extra: &extra, exts: &exts };
        let mut built = build(&ctx, &mut scratch, &state, &[], None, false);
        built.svfg.extended = exts.iter().map(|e| e.value).collect();
        built.svfg.extension_rounds = rounds;
        built.svfg.extension_capped = capped;
        let Built { mut svfg, mut occurrences, .. } = built;
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
        let mut stats = Stats {
            phis_placed: svfg.phis.len(),
            extended: svfg.extended.len(),
            extension_rounds: svfg.extension_rounds,
            ..Stats::default()
        };
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
        // Value by value, so that a sub-value phi's edge values are ready
        // before the insertions that read them (construct.rs only lets an
        // insertion read a phi of a smaller value).
        let mut order: Vec<u32> = (0..svfg.phis.len() as u32).collect();
        order.sort_by_key(|&i| (svfg.phis[i as usize].value, i));
        for i in order {
            let i = i as usize;
            let phi = &svfg.phis[i];
            let Some(dst) = phi_var[i] else { continue };
            let mut incoming = Vec::new();
            for (k, &src) in phi.sources.iter().enumerate() {
                let p = self.preds[phi.node as usize][k];
                // The value this operand carries: `t`, or its translation
                // for an extension phi.
                let Some(ValueKind::Expr(key)) = self.vns.kind(phi.operand_value(k)) else { continue };
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
                                    let e = edge_value[q as usize].get(k).copied().flatten();
                                    debug_assert!(e.is_some(), "sub-value phi {q} is materialized first");
                                    e.unwrap_or(Arg::Var(dst))
                                }
                                _ => Arg::Var(dst),
                            })
                            .collect();
                        emit(func, at, key.opcode, key.cc, v, &args);
                        stats.inserted += 1;
                        // Counted as the phi's value: on this path it
                        // stands for the computation of `t` it replaces.
                        stats.inserted_values.push((v, phi.value));
                        Arg::Var(v)
                    }
                };
                incoming.push((p, value));
            }
            for &v in &phi.operand_values {
                if v != phi.value && !stats.translations.contains(&(phi.value, v)) {
                    stats.translations.push((phi.value, v));
                }
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
