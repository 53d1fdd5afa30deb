//! SSA construction in the IR: place phis, rename, rewrite the function in
//! place, then clean phis up.
//!
//! Invariants of the result (checked by [`crate::verify`]):
//! - every var has one definition: params keep their own var; every other
//!   definition gets a new version var `%x.N` (`N` counting in renaming
//!   order, so the DU-chain document's example gets its `x1`..`x5`), which
//!   remembers `%x` as its origin;
//! - a guarded definition names, per result, the version it leaves in place
//!   when the guard fails (`@%p %x.5 = add %a.1, %b.1 else %x.2`), so the
//!   document's "x5 may leave x2" link is explicit in the IR;
//! - a use no definition reaches on some path reads `%x.K = undef`, defined
//!   at the top of the entry block (so it dominates everything);
//! - inserted phis list one incoming value per predecessor block, in the
//!   CFG's predecessor order; input phis are renamed like any definition.
//!
//! The original vars stay declared (unused), so a later pass can map
//! versions back through `VarData::origin`.

use crate::cleanup;
use crate::facts::VarFacts;
use crate::placement::{PhiPlacement, Policy};
use crate::rename::{NO_VERSION, RenameSink, Renamer, Version, VersionDef};
use cfg_dom::{CsrGraph, DomTree, Node, block};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Function, FunctionBuilder, Guard, Inst, Operand, UseSite, Var};

/// How to build SSA form.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Which vars get phis.
    pub policy: Policy,
    /// Remove trivial and dead phis afterwards (to a fixpoint).
    pub cleanup: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { policy: Policy::SemiPruned, cleanup: true }
    }
}

/// What construction did.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Phis placed by the policy.
    pub phis_placed: usize,
    /// Phis removed as trivial (all operands the same value).
    pub phis_trivial: usize,
    /// Phis removed as dead (no use but other dead phis).
    pub phis_dead: usize,
    /// Version vars created.
    pub versions: usize,
    /// `undef` definitions inserted.
    pub undefs: usize,
}

/// Records the walk, to apply it once the function may be borrowed mutably.
#[derive(Default)]
struct Recorder {
    /// Per version: its var, what defines it, the version it may leave.
    defs: Vec<(Var, VersionDef, Version)>,
    /// Versions in definition order (ids are not in order: phis come first).
    order: Vec<Version>,
    uses: Vec<(Inst, UseSite, Var, Version)>,
    /// Per inserted phi: `(pred, version)` pairs.
    phi_ops: Vec<Vec<(Node, Version)>>,
}

impl RenameSink for Recorder {
    fn define(&mut self, version: Version, var: Var, def: VersionDef, prev: Version) {
        let i = version as usize;
        if self.defs.len() <= i {
            self.defs.resize(i + 1, (Var::new(0), VersionDef::Param(0), NO_VERSION));
        }
        self.defs[i] = (var, def, prev);
        self.order.push(version);
    }

    fn use_site(&mut self, inst: Inst, site: UseSite, var: Var, version: Version) {
        self.uses.push((inst, site, var, version));
    }

    fn phi_operand(&mut self, phi: Version, pred: Node, version: Version) {
        let i = phi as usize;
        if self.phi_ops.len() <= i {
            self.phi_ops.resize(i + 1, Vec::new());
        }
        self.phi_ops[i].push((pred, version));
    }
}

/// Puts `func` in SSA form in place.
pub fn construct(func: &mut Function, options: &Options) -> Stats {
    let graph = CsrGraph::from_function(func);
    let dt = DomTree::of(&graph);
    let facts = VarFacts::of(func, &dt);
    let placement = PhiPlacement::of(func, &graph, &dt, &facts, options.policy, None);
    let mut rec = Recorder::default();
    Renamer::new().run(func, &graph, &dt, &placement, &mut rec);
    let mut stats = Stats { phis_placed: placement.len(), ..Stats::default() };
    let inserted = apply(func, &graph, &placement, &rec, &mut stats);
    if options.cleanup {
        let (trivial, dead) = cleanup::cleanup_phis(func, &inserted);
        stats.phis_trivial = trivial;
        stats.phis_dead = dead;
    }
    stats
}

/// Rewrites `func` from the recorded walk; returns the inserted phis.
fn apply(
    func: &mut Function,
    graph: &CsrGraph,
    placement: &PhiPlacement,
    rec: &Recorder,
    stats: &mut Stats,
) -> Vec<Inst> {
    // One var per version, in definition order, so names count up as the
    // walk went.
    let mut var_of: Vec<Var> = vec![Var::new(0); rec.defs.len()];
    for &v in &rec.order {
        let (var, def, _) = rec.defs[v as usize];
        var_of[v as usize] = match def {
            VersionDef::Param(_) => var,
            _ => {
                stats.versions += 1;
                func.add_version(var).unwrap_or(var)
            }
        };
    }
    // Undefined values: one `undef` per original var that needs one.
    let mut undef_of: Vec<Option<Var>> = vec![None; func.num_vars()];
    let mut undef_order: Vec<Var> = Vec::new();
    let mut resolve = |func: &mut Function, var: Var, v: Version| -> Var {
        if v != NO_VERSION {
            return var_of[v as usize];
        }
        let slot = &mut undef_of[var.index()];
        *slot.get_or_insert_with(|| {
            let u = func.add_version(var).unwrap_or(var);
            undef_order.push(u);
            u
        })
    };
    // Results, and fallbacks of guarded results.
    let mut fallbacks: Vec<(Inst, u32, Var)> = Vec::new();
    for &v in &rec.order {
        let (var, def, prev) = rec.defs[v as usize];
        if let VersionDef::Result { inst, index, guarded } = def {
            func.set_result(inst, index as usize, var_of[v as usize]);
            if guarded {
                let keep = resolve(func, var, prev);
                fallbacks.push((inst, index, keep));
            }
        }
    }
    fallbacks.sort_by_key(|&(i, k, _)| (i, k));
    for group in fallbacks.chunk_by(|a, b| a.0 == b.0) {
        let ops: Vec<Operand> = group.iter().map(|&(_, _, v)| Operand::var(v)).collect();
        func.set_fallbacks(group[0].0, &ops);
    }
    // Uses.
    for &(inst, site, var, v) in &rec.uses {
        let new = resolve(func, var, v);
        match site {
            UseSite::Operand(i) => {
                func.set_operand(inst, i as usize, Operand::var(new));
            }
            UseSite::Guard => {
                let negated = func.guard(inst).is_some_and(|g| g.negated);
                func.set_guard(inst, Some(Guard { var: new, negated }));
            }
            UseSite::Fallback(i) => {
                let mut ops = func.fallbacks(inst).to_vec();
                if let Some(slot) = ops.get_mut(i as usize) {
                    *slot = Operand::var(new);
                }
                func.set_fallbacks(inst, &ops);
            }
        }
    }
    // Inserted phis, at the top of their blocks, operands in predecessor order.
    let mut inserted = Vec::with_capacity(placement.len());
    let n = cfg_dom::Graph::num_nodes(graph) as Node;
    let mut base = 0u32;
    for b in 0..n {
        let phis = placement.phis(b);
        if phis.is_empty() {
            continue;
        }
        let first = func.layout().first_inst(block(b));
        for (k, &var) in phis.iter().enumerate() {
            let pv = base + k as u32;
            let ops = rec.phi_ops.get(pv as usize).map_or(&[][..], Vec::as_slice);
            let incoming: Vec<(ir_core::Block, Arg)> = graph
                .pred_slice(b)
                .iter()
                .map(|&p| {
                    let v = ops.iter().find(|o| o.0 == p).map_or(NO_VERSION, |o| o.1);
                    (block(p), Arg::Var(resolve(func, var, v)))
                })
                .collect();
            let dst = var_of[pv as usize];
            let mut bld = FunctionBuilder::new(func);
            match first {
                Some(f) => bld.position_before(f),
                None => bld.switch_to_block(block(b)),
            }
            inserted.push(bld.ins().phi(dst, &incoming));
        }
        base += phis.len() as u32;
    }
    // `undef`s at the very top of the entry block.
    if let Some(entry) = func.entry_block() {
        let first = func.layout().first_inst(entry);
        let mut bld = FunctionBuilder::new(func);
        match first {
            Some(f) => bld.position_before(f),
            None => bld.switch_to_block(entry),
        }
        for &u in &undef_order {
            bld.ins().undef(u);
        }
        stats.undefs = undef_order.len();
    }
    inserted
}
