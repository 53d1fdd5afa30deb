//! One build of the semi-SVFG (source document 001 step 2, with the phis of the
//! extension step of step 4): phi placement and the `Search` walk.
//!
//! Given the value numbers, `dn` of every number, the real occurrence
//! nodes of each insertable expression number and the extensions decided
//! so far, [`build`] places:
//!
//! - the phis of `t` at `IDF(J0(t))` restricted to the nodes `dn(t)`
//!   strictly dominates, where `J0(t)` holds the blocks computing `t` and
//!   the predecessors through which an extension phi needs `t`;
//! - one extension phi of `t` at `dn(t)` for each extended `t`, operand
//!   `k` carrying `t` translated through the `k`-th predecessor;
//! - ε_t at `DF(dn(t))` for each `t` with a phi;
//!
//! then runs `Search`: one explicit-stack preorder walk of the dominator
//! tree with a stack of sources per value number and a stack of available
//! values per value number. A phi pushes itself; a computation of `t` with a
//! real definition on top becomes a copy of it, with a phi on top it is
//! recorded as that phi's use; then it pushes itself. At the end of each
//! node the successors' phi operands take the top of their operand value's
//! stack (ζ = ⊥ when it is empty), with where each operand of the value
//! comes from for an insertion there. A phi on top when an edge enters one
//! of its ε nodes (unless an extension phi there consumes the value on
//! that edge), or when the function ends, is not down-safe (the local
//! half of mds). For each candidate of the extension (a value in B), ζ_t
//! reaching an ε edge or an exit is recorded (the local half of smds).
//!
//! Invariants: phis are grouped by value number in increasing order (a
//! value's extension phi after its IDF phis); the walk never recurses;
//! its cost is linear in the blocks, instructions and phis for each build.
//! The [`Method`] and the rewrite of each computation ([`Repl`]) live
//! here, below every module that reads them.

use crate::flat::{Flat, InputError};
use crate::input::{Key, ValueId};
use crate::svfg::{ArgSource, Source, Svfg, SvfgPhi};
use crate::vn::{ValueKind, ValueNumber, ValueNumbers, result_number};
use cfg_dom::{DomTree, Graph, Idf, InstId, Node};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Which transform a run applies.
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

/// How a computation is rewritten.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Repl {
    /// It stays.
    Keep,
    /// It becomes a copy of this value.
    Value(ValueId),
    /// It becomes a copy of this phi (index into `Svfg::phis`), if the
    /// phi is materialized.
    Phi(u32),
}

/// What a build reads: the checked code and its graphs.
pub(crate) struct Ctx<'a, G, O, I> {
    pub flat: &'a Flat<O, I>,
    pub cfg: &'a G,
    pub dt: &'a DomTree,
    pub preds: &'a [SmallVec<[Node; 2]>],
    /// Per node: its distinct predecessors, sorted.
    pub distinct: &'a [SmallVec<[Node; 4]>],
    pub root: Node,
    pub method: Method,
}

/// An extension decided by `extend.rs`: a phi of `value` at `node`
/// (= `dn(value)`), operand `k` carrying `operand_values[k]`.
#[derive(Clone, Debug)]
pub(crate) struct Extension {
    pub value: ValueNumber,
    pub node: Node,
    pub operand_values: SmallVec<[ValueNumber; 2]>,
}

/// The numbering and extension state a build reads.
pub(crate) struct State<'a, O, I> {
    pub vns: &'a ValueNumbers<O, I>,
    /// `dn` of every number.
    pub dn: &'a [Option<Node>],
    /// The blocks computing each number ([`real_occurrences`]).
    pub real: &'a [SmallVec<[Node; 2]>],
    /// What the extensions add to `J0` ([`extra_needs`]).
    pub extra: &'a ExtraNeeds,
    /// The extensions decided so far.
    pub exts: &'a [Extension],
}

impl<O, I> Clone for State<'_, O, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O, I> Copy for State<'_, O, I> {}

/// Buffers a build reuses: the IDF index of the graph (computed once),
/// and the per-value stacks, which every walk leaves empty.
pub(crate) struct Scratch {
    pub idf: Idf,
    pub stack: Vec<Vec<Source>>,
    pub avail: Vec<Vec<ValueId>>,
    pub frontier: Vec<Node>,
    pub out: Vec<Node>,
}

impl Scratch {
    /// Buffers for builds over `cfg` with tree `dt`.
    pub(crate) fn new(cfg: &impl Graph, dt: &DomTree) -> Scratch {
        Scratch {
            idf: Idf::of(cfg, dt).expect("the tree belongs to the graph"),
            stack: Vec::new(),
            avail: Vec::new(),
            frontier: Vec::new(),
            out: Vec::new(),
        }
    }
}

/// The result of one build.
pub(crate) struct Built {
    pub svfg: Svfg,
    /// Computations and their rewrites, in walk order.
    pub occurrences: Vec<(InstId, Repl)>,
    /// Per candidate (same order as the `candidates` argument): ζ_t reaches
    /// an ε node or an exit, so it is not semi movable down-safe.
    pub zeta_bad: Vec<bool>,
}

/// The blocks computing each insertable expression number, in dominator
/// tree preorder (one entry per block).
pub(crate) fn real_occurrences<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &ValueNumbers<O, I>,
) -> Vec<SmallVec<[Node; 2]>> {
    let nv = vns.len();
    let mut j0: Vec<SmallVec<[Node; 2]>> = vec![SmallVec::new(); nv];
    if !ctx.method.inserts() {
        return j0;
    }
    for &b in ctx.dt.preorder() {
        for e in ctx.flat.positions(b) {
            if ctx.flat.is_computation(e) {
                let vn = result_number(vns, ctx.flat, e);
                if vn != ValueNumber::NONE && vns.insertable(vn) && j0[vn.index()].last() != Some(&b) {
                    j0[vn.index()].push(b);
                }
            }
        }
    }
    j0
}

/// The needs the extension adds to `J0`: per translated value, the
/// predecessors through which an extension phi carries it (sorted).
pub(crate) type ExtraNeeds = rustc_hash::FxHashMap<u32, SmallVec<[Node; 2]>>;

/// [`ExtraNeeds`] of `exts`.
pub(crate) fn extra_needs<G, O, I>(ctx: &Ctx<'_, G, O, I>, exts: &[Extension]) -> ExtraNeeds {
    let mut extra = ExtraNeeds::default();
    for e in exts {
        for (k, &p) in ctx.preds[e.node as usize].iter().enumerate() {
            if ctx.dt.is_reachable(p) {
                extra.entry(e.operand_values[k].0).or_default().push(p);
            }
        }
    }
    for list in extra.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    extra
}

/// `J0(v)`: the blocks computing `v` (`real`) and those `extra` adds.
pub(crate) fn needs_of<'a>(
    real: &'a [SmallVec<[Node; 2]>],
    extra: &'a ExtraNeeds,
    v: usize,
) -> impl Iterator<Item = Node> + 'a {
    real.get(v).into_iter().flatten().chain(extra.get(&(v as u32)).into_iter().flatten()).copied()
}

/// Places the phis and runs `Search` (see the module doc). With `only`,
/// a restricted build for the extension's smds: only the values marked
/// get phis and stacks (the walk of each value is independent of the
/// others'), and no insertion operands or occurrences are recorded.
pub(crate) fn build<G: Graph, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    scratch: &mut Scratch,
    state: &State<'_, O, I>,
    candidates: &[ValueNumber],
    only: Option<&[bool]>,
    planted_uses_end_regions: bool,
) -> Result<Built, InputError> {
    let State { vns, dn, real, extra, exts } = *state;
    let follows = |vn: ValueNumber| only.is_none_or(|o| o.get(vn.index()).copied().unwrap_or(false));
    let (flat, cfg, dt) = (ctx.flat, ctx.cfg, ctx.dt);
    let n = cfg.num_nodes();
    let nv = vns.len();
    let mut svfg = Svfg {
        dn: vec![None; nv],
        phis: Vec::new(),
        phis_at: vec![SmallVec::new(); n],
        eps_at: vec![SmallVec::new(); n],
        ..Svfg::default()
    };
    let mut ext_of: Vec<u32> = vec![u32::MAX; nv];
    for (i, e) in exts.iter().enumerate() {
        ext_of[e.value.index()] = i as u32;
    }
    let mut with_phis: Vec<ValueNumber> = Vec::new();
    // The phi budget: PHIS_PER_ITEM operands per block, instruction and
    // edge (at least MIN_PHI_BUDGET), as SSA construction's.
    let edges: usize = ctx.preds.iter().map(|p| p.len()).sum();
    let budget = (PHIS_PER_ITEM * (n + flat.len() + edges) as u64).max(MIN_PHI_BUDGET);
    let mut operands: u64 = 0;
    let mut count = |svfg: &Svfg| -> Result<(), InputError> {
        operands += svfg.phis.last().map_or(0, |p| p.sources.len() as u64);
        if operands > budget { Err(InputError::TooManyPhis { operands, budget }) } else { Ok(()) }
    };
    let Scratch { idf, stack, avail, frontier, out } = scratch;
    stack.resize(nv, Vec::new());
    avail.resize(nv, Vec::new());
    if ctx.method.inserts() {
        for i in 0..nv {
            let Some(d) = dn[i] else { continue };
            let vn = ValueNumber(i as u32);
            if !follows(vn) {
                continue;
            }
            let mut any = false;
            if needs_of(real, extra, i).next().is_some() {
                out.clear();
                // Only phis strictly below dn are kept: ask for the IDF
                // deeper than dn (linear on deep loop nests, where the
                // whole IDF of each value is as deep as the nest).
                idf.query_deeper(needs_of(real, extra, i), dt.depth(d), out);
                out.sort_unstable();
                for &x in out.iter() {
                    if dt.strictly_dominates(d, x) {
                        push_phi(&mut svfg, ctx, vn, x, SmallVec::new());
                        count(&svfg)?;
                        any = true;
                    }
                }
            }
            if let Some(e) = exts.get(ext_of[i] as usize) {
                push_phi(&mut svfg, ctx, vn, e.node, e.operand_values.clone());
                count(&svfg)?;
                any = true;
            }
            if any {
                svfg.dn[i] = Some(d);
                with_phis.push(vn);
                idf.frontier(d, frontier);
                for &y in frontier.iter() {
                    svfg.eps_at[y as usize].push(vn);
                }
            }
        }
        // The values extension operands carry have a dn too (the verifier
        // and the nearest-source check read it).
        for e in exts {
            for &v in &e.operand_values {
                if let Some(slot) = svfg.dn.get_mut(v.index()) {
                    *slot = dn.get(v.index()).copied().flatten();
                }
            }
        }
    }
    // ε of each candidate's ζ, by candidate index.
    let mut zeta_eps_at: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); n];
    let mut cand_dn: Vec<Node> = Vec::with_capacity(candidates.len());
    for (ci, &t) in candidates.iter().enumerate() {
        let d = dn[t.index()].unwrap_or(ctx.root);
        cand_dn.push(d);
        idf.frontier(d, frontier);
        for &y in frontier.iter() {
            zeta_eps_at[y as usize].push(ci as u32);
        }
    }
    let mut zeta_bad = vec![false; candidates.len()];

    // Regular phis by (value, node); extension phis by (operand value,
    // node, operand index): where a sub-value of an insertion comes from.
    let mut phi_of: FxHashMap<(u32, Node), u32> = FxHashMap::default();
    let mut ext_operand: FxHashMap<(u32, Node, u32), u32> = FxHashMap::default();
    for (i, p) in svfg.phis.iter().enumerate() {
        if p.is_extension() {
            for (k, v) in p.operand_values.iter().enumerate() {
                ext_operand.entry((v.0, p.node, k as u32)).or_insert(i as u32);
            }
        } else {
            phi_of.insert((p.value.0, p.node), i as u32);
        }
    }
    debug_assert!(stack.iter().all(Vec::is_empty) && avail.iter().all(Vec::is_empty), "a walk leaves no entry");
    let mut occurrences = Vec::new();
    // Undo log: (number, was a source push) per push.
    let mut undo: Vec<(u32, bool)> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    if only.is_none() {
        for &p in &flat.params {
            let vn = vns.of_value(p);
            if vn != ValueNumber::NONE {
                avail[vn.index()].push(p);
                undo.push((vn.0, false));
            }
        }
    }
    let mut work: Vec<(Node, bool)> = vec![(ctx.root, true)];
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
        for e in flat.positions(b) {
            let results = flat.results(e);
            if flat.is_computation(e) {
                let r = results[0];
                let vn = vns.of_value(r);
                if vn != ValueNumber::NONE
                    && follows(vn)
                    && matches!(vns.kind(vn), Some(ValueKind::Expr(_) | ValueKind::Load { .. }))
                {
                    if only.is_none() {
                        let repl = match stack[vn.index()].last() {
                            Some(Source::Real(v)) => Repl::Value(*v),
                            Some(Source::Phi(p)) => Repl::Phi(*p),
                            _ => Repl::Keep,
                        };
                        occurrences.push((flat.inst[e], repl));
                    }
                    stack[vn.index()].push(Source::Real(r));
                    undo.push((vn.0, true));
                }
            }
            if only.is_some() {
                continue; // a restricted build needs no insertion operands
            }
            for &r in results {
                let vn = vns.of_value(r);
                if vn != ValueNumber::NONE {
                    avail[vn.index()].push(r);
                    undo.push((vn.0, false));
                }
            }
        }
        let mut has_succ = false;
        for s in cfg.successors(b) {
            has_succ = true;
            for k in 0..ctx.preds[s as usize].len() {
                if ctx.preds[s as usize][k] != b {
                    continue;
                }
                for &p in &svfg.phis_at[s as usize] {
                    let phi = &svfg.phis[p as usize];
                    let (value, vn) = (phi.value, phi.operand_value(k));
                    let top = stack[vn.index()].last().copied().unwrap_or(Source::Bottom);
                    let args = if only.is_some() {
                        None
                    } else {
                        insert_args(vns, vn, value, s, k, avail, &phi_of, &ext_operand, &svfg.phis)
                    };
                    let phi = &mut svfg.phis[p as usize];
                    phi.sources[k] = top;
                    phi.insert_args[k] = args;
                }
            }
            // An extension phi at `s` consumes its operand's value on this
            // edge: a value transfer, not the end of that value's region.
            let consumed = |vn: ValueNumber| {
                !planted_uses_end_regions
                    && !ext_operand.is_empty()
                    && (0..ctx.preds[s as usize].len())
                        .any(|k| ctx.preds[s as usize][k] == b && ext_operand.contains_key(&(vn.0, s, k as u32)))
            };
            let mut ended: SmallVec<[u32; 4]> = SmallVec::new();
            for &vn in &svfg.eps_at[s as usize] {
                if let Some(Source::Phi(p)) = stack[vn.index()].last()
                    && !consumed(vn)
                {
                    ended.push(*p);
                }
            }
            for &ci in &zeta_eps_at[s as usize] {
                let ci = ci as usize;
                let t = candidates[ci];
                if stack[t.index()].is_empty() && dt.dominates(cand_dn[ci], b) && !consumed(t) {
                    zeta_bad[ci] = true;
                }
            }
            for p in ended {
                svfg.phis[p as usize].down_safe = false;
            }
        }
        if !has_succ {
            for &vn in &with_phis {
                if let Some(Source::Phi(p)) = stack[vn.index()].last() {
                    svfg.phis[*p as usize].down_safe = false;
                }
            }
            for (ci, &t) in candidates.iter().enumerate() {
                if stack[t.index()].is_empty() && dt.dominates(cand_dn[ci], b) {
                    zeta_bad[ci] = true;
                }
            }
        }
    }
    // The parameters' entries, pushed before the walk.
    while let Some((vn, src)) = undo.pop() {
        if src {
            stack[vn as usize].pop();
        } else {
            avail[vn as usize].pop();
        }
    }
    // Operands from unreachable predecessors.
    for phi in &mut svfg.phis {
        for (k, &p) in ctx.preds[phi.node as usize].iter().enumerate() {
            if !dt.is_reachable(p) {
                phi.sources[k] = Source::Unreachable;
            }
        }
    }
    Ok(Built { svfg, occurrences, zeta_bad })
}

/// Phi operands the SVFG may place per block, instruction and edge of the
/// function before [`build`] gives up ([`InputError::TooManyPhis`]).
const PHIS_PER_ITEM: u64 = 32;

/// The smallest phi budget, whatever the function's size.
const MIN_PHI_BUDGET: u64 = 1 << 21;

fn push_phi<G, O, I>(
    svfg: &mut Svfg,
    ctx: &Ctx<'_, G, O, I>,
    value: ValueNumber,
    x: Node,
    operand_values: SmallVec<[ValueNumber; 2]>,
) {
    let id = svfg.phis.len() as u32;
    let k = ctx.preds[x as usize].len();
    svfg.phis.push(SvfgPhi {
        value,
        node: x,
        operand_values,
        sources: SmallVec::from_elem(Source::Bottom, k),
        insert_args: SmallVec::from_elem(None, k),
        down_safe: true,
        can_be_avail: true,
        used: false,
    });
    svfg.phis_at[x as usize].push(id);
}

/// Where each operand of `vn` comes from for an insertion at the end of
/// the `k`-th predecessor of `s` (for a phi of `value`): an immediate, a
/// value available there, or the same operand of a phi of a smaller value
/// at `s` carrying the operand's value on that edge; `None` when one is
/// unavailable.
#[allow(clippy::too_many_arguments)]
fn insert_args<O: Key, I: Key>(
    vns: &ValueNumbers<O, I>,
    vn: ValueNumber,
    value: ValueNumber,
    s: Node,
    k: usize,
    avail: &[Vec<ValueId>],
    phi_of: &FxHashMap<(u32, Node), u32>,
    ext_operand: &FxHashMap<(u32, Node, u32), u32>,
    phis: &[SvfgPhi],
) -> Option<SmallVec<[ArgSource; 3]>> {
    let Some(ValueKind::Expr(key)) = vns.kind(vn) else { return None };
    let mut out: SmallVec<[ArgSource; 3]> = SmallVec::new();
    for &a in &key.args {
        if let Some(ValueKind::Const(_)) = vns.kind(a) {
            out.push(ArgSource::Imm);
        } else if let Some(&v) = avail[a.index()].last() {
            out.push(ArgSource::Value(v));
        } else {
            // A sub-value phi of a smaller value, so that the rewrite,
            // which goes value by value, has its edge value ready.
            let q = phi_of
                .get(&(a.0, s))
                .or_else(|| ext_operand.get(&(a.0, s, k as u32)))
                .copied()
                .filter(|&q| phis[q as usize].value < value)?;
            out.push(ArgSource::Phi(q));
        }
    }
    Some(out)
}
