//! The semi-SVFG of source document 001 (steps 2–4) as a data structure: for each
//! value number `t` of an insertable expression, the node `dn(t)` after
//! which `t` is computable, the phis of `t` at `IDF(J0(t))` restricted to
//! the nodes `dn(t)` strictly dominates, the ε pseudo-phis at
//! `DF(dn(t))`, and the value transfers that the `Search` walk over the
//! dominator tree found (each phi operand's source: a real computation, a
//! phi of `t`, or ⊥ = ζ_t, "not computed since `dn(t)`"). Down-safety
//! (`mds`) and can-be-available (`cus` with the insertability of each
//! operand) are greatest fixpoints over this graph.
//!
//! Invariants (checked by [`Svfg::verify`], which names the phi and the
//! rule it breaks in a [`PhiError`]): every phi of `t` sits at a
//! node `dn(t)` strictly dominates and has one operand per CFG predecessor;
//! a source `Real(v)` or `Phi(ψ)` dominates the end of its predecessor and
//! is the nearest definition of `t` on the dominator-tree path (no value
//! transfer crosses a computation of the same value: SVFG condition 2).
//!
//! The extension step (source document 001 step 4, `extend.rs`) adds, for a value
//! `t` in B whose ζ_t is semi movable down-safe, one phi of `t` at `dn(t)`
//! itself whose operands carry the phi-translated values `t_i`
//! ([`SvfgPhi::operand_values`]); its sources are phis or computations of
//! `t_i`, and ζ_t no longer appears below `dn(t)`.
//!
//! The walk is an explicit-stack preorder walk of the dominator tree, so
//! its depth never recurses with the input.

use crate::flat::InputError;
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
    /// reuse of available sub-values of source document 001).
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

/// A violated invariant of one phi of a semi-SVFG (what [`Svfg::verify`]
/// checks: placement, operand count, and SVFG condition 2, each source
/// the nearest dominating definition). Phis are indices into
/// [`Svfg::phis`], operands positions in [`SvfgPhi::sources`], nodes CFG
/// blocks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PhiError {
    /// The phi's value has no `dn`.
    NoDn {
        /// The phi.
        phi: u32,
        /// Its value number.
        value: ValueNumber,
    },
    /// The phi is not strictly dominated by `dn` of its value (or, for an
    /// extension phi, not at `dn` itself).
    Misplaced {
        /// The phi.
        phi: u32,
        /// Where it sits.
        node: Node,
        /// `dn` of its value.
        dn: Node,
        /// Whether it is an extension phi.
        extension: bool,
    },
    /// An extension phi without one operand value per operand.
    MissingOperandValues {
        /// The phi.
        phi: u32,
        /// Where it sits.
        node: Node,
    },
    /// The phi does not have one operand per CFG predecessor.
    OperandCount {
        /// The phi.
        phi: u32,
        /// Where it sits.
        node: Node,
        /// Its operands.
        operands: usize,
        /// The predecessors of `node`.
        preds: usize,
    },
    /// An operand's source is a phi of another value (or no phi at all).
    ForeignSource {
        /// The phi.
        phi: u32,
        /// The operand.
        operand: usize,
        /// The phi the source names.
        source: u32,
    },
    /// An operand's source does not dominate the end of its predecessor.
    NotDominating {
        /// The phi.
        phi: u32,
        /// The operand.
        operand: usize,
        /// The source's node.
        source: Node,
        /// The predecessor.
        pred: Node,
    },
    /// An operand carries a value that has no `dn`.
    OperandWithoutDn {
        /// The phi.
        phi: u32,
        /// The operand.
        operand: usize,
        /// The value it carries.
        value: ValueNumber,
    },
    /// An operand's value transfer crosses another phi of the same value:
    /// its source is not the nearest definition.
    Crosses {
        /// The phi.
        phi: u32,
        /// The operand.
        operand: usize,
        /// The phi crossed.
        crossed: u32,
    },
}

impl core::fmt::Display for PhiError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PhiError::NoDn { phi, value } => write!(f, "phi {phi} of value {} has no dn", value.0),
            PhiError::Misplaced { phi, node, dn, extension } => {
                write!(f, "phi {phi} at bb{node} is misplaced for dn = bb{dn} (extension: {extension})")
            }
            PhiError::MissingOperandValues { phi, node } => {
                write!(f, "extension phi {phi} at bb{node} lacks operand values")
            }
            PhiError::OperandCount { phi, node, operands, .. } => {
                write!(f, "phi {phi} at bb{node} has {operands} operands")
            }
            PhiError::ForeignSource { phi, operand, source } => {
                write!(f, "phi {phi} operand {operand} names phi {source} of another value")
            }
            PhiError::NotDominating { phi, operand, source, pred } => {
                write!(f, "phi {phi} operand {operand}: source at bb{source} does not dominate bb{pred}")
            }
            PhiError::OperandWithoutDn { phi, operand, value } => {
                write!(f, "phi {phi} operand {operand} carries value {} with no dn", value.0)
            }
            PhiError::Crosses { phi, operand, crossed } => {
                write!(f, "phi {phi} operand {operand} crosses phi {crossed} of the same value")
            }
        }
    }
}

impl std::error::Error for PhiError {}

/// A semi-SVFG that breaks one of the SVFG conditions, its construction or
/// the extension's end ([`crate::verify_svfg_of`]), naming the condition
/// (by the variant), the phi, the node and the value number. Value numbers
/// print as `vN`, nodes as `bbN`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SvfgError {
    /// Condition 1, SSA: the input is malformed or not in SSA form.
    Input(InputError),
    /// Condition 2, no value transfer crosses a computation of the same
    /// value (and the phi invariants of [`Svfg::verify`]).
    Transfer(PhiError),
    /// Construction: a phi names a value number the function does not
    /// have.
    UnknownValue {
        /// The phi's node.
        node: Node,
        /// The value number.
        value: ValueNumber,
    },
    /// Construction: a value has two extension phis.
    TwoExtensionPhis {
        /// The value.
        value: ValueNumber,
    },
    /// Construction: an extension phi is not at `dn` of its value, or
    /// `dn` is not a join.
    ExtensionNotAtJoin {
        /// The phi.
        phi: u32,
        /// Its value.
        value: ValueNumber,
        /// Where it sits.
        node: Node,
        /// `dn` of its value, recomputed.
        dn: Option<Node>,
    },
    /// Construction: an extension phi's operand carries another value
    /// than its value translated through that predecessor.
    ExtensionTranslation {
        /// The phi.
        phi: u32,
        /// Its value.
        value: ValueNumber,
        /// The operand.
        operand: usize,
        /// The value the operand carries.
        carries: ValueNumber,
        /// The predecessor.
        pred: Node,
        /// The translation, recomputed (`None`: it has no number).
        translation: Option<ValueNumber>,
    },
    /// Construction: the phis of a value are not at `IDF(J0)` restricted
    /// to the nodes `dn` strictly dominates.
    PhiPlacement {
        /// The value.
        value: ValueNumber,
        /// The nodes of its phis.
        have: Vec<Node>,
        /// The nodes they must be at.
        want: Vec<Node>,
        /// `dn` of the value, recomputed.
        dn: Option<Node>,
    },
    /// Construction: the semi-SVFG's `dn` of a value with phis is not the
    /// recomputed one.
    WrongDn {
        /// The value.
        value: ValueNumber,
        /// The semi-SVFG's `dn`.
        have: Option<Node>,
        /// The recomputed `dn`.
        want: Option<Node>,
    },
    /// Construction: the ε pseudo-phis of a value are not at `DF(dn)`.
    EpsilonPlacement {
        /// The value.
        value: ValueNumber,
        /// The nodes of its ε.
        have: Vec<Node>,
        /// `DF(dn)`.
        want: Vec<Node>,
    },
    /// Condition 3, every equality within one value number is connected:
    /// an operand takes ζ although a computation or phi of its value lies
    /// on the dominator-tree path from `dn` to the predecessor.
    ZetaBelowDefinition {
        /// The phi.
        phi: u32,
        /// Its value.
        value: ValueNumber,
        /// Where it sits.
        node: Node,
        /// The operand taking ζ.
        operand: usize,
        /// The value the operand carries.
        operand_value: ValueNumber,
        /// The node defining it above the predecessor.
        defined_at: Node,
    },
    /// The extension's end: a value of B whose ζ is semi movable
    /// down-safe was not extended (and the extension did not stop at its
    /// round limit).
    NotExtended {
        /// The value.
        value: ValueNumber,
        /// Its `dn`.
        dn: Option<Node>,
    },
}

impl core::fmt::Display for SvfgError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SvfgError::Input(e) => write!(f, "condition 1: {e}"),
            SvfgError::Transfer(e) => write!(f, "condition 2: {e}"),
            SvfgError::UnknownValue { node, value } => {
                write!(f, "phi at bb{node} names value {} of no function value", value.0)
            }
            SvfgError::TwoExtensionPhis { value } => {
                write!(f, "construction: v{} has two extension phis", value.0)
            }
            SvfgError::ExtensionNotAtJoin { phi, value, node, dn } => {
                write!(f, "construction: extension phi {phi} of v{} at bb{node} is not at dn = {dn:?}, a join", value.0)
            }
            SvfgError::ExtensionTranslation { phi, value, operand, carries, pred, translation } => write!(
                f,
                "construction: extension phi {phi} of v{} operand {operand} carries v{}, but the translation \
                 through bb{pred} is {translation:?}",
                value.0, carries.0
            ),
            SvfgError::PhiPlacement { value, have, want, dn } => write!(
                f,
                "construction: the phis of v{} are at {have:?}, but IDF(J0) below dn = {dn:?} is {want:?}",
                value.0
            ),
            SvfgError::WrongDn { value, have, want } => {
                write!(f, "construction: dn(v{}) is {have:?}, not {want:?}", value.0)
            }
            SvfgError::EpsilonPlacement { value, have, want } => {
                write!(f, "construction: ε of v{} is at {have:?}, but DF(dn) is {want:?}", value.0)
            }
            SvfgError::ZetaBelowDefinition { phi, value, node, operand, operand_value, defined_at } => write!(
                f,
                "condition 3: phi {phi} of v{} at bb{node} takes ζ from operand {operand}, but bb{defined_at} \
                 defines v{} above it",
                value.0, operand_value.0
            ),
            SvfgError::NotExtended { value, dn } => write!(
                f,
                "extension: ζ of v{} at bb{dn:?} is semi movable down-safe, but v{} was not extended",
                value.0, value.0
            ),
        }
    }
}

impl std::error::Error for SvfgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SvfgError::Input(e) => Some(e),
            SvfgError::Transfer(e) => Some(e),
            _ => None,
        }
    }
}

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
    ) -> Result<(), PhiError> {
        for (i, phi) in self.phis.iter().enumerate() {
            let i = i as u32;
            let node = phi.node;
            let Some(dn) = self.dn.get(phi.value.index()).copied().flatten() else {
                return Err(PhiError::NoDn { phi: i, value: phi.value });
            };
            let extension = phi.is_extension();
            let placed_ok = if extension { dn == node } else { dt.strictly_dominates(dn, node) };
            if !placed_ok {
                return Err(PhiError::Misplaced { phi: i, node, dn, extension });
            }
            if extension && phi.operand_values.len() != phi.sources.len() {
                return Err(PhiError::MissingOperandValues { phi: i, node });
            }
            let preds = num_preds(node);
            if phi.sources.len() != preds {
                return Err(PhiError::OperandCount { phi: i, node, operands: phi.sources.len(), preds });
            }
            for (k, s) in phi.sources.iter().enumerate() {
                let p = pred(node, k);
                let value = phi.operand_value(k);
                let at = match *s {
                    Source::Real(v) => def_node(v),
                    Source::Phi(j) => match self.phis.get(j as usize) {
                        Some(q) if q.value == value => Some(q.node),
                        _ => return Err(PhiError::ForeignSource { phi: i, operand: k, source: j }),
                    },
                    Source::Bottom | Source::Unreachable => None,
                };
                if let Some(d) = at
                    && !dt.dominates(d, p)
                {
                    return Err(PhiError::NotDominating { phi: i, operand: k, source: d, pred: p });
                }
                // Nearest: no phi of the same value strictly between the
                // source and the predecessor on the dominator-tree path.
                let Some(dn_k) = self.dn.get(value.index()).copied().flatten() else {
                    return Err(PhiError::OperandWithoutDn { phi: i, operand: k, value });
                };
                let from = at.unwrap_or(dn_k);
                for &j in self.phis_at_path(dt, from, p) {
                    let q = &self.phis[j as usize];
                    if q.value == value && q.node != from && Source::Phi(j) != *s {
                        return Err(PhiError::Crosses { phi: i, operand: k, crossed: j });
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
