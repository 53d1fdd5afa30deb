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
//!   var is live on entry. Two ways, same phis: when the minimal phis fit
//!   the budget below and the liveness bit matrices fit
//!   [`PhiPlacement::liveness_cap`], the minimal set filtered by a
//!   `cfg_dom::Liveness` (fastest on ordinary functions: 64 vars per
//!   word); otherwise per var, in time linear in its live range, never
//!   through the full IDF or a blocks × vars matrix (`cfg_dom::PrunedPhis`).
//!
//! For minimal and semi-pruned placement, the IDF of each var comes from
//! `cfg_dom::Idf`: Cytron's worklist over dominance frontier sets computed
//! once, where per var the work is its definitions plus its phis times
//! their frontier sizes, so many vars cost little each; or, when the
//! frontier sets would be quadratic (deep loop nests: 4.7 GB at depth
//! 20,000), per-query dominator subtree walks
//! (`cfg_dom::IteratedFrontiers`), linear per query though slower per var
//! on long CFGs (see `docs/benchmarks.md`).
//!
//! **Budget.** Their output can still be quadratic: a nest of `d` loops
//! whose every header defines a var used in its latch gets `d²/2`
//! semi-pruned phis, none of them live (issue 30: 5·10^7 phis at depth
//! 10,000, an allocation abort in renaming). So minimal and semi-pruned
//! placement count phi operands (a phi: one plus its predecessors) against
//! a budget ([`PhiPlacement::set_budget`]; by default
//! [`PhiPlacement::default_budget`], proportional to the function's size)
//! and, the moment they pass it, stop and place pruned phis instead,
//! recording a [`Fallback`]. Falling back rather than failing keeps every
//! client working: the phis left out are dead, so every use keeps its
//! reaching definition (the DU chains are the same; a test checks it).
//!
//! Invariants: only reachable blocks receive phis; each block's list is
//! sorted by var id, so output is deterministic; memory stays linear in the
//! CFG plus the phis placed, which the budget bounds for the two policies
//! that could place dead ones. Runs on any [`cfg_dom::VarCode`] through a
//! checked [`Input`]; the analyses handed over with it (frontiers, facts,
//! liveness) are checked to belong to it.

use crate::facts::VarFacts;
use cfg_dom::{DomTree, Graph, Idf, Input, InputError, Liveness, Node, PrunedPhis, VarCode, VarId, belongs, csr};

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
    /// The phi budget of minimal and semi-pruned placement (`None`: the
    /// default, [`PhiPlacement::default_budget`] of each input).
    budget: Option<u64>,
    /// Set when the last placement exceeded its budget and placed pruned
    /// phis instead.
    fallback: Option<Fallback>,
    /// Scratch of one computation.
    idf: Idf,
    blocks: Vec<Node>,
    pairs: Vec<(Node, VarId)>,
    pruned: PrunedPhis,
    /// The dominator tree pruned placement needs when the caller gave none.
    dt: DomTree,
}

/// What a placement that exceeded its phi budget did instead: pruned
/// placement, which inserts no dead phi (see [`PhiPlacement::set_budget`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Fallback {
    /// The policy asked for (minimal or semi-pruned).
    pub policy: Policy,
    /// Phi operands (each phi counts one plus its predecessors) that policy
    /// had placed when it passed the budget: a lower bound of its total.
    pub operands: u64,
    /// The budget it passed.
    pub budget: u64,
}

impl PhiPlacement {
    /// An empty placement.
    pub fn new() -> PhiPlacement {
        PhiPlacement::default()
    }

    /// The default phi budget of a function with `blocks` blocks, `insts`
    /// instructions and `edges` CFG edges, in phi operands (a phi counts
    /// one plus its predecessors): `32 (blocks + insts + edges)`, at least
    /// 2^21. Ordinary programs place far fewer (their semi-pruned phis are
    /// a small multiple of their joins); a deep loop nest whose levels each
    /// define a var would place a quadratic number.
    pub fn default_budget(blocks: usize, insts: usize, edges: usize) -> u64 {
        PrunedPhis::default_budget(blocks, insts, edges)
    }

    /// Sets the phi budget of minimal and semi-pruned placement, in phi
    /// operands (`None`: [`PhiPlacement::default_budget`] of each input).
    /// Placement that would pass it stops as soon as it does, places
    /// pruned phis instead (in time linear in the live ranges), and
    /// records it ([`PhiPlacement::fallback`]). The renaming of either
    /// placement gives every use the same reaching definition: the phis
    /// pruned placement leaves out are dead. Pruned placement places only
    /// phis some use needs, whatever the budget; the budget only decides
    /// how it finds them (past it, by the per-var walks).
    pub fn set_budget(&mut self, max_operands: Option<u64>) {
        self.budget = max_operands;
    }

    /// The budget set by [`PhiPlacement::set_budget`].
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// `Some` when the last placement passed its budget and placed pruned
    /// phis instead of the policy asked for.
    pub fn fallback(&self) -> Option<Fallback> {
        self.fallback
    }

    /// Places phis for the input under `policy`, within the default budget
    /// (see [`PhiPlacement::set_budget`]). `live` is optional and only read
    /// for [`Policy::Pruned`]: without it, pruned placement computes the
    /// liveness itself, or the live ranges per var when the minimal phis
    /// pass the budget or the liveness matrices would pass
    /// [`PhiPlacement::liveness_cap`]. An error when `dt`, `facts` or
    /// `live` belong to another input.
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
        self.fallback = None;
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
        let done = done.and_then(|()| self.place_in(input, &mut idf, Some(dt), facts, policy, live));
        self.idf = idf;
        done
    }

    /// Places phis given the IDF index `idf` of the input's graph
    /// (computed by the caller, who may time or reuse it), reusing
    /// buffers, within the budget (see [`PhiPlacement::set_budget`]).
    /// Pruned placement, and a fallback to it, compute the input's
    /// dominator tree (kept for the next call). On error the placement is
    /// left empty.
    pub fn place<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        idf: &mut Idf,
        facts: &VarFacts,
        policy: Policy,
        live: Option<&Liveness>,
    ) -> Result<(), InputError> {
        self.place_in(input, idf, None, facts, policy, live)
    }

    /// [`PhiPlacement::place`], with the dominator tree when the caller
    /// has it (pruned placement computes one otherwise).
    fn place_in<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        idf: &mut Idf,
        dt: Option<&DomTree>,
        facts: &VarFacts,
        policy: Policy,
        live: Option<&Liveness>,
    ) -> Result<(), InputError> {
        self.start.clear();
        self.vars.clear();
        self.fallback = None;
        let g = input.graph();
        let n = g.num_nodes();
        belongs("the iterated dominance frontiers", n, g.stamp(), idf.num_nodes(), idf.stamp())?;
        facts.check_owner(input)?;
        if let (Policy::Pruned, Some(l)) = (policy, live) {
            input.owns("the liveness", l.num_blocks(), l.num_vars(), l.stamp())?;
        }
        self.pairs.clear();
        let within = match policy {
            Policy::Pruned => self.place_pruned_dense(input, idf, facts, live),
            Policy::Minimal | Policy::SemiPruned => match self.place_budgeted(input, idf, facts, policy, None) {
                Ok(()) => true,
                Err((operands, budget)) => {
                    self.fallback = Some(Fallback { policy, operands, budget });
                    false
                }
            },
        };
        if !within {
            self.pairs.clear();
            let dt = match dt {
                Some(dt) => dt,
                None => {
                    self.dt.compute(g);
                    &self.dt
                }
            };
            self.pruned.place(input, dt, |v| facts.def_blocks(v), |v| facts.is_defined(v), &mut self.pairs);
        }
        // Vars were visited in id order, so a stable bucket keeps each
        // block's list sorted.
        csr::bucket(n, &self.pairs, &mut self.start, &mut self.vars);
        Ok(())
    }

    /// Pruned placement the dense way, when it is cheap: a bit-matrix
    /// liveness (the caller's, or one computed here when its matrices fit
    /// [`PhiPlacement::liveness_cap`]), then the minimal phis within the
    /// budget, each kept when its var is live-in. On ordinary functions
    /// this is the fastest (the liveness handles 64 vars per word); false,
    /// with `pairs` to be cleared, when either bound is passed, and then
    /// the per-var sparse placement runs instead (the same phis).
    fn place_pruned_dense<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        idf: &mut Idf,
        facts: &VarFacts,
        live: Option<&Liveness>,
    ) -> bool {
        let size = PhiPlacement::size(input);
        let bytes = Liveness::matrix_bytes(input.num_blocks(), input.num_vars());
        if live.is_none() && bytes > PhiPlacement::liveness_cap(size) {
            return false;
        }
        // Dropped on return, before renaming allocates: not kept as a
        // buffer (its matrices are the largest allocation here).
        let mut owned = Liveness::new();
        let live = match live {
            Some(l) => l,
            None => {
                owned.compute_input(input);
                &owned
            }
        };
        self.place_budgeted(input, idf, facts, Policy::Minimal, Some(live)).is_ok()
    }

    /// Blocks + instructions + edges of the input.
    fn size<G: Graph, C: VarCode>(input: &Input<'_, G, C>) -> (usize, usize, usize) {
        let g = input.graph();
        let edges: usize = (0..g.num_nodes() as Node).map(|b| g.successors(b).count()).sum();
        (g.num_nodes(), input.num_insts(), edges)
    }

    /// Most bytes of liveness matrices pruned placement computes for a
    /// function of `(blocks, insts, edges)` before it switches to its
    /// per-var walks: 256 bytes per block, instruction and edge, at least
    /// 64 MiB.
    pub fn liveness_cap((blocks, insts, edges): (usize, usize, usize)) -> u64 {
        let size = (blocks as u64).saturating_add(insts as u64).saturating_add(edges as u64);
        size.saturating_mul(256).max(64 << 20)
    }

    /// Minimal or semi-pruned placement into `pairs` (only the phis whose
    /// var is live-in by `keep`, when given), counting the operands of
    /// every phi of the policy against the budget: `Err((operands,
    /// budget))` as soon as they pass it.
    fn place_budgeted<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        idf: &mut Idf,
        facts: &VarFacts,
        policy: Policy,
        keep: Option<&Liveness>,
    ) -> Result<(), (u64, u64)> {
        let g = input.graph();
        let budget = self.budget.unwrap_or_else(|| {
            let (blocks, insts, edges) = PhiPlacement::size(input);
            PhiPlacement::default_budget(blocks, insts, edges)
        });
        let (blocks, pairs) = (&mut self.blocks, &mut self.pairs);
        let mut operands = 0u64;
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
                operands = operands.saturating_add(1 + g.predecessors(y).count() as u64);
                if operands > budget {
                    return Err((operands, budget));
                }
                if keep.is_none_or(|l| l.is_live_in(y, v)) {
                    pairs.push((y, v));
                }
            }
        }
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
