//! Where phis go: the iterated dominance frontier of each var's defining
//! blocks (Cytron et al., 1991), restricted by a policy.
//!
//! Policies (Briggs, Cooper, Harvey and Simpson, "Practical improvements to
//! the construction and destruction of static single assignment form",
//! 1998):
//! - **minimal**: every defined var gets phis at IDF(defs);
//! - **semi-pruned** (the default; the DU-chain document's `global_prs`):
//!   only non-local vars, those read in a block before being defined there;
//!   a var used only where it is defined never needs a phi;
//! - **pruned**: the minimal set filtered by liveness, a phi only where its
//!   var is live on entry.
//!
//! The IDF of each var comes from `cfg_dom::Idf`: Cytron's worklist over
//! dominance frontier sets computed once, where per var the work is its
//! definitions plus its phis times their frontier sizes, so many vars cost
//! little each; or, when the frontier sets would be quadratic (deep loop
//! nests: 4.7 GB at depth 20,000), per-query dominator subtree walks
//! (`cfg_dom::IteratedFrontiers`), linear per query though slower per var
//! on long CFGs (see `docs/benchmarks.md`). Memory stays linear in the CFG
//! either way.
//!
//! Invariants: only reachable blocks receive phis; each block's list is
//! sorted by var id, so output is deterministic. Runs on any
//! [`cfg_dom::VarCode`] through a checked [`Input`]; the analyses handed
//! over with it (frontiers, facts, liveness) are checked to belong to it.

use crate::facts::VarFacts;
use cfg_dom::{DomTree, Graph, Idf, Input, InputError, Liveness, Node, VarCode, VarId, belongs, csr};

/// Which vars get phis.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Policy {
    /// Every defined var, at the IDF of its definitions.
    Minimal,
    /// Only non-local vars (the document's `global_prs`).
    #[default]
    SemiPruned,
    /// Only where the var is live on entry to the block.
    Pruned,
}

impl Policy {
    /// The CLI spelling: `minimal`, `semi-pruned`, `pruned`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Minimal => "minimal",
            Policy::SemiPruned => "semi-pruned",
            Policy::Pruned => "pruned",
        }
    }

    /// Parses the CLI spelling.
    pub fn from_name(s: &str) -> Option<Policy> {
        [Policy::Minimal, Policy::SemiPruned, Policy::Pruned].into_iter().find(|p| p.name() == s)
    }
}

/// The phis to insert: for each block, the vars that need one.
///
/// Lifecycle: [`PhiPlacement::new`], then [`PhiPlacement::compute`] per
/// function (reusing every buffer, the dominance frontiers' included), or
/// [`PhiPlacement::of`] for a one-off.
#[derive(Clone, Debug, Default)]
pub struct PhiPlacement {
    start: Vec<u32>,
    vars: Vec<VarId>,
    /// Scratch of one computation.
    idf: Idf,
    blocks: Vec<Node>,
    pairs: Vec<(Node, VarId)>,
}

impl PhiPlacement {
    /// An empty placement.
    pub fn new() -> PhiPlacement {
        PhiPlacement::default()
    }

    /// Places phis for the input under `policy`. `live` is needed (and only
    /// read) for [`Policy::Pruned`]; without it, pruned placement computes
    /// liveness itself. An error when `dt`, `facts` or `live` belong to
    /// another input.
    pub fn of<G: Graph, C: VarCode>(
        input: &Input<'_, G, C>,
        dt: &DomTree,
        facts: &VarFacts,
        policy: Policy,
        live: Option<&Liveness>,
    ) -> Result<PhiPlacement, InputError> {
        let mut p = PhiPlacement::new();
        p.compute(input, dt, facts, policy, live)?;
        Ok(p)
    }

    /// Empties the placement, keeping buffers.
    pub fn clear(&mut self) {
        self.start.clear();
        self.vars.clear();
        self.idf.clear();
    }

    /// [`PhiPlacement::of`], reusing this placement's buffers (its
    /// IDF index's included).
    pub fn compute<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        dt: &DomTree,
        facts: &VarFacts,
        policy: Policy,
        live: Option<&Liveness>,
    ) -> Result<(), InputError> {
        let mut idf = std::mem::take(&mut self.idf);
        let done = idf.compute(input.graph(), dt).map_err(InputError::from);
        let done = done.and_then(|()| self.place(input, &mut idf, facts, policy, live));
        self.idf = idf;
        done
    }

    /// Places phis given the IDF index `idf` of the input's graph
    /// (computed by the caller, who may time or reuse it), reusing
    /// buffers. On error the placement is left empty.
    pub fn place<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        idf: &mut Idf,
        facts: &VarFacts,
        policy: Policy,
        live: Option<&Liveness>,
    ) -> Result<(), InputError> {
        self.start.clear();
        self.vars.clear();
        let g = input.graph();
        let n = g.num_nodes();
        belongs("the iterated dominance frontiers", n, g.stamp(), idf.num_nodes(), idf.stamp())?;
        facts.check_owner(input)?;
        let mut owned = Liveness::new();
        let live = match (policy, live) {
            (Policy::Pruned, None) => {
                owned.compute_input(input);
                Some(&owned)
            }
            (_, l) => l,
        };
        if let (Policy::Pruned, Some(l)) = (policy, live) {
            input.owns("the liveness", l.num_blocks(), l.num_vars(), l.stamp())?;
        }
        let (blocks, pairs) = (&mut self.blocks, &mut self.pairs);
        pairs.clear();
        for v in 0..input.num_vars() as VarId {
            let wanted = match policy {
                Policy::SemiPruned => facts.is_non_local(v),
                Policy::Minimal | Policy::Pruned => facts.is_defined(v),
            };
            if !wanted {
                continue;
            }
            blocks.clear();
            idf.query(facts.def_blocks(v).iter().copied(), blocks);
            for &y in blocks.iter() {
                if policy != Policy::Pruned || live.is_some_and(|l| l.is_live_in(y, v)) {
                    pairs.push((y, v));
                }
            }
        }
        // Vars were visited in id order, so a stable bucket keeps each
        // block's list sorted.
        csr::bucket(n, pairs, &mut self.start, &mut self.vars);
        Ok(())
    }

    /// The vars needing a phi at the start of `b`, sorted by id.
    pub fn phis(&self, b: Node) -> &[VarId] {
        csr::row(&self.start, &self.vars, b as usize)
    }

    /// Total number of phis placed.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// True when no phi is needed.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Number of blocks covered (0 when empty).
    pub fn num_blocks(&self) -> usize {
        self.start.len().saturating_sub(1)
    }
}
