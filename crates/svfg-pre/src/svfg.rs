//! The semi-SVFG of digest §001 (steps 2–4) as a data structure: for each
//! value number `t` of an insertable expression, the node `dn(t)` after
//! which `t` is computable, the phis of `t` at `IDF(J0(t))` restricted to
//! the nodes `dn(t)` strictly dominates, the ε pseudo-phis at
//! `DF(dn(t))`, and the value transfers that the `Search` walk over the
//! dominator tree found (each phi operand's source: a real computation, a
//! phi of `t`, or ⊥ = ζ_t, "not computed since `dn(t)`"). Down-safety
//! (`mds`) and can-be-available (`cus` with the insertability of each
//! operand) are greatest fixpoints over this graph.
//!
//! Invariants (checked by [`Svfg::verify`]): every phi of `t` sits at a
//! node `dn(t)` strictly dominates and has one operand per CFG predecessor;
//! a source `Real(v)` or `Phi(ψ)` dominates the end of its predecessor and
//! is the nearest definition of `t` on the dominator-tree path (no value
//! transfer crosses a computation of the same value: SVFG condition 2).
//!
//! The extension step (digest §001 step 4, `extend.rs`) adds, for a value
//! `t` in B whose ζ_t is semi movable down-safe, one phi of `t` at `dn(t)`
//! itself whose operands carry the phi-translated values `t_i`
//! ([`SvfgPhi::operand_values`]); its sources are phis or computations of
//! `t_i`, and ζ_t no longer appears below `dn(t)`.
//!
//! The walk is an explicit-stack preorder walk of the dominator tree, so
//! its depth never recurses with the input.

use crate::input::ValueId;
use crate::vn::ValueNumber;
use cfg_dom::{DomTree, Node};
use smallvec::SmallVec;

/// Where a phi operand's value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Source {
    /// ζ_t: no computation of `t` reaches the end of the predecessor.
    Bottom,
    /// The predecessor is unreachable: any value will do.
    Unreachable,
    /// A phi of `t` (index into [`Svfg::phis`]), with no computation of
    /// `t` between it and the end of the predecessor.
    Phi(u32),
    /// A value holding `t` (a real computation, or a copy standing for one).
    Real(ValueId),
}

/// Where an operand of an inserted computation comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ArgSource {
    /// It is an immediate.
    Imm,
    /// A value available at the end of the predecessor.
    Value(ValueId),
    /// The same operand of the phi (index) of the sub-value at the same
    /// node: the sub-value is itself made available on that edge (the
    /// document's reuse of available sub-values).
    Phi(u32),
}

/// One phi of a value number `t`.
#[derive(Clone, Debug)]
pub struct SvfgPhi {
    /// The value number.
    pub value: ValueNumber,
    /// The node (CFG block) it sits at.
    pub node: Node,
    /// For a phi of the extension step (at `dn(t)`): the value each operand
    /// carries, `t` translated through that predecessor. Empty for a phi
    /// of `IDF(J0(t))`, whose operands all carry `t`.
    pub operand_values: SmallVec<[ValueNumber; 2]>,
    /// One source per CFG predecessor of `node`, in `pred_slice` order.
    pub sources: SmallVec<[Source; 2]>,
    /// For each operand, where each of `t`'s operands comes from for an
    /// insertion at the end of the predecessor, or `None` when one is
    /// unavailable there.
    pub insert_args: SmallVec<[Option<SmallVec<[ArgSource; 3]>>; 2]>,
    /// mds: every path from the phi computes `t` before leaving `dn(t)`'s
    /// region or the function.
    pub down_safe: bool,
    /// cus with insertability: the phi's value can be made available
    /// without making any path compute more.
    pub can_be_avail: bool,
    /// Some computation (or used phi) reads the phi's value.
    pub used: bool,
}

impl SvfgPhi {
    /// The value operand `k` carries: `t` itself, or its translation for a
    /// phi of the extension step.
    pub fn operand_value(&self, k: usize) -> ValueNumber {
        self.operand_values.get(k).copied().unwrap_or(self.value)
    }

    /// Whether the extension step placed this phi (at `dn(t)`).
    pub fn is_extension(&self) -> bool {
        !self.operand_values.is_empty()
    }
}

/// The semi-SVFG of one function.
#[derive(Clone, Debug, Default)]
pub struct Svfg {
    /// Per value number: `dn(t)` (for insertable expression numbers).
    pub dn: Vec<Option<Node>>,
    /// Every phi, grouped by value then by node.
    pub phis: Vec<SvfgPhi>,
    /// Per node: the phis at it.
    pub phis_at: Vec<SmallVec<[u32; 2]>>,
    /// Per node: the value numbers with an ε pseudo-phi there
    /// (`node ∈ DF(dn(t))`).
    pub eps_at: Vec<SmallVec<[ValueNumber; 2]>>,
    /// The values the extension step extended (one phi at `dn(t)` each),
    /// in the order it extended them.
    pub extended: Vec<ValueNumber>,
    /// How many times the semi-SVFG was rebuilt with new extensions.
    pub extension_rounds: u32,
    /// True when the extension stopped at its round limit with values
    /// still to extend (see `extend.rs`).
    pub extension_capped: bool,
}

/// A violated SVFG invariant, naming the phi.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SvfgError(pub String);

impl core::fmt::Display for SvfgError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SvfgError {}

impl Svfg {
    /// Checks the invariants of the module doc against the dominator tree
    /// and the definition node of each value (`def_node`), the predecessor
    /// counts (`num_preds`) and the predecessors (`pred(node, k)`).
    pub fn verify(
        &self,
        dt: &DomTree,
        num_preds: impl Fn(Node) -> usize,
        def_node: impl Fn(ValueId) -> Option<Node>,
        pred: impl Fn(Node, usize) -> Node,
    ) -> Result<(), SvfgError> {
        for (i, phi) in self.phis.iter().enumerate() {
            let Some(dn) = self.dn.get(phi.value.index()).copied().flatten() else {
                return Err(SvfgError(format!("phi {i} of value {} has no dn", phi.value.0)));
            };
            let placed_ok = if phi.is_extension() { dn == phi.node } else { dt.strictly_dominates(dn, phi.node) };
            if !placed_ok {
                return Err(SvfgError(format!(
                    "phi {i} at bb{} is misplaced for dn = bb{dn} (extension: {})",
                    phi.node,
                    phi.is_extension()
                )));
            }
            if phi.is_extension() && phi.operand_values.len() != phi.sources.len() {
                return Err(SvfgError(format!("extension phi {i} at bb{} lacks operand values", phi.node)));
            }
            if phi.sources.len() != num_preds(phi.node) {
                return Err(SvfgError(format!("phi {i} at bb{} has {} operands", phi.node, phi.sources.len())));
            }
            for (k, s) in phi.sources.iter().enumerate() {
                let p = pred(phi.node, k);
                let value = phi.operand_value(k);
                let at = match *s {
                    Source::Real(v) => def_node(v),
                    Source::Phi(j) => match self.phis.get(j as usize) {
                        Some(q) if q.value == value => Some(q.node),
                        _ => return Err(SvfgError(format!("phi {i} operand {k} names phi {j} of another value"))),
                    },
                    Source::Bottom | Source::Unreachable => None,
                };
                if let Some(d) = at
                    && !dt.dominates(d, p)
                {
                    return Err(SvfgError(format!("phi {i} operand {k}: source at bb{d} does not dominate bb{p}")));
                }
                // Nearest: no phi of the same value strictly between the
                // source and the predecessor on the dominator-tree path.
                let Some(dn_k) = self.dn.get(value.index()).copied().flatten() else {
                    return Err(SvfgError(format!("phi {i} operand {k} carries value {} with no dn", value.0)));
                };
                let from = at.unwrap_or(dn_k);
                for &j in self.phis_at_path(dt, from, p) {
                    let q = &self.phis[j as usize];
                    if q.value == value && q.node != from && Source::Phi(j) != *s {
                        return Err(SvfgError(format!("phi {i} operand {k} crosses phi {j} of the same value")));
                    }
                }
            }
        }
        Ok(())
    }

    fn phis_at_path<'a>(&'a self, dt: &DomTree, from: Node, to: Node) -> impl Iterator<Item = &'a u32> + 'a {
        let mut nodes = Vec::new();
        let mut n = Some(to);
        while let Some(x) = n {
            if x == from || !dt.dominates(from, x) {
                break;
            }
            nodes.push(x);
            n = dt.idom(x);
        }
        nodes.into_iter().flat_map(move |x| self.phis_at.get(x as usize).into_iter().flatten())
    }
}
