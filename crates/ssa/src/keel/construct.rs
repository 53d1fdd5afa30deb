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

use super::cleanup;
use crate::VarFacts;
use crate::{Fallback, PhiPlacement, Policy};
use crate::{NO_VERSION, RenameSink, Renamer, Version, VersionDef};
use cfg_dom::{CsrGraph, DomTree, Input, InputBuffers, InputError, InstId, Node, VarId};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Function, FunctionBuilder, Guard, Inst, Operand, UseSite, Var, block};

/// How to build SSA form.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Which vars get phis.
    pub policy: Policy,
    /// Remove trivial and dead phis afterwards (to a fixpoint).
    pub cleanup: bool,
    /// Most phi operands minimal or semi-pruned placement may create
    /// before it falls back to pruned placement for the function
    /// ([`PhiPlacement::set_budget`]); `None`: the default budget,
    /// proportional to the function's size
    /// ([`PhiPlacement::default_budget`]).
    pub phi_budget: Option<u64>,
}

impl Default for Options {
    fn default() -> Options {
        Options { policy: Policy::SemiPruned, cleanup: true, phi_budget: None }
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
    /// Set when the policy's phis would have passed the phi budget and
    /// pruned phis were placed instead.
    pub fallback: Option<Fallback>,
}

/// Records the walk, to apply it once the function may be borrowed mutably.
#[derive(Default)]
struct Recorder {
    /// Per version: its var, what defines it, the version it may leave.
    defs: Vec<(Var, VersionDef, Version)>,
    /// Versions in definition order (ids are not in order: phis come first).
    order: Vec<Version>,
    /// (instruction, use number, var, version).
    uses: Vec<(InstId, u32, Var, Version)>,
    /// Per inserted phi: `(pred, version)` pairs.
    phi_ops: Vec<Vec<(Node, Version)>>,
}

impl RenameSink for Recorder {
    fn define(&mut self, version: Version, var: VarId, def: VersionDef, prev: Version) {
        let i = version as usize;
        if self.defs.len() <= i {
            self.defs.resize(i + 1, (Var::new(0), VersionDef::Param(0), NO_VERSION));
        }
        self.defs[i] = (Var::from_u32(var), def, prev);
        self.order.push(version);
    }

    fn use_site(&mut self, inst: InstId, k: u32, var: VarId, version: Version) {
        self.uses.push((inst, k, Var::from_u32(var), version));
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
///
/// An error, with `func` unchanged, when it names vars, blocks or
/// instructions it does not have (see [`cfg_dom::check_input`]); a function
/// that passes `ir_core::verify_function` never fails.
pub fn construct(func: &mut Function, options: &Options) -> Result<Stats, InputError> {
    let graph = func.cfg();
    let (placement, rec) = {
        let mut buffers = InputBuffers::default();
        let input = Input::new(&graph, &*func, &mut buffers)?;
        let dt = DomTree::of(&graph);
        let facts = VarFacts::of(&input, &dt)?;
        let mut placement = PhiPlacement::new();
        placement.set_budget(options.phi_budget);
        placement.compute(&input, &dt, &facts, options.policy, None)?;
        let mut rec = Recorder::default();
        Renamer::new().run(&input, &dt, &placement, &mut rec)?;
        (placement, rec)
    };
    let mut stats = Stats { phis_placed: placement.len(), fallback: placement.fallback(), ..Stats::default() };
    let inserted = apply(func, &graph, &placement, &rec, &mut stats);
    if options.cleanup {
        let (trivial, dead) = cleanup::cleanup_phis(func, &inserted);
        stats.phis_trivial = trivial;
        stats.phis_dead = dead;
    }
    Ok(stats)
}

/// Rewrites `func` from the recorded walk; returns the inserted phis.
fn apply(
    func: &mut Function,
    graph: &CsrGraph,
    placement: &PhiPlacement,
    rec: &Recorder,
    stats: &mut Stats,
) -> Vec<Inst> {
    let rec_uses = uses_by_site(func, &rec.uses);
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
            let inst = Inst::from_u32(inst);
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
    for &(inst, site, var, v) in &rec_uses {
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
        for (k, var) in phis.iter().map(|&v| Var::from_u32(v)).enumerate() {
            let pv = base + k as u32;
            // The operands as the walk reported them, sorted by predecessor
            // (stable: the first report per predecessor wins), so each
            // predecessor's is a binary search even at 10^5 predecessors.
            let mut ops = rec.phi_ops.get(pv as usize).cloned().unwrap_or_default();
            ops.sort_by_key(|o| o.0);
            let incoming: Vec<(ir_core::Block, Arg)> = graph
                .pred_slice(b)
                .iter()
                .map(|&p| {
                    let at = ops.partition_point(|o| o.0 < p);
                    let v = ops.get(at).filter(|o| o.0 == p).map_or(NO_VERSION, |o| o.1);
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

/// The recorded uses with their sites, in walk order (which fixes the
/// numbering of `undef` versions): the walk names a use by its number among
/// its instruction's uses; one table of every instruction's sites maps the
/// numbers back in O(1) each.
fn uses_by_site(func: &Function, uses: &[(InstId, u32, Var, Version)]) -> Vec<(Inst, UseSite, Var, Version)> {
    let n = func.num_insts();
    let mut start = Vec::with_capacity(n + 1);
    let mut sites = Vec::new();
    for i in 0..n {
        start.push(sites.len());
        let inst = Inst::new(i);
        if func.layout().inst_block(inst).is_some() {
            sites.extend(func.uses(inst).map(|(site, _)| site));
        }
    }
    start.push(sites.len());
    uses.iter()
        .filter_map(|&(inst, k, var, v)| {
            let at = start.get(inst as usize)? + k as usize;
            let site = *sites.get(at).filter(|_| at < start[inst as usize + 1])?;
            Some((Inst::from_u32(inst), site, var, v))
        })
        .collect()
}
