//! DU/UD chains through SSA: the DU-chain document's method (digest §000).
//!
//! 1. Dominator tree of the CFG (`cfg-dom`, semi-NCA).
//! 2. Dominance frontiers (`cfg_dom::Idf`: frontier sets, or subtree walks
//!    when the sets would be quadratic), then phi placement, semi-pruned (`global_prs`:
//!    only non-local vars), at iterated dominance frontiers
//!    (`ssa::PhiPlacement`).
//! 3. Renaming by one dominator-tree walk (`ssa::Renamer`) that records,
//!    for every version, its definition (a real one, a guarded one with the
//!    version it may leave in place — the document's linked list —, or an
//!    inserted phi with its operands) and, for every use, the version it
//!    reads. The IR is not rewritten.
//! 4. Folding: a use of a real version gets that definition; a use of a phi
//!    or guarded version gets every real definition reachable through phi
//!    operands and "may leave" links. Strongly connected parts of that
//!    version graph (phis in loops) are found with an iterative Tarjan pass
//!    and share one sorted set, computed once from their successors' sets.
//!    Versions disappear: chains name original instructions.
//!
//! No per-variable pass over the function and no rescans: work is the size
//! of the function plus the phis plus the chains. Definitions and uses in
//! unreachable blocks take no part (see the crate doc for the semantics
//! both methods implement). Runs on any [`cfg_dom::VarCode`] and
//! [`cfg_dom::Graph`], checked once ([`cfg_dom::check_input`]).

use crate::chains::{Chains, UdBuilder};
use crate::sites::{DefId, Sites};
use cfg_dom::{CsrGraph, DomTree, Graph, Idf, Input, InputBuffers, InputError, InstId, Node, VarCode, VarId, csr};
use ir_core::Function;
use ssa::{NO_VERSION, PhiPlacement, Policy, RenameSink, Renamer, VarFacts, Version, VersionDef};
use std::time::{Duration, Instant};

/// Time spent in each phase of [`via_ssa_timed`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Phases {
    /// Input check, CFG graph (for Keel functions) and dominator tree.
    pub dominators: Duration,
    /// Dominance frontiers.
    pub frontiers: Duration,
    /// Definition facts (where each var is defined, which are non-local)
    /// and phi placement (iterated frontiers per non-local var).
    pub placement: Duration,
    /// The renaming walk.
    pub renaming: Duration,
    /// Folding phis and links onto real definitions, and building the chains.
    pub folding: Duration,
}

impl Phases {
    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.dominators + self.frontiers + self.placement + self.renaming + self.folding
    }
}

/// Sums phase by phase (totals over many functions).
impl std::ops::AddAssign for Phases {
    fn add_assign(&mut self, other: Phases) {
        self.dominators += other.dominators;
        self.frontiers += other.frontiers;
        self.placement += other.placement;
        self.renaming += other.renaming;
        self.folding += other.folding;
    }
}

/// Chains of `code` on its CFG `graph` through SSA (a fresh [`ViaSsa`];
/// reuse one across functions to keep its buffers). An error when the
/// input is malformed ([`cfg_dom::check_input`]).
pub fn via_ssa<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<Chains, InputError> {
    ViaSsa::new().compute(graph, code)
}

/// [`via_ssa`], with the time of each phase.
pub fn via_ssa_timed<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
    ViaSsa::new().compute_timed(graph, code)
}

/// The SSA method's working memory: the CFG (for Keel functions), dominator
/// tree, facts, placement, renamer and folding buffers, kept across
/// functions.
///
/// Lifecycle: [`ViaSsa::new`], then [`ViaSsa::compute`] (any IR) or
/// [`ViaSsa::compute_function`] (a Keel function, whose CFG the context
/// builds) per function. Only the returned [`Chains`] are allocated per
/// call (once warm); nothing of one function's result stays in the
/// context, so there is nothing to go stale. [`ViaSsa::clear`] drops the
/// contents but keeps the capacity.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir");
/// let (module, _) = ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
/// let (mut ours, mut baseline) = (defuse::ViaSsa::new(), defuse::Iterative::new());
/// for (_, func) in module.functions() {
///     // Both contexts keep their buffers from one function to the next.
///     assert_eq!(ours.compute_function(func).unwrap(), baseline.compute_function(func).unwrap());
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ViaSsa {
    graph: CsrGraph,
    input: InputBuffers,
    core: Core,
}

/// Everything but the Keel CFG, so that it can be borrowed beside it.
#[derive(Clone, Debug, Default)]
struct Core {
    dt: DomTree,
    idf: Idf,
    facts: VarFacts,
    placement: PhiPlacement,
    renamer: Renamer,
    fold: FoldBuffers,
}

impl ViaSsa {
    /// A context with empty buffers.
    pub fn new() -> ViaSsa {
        ViaSsa::default()
    }

    /// Empties every buffer, keeping its capacity.
    pub fn clear(&mut self) {
        self.graph.clear();
        self.input = InputBuffers::default();
        let c = &mut self.core;
        c.dt.clear();
        c.idf.clear();
        c.facts.clear();
        c.placement.clear();
        c.fold.clear();
    }

    /// Chains of `code` on its CFG `graph` through SSA.
    pub fn compute<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<Chains, InputError> {
        self.compute_timed(graph, code).map(|(c, _)| c)
    }

    /// [`ViaSsa::compute`], with the time of each phase.
    pub fn compute_timed<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
        self.core.run(graph, code, &mut self.input, Instant::now())
    }

    /// Chains of a Keel function (its CFG built in this context's buffers).
    pub fn compute_function(&mut self, func: &Function) -> Result<Chains, InputError> {
        self.compute_function_timed(func).map(|(c, _)| c)
    }

    /// [`ViaSsa::compute_function`], with the time of each phase (building
    /// the CFG counts as part of the dominators).
    pub fn compute_function_timed(&mut self, func: &Function) -> Result<(Chains, Phases), InputError> {
        let start = Instant::now();
        func.compute_cfg(&mut self.graph);
        self.core.run(&self.graph, func, &mut self.input, start)
    }
}

impl Core {
    fn run<G: Graph, C: VarCode>(
        &mut self,
        graph: &G,
        code: &C,
        buffers: &mut InputBuffers,
        start: Instant,
    ) -> Result<(Chains, Phases), InputError> {
        let mut phases = Phases::default();
        let input = Input::new(graph, code, buffers)?;
        self.dt.compute(graph);
        phases.dominators = start.elapsed();

        // Without a join (a block with two predecessors) every dominance
        // frontier is empty, so no phi can be placed: straight-line and
        // tree-shaped functions, common in real code, skip both phases.
        let has_join = (0..graph.num_nodes() as Node).any(|v| graph.predecessors(v).nth(1).is_some());
        if has_join {
            let t = Instant::now();
            self.idf.compute(graph, &self.dt)?;
            phases.frontiers = t.elapsed();

            let t = Instant::now();
            self.facts.compute(&input, &self.dt)?;
            self.placement.place(&input, &mut self.idf, &self.facts, Policy::SemiPruned, None)?;
            phases.placement = t.elapsed();
        } else {
            self.placement.clear();
        }

        let t = Instant::now();
        let sites = Sites::of(&input);
        self.fold.reset(self.placement.len(), &sites);
        let mut rec = Recorder { sites: &sites, b: &mut self.fold, in_reachable: false };
        self.renamer.run(&input, &self.dt, &self.placement, &mut rec)?;
        phases.renaming = t.elapsed();

        let t = Instant::now();
        let ud = self.fold.fold();
        let chains = Chains::from_ud(sites, ud.start, ud.list, code.code_stamp());
        phases.folding = t.elapsed();
        Ok((chains, phases))
    }
}

#[derive(Copy, Clone, Debug)]
enum Kind {
    /// Not (yet) defined.
    None,
    /// A real definition.
    Real(DefId),
    /// A guarded definition that may leave `prev` in place.
    Guarded(DefId, Version),
    /// An inserted phi: its operands are in `phi_ops`.
    Phi,
}

/// What the renaming walk records and the folding reads.
#[derive(Clone, Debug, Default)]
struct FoldBuffers {
    /// Per version: its definition.
    kind: Vec<Kind>,
    /// Per use id: the version it reads.
    use_version: Vec<Version>,
    /// (phi version, operand version) pairs, from reachable predecessors,
    /// then in CSR by phi: `ops[op_start[p]..op_start[p + 1]]`.
    phi_ops: Vec<(Version, Version)>,
    op_start: Vec<u32>,
    ops: Vec<Version>,
    num_phis: u32,
    /// Definition sets of phi and guarded versions, shared per strongly
    /// connected component: `set[v]` is a range of `pool`.
    set: Vec<(u32, u32)>,
    pool: Vec<DefId>,
    tarjan: Tarjan,
}

const UNSET: (u32, u32) = (u32::MAX, 0);

impl FoldBuffers {
    fn clear(&mut self) {
        self.kind.clear();
        self.use_version.clear();
        self.phi_ops.clear();
        self.op_start.clear();
        self.ops.clear();
        self.set.clear();
        self.pool.clear();
        self.tarjan.reset(0);
    }

    fn reset(&mut self, num_phis: usize, sites: &Sites) {
        self.kind.clear();
        self.kind.reserve(num_phis + sites.num_defs());
        self.use_version.clear();
        self.use_version.resize(sites.num_uses(), NO_VERSION);
        self.phi_ops.clear();
        self.num_phis = num_phis as u32;
    }
}

/// The renaming walk's sink: fills [`FoldBuffers`].
struct Recorder<'a> {
    sites: &'a Sites,
    b: &'a mut FoldBuffers,
    /// Whether the block being renamed is reachable: every use reported
    /// from it (its own, and its successors' input-phi operands read on the
    /// edge out of it) counts only if so.
    in_reachable: bool,
}

/// Bugs the tests plant in the folding, to show the agreement checks catch
/// them (`tests::planted_folding_bugs_are_caught`). Outside tests nothing
/// is ever planted and the checks compile away.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Planted {
    /// A guarded definition kills, like an unguarded one (its "may leave"
    /// link is dropped).
    GuardKills,
    /// A phi keeps only its first operand.
    FirstOperandOnly,
}

#[cfg(test)]
thread_local! {
    static PLANTED: std::cell::Cell<Option<Planted>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn planted(bug: Planted) -> bool {
    PLANTED.with(|p| p.get() == Some(bug))
}

#[cfg(not(test))]
#[inline(always)]
fn planted(_: Planted) -> bool {
    false
}

impl RenameSink for Recorder<'_> {
    fn define(&mut self, version: Version, _var: VarId, def: VersionDef, prev: Version) {
        let i = version as usize;
        let kind = &mut self.b.kind;
        if kind.len() <= i {
            kind.resize(i + 1, Kind::None);
        }
        kind[i] = match def {
            VersionDef::Param(p) => self.sites.param_def(p).map_or(Kind::None, Kind::Real),
            VersionDef::Result { inst, index, guarded } => match self.sites.def_id(inst, index) {
                Some(d) if guarded && prev != NO_VERSION && !planted(Planted::GuardKills) => Kind::Guarded(d, prev),
                Some(d) => Kind::Real(d),
                None => Kind::None,
            },
            VersionDef::Phi { .. } => Kind::Phi,
        };
    }

    fn enter_block(&mut self, _b: Node, reachable: bool) {
        self.in_reachable = reachable;
    }

    fn use_site(&mut self, inst: InstId, k: u32, _var: VarId, version: Version) {
        // A use in unreachable code takes no part; neither does an input
        // phi's operand on an edge out of unreachable code (it is reported
        // while its predecessor is renamed).
        if !self.in_reachable {
            return;
        }
        if let Some(u) = self.sites.use_id(inst, k) {
            self.b.use_version[u as usize] = version;
        }
    }

    fn phi_operand(&mut self, phi: Version, _pred: Node, version: Version) {
        // Operands are supplied while the predecessor is renamed: only
        // reachable predecessors count.
        if version != NO_VERSION && self.in_reachable {
            if planted(Planted::FirstOperandOnly) && self.b.phi_ops.iter().any(|&(p, _)| p == phi) {
                return;
            }
            self.b.phi_ops.push((phi, version));
        }
    }
}

impl FoldBuffers {
    /// Resolves every use's version to its real definitions.
    fn fold(&mut self) -> UdBuilder {
        let nv = self.kind.len();
        let np = self.num_phis as usize;
        // Phi operands by phi version (phis are versions 0..num_phis).
        csr::bucket(np, &self.phi_ops, &mut self.op_start, &mut self.ops);
        let set = &mut self.set;
        set.clear();
        set.resize(nv, UNSET);
        let (ops, op_start, kind) = (&self.ops, &self.op_start, &self.kind);
        let succs = |v: Version, kind: &[Kind]| -> &[Version] {
            match kind.get(v as usize) {
                Some(Kind::Phi) => csr::row(op_start, ops, v as usize),
                _ => &[],
            }
        };
        let pool = &mut self.pool;
        pool.clear();
        self.tarjan.reset(nv);
        let mut ud = UdBuilder::with_capacity(self.use_version.len());
        for &v in &self.use_version {
            match kind.get(v as usize).copied() {
                Some(Kind::Real(d)) => ud.list.push(d),
                Some(Kind::Phi | Kind::Guarded(..)) => {
                    if set[v as usize] == UNSET {
                        self.tarjan.run(v, kind, &succs, set, pool);
                    }
                    let (s, l) = set[v as usize];
                    ud.list.extend_from_slice(&pool[s as usize..(s + l) as usize]);
                }
                _ => {}
            }
            ud.close();
        }
        ud
    }
}

/// Iterative Tarjan over phi and guarded versions, filling definition sets
/// component by component (components finish in reverse topological order,
/// so successors' sets are ready).
#[derive(Clone, Debug, Default)]
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<Version>,
    call: Vec<(Version, u32)>,
    next: u32,
    scratch: Vec<DefId>,
}

impl Tarjan {
    /// Ready for `n` versions, keeping buffers.
    fn reset(&mut self, n: usize) {
        self.index.clear();
        self.index.resize(n, u32::MAX);
        self.low.clear();
        self.low.resize(n, 0);
        self.on_stack.clear();
        self.on_stack.resize(n, false);
        self.stack.clear();
        self.call.clear();
        self.next = 0;
    }

    fn run<'k>(
        &mut self,
        root: Version,
        kind: &'k [Kind],
        succs: &impl Fn(Version, &'k [Kind]) -> &'k [Version],
        set: &mut [(u32, u32)],
        pool: &mut Vec<DefId>,
    ) {
        // Successors of a node: phi operands, or a guarded def's `prev`.
        let out = |v: Version, i: u32| -> Option<Version> {
            match kind.get(v as usize) {
                Some(Kind::Guarded(_, prev)) => (i == 0).then_some(*prev),
                Some(Kind::Phi) => succs(v, kind).get(i as usize).copied(),
                _ => None,
            }
        };
        let inner = |w: Version| matches!(kind.get(w as usize), Some(Kind::Phi | Kind::Guarded(..)));
        self.visit(root);
        self.call.push((root, 0));
        while let Some(&mut (v, ref mut i)) = self.call.last_mut() {
            if let Some(w) = out(v, *i) {
                *i += 1;
                if !inner(w) {
                    continue;
                }
                if self.index[w as usize] == u32::MAX {
                    self.visit(w);
                    self.call.push((w, 0));
                } else if self.on_stack[w as usize] {
                    self.low[v as usize] = self.low[v as usize].min(self.index[w as usize]);
                }
                continue;
            }
            self.call.pop();
            if let Some(&(parent, _)) = self.call.last() {
                self.low[parent as usize] = self.low[parent as usize].min(self.low[v as usize]);
            }
            if self.low[v as usize] != self.index[v as usize] {
                continue;
            }
            // v is the root of a component: pop it and compute its set.
            let top = self.stack.iter().rposition(|&x| x == v).expect("v is on the stack");
            self.scratch.clear();
            for &m in &self.stack[top..] {
                if let Some(Kind::Guarded(d, _)) = kind.get(m as usize) {
                    self.scratch.push(*d);
                }
                let mut k = 0;
                while let Some(w) = out(m, k) {
                    k += 1;
                    match kind.get(w as usize) {
                        Some(Kind::Real(d)) => self.scratch.push(*d),
                        Some(Kind::Phi | Kind::Guarded(..)) if set[w as usize] != UNSET => {
                            let (s, l) = set[w as usize];
                            self.scratch.extend_from_slice(&pool[s as usize..(s + l) as usize]);
                        }
                        _ => {}
                    }
                }
            }
            self.scratch.sort_unstable();
            self.scratch.dedup();
            let range = (pool.len() as u32, self.scratch.len() as u32);
            pool.extend_from_slice(&self.scratch);
            for m in self.stack.drain(top..) {
                self.on_stack[m as usize] = false;
                set[m as usize] = range;
            }
        }
    }

    fn visit(&mut self, v: Version) {
        self.index[v as usize] = self.next;
        self.low[v as usize] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::{PLANTED, Planted, via_ssa};
    use crate::iterative;
    use ir_gen::{GenConfig, generate};

    /// Functions (of 60 generated modules) on which `via_ssa` with `bug`
    /// planted disagrees with the iterative baseline.
    fn disagreements(bug: Option<Planted>) -> usize {
        PLANTED.with(|p| p.set(bug));
        let config = GenConfig { blocks: 40, vars: 12, predication: 0.3, ..GenConfig::default() };
        let mut n = 0;
        for seed in 0..60 {
            let g = generate(&config, seed);
            n += g
                .module
                .functions()
                .filter(|(_, f)| via_ssa(&f.cfg(), *f).unwrap() != iterative(&f.cfg(), *f).unwrap())
                .count();
        }
        PLANTED.with(|p| p.set(None));
        n
    }

    #[test]
    fn planted_folding_bugs_are_caught() {
        assert_eq!(disagreements(None), 0, "the methods must agree without a bug");
        assert!(disagreements(Some(Planted::GuardKills)) > 0, "dropping may-leave links went unnoticed");
        assert!(disagreements(Some(Planted::FirstOperandOnly)) > 0, "dropping phi operands went unnoticed");
    }
}
