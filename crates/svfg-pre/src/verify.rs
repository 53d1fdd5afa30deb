//! The SVFG verifier: the three conditions of digest §001 (semi form) and
//! the construction, recomputed slowly from their definitions.
//!
//! [`verify_svfg`] takes a function in SSA form, its value numbers and the
//! semi-SVFG built from them, and checks:
//!
//! 1. **SSA**: every var has one definition.
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
//! `IDF(J0(t))` restricted to the nodes `dn(t)` strictly dominates; ε_t
//! sits exactly at `DF(dn(t))` for each `t` with a phi. Frontiers come from
//! the textbook definition (`y ∈ DF(x)` iff `x` dominates a predecessor of
//! `y` and does not strictly dominate `y`), iterated by a plain worklist:
//! quadratic, for tests and fuzzing, independent of `cfg_dom::Idf`.
//!
//! Errors name the phi, the node and the value number.

use crate::svfg::{Source, Svfg, SvfgError};
use crate::vn::{ValueKind, ValueNumber, ValueNumbers, can_trap, is_computation};
use cfg_dom::{DomTree, Graph, Node};
use ir_core::entity::EntityRef;
use ir_core::{Function, block, node};

fn err<T>(msg: String) -> Result<T, SvfgError> {
    Err(SvfgError(msg))
}

/// `DF(x)` by the textbook definition.
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

/// Checks `svfg` (built from `func` and `vns`) against the SVFG conditions
/// and its construction (see the module doc).
pub fn verify_svfg(func: &Function, vns: &ValueNumbers, svfg: &Svfg) -> Result<(), SvfgError> {
    let cfg = func.cfg();
    let dt = DomTree::of(&cfg);
    let Some(entry) = func.entry_block().map(node) else { return err("the function has no blocks".into()) };

    // 1. SSA, and each var's definition node.
    let mut def: Vec<Option<Node>> = vec![None; func.num_vars()];
    for &p in func.params() {
        def[p.index()] = Some(entry);
    }
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            for &r in func.results(inst) {
                if def[r.index()].replace(node(b)).is_some() {
                    return err(format!("condition 1: {} is defined twice", func.var_name(r)));
                }
            }
        }
    }

    // 2. Sources are the nearest definitions.
    svfg.verify(
        &dt,
        |n| cfg.pred_slice(n).len(),
        |v| def.get(v.index()).copied().flatten(),
        |n, k| cfg.pred_slice(n)[k],
    )
    .map_err(|e| SvfgError(format!("condition 2: {e}")))?;

    // dn(t), from the definition: a leaf's definition node (the entry for
    // a constant), the deepest of the operands' for an expression (operands
    // are smaller numbers, so one pass in order suffices).
    let nv = vns.len();
    let mut dn: Vec<Option<Node>> = vec![None; nv];
    for i in 0..nv {
        dn[i] = match vns.kind(ValueNumber(i as u32)) {
            Some(ValueKind::Const(_)) => Some(entry),
            Some(ValueKind::Opaque(v)) => def.get(v.index()).copied().flatten(),
            Some(ValueKind::Phi(b, _)) => Some(node(*b)),
            Some(ValueKind::Load { site, .. }) => func.layout().inst_block(*site).map(node),
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
    for b in func.blocks() {
        let n = node(b);
        if !dt.is_reachable(n) {
            continue;
        }
        for inst in func.block_insts(b) {
            if !is_computation(func, inst) {
                continue;
            }
            let vn = vns.of_var(func.results(inst)[0]);
            let insertable = matches!(vns.kind(vn), Some(ValueKind::Expr(k)) if !can_trap(k.opcode));
            if vn != ValueNumber::NONE && insertable && j0[vn.index()].last() != Some(&n) {
                j0[vn.index()].push(n);
            }
        }
    }

    // The phis of each t, and the ε of each t.
    let mut phi_nodes: Vec<Vec<Node>> = vec![Vec::new(); nv];
    for phi in &svfg.phis {
        match phi_nodes.get_mut(phi.value.index()) {
            Some(list) => list.push(phi.node),
            None => return err(format!("phi at bb{} names value {} of no function value", phi.node, phi.value.0)),
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
            return err(format!(
                "construction: the phis of v{t} are at {have:?}, but IDF(J0) below dn = {:?} is {want:?}",
                dn[t]
            ));
        }
        if !have.is_empty() && svfg.dn.get(t).copied().flatten() != dn[t] {
            return err(format!("construction: dn(v{t}) is {:?}, not {:?}", svfg.dn.get(t), dn[t]));
        }
        // ε_t at DF(dn(t)) exactly, for values with phis.
        let mut eps: Vec<Node> = (0..svfg.eps_at.len() as Node)
            .filter(|&n| svfg.eps_at[n as usize].contains(&ValueNumber(t as u32)))
            .collect();
        eps.sort_unstable();
        let want_eps = match dn[t] {
            Some(d) if !have.is_empty() => {
                let mut f = frontier(&cfg, &dt, d);
                f.sort_unstable();
                f
            }
            _ => Vec::new(),
        };
        if eps != want_eps {
            return err(format!("construction: ε of v{t} is at {eps:?}, but DF(dn) is {want_eps:?}"));
        }
    }

    // 3. A ζ operand has no definition of its value above it, below dn.
    for (i, phi) in svfg.phis.iter().enumerate() {
        let Some(d) = dn[phi.value.index()] else { continue };
        for (k, s) in phi.sources.iter().enumerate() {
            if *s != Source::Bottom {
                continue;
            }
            let mut at = Some(cfg.pred_slice(phi.node)[k]);
            while let Some(x) = at {
                let computes_here = func
                    .block_insts(block(x))
                    .any(|inst| is_computation(func, inst) && vns.of_var(func.results(inst)[0]) == phi.value);
                let phi_here = svfg.phis_at[x as usize].iter().any(|&j| svfg.phis[j as usize].value == phi.value);
                if computes_here || phi_here {
                    return err(format!(
                        "condition 3: phi {i} of v{} at bb{} takes ζ from operand {k}, but bb{x} defines the value above it",
                        phi.value.0, phi.node
                    ));
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
