//! DU/UD chains through SSA: the DU-chain document's method (digest §000),
//! fused into fewer, leaner passes (issue 18).
//!
//! 1. Input check and dominator tree of the CFG (`cfg-dom`, semi-NCA).
//! 2. **One walk** over the code (`walk.rs`): site numbering, var facts
//!    and the block-local part of renaming together. Uses of a var defined
//!    earlier in their block are resolved on the spot; only vars read
//!    before a definition in some block (*global* vars, the document's
//!    `global_prs`) go further.
//! 3. Phi placement for global vars only, semi-pruned (`place.rs`): the
//!    iterated dominance frontier of their definition blocks, by bitset
//!    frontiers on small graphs and `cfg_dom::Idf` on large ones. Skipped
//!    when the CFG has no join (and no edge back to the entry), or no var
//!    is global. Past a phi budget ([`ViaSsa::set_phi_budget`]), pruned
//!    instead (`cfg_dom::PrunedPhis`), with the same chains.
//! 4. Renaming of global vars by one dominator-tree walk (`resolve.rs`)
//!    that answers the walk's requests and fills the phis' operands,
//!    without reading instructions again.
//! 5. Folding (`fold.rs`): each use's value becomes the set of real
//!    definitions it stands for. Phi webs (strongly connected parts of the
//!    phi/guarded node graph) get one shared set each, found by an
//!    iterative Tarjan pass; rows are written straight into the chains.
//!
//! No per-variable pass over the function and no rescans: the work is the
//! function plus the phis of global vars plus the chains. A warm context
//! computing into a reused [`Chains`] ([`ViaSsa::compute_into`]) does no
//! heap allocation. Definitions and uses in unreachable blocks take no
//! part (see the crate doc for the semantics all methods implement). Runs
//! on any [`cfg_dom::VarCode`] and [`cfg_dom::Graph`], checked once
//! ([`cfg_dom::check_input`]).

use crate::chains::Chains;
use crate::fold::Fold;
use crate::laps::Laps;
use crate::place::{PhiFallback, Placement};
use crate::resolve::Resolve;
use crate::walk::Local;
use cfg_dom::{CsrGraph, DomTree, Graph, Input, InputBuffers, InputError, Node, VarCode};
use std::time::Duration;

/// Time spent in each phase of [`via_ssa_timed`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Phases {
    /// Input check, CFG graph (for Keel functions) and dominator tree.
    pub dominators: Duration,
    /// The one walk over the code: sites, var facts, block-local uses.
    pub walk: Duration,
    /// Dominance frontiers (bitsets on small graphs, `cfg_dom::Idf` on
    /// large ones).
    pub frontiers: Duration,
    /// Phi placement (iterated frontiers per global var).
    pub placement: Duration,
    /// The dominator-tree walk renaming global vars.
    pub renaming: Duration,
    /// Folding phis and links onto real definitions, and the DU side.
    pub folding: Duration,
}

impl Phases {
    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.dominators + self.walk + self.frontiers + self.placement + self.renaming + self.folding
    }
}

/// Sums phase by phase (totals over many functions).
impl std::ops::AddAssign for Phases {
    fn add_assign(&mut self, other: Phases) {
        self.dominators += other.dominators;
        self.walk += other.walk;
        self.frontiers += other.frontiers;
        self.placement += other.placement;
        self.renaming += other.renaming;
        self.folding += other.folding;
    }
}

/// Chains of `code` on its CFG `graph` through SSA (a fresh [`ViaSsa`];
/// reuse one across functions to keep its buffers). An error when the
/// input is malformed ([`cfg_dom::check_input`]).
pub fn via_ssa<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<Chains, InputError> {
    ViaSsa::new().compute(graph, code)
}

/// [`via_ssa`], with the time of each phase.
pub fn via_ssa_timed<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
    ViaSsa::new().compute_timed(graph, code)
}

/// The SSA method's working memory: the CFG (for Keel functions), the
/// checked input's arrays, dominator tree, the walk's product, placement,
/// renaming and folding buffers, kept across functions.
///
/// Lifecycle: [`ViaSsa::new`], then [`ViaSsa::compute`] (any IR) or
/// [`ViaSsa::compute_function`] (a Keel function, whose CFG the context
/// builds) per function. Only the returned [`Chains`] are allocated per
/// call once warm, and not even those with [`ViaSsa::compute_into`] /
/// [`ViaSsa::compute_function_into`] and a reused `Chains`: nothing of one
/// function's result stays in the context, so there is nothing to go
/// stale. [`ViaSsa::clear`] drops the contents but keeps the capacity.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir");
/// let (module, _) = ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
/// let (mut ours, mut baseline) = (defuse::ViaSsa::new(), defuse::Iterative::new());
/// let mut chains = defuse::Chains::new();
/// for (_, func) in module.functions() {
///     // Both contexts keep their buffers from one function to the next;
///     // `chains` is refilled in place.
///     ours.compute_function_into(func, &mut chains).unwrap();
///     assert_eq!(chains, baseline.compute_function(func).unwrap());
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ViaSsa {
    pub(crate) graph: CsrGraph,
    pub(crate) input: InputBuffers,
    pub(crate) core: Core,
}

/// Everything but the Keel CFG, so that it can be borrowed beside it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Core {
    dt: DomTree,
    local: Local,
    place: Placement,
    resolve: Resolve,
    fold: Fold,
}

impl ViaSsa {
    /// A context with empty buffers.
    pub fn new() -> ViaSsa {
        ViaSsa::default()
    }

    /// Empties every buffer, keeping its capacity.
    pub fn clear(&mut self) {
        self.graph.clear();
        let c = &mut self.core;
        c.dt.clear();
        c.local.clear();
        c.place.clear();
        c.resolve.clear();
        c.fold.clear();
    }

    /// Sets the phi budget, in phi operands (a phi counts one plus its
    /// predecessors; `None`, the default: `32 (blocks + instructions +
    /// edges)` of each function, at least 2^21). Semi-pruned placement
    /// that passes it stops the moment it does and places pruned phis
    /// instead (a phi only where its var is live-in, in time linear in the
    /// live ranges), which gives the same chains: the phis it leaves out
    /// are dead. `Some(0)` always places pruned phis.
    pub fn set_phi_budget(&mut self, max_operands: Option<u64>) {
        self.core.place.budget = max_operands;
    }

    /// `Some` when the last function's semi-pruned phis passed the phi
    /// budget and pruned phis were placed instead.
    pub fn phi_fallback(&self) -> Option<PhiFallback> {
        self.core.place.fallback
    }

    /// Chains of `code` on its CFG `graph` through SSA.
    pub fn compute<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<Chains, InputError> {
        let mut chains = Chains::new();
        self.compute_into(graph, code, &mut chains)?;
        Ok(chains)
    }

    /// [`ViaSsa::compute`], with the time of each phase (the clock is read
    /// only on this path and the other `_timed` one).
    pub fn compute_timed<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
        let mut chains = Chains::new();
        let phases = self.core.run(graph, code, &mut self.input, &mut chains, &mut Laps::start(true))?;
        Ok((chains, phases))
    }

    /// [`ViaSsa::compute`] into `chains`, reusing its buffers: no heap
    /// allocation once this context and `chains` are warm. On error,
    /// `chains` is left in an unspecified (but valid) state.
    pub fn compute_into<G: Graph, C: VarCode>(
        &mut self,
        graph: &G,
        code: &C,
        chains: &mut Chains,
    ) -> Result<(), InputError> {
        self.core.run(graph, code, &mut self.input, chains, &mut Laps::start(false)).map(|_| ())
    }
}

impl Core {
    pub(crate) fn run<G: Graph, C: VarCode>(
        &mut self,
        graph: &G,
        code: &C,
        buffers: &mut InputBuffers,
        chains: &mut Chains,
        laps: &mut Laps,
    ) -> Result<Phases, InputError> {
        let mut phases = Phases::default();
        let input = Input::new(graph, code, buffers)?;
        self.dt.compute(graph);
        let n = graph.num_nodes();
        // A foreign CFG may loop back to its entry: params then flow in
        // beside what comes back, through phis at the entry.
        let loop_entry = self.dt.root().is_some_and(|e| graph.predecessors(e).next().is_some());
        phases.dominators = laps.lap();

        let (sites, ud_start, ud) = chains.parts();
        sites.fill(&input);
        self.local.run(&input, &self.dt, loop_entry);
        phases.walk = laps.lap();

        // Without a join (a block with two predecessors) every dominance
        // frontier is empty, so no phi can be placed: straight-line and
        // tree-shaped functions, common in real code, skip both phases; so
        // do functions whose vars are all local to their blocks.
        let has_join = loop_entry || (0..n as Node).any(|v| graph.predecessors(v).nth(1).is_some());
        if has_join && self.local.num_global > 0 {
            self.place.frontiers(graph, &self.dt)?;
            phases.frontiers = laps.lap();
            self.place.place(&input, &self.dt, &self.local, loop_entry);
            phases.placement = laps.lap();
        } else {
            self.place.none(n);
        }

        if self.local.num_global > 0 {
            self.resolve.run(&input, &self.dt, &mut self.local, &self.place, loop_entry);
        } else {
            self.resolve.clear();
        }
        phases.renaming = laps.lap();

        self.fold.run(&self.local, &self.place, &self.resolve, ud_start, ud);
        chains.finish(code.code_stamp());
        phases.folding = laps.lap();
        Ok(phases)
    }
}
