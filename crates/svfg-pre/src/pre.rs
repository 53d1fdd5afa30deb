//! Semantic PRE over the SVFG (source document 001, steps 1–5) and plain GVN
//! (the same dominator-tree walk with no phis, so no insertion), on any IR
//! implementing [`crate::PreCode`]. The construction and `Search` are in
//! `construct.rs`, the extension step in `extend.rs`, the fixpoints in
//! `properties.rs`; this module drives them, and `plan.rs` turns the
//! result into edits.
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
//!    phi operands take the tops (with the values holding `t`'s operands
//!    there, from the array of available values per value number), and a
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
//! 6. The plan (`plan.rs`): each used, available phi becomes a new phi; a
//!    ⊥ operand (or one from a phi that stays unavailable) gets the
//!    computation at the end of its predecessor, on a new block when the
//!    edge is critical; unused phis are never materialized (dead-phi
//!    elimination); replaced computations become copies.
//!
//! Safety rules: operations that may trap ([`crate::PreCode::may_trap`])
//! and loads are never inserted, only removed when a dominating
//! computation of the same number exists; [`crate::InstKind::Other`]
//! instructions (guarded ones included) define opaque numbers, available
//! nowhere, and are never moved or removed.
//!
//! Invariant: a run reads the code once (`Flat::new`, which checks it);
//! every pass after it reads arrays, and only value numbering asks the
//! IR's memory question.

use crate::construct::{Built, Ctx, Extension, Method, Repl, Scratch, State, build, extra_needs, real_occurrences};
use crate::extend::{
    MAX_ROUNDS, Probes, Translatable, Translations, candidates, distinct_preds, dn_of_expr, extend, followed,
    smds_of_zetas,
};
use crate::flat::{Flat, InputError};
use crate::input::PreCode;
use crate::planted::{Bug, planted};
use crate::properties::properties;
use crate::svfg::Svfg;
use crate::vn::{ValueKind, ValueNumber, ValueNumbers};
use cfg_dom::{Dfs, DomTree, Graph, InstId, Node};
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// The result of the analysis of one function: numbers, the SVFG with its
/// properties, and the rewrite of each computation.
pub(crate) struct Walk<O, I> {
    pub vns: ValueNumbers<O, I>,
    pub svfg: Svfg,
    /// Computations and their rewrites, in walk order.
    pub occurrences: Vec<(InstId, Repl)>,
    /// Per node: its predecessors, in the graph's order.
    pub preds: Vec<SmallVec<[Node; 2]>>,
    /// Per node: whether it has more than one distinct successor.
    pub multi_succ: Vec<bool>,
    pub time_vn: Duration,
    pub time_svfg: Duration,
}

/// Numbers `code`, builds its SVFG with `method` and computes the
/// properties (see the module doc).
pub(crate) fn walk<G: Graph, C: PreCode>(
    graph: &G,
    code: &C,
    method: Method,
) -> Result<Walk<C::Op, C::Imm>, InputError> {
    let t0 = Instant::now();
    // Planted bugs (tests only; constant false in a default build), read
    // once per run.
    let ignore_down_safety = planted(Bug::IgnoreDownSafety);
    let uses_end_regions = planted(Bug::ExtensionUsesEndRegions);
    let flat = Flat::new(graph, code)?;
    let dt = DomTree::of(graph);
    let dfs = Dfs::of(graph);
    let mut vns = ValueNumbers::default();
    vns.compute(&flat, dfs.reverse_postorder(), &flat.order(&dt), code);
    let time_vn = t0.elapsed();
    let n = graph.num_nodes();
    let preds: Vec<SmallVec<[Node; 2]>> = (0..n as Node).map(|b| graph.predecessors(b).collect()).collect();
    let distinct: Vec<SmallVec<[Node; 4]>> = preds.iter().map(|p| distinct_preds(p)).collect();
    let root = flat.entry;
    let ctx = Ctx { flat: &flat, cfg: graph, dt: &dt, preds: &preds, distinct: &distinct, root, method };

    // dn of every number: a leaf's definition node (the entry for a
    // constant), the deepest of the operands' for an expression (they
    // all dominate every occurrence, so they lie on one tree path).
    let mut dn: Vec<Option<Node>> = vec![None; vns.len()];
    for i in 0..vns.len() {
        dn[i] = match vns.kind(ValueNumber(i as u32)) {
            Some(ValueKind::Const(_)) => Some(root),
            Some(ValueKind::Opaque(v)) => flat.def_node(*v),
            Some(ValueKind::Phi(b, _)) => Some(*b),
            Some(ValueKind::Load { site, .. }) => flat.block_of(*site),
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
    let mut scratch = Scratch::new(graph, &dt);
    if method == Method::Svfg {
        loop {
            let extra = extra_needs(&ctx, &exts);
            extended.resize(vns.len(), false);
            let cands = candidates(&ctx, &vns, &dn, &real, &extra, &extended, &mut translatable, &mut probes);
            if cands.is_empty() {
                break;
            }
            let only = followed(vns.len(), &cands, &exts);
            let state = State { vns: &vns, dn: &dn, real: &real, extra: &extra, exts: &exts };
            let part = build(&ctx, &mut scratch, &state, &cands, Some(&only), uses_end_regions)?;
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
    let mut built = build(&ctx, &mut scratch, &state, &[], None, false)?;
    built.svfg.extended = exts.iter().map(|e| e.value).collect();
    built.svfg.extension_rounds = rounds;
    built.svfg.extension_capped = capped;
    let Built { mut svfg, mut occurrences, .. } = built;
    if ignore_down_safety {
        for phi in &mut svfg.phis {
            phi.down_safe = true;
        }
    }
    properties(&mut svfg, &mut occurrences);
    // An insertion for the edge p -> s goes at the end of p unless p has
    // another distinct successor.
    let multi_succ: Vec<bool> = (0..n as Node)
        .map(|b| {
            let mut it = graph.successors(b);
            let first = it.next();
            it.any(|s| Some(s) != first)
        })
        .collect();
    Ok(Walk { vns, svfg, occurrences, preds, multi_succ, time_vn, time_svfg: t0.elapsed().saturating_sub(time_vn) })
}

/// The value numbers and the SVFG of one function, with its properties
/// ([`analyze`]).
#[derive(Clone, Debug)]
pub struct Analysis<O, I> {
    /// The SVFG, its phis marked down-safe, can-be-available and used.
    pub svfg: Svfg,
    /// The value numbers it is built on (translations included).
    pub vns: ValueNumbers<O, I>,
}

/// Value numbering and the SVFG of `code` (SSA form, on its CFG `graph`)
/// with its properties (down-safety, can-be-available, use), without
/// planning any edit: what `keel dot --what svfg` draws and what
/// [`crate::verify_svfg_of`] checks. `method` chooses whether the
/// extension step runs ([`Method::Svfg`]) or not ([`Method::SemiSvfg`];
/// [`Method::Gvn`] places no phi).
pub fn analyze<G: Graph, C: PreCode>(
    graph: &G,
    code: &C,
    method: Method,
) -> Result<Analysis<C::Op, C::Imm>, InputError> {
    let w = walk(graph, code, method)?;
    Ok(Analysis { svfg: w.svfg, vns: w.vns })
}
