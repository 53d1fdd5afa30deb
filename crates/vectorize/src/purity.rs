//! Which nodes and lambdas may trap or fail to terminate (are not "pure",
//! in issue 14's words): the vectorizer turns an `if` with a batched
//! condition into a `select` only when both branches are pure, and masks
//! every impure node of a masked region so that an inactive lane can
//! neither trap nor loop.
//!
//! A node may trap when its operation does ([`Op::traps`]: integer
//! division and remainder, trapping conversions, `index`, `broadcast`,
//! `partition`, `assert`), when it is lifted and has two mapped
//! arguments (or one and an array mask), whose shapes may disagree, when it
//! is a `map` over two mapped arrays (whose lengths may disagree), when it
//! is a `while` (which may not terminate), or when it calls a lambda that
//! may trap. A lambda may trap when a node of its body may.
//!
//! Invariant: computed in one pass over lambdas from the innermost out (a
//! lambda's node is created inside its parent's body, after the parent,
//! so reverse creation order visits children first); no recursion.

use crate::graph::{Graph, Sym};
use crate::ops::Op;
use crate::schedule::{Schedule, StaleSchedule};

/// May-trap facts for one graph.
#[derive(Clone, Debug)]
pub struct Purity {
    lambdas: Vec<bool>,
    nodes: Vec<bool>,
}

impl Purity {
    /// Computes the facts; `sched` must be `g`'s, as it is now.
    pub fn new(g: &Graph, sched: &Schedule) -> Result<Purity, StaleSchedule> {
        sched.check(g)?;
        let mut lambdas = vec![false; g.lambdas().len()];
        let mut nodes = vec![false; g.len()];
        for i in (0..g.lambdas().len()).rev() {
            let mut any = false;
            for &s in sched.body_of(i) {
                let t = node_may_trap(g, s, &lambdas);
                nodes[s.index()] = t;
                any |= t;
            }
            lambdas[i] = any;
        }
        Ok(Purity { lambdas, nodes })
    }

    /// True when calling lambda `lam` may trap or not terminate.
    pub fn lambda_may_trap(&self, g: &Graph, lam: Sym) -> bool {
        match g.op(lam) {
            Some(Op::Lambda(i)) => self.lambdas.get(i as usize).copied().unwrap_or(true),
            _ => true,
        }
    }

    /// True when evaluating node `s` may trap or not terminate.
    pub fn node_may_trap(&self, g: &Graph, s: Sym) -> bool {
        self.nodes.get(s.index()).copied().unwrap_or_else(|| node_may_trap(g, s, &self.lambdas))
    }
}

fn lam_traps(g: &Graph, l: Sym, lambdas: &[bool]) -> bool {
    match g.op(l) {
        Some(Op::Lambda(i)) => lambdas.get(i as usize).copied().unwrap_or(true),
        _ => true,
    }
}

fn node_may_trap(g: &Graph, s: Sym, lambdas: &[bool]) -> bool {
    let Some(n) = g.node(s) else { return true };
    let args = g.args(s);
    match n.op {
        Op::Param(_) | Op::Lambda(_) | Op::Const(_) | Op::Array(_) | Op::Get(_) => false,
        Op::While => true,
        Op::Apply => args.first().is_none_or(|&l| lam_traps(g, l, lambdas)),
        Op::If => args.get(1..3).is_none_or(|ls| ls.iter().any(|&l| lam_traps(g, l, lambdas))),
        Op::Map => {
            let mapped = (1..args.len()).filter(|&i| !n.is_bcast(i)).count();
            mapped >= 2 || args.first().is_none_or(|&l| lam_traps(g, l, lambdas))
        }
        op => {
            if op.traps() {
                return true;
            }
            if n.depth == 0 {
                return false;
            }
            let mapped = (0..args.len()).filter(|&i| !n.is_bcast(i)).count();
            let array_mask = n.mask.and_then(|m| g.val_ty(m)).is_some_and(|t| t.depth > 0);
            mapped + usize::from(array_mask) >= 2
        }
    }
}
