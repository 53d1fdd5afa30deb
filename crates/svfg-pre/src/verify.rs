//! The SVFG verifier: the three conditions of source document 001 (semi form) and
//! the construction, recomputed slowly from their definitions.
//!
//! [`verify_svfg_of`] takes a function in SSA form (any IR implementing
//! [`crate::PreCode`], on its CFG), its value numbers and the semi-SVFG
//! built from them, and checks:
//!
//! 1. **SSA**: every value has one definition (and the input is well
//!    formed: the checks of [`crate::InputError`]).
//! 2. **No value transfer crosses a computation of the same value**: each
//!    phi operand's source dominates the end of its predecessor and is the
//!    nearest definition of the value there ([`Svfg::verify`]).
//! 3. **Every equality within one value number is connected** (the semi
//!    form): an operand is ζ (⊥) only if no computation and no phi of its
//!    value lies on the dominator-tree path from `dn(t)` to the end of the
//!    predecessor.
//!
//! and the construction: `dn(t)` is the deepest definition node of the
//! operands (a leaf's own definition node); the phis of `t` sit exactly at
//! `IDF(J0(t))` restricted to the nodes `dn(t)` strictly dominates, where
//! `J0(t)` holds the blocks computing `t` and the predecessors through
//! which an extension phi carries `t`; an extension phi of `t` sits at
//! `dn(t)`, a join, and its operand `k` carries `t` translated through the
//! `k`-th predecessor (recomputed here from the value kinds); ε_t sits
//! exactly at `DF(dn(t))` for each `t` with a phi.
//!
//! and the extension's end: unless it stopped at its round limit, no
//! value of B left unextended, among those whose extension could pay off
//! (some translation is computed in the function), has a semi movable
//! down-safe ζ. smds is
//! recomputed here from paths: a node's value (a phi's, or ζ_t's from
//! the start of `dn(t)`) is followed block by block until a computation
//! of it (fine), an exit or an edge into `DF(dn)` that no extension phi
//! consumes (not smds), or an edge into a phi taking the value on that
//! operand (a transfer); transfers into a node whose block is a DFS-tree
//! ancestor of (or equal to) the source's are ignored, the rest must lead
//! to smds nodes (a greatest fixpoint by worklist). Frontiers come from
//! the definition of R. Cytron, J. Ferrante, B. K. Rosen, M. N. Wegman and
//! F. K. Zadeck, "Efficiently computing static single assignment form and
//! the control dependence graph", ACM TOPLAS 1991 (`docs/references.md`):
//! `y ∈ DF(x)` iff `x` dominates a predecessor of `y` and does not strictly
//! dominate `y`, iterated by a plain worklist:
//! quadratic, for tests and fuzzing, independent of `cfg_dom::Idf`.
//!
//! Errors ([`SvfgError`]) name the condition broken (by the variant), the
//! phi, the node and the value number.

use crate::flat::Flat;
use crate::input::{Key, PreCode};
use crate::svfg::{Source, Svfg, SvfgError};
use crate::vn::{Args, ValueKind, ValueNumber, ValueNumbers, result_number};
use cfg_dom::{DomTree, Graph, Node};

/// `DF(x)` by Cytron et al.'s definition (module doc).
fn frontier(cfg: &impl Graph, dt: &DomTree, x: Node) -> Vec<Node> {
    let mut out = Vec::new();
    if !dt.is_reachable(x) {
        return out;
    }
    for y in 0..cfg.num_nodes() as Node {
        if !dt.is_reachable(y) || dt.strictly_dominates(x, y) {
            continue;
        }
        if cfg.predecessors(y).into_iter().any(|p| dt.is_reachable(p) && dt.dominates(x, p)) {
            out.push(y);
        }
    }
    out
}

/// `IDF(s)` by a worklist over [`frontier`], sorted.
fn iterated_frontier(cfg: &impl Graph, dt: &DomTree, s: &[Node]) -> Vec<Node> {
    let mut in_set = vec![false; cfg.num_nodes()];
    let mut work: Vec<Node> = s.to_vec();
    let mut out = Vec::new();
    while let Some(x) = work.pop() {
        for y in frontier(cfg, dt, x) {
            if !in_set[y as usize] {
                in_set[y as usize] = true;
                out.push(y);
                work.push(y);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Checks `svfg` (built from `code` on `graph`, numbered `vns`) against
/// the SVFG conditions and its construction (see the module doc).
pub fn verify_svfg_of<G: Graph, C: PreCode>(
    graph: &G,
    code: &C,
    vns: &ValueNumbers<C::Op, C::Imm>,
    svfg: &Svfg,
) -> Result<(), SvfgError> {
    // 1. SSA, and each value's definition node.
    let flat = Flat::new(graph, code).map_err(SvfgError::Input)?;
    let cfg = graph;
    let dt = DomTree::of(cfg);
    let entry = flat.entry;
    let preds: Vec<Vec<Node>> = (0..cfg.num_nodes() as Node).map(|n| cfg.predecessors(n).collect()).collect();

    // 2. Sources are the nearest definitions.
    svfg.verify(&dt, |n| preds.get(n as usize).map_or(0, Vec::len), |v| flat.def_node(v), |n, k| preds[n as usize][k])
        .map_err(SvfgError::Transfer)?;

    // dn(t), from the definition: a leaf's definition node (the entry for
    // a constant), the deepest of the operands' for an expression (operands
    // are smaller numbers, so one pass in order suffices).
    let nv = vns.len();
    let mut dn: Vec<Option<Node>> = vec![None; nv];
    for i in 0..nv {
        dn[i] = match vns.kind(ValueNumber(i as u32)) {
            Some(ValueKind::Const(_)) => Some(entry),
            Some(ValueKind::Opaque(v)) => flat.def_node(*v),
            Some(ValueKind::Phi(b, _)) => Some(*b),
            Some(ValueKind::Load { site, .. }) => flat.block_of(*site),
            Some(ValueKind::Expr(k)) => {
                let mut deepest = Some(entry);
                for a in &k.args {
                    let d = dn.get(a.index()).copied().flatten();
                    deepest = match (deepest, d) {
                        (Some(x), Some(y)) => Some(if dt.depth(y) > dt.depth(x) { y } else { x }),
                        _ => None,
                    };
                }
                deepest
            }
            None => None,
        };
    }

    // J0(t): the reachable blocks computing an insertable expression t.
    let mut j0: Vec<Vec<Node>> = vec![Vec::new(); nv];
    for n in 0..cfg.num_nodes() as Node {
        if !dt.is_reachable(n) {
            continue;
        }
        for e in flat.positions(n) {
            if !flat.is_computation(e) {
                continue;
            }
            let vn = result_number(vns, &flat, e);
            if vn != ValueNumber::NONE && vns.insertable(vn) && j0[vn.index()].last() != Some(&n) {
                j0[vn.index()].push(n);
            }
        }
    }

    let real = j0.clone();
    // The phis of each t (extension phis apart), and the ε of each t.
    let mut phi_nodes: Vec<Vec<Node>> = vec![Vec::new(); nv];
    let mut has_ext = vec![false; nv];
    for (i, phi) in svfg.phis.iter().enumerate() {
        if phi.value.index() >= nv {
            return Err(SvfgError::UnknownValue { node: phi.node, value: phi.value });
        }
        if !phi.is_extension() {
            phi_nodes[phi.value.index()].push(phi.node);
            continue;
        }
        if has_ext[phi.value.index()] {
            return Err(SvfgError::TwoExtensionPhis { value: phi.value });
        }
        has_ext[phi.value.index()] = true;
        let preds: &[Node] = &preds[phi.node as usize];
        let mut distinct: Vec<Node> = preds.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        if dn[phi.value.index()] != Some(phi.node) || distinct.len() < 2 {
            return Err(SvfgError::ExtensionNotAtJoin {
                phi: i as u32,
                value: phi.value,
                node: phi.node,
                dn: dn[phi.value.index()],
            });
        }
        for (k, &p) in preds.iter().enumerate() {
            if !dt.is_reachable(p) {
                continue;
            }
            let at = distinct.iter().position(|&x| x == p).unwrap_or(0);
            let want = translate(vns, &dn, phi.value, phi.node, at);
            if want != Some(phi.operand_value(k)) {
                return Err(SvfgError::ExtensionTranslation {
                    phi: i as u32,
                    value: phi.value,
                    operand: k,
                    carries: phi.operand_value(k),
                    pred: p,
                    translation: want,
                });
            }
            let v = phi.operand_value(k).index();
            if j0.get(v).is_some_and(|l| l.last() != Some(&p)) {
                j0[v].push(p);
                j0[v].sort_unstable();
                j0[v].dedup();
            }
        }
    }
    for t in 0..nv {
        let mut want: Vec<Node> = Vec::new();
        if !j0[t].is_empty()
            && let Some(d) = dn[t]
        {
            want = iterated_frontier(&cfg, &dt, &j0[t]).into_iter().filter(|&x| dt.strictly_dominates(d, x)).collect();
        }
        let mut have = phi_nodes[t].clone();
        have.sort_unstable();
        if have != want {
            return Err(SvfgError::PhiPlacement { value: ValueNumber(t as u32), have, want, dn: dn[t] });
        }
        let any = !have.is_empty() || has_ext[t];
        if any && svfg.dn.get(t).copied().flatten() != dn[t] {
            let have = svfg.dn.get(t).copied().flatten();
            return Err(SvfgError::WrongDn { value: ValueNumber(t as u32), have, want: dn[t] });
        }
        // ε_t at DF(dn(t)) exactly, for values with phis.
        let mut eps: Vec<Node> = (0..svfg.eps_at.len() as Node)
            .filter(|&n| svfg.eps_at[n as usize].contains(&ValueNumber(t as u32)))
            .collect();
        eps.sort_unstable();
        let want_eps = match dn[t] {
            Some(d) if any => {
                let mut f = frontier(&cfg, &dt, d);
                f.sort_unstable();
                f
            }
            _ => Vec::new(),
        };
        if eps != want_eps {
            return Err(SvfgError::EpsilonPlacement { value: ValueNumber(t as u32), have: eps, want: want_eps });
        }
    }

    extension_complete(&flat, cfg, &dt, vns, &dn, &j0, &real, svfg)?;

    // 3. A ζ operand has no definition of its value above it, below dn.
    for (i, phi) in svfg.phis.iter().enumerate() {
        for (k, s) in phi.sources.iter().enumerate() {
            if *s != Source::Bottom {
                continue;
            }
            let value = phi.operand_value(k);
            let Some(d) = dn.get(value.index()).copied().flatten() else { continue };
            let mut at = Some(preds[phi.node as usize][k]);
            while let Some(x) = at {
                let computes_here =
                    flat.positions(x).any(|e| flat.is_computation(e) && result_number(vns, &flat, e) == value);
                let phi_here = svfg.phis_at[x as usize].iter().any(|&j| svfg.phis[j as usize].value == value);
                if computes_here || phi_here {
                    return Err(SvfgError::ZetaBelowDefinition {
                        phi: i as u32,
                        value: phi.value,
                        node: phi.node,
                        operand: k,
                        operand_value: value,
                        defined_at: x,
                    });
                }
                if x == d {
                    break;
                }
                at = dt.idom(x);
            }
        }
    }
    Ok(())
}

/// `t`, an expression whose `dn` is the join `j`, translated through the
/// `at`-th distinct predecessor of `j`: a phi of `j` gives its operand, an
/// expression of `j` is rebuilt from its translated operands (and must
/// have a number), anything else is itself. Explicit stack.
fn translate<O: Key, I: Key>(
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    t: ValueNumber,
    j: Node,
    at: usize,
) -> Option<ValueNumber> {
    let mut memo: std::collections::HashMap<u32, Option<ValueNumber>> = std::collections::HashMap::new();
    let mut stack = vec![(t, false)];
    while let Some((a, expanded)) = stack.pop() {
        if memo.contains_key(&a.0) {
            continue;
        }
        let r = match vns.kind(a) {
            Some(ValueKind::Phi(b, args)) if *b == j => args.get(at).copied(),
            Some(ValueKind::Expr(key)) if dn.get(a.index()).copied().flatten() == Some(j) => {
                if !expanded {
                    stack.push((a, true));
                    stack.extend(key.args.iter().map(|&b| (b, false)));
                    continue;
                }
                let args: Option<Args> = key.args.iter().map(|b| memo.get(&b.0).copied().flatten()).collect();
                args.and_then(|args| vns.lookup_translation(a, args))
            }
            _ => Some(a),
        };
        memo.insert(a.0, r);
    }
    memo.get(&t.0).copied().flatten()
}

/// Whether `t` (an expression whose `dn` is the join `j`) translates
/// through every predecessor of `j` (the structural test of B).
fn translatable<O: Key, I: Key>(
    vns: &ValueNumbers<O, I>,
    dt: &DomTree,
    dn: &[Option<Node>],
    t: ValueNumber,
    j: Node,
    arity: usize,
) -> bool {
    let mut stack = vec![t];
    while let Some(a) = stack.pop() {
        let d = dn.get(a.index()).copied().flatten();
        match vns.kind(a) {
            Some(ValueKind::Const(_)) => {}
            Some(ValueKind::Phi(b, args)) if *b == j => {
                if args.len() != arity {
                    return false;
                }
            }
            Some(ValueKind::Expr(key)) if d == Some(j) => stack.extend(key.args.iter().copied()),
            _ => {
                if !d.is_some_and(|d| dt.strictly_dominates(d, j)) {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether some translation of `t` (in B at the join `j`) has the number
/// of a computation of the function (`real`): the builder's test of an
/// extension that can pay off (`extend.rs`), with the slow translation.
fn promising<O: Key, I: Key>(
    cfg: &impl Graph,
    dt: &DomTree,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    real: &[Vec<Node>],
    t: ValueNumber,
    j: Node,
) -> bool {
    let mut distinct: Vec<Node> = cfg.predecessors(j).collect();
    distinct.sort_unstable();
    distinct.dedup();
    cfg.predecessors(j).any(|p| {
        let at = distinct.iter().position(|&x| x == p).unwrap_or(0);
        dt.is_reachable(p)
            && translate(vns, dn, t, j, at).is_some_and(|tk| real.get(tk.index()).is_some_and(|r| !r.is_empty()))
    })
}

/// The extension's end (see the module doc).
#[allow(clippy::too_many_arguments)]
fn extension_complete<O: Key, I: Key>(
    flat: &Flat<O, I>,
    cfg: &impl Graph,
    dt: &DomTree,
    vns: &ValueNumbers<O, I>,
    dn: &[Option<Node>],
    j0: &[Vec<Node>],
    real: &[Vec<Node>],
    svfg: &Svfg,
) -> Result<(), SvfgError> {
    if svfg.extension_capped {
        return Ok(());
    }
    let nv = vns.len();
    let mut extended = vec![false; nv];
    for phi in svfg.phis.iter().filter(|p| p.is_extension()) {
        extended[phi.value.index()] = true;
    }
    // The values of B left unextended.
    let mut zetas: Vec<ValueNumber> = Vec::new();
    for t in 0..nv {
        let vn = ValueNumber(t as u32);
        let insertable = vns.insertable(vn);
        let Some(j) = dn[t] else { continue };
        if !insertable || extended[t] || j0[t].is_empty() || !dt.is_reachable(j) {
            continue;
        }
        let mut preds: Vec<Node> = cfg.predecessors(j).collect();
        preds.sort_unstable();
        preds.dedup();
        if preds.len() >= 2 && translatable(vns, dt, dn, vn, j, preds.len()) && promising(cfg, dt, vns, dn, real, vn, j)
        {
            zetas.push(vn);
        }
    }
    if zetas.is_empty() {
        return Ok(());
    }
    let dfs = cfg_dom::Dfs::of(cfg);
    // SVFG nodes: the phis, then the ζ of each value above. Each: (value,
    // block it starts at).
    let np = svfg.phis.len();
    let start: Vec<(ValueNumber, Node)> = svfg
        .phis
        .iter()
        .map(|p| (p.value, p.node))
        .chain(zetas.iter().map(|&t| (t, dn[t.index()].unwrap_or(0))))
        .collect();
    let mut bad = vec![false; start.len()];
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); np]; // phi -> nodes transferring into it (counted)
    for (x, &(v, d0)) in start.iter().enumerate() {
        let Some(dnv) = dn.get(v.index()).copied().flatten() else { continue };
        let mut seen = vec![false; cfg.num_nodes()];
        let mut work = vec![d0];
        seen[d0 as usize] = true;
        while let Some(n) = work.pop() {
            let computes = flat.positions(n).any(|e| flat.is_computation(e) && result_number(vns, flat, e) == v);
            if computes {
                continue;
            }
            let succs: Vec<Node> = cfg.successors(n).collect();
            if succs.is_empty() {
                bad[x] = true;
            }
            for s in succs {
                let preds: Vec<Node> = cfg.predecessors(s).collect();
                let takers: Vec<usize> = svfg.phis_at[s as usize]
                    .iter()
                    .map(|&y| y as usize)
                    .filter(|&y| {
                        let phi = &svfg.phis[y];
                        (0..preds.len()).any(|k| preds[k] == n && phi.operand_value(k) == v)
                    })
                    .collect();
                if !takers.is_empty() {
                    // desc(Def(x), Def(y)): Def(y) is an ancestor of Def(x).
                    if !dfs.is_ancestor(s, d0) {
                        for y in takers {
                            into[y].push(x);
                        }
                    }
                } else if !dt.strictly_dominates(dnv, s) {
                    bad[x] = true;
                } else if !seen[s as usize] {
                    seen[s as usize] = true;
                    work.push(s);
                }
            }
        }
    }
    let mut work: Vec<usize> = (0..np).filter(|&y| bad[y]).collect();
    while let Some(y) = work.pop() {
        for &x in &into[y] {
            if !bad[x] {
                bad[x] = true;
                if x < np {
                    work.push(x);
                }
            }
        }
    }
    for (i, &t) in zetas.iter().enumerate() {
        if !bad[np + i] {
            return Err(SvfgError::NotExtended { value: t, dn: dn[t.index()] });
        }
    }
    Ok(())
}
