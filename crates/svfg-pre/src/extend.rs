//! The extension step of source document 001 (step 4): semi movable down-safety
//! (smds) in one pass with the DFS-tree `desc` predicate, the set B, and
//! phi translation.
//!
//! **B** holds the insertable expression numbers `t` whose `dn(t)` is a
//! join with no phi of `t` (phis of `t` sit strictly below `dn(t)`, so
//! every `t` whose `dn` is a join qualifies) and that some node needs.
//! Such a `t` is computable only after a phi at `dn(t)`, so its value
//! flow breaks there: ζ_t stands for "not computed since `dn(t)`". We
//! take into B only the `t` that can be *translated* through each
//! predecessor `p_k` of `dn(t)`: every operand is a constant, a value
//! defined strictly above `dn(t)` (itself), a phi of `dn(t)` (its
//! operand for `p_k`) or an expression of B at the same node (translated
//! in turn). The translation `t_k` is interned as a value number
//! (`ValueNumbers::intern_translation`); it is new when nothing computes it.
//!
//! **smds** is the greatest fixpoint of: a node (a phi, or ζ_t of a
//! candidate) is smds when no ε node or exit is reached from it with its
//! value on top, and every value transfer `(x, k, y)` out of it leads to
//! an smds `y` — except the transfers with `desc(Def(x), Def(y))` (Def(x)
//! is Def(y) or a DFS-tree descendant of it: the flow runs around a loop),
//! which smds ignores. For each remaining transfer, `post(Def(x)) >
//! post(Def(y))` (DFS postorder: a transfer enters `Def(y)` through a
//! predecessor that `Def(x)` dominates, so either the edge is not a back
//! edge and `post(pred) > post(Def(y))`, or it is and `Def(x)`, being no
//! descendant of `Def(y)`, is a proper ancestor of it), so one pass in
//! increasing postorder of the definition nodes computes the fixpoint.
//!
//! **Extension**: each candidate `t` with smds(ζ_t) gets a phi at `dn(t)`
//! whose operand `k` carries `t_k`; the semi-SVFG is then rebuilt (steps
//! 201–205 for every value, the translated ones included, whose `J0` now
//! holds `p_k`), and the step repeats for the values of B not yet
//! extended, until none has smds(ζ_t) or [`MAX_ROUNDS`] rebuilds were
//! made (document 001 proves termination; the bound is ours, reported in
//! [`crate::Svfg::extension_capped`]). The exact mds and cus that follow
//! decide which extension phis pay off, so extending never makes a path
//! compute more.

use crate::construct::{Ctx, Extension, ExtraNeeds};
use crate::input::Key;
use crate::svfg::{Source, Svfg};
use crate::vn::{Args, ValueKind, ValueNumber, ValueNumbers};
use cfg_dom::{Dfs, Node};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The most rebuilds the extension makes.
pub const MAX_ROUNDS: u32 = 8;

/// Whether each value can be translated through the predecessors of its
/// `dn` (memoized: the answer depends on the value alone, since `dn` is
/// fixed by it).
pub(crate) struct Translatable {
    memo: Vec<u8>,
    /// Per value: whether [`promising`] holds (`UNKNOWN` until asked; it
    /// depends on the value alone, so it holds across rebuilds).
    promising: Vec<u8>,
}

const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;

impl Translatable {
    pub(crate) fn new() -> Translatable {
        Translatable { memo: Vec::new(), promising: Vec::new() }
    }

    /// Whether `t` (an expression whose `dn` is the join `j`) translates
    /// through every predecessor of `j`. Explicit stack: the depth of
    /// nested expressions never recurses.
    fn check<G, O: Key, I: Key>(
        &mut self,
        ctx: &Ctx<'_, G, O, I>,
        vns: &ValueNumbers<O, I>,
        dn: &[Option<Node>],
        t: ValueNumber,
        j: Node,
    ) -> bool {
        self.memo.resize(vns.len(), UNKNOWN);
        let distinct = ctx.distinct[j as usize].len();
        let mut stack: Vec<(ValueNumber, bool)> = vec![(t, false)];
        while let Some((a, expanded)) = stack.pop() {
            if self.memo[a.index()] != UNKNOWN {
                continue;
            }
            let Some(ValueKind::Expr(key)) = vns.kind(a) else {
                self.memo[a.index()] = NO;
                continue;
            };
            if !expanded {
                stack.push((a, true));
                for &b in &key.args {
                    if leaf_ok(ctx, vns, dn, b, j, distinct) == Some(false) {
                        self.memo[a.index()] = NO;
                    } else if leaf_ok(ctx, vns, dn, b, j, distinct).is_none() && self.memo[b.index()] == UNKNOWN {
                        stack.push((b, false));
                    }
                }
                continue;
            }
            let ok = key.args.iter().all(|&b| match leaf_ok(ctx, vns, dn, b, j, distinct) {
                Some(x) => x,
                None => self.memo[b.index()] == YES,
            });
            self.memo[a.index()] = if ok { YES } else { NO };
        }
        self.memo[t.index()] == YES
    }
}

/// For an operand `b` of an expression at the join `j`: `Some(true)` when
/// it translates as itself or as a phi operand, `Some(false)` when it
/// cannot, `None` when it is an expression of `j` to translate in turn.
fn leaf_ok<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    b: ValueNumber,
    j: Node,
    distinct: usize,
) -> Option<bool> {
    match vns.kind(b) {
        Some(ValueKind::Const(_)) => Some(true),
        Some(ValueKind::Phi(pb, args)) if *pb == j => Some(args.len() == distinct),
        Some(ValueKind::Expr(_)) if dn.get(b.index()).copied().flatten() == Some(j) => None,
        _ => Some(matches!(dn.get(b.index()).copied().flatten(), Some(d) if ctx.dt.strictly_dominates(d, j))),
    }
}

/// The distinct predecessors of `j`, sorted (the order of a phi value's
/// operands, see `vn.rs`).
pub(crate) fn distinct_preds(preds: &[Node]) -> SmallVec<[Node; 4]> {
    let mut v: SmallVec<[Node; 4]> = preds.iter().copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The values of B not yet extended (see the module doc) whose extension
/// can pay off ([`promising`]), in increasing order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn candidates<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    real: &[SmallVec<[Node; 2]>],
    extra: &ExtraNeeds,
    extended: &[bool],
    translatable: &mut Translatable,
    probes: &mut Probes,
) -> Vec<ValueNumber> {
    let mut out = Vec::new();
    translatable.promising.resize(vns.len(), UNKNOWN);
    for i in 0..vns.len() {
        let t = ValueNumber(i as u32);
        let needed = real.get(i).is_some_and(|r| !r.is_empty()) || extra.contains_key(&(i as u32));
        if !needed || extended.get(i).copied().unwrap_or(false) || !vns.insertable(t) {
            continue;
        }
        let Some(j) = dn.get(i).copied().flatten() else { continue };
        if !ctx.dt.is_reachable(j) || ctx.distinct[j as usize].len() < 2 {
            continue;
        }
        if translatable.promising[i] == UNKNOWN {
            let yes = translatable.check(ctx, vns, dn, t, j) && promising(ctx, vns, dn, probes, real, t, j);
            translatable.promising[i] = if yes { YES } else { NO };
        }
        if translatable.promising[i] == YES {
            out.push(t);
        }
    }
    out
}

/// The values a restricted build must follow so that smds of the
/// candidates' ζ is exact: the candidates, and, closed under consumption,
/// every extended value one of whose extension operands carries a value
/// already in the set (the transfers into that extension phi, and on
/// from it, belong to the smds of the carried value).
pub(crate) fn followed(nv: usize, candidates: &[ValueNumber], exts: &[Extension]) -> Vec<bool> {
    let mut consumers: FxHashMap<u32, SmallVec<[u32; 2]>> = FxHashMap::default();
    for e in exts {
        for v in &e.operand_values {
            if *v != e.value {
                consumers.entry(v.0).or_default().push(e.value.0);
            }
        }
    }
    let mut only = vec![false; nv];
    let mut work: Vec<u32> = candidates.iter().map(|t| t.0).collect();
    for &t in &work {
        only[t as usize] = true;
    }
    while let Some(v) = work.pop() {
        for &t in consumers.get(&v).into_iter().flatten() {
            if !only[t as usize] {
                only[t as usize] = true;
                work.push(t);
            }
        }
    }
    only
}

/// smds of each candidate's ζ (see the module doc): one pass over the phis
/// and ζ nodes in increasing postorder of their definition nodes.
pub(crate) fn smds_of_zetas(
    svfg: &Svfg,
    dfs: &Dfs,
    dn: &[Option<Node>],
    candidates: &[ValueNumber],
    zeta_bad: &[bool],
) -> Vec<bool> {
    let np = svfg.phis.len();
    let mut cand_of: FxHashMap<u32, u32> = FxHashMap::default();
    for (ci, t) in candidates.iter().enumerate() {
        cand_of.insert(t.0, ci as u32);
    }
    // Nodes 0..np are phis, np.. are the candidates' ζ.
    let def =
        |x: usize| -> Node { if x < np { svfg.phis[x].node } else { dn[candidates[x - np].index()].unwrap_or(0) } };
    // Value transfers out of each node: (x, y) with y a phi.
    let mut out: Vec<SmallVec<[u32; 2]>> = vec![SmallVec::new(); np + candidates.len()];
    for (y, phi) in svfg.phis.iter().enumerate() {
        for (k, s) in phi.sources.iter().enumerate() {
            let x = match *s {
                Source::Phi(q) => q as usize,
                Source::Bottom => match cand_of.get(&phi.operand_value(k).0) {
                    Some(&ci) => np + ci as usize,
                    None => continue,
                },
                _ => continue,
            };
            out[x].push(y as u32);
        }
    }
    let mut order: Vec<(u32, u32)> =
        (0..np + candidates.len()).filter_map(|x| dfs.post_number(def(x)).map(|post| (post, x as u32))).collect();
    order.sort_unstable();
    let mut smds: Vec<bool> =
        (0..np + candidates.len()).map(|x| if x < np { svfg.phis[x].down_safe } else { !zeta_bad[x - np] }).collect();
    for &(post, x) in &order {
        let x = x as usize;
        if !smds[x] {
            continue;
        }
        let dx = def(x);
        for &y in &out[x] {
            let dy = def(y as usize);
            // desc(Def(x), Def(y)): the flow goes around a loop; ignored.
            if dfs.is_ancestor(dy, dx) {
                continue;
            }
            debug_assert!(dfs.post_number(dy).is_some_and(|p| p < post), "one pass: successors come first");
            if !smds[y as usize] {
                smds[x] = false;
                break;
            }
        }
    }
    smds.split_off(np)
}

/// The extensions of `values` (each with smds(ζ_t)): the translation of
/// each through each predecessor of its `dn`, interned in `vns` (new
/// numbers get their `dn` appended to `dn`).
pub(crate) fn extend<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &mut ValueNumbers<O, I>,
    dn: &mut Vec<Option<Node>>,
    memo: &mut Translations,
    values: &[ValueNumber],
) -> Vec<Extension> {
    let mut exts = Vec::with_capacity(values.len());
    for &t in values {
        let Some(j) = dn[t.index()] else { continue };
        let distinct = &ctx.distinct[j as usize];
        let mut operand_values: SmallVec<[ValueNumber; 2]> = SmallVec::new();
        for &p in &ctx.preds[j as usize] {
            let tk = if ctx.dt.is_reachable(p) {
                let at = distinct.iter().position(|&b| b == p).unwrap_or(0);
                translate(ctx, vns, dn, memo, t, j, p, at)
            } else {
                t
            };
            operand_values.push(tk);
        }
        exts.push(Extension { value: t, node: j, operand_values });
    }
    exts
}

/// Translations made so far, per (value, join, predecessor): deterministic
/// given the value kinds, so they stay valid while numbers are added. The
/// join is part of the key: a phi of one join is itself at another join
/// that shares the predecessor.
pub(crate) type Translations = FxHashMap<(u32, Node, Node), ValueNumber>;

/// Whether extending `t` (in B, at the join `j`) can pay off: some
/// translation `t_k` has a number that a computation of the function
/// has (`real`). An extension none of whose operands can carry a computed
/// value only moves `t` up (and `properties.rs` would drop it); skipping
/// it keeps the candidates, and the rebuilds, few. A translation `t_k`
/// that is itself in B becomes a candidate of the next round once `t` is
/// extended (its `J0` then holds `p_k`), so chains of joins are still
/// followed, one round per join. Looks translations up ([`probe`]); numbers
/// nothing.
fn promising<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    probes: &mut Probes,
    real: &[SmallVec<[Node; 2]>],
    t: ValueNumber,
    j: Node,
) -> bool {
    ctx.preds[j as usize].iter().any(|&p| {
        if !ctx.dt.is_reachable(p) {
            return false;
        }
        let at = ctx.distinct[j as usize].iter().position(|&b| b == p).unwrap_or(0);
        probe(vns, dn, probes, t, j, p, at).is_some_and(|tk| real.get(tk.index()).is_some_and(|r| !r.is_empty()))
    })
}

/// Probes made so far, per (value, join, predecessor): the translation's
/// number if it has one.
pub(crate) type Probes = FxHashMap<(u32, Node, Node), Option<ValueNumber>>;

/// `t` translated through predecessor `p` (the `at`-th distinct one) of
/// the join `j` without numbering anything: the translation's number if it
/// exists already. Explicit stack, memoized.
#[allow(clippy::too_many_arguments)]
fn probe<O: Key, I: Key>(
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    probes: &mut Probes,
    t: ValueNumber,
    j: Node,
    p: Node,
    at: usize,
) -> Option<ValueNumber> {
    let mut stack: Vec<(ValueNumber, bool)> = vec![(t, false)];
    while let Some((a, expanded)) = stack.pop() {
        if probes.contains_key(&(a.0, j, p)) {
            continue;
        }
        let key = match vns.kind(a) {
            Some(ValueKind::Phi(pb, args)) if *pb == j => {
                probes.insert((a.0, j, p), args.get(at).copied());
                continue;
            }
            Some(ValueKind::Expr(key)) if dn.get(a.index()).copied().flatten() == Some(j) => key,
            _ => {
                probes.insert((a.0, j, p), Some(a));
                continue;
            }
        };
        if !expanded {
            stack.push((a, true));
            stack.extend(key.args.iter().filter(|b| !probes.contains_key(&(b.0, j, p))).map(|&b| (b, false)));
            continue;
        }
        let args: Option<Args> = key.args.iter().map(|b| probes.get(&(b.0, j, p)).copied().flatten()).collect();
        let found = args.and_then(|args| vns.lookup_translation(a, args));
        probes.insert((a.0, j, p), found);
    }
    probes.get(&(t.0, j, p)).copied().flatten()
}

/// `t` (translatable at the join `j`) translated through predecessor `p`,
/// the `at`-th distinct one. Explicit stack, memoized per (value, p).
#[allow(clippy::too_many_arguments)]
fn translate<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &mut ValueNumbers<O, I>,
    dn: &mut Vec<Option<Node>>,
    memo: &mut Translations,
    t: ValueNumber,
    j: Node,
    p: Node,
    at: usize,
) -> ValueNumber {
    let mut stack: Vec<(ValueNumber, bool)> = vec![(t, false)];
    while let Some((a, expanded)) = stack.pop() {
        if memo.contains_key(&(a.0, j, p)) {
            continue;
        }
        let operands = match vns.kind(a) {
            Some(ValueKind::Phi(pb, args)) if *pb == j => {
                memo.insert((a.0, j, p), args.get(at).copied().unwrap_or(a));
                continue;
            }
            Some(ValueKind::Expr(key)) if dn.get(a.index()).copied().flatten() == Some(j) => key.args.clone(),
            _ => {
                memo.insert((a.0, j, p), a);
                continue;
            }
        };
        if !expanded {
            stack.push((a, true));
            stack.extend(operands.iter().filter(|b| !memo.contains_key(&(b.0, j, p))).map(|&b| (b, false)));
            continue;
        }
        let args = operands.iter().map(|b| memo.get(&(b.0, j, p)).copied().unwrap_or(*b)).collect();
        let tk = vns.intern_translation(a, args).unwrap_or(a);
        while dn.len() < vns.len() {
            let i = dn.len();
            dn.push(dn_of_expr(ctx, vns, dn, ValueNumber(i as u32)));
        }
        memo.insert((a.0, j, p), tk);
    }
    memo.get(&(t.0, j, p)).copied().unwrap_or(t)
}

/// `dn` of an expression number: the deepest `dn` of its operands (they
/// all dominate the expression, so they lie on one tree path).
pub(crate) fn dn_of_expr<G, O: Key, I: Key>(
    ctx: &Ctx<'_, G, O, I>,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    v: ValueNumber,
) -> Option<Node> {
    let Some(ValueKind::Expr(k)) = vns.kind(v) else { return None };
    k.args.iter().try_fold(ctx.root, |acc, a| {
        let d = dn.get(a.index()).copied().flatten()?;
        Some(if ctx.dt.depth(d) >= ctx.dt.depth(acc) { d } else { acc })
    })
}
