//! Phi placement for the SSA method's global vars: the iterated dominance
//! frontier of each global var's definition blocks (Cytron et al., 1991),
//! semi-pruned (Briggs, Cooper, Harvey and Simpson, SPE 1998: vars never read before a definition in
//! their block get none, and here never even reach this module).
//!
//! Semi-pruned, not pruned (a phi only where its var is live), by
//! measurement (`docs/benchmarks-defuse.md`, run 10): most placed phis are
//! dead (24-31% reached on the corpus modules, 60-77% on the generated
//! grids), yet placing only the phis a use reaches, told by an oracle at
//! no cost, saves at most 2.3% of the method on the grids and 1.4-3.9% on
//! the corpus, while the liveness a real pruning needs is 1.4-2.0
//! (block, var) pairs per instruction on the corpus and 20-312 on the
//! grids.
//!
//! Two ways, picked by the graph's size:
//! - **small graphs** (at most [`SMALL_BLOCKS`] nodes): the dominance
//!   frontier of each node as a bitset over nodes, built by the runner walk
//!   of Cooper, Harvey and Kennedy (2001), then per var Cytron's worklist on
//!   bitsets (`df[x] & !placed` a word at a time). No CSR, no sort, nothing
//!   allocated once warm; this is where real code lives (the corpus's
//!   functions average 17–18 blocks).
//! - **larger graphs**: `cfg_dom::Idf` (frontier sets within a linear
//!   budget, subtree walks past it: memory linear in the CFG on every
//!   input, deep loop nests included).
//!
//! **A phi budget.** Semi-pruned placement can place a quadratic number of
//! phis, nearly all dead: in a loop nest whose every level's header
//! defines a var read in its latch, each level's var gets a phi at every
//! enclosing header (issue 30: 5·10^7 phis and 2.4 GB at depth 10,000).
//! So the phis' operands (each phi counts one plus its predecessors) are
//! counted as they are placed against a budget
//! ([`crate::ViaSsa::set_phi_budget`]; by default `32 (blocks + insts +
//! edges)`, at least 2^21, as `keel-ssa`'s); the moment they pass it,
//! placement starts over with pruned phis only (`cfg_dom::PrunedPhis`: a
//! phi where its var is live-in, found by per-var walks over its live
//! range) and records it ([`crate::ViaSsa::phi_fallback`]). The chains are
//! the same either way: the phis pruning leaves out are dead, and folding
//! maps the live ones to the same definitions. Real code never gets near
//! the budget (the corpus's semi-pruned phis are about one per join and
//! global var), so the document's method and its figures are unchanged.
//!
//! The threshold is chosen, not swept: the frontier bitsets take `n²/64`
//! words, 1,024 words (8 KiB, in L1) at 256 nodes, and nearly every
//! corpus function is far below it. The before/after figures of the whole
//! design are in `docs/benchmarks-defuse.md` (issue 18); a sweep of the
//! threshold alone has not been recorded.
//!
//! Invariants: only reachable blocks receive phis; within the budget the
//! phis are exactly the semi-pruned ones, past it exactly the pruned ones;
//! each block's phis are sorted by var, phis numbered in block order then
//! var order (so output is deterministic); when the entry has
//! predecessors, it gets a phi for every global var (its value on entry
//! merges the params with what loops back).

use crate::walk::Local;
use cfg_dom::{DomTree, Graph, Idf, Input, Mismatch, Node, PrunedPhis, VarCode, VarId};

/// What [`crate::ViaSsa`]'s last placement did when its semi-pruned phis passed
/// the phi budget: it placed pruned phis instead (see
/// [`crate::ViaSsa::set_phi_budget`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct PhiFallback {
    /// Phi operands (a phi counts one plus its predecessors) placed when
    /// the budget was passed: a lower bound of the semi-pruned total.
    pub operands: u64,
    /// The budget passed.
    pub budget: u64,
}

/// Graphs with at most this many nodes use bitset frontiers.
pub(crate) const SMALL_BLOCKS: usize = 256;

/// Where the phis go, and the scratch to compute it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Placement {
    /// Phis by block: `phi_var[phi_start[b]..phi_start[b + 1]]`.
    pub(crate) phi_start: Vec<u32>,
    pub(crate) phi_var: Vec<VarId>,
    idf: Idf,
    /// Per global var (CSR by var): its definition blocks, in order.
    def_start: Vec<u32>,
    def_blocks: Vec<Node>,
    def_pairs: Vec<(VarId, Node)>,
    pairs: Vec<(Node, VarId)>,
    out: Vec<Node>,
    /// Small graphs: per node its frontier, `words` words each; per query
    /// the placed, queued and work sets.
    df: Vec<u64>,
    sets: Vec<u64>,
    /// The phi budget in operands (`None`: `PrunedPhis::default_budget`).
    pub(crate) budget: Option<u64>,
    /// Set when the last placement passed its budget.
    pub(crate) fallback: Option<PhiFallback>,
    pruned: PrunedPhis,
}

impl Placement {
    /// Empties the placement, keeping buffers.
    pub(crate) fn clear(&mut self) {
        self.phi_start.clear();
        self.phi_var.clear();
        self.idf.clear();
        self.fallback = None;
    }

    /// No phi anywhere, for `n` blocks.
    pub(crate) fn none(&mut self, n: usize) {
        self.fallback = None;
        self.phi_start.clear();
        self.phi_start.resize(n + 1, 0);
        self.phi_var.clear();
    }

    /// Number of phis placed.
    pub(crate) fn len(&self) -> usize {
        self.phi_var.len()
    }

    /// The phis of block `b` (a range of phi numbers).
    #[inline]
    pub(crate) fn phis(&self, b: Node) -> core::ops::Range<u32> {
        self.phi_start[b as usize]..self.phi_start[b as usize + 1]
    }

    /// The dominance frontiers of `g`: bitsets when it is small, else
    /// `cfg_dom::Idf`'s.
    pub(crate) fn frontiers<G: Graph>(&mut self, g: &G, dt: &DomTree) -> Result<(), Mismatch> {
        if g.num_nodes() <= SMALL_BLOCKS {
            self.small_frontiers(g, dt);
            Ok(())
        } else {
            self.idf.compute(g, dt)
        }
    }

    /// Places phis for the global vars of `local` (after
    /// [`Placement::frontiers`] on the same graph): semi-pruned within the
    /// budget, pruned past it.
    pub(crate) fn place<G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        dt: &DomTree,
        local: &Local,
        loop_entry: bool,
    ) {
        let g = input.graph();
        let n = g.num_nodes();
        self.def_blocks_of_globals(n, local);
        self.pairs.clear();
        self.fallback = None;
        let budget = self.budget.unwrap_or_else(|| {
            let edges = (0..n as Node).map(|b| g.predecessors(b).count()).sum();
            PrunedPhis::default_budget(n, input.num_insts(), edges)
        });
        let within =
            if n <= SMALL_BLOCKS { self.place_small(g, n, local, budget) } else { self.place_large(g, local, budget) };
        if let Err(operands) = within {
            self.fallback = Some(PhiFallback { operands, budget });
            self.pairs.clear();
            let (start, blocks) = (&self.def_start, &self.def_blocks);
            self.pruned.place(
                input,
                dt,
                |v| cfg_dom::csr::row(start, blocks, v as usize),
                |v| local.global[v as usize],
                &mut self.pairs,
            );
            if crate::planted::planted(crate::planted::Bug::PrunedDropsPhi) {
                self.pairs.pop();
            }
        }
        if loop_entry && let Some(e) = dt.root() {
            self.add_entry_phis(e, local);
        }
        // Vars in increasing order, so a stable bucket leaves each block's
        // phis sorted by var.
        cfg_dom::csr::bucket(n, &self.pairs, &mut self.phi_start, &mut self.phi_var);
    }

    /// Semi-pruned phis of large graphs from `cfg_dom::Idf`, counting
    /// operands: `Err(operands)` the moment they pass `budget`.
    fn place_large<G: Graph>(&mut self, g: &G, local: &Local, budget: u64) -> Result<(), u64> {
        let mut operands = 0u64;
        for v in 0..local.global.len() {
            if !local.global[v] {
                continue;
            }
            self.out.clear();
            let defs = &self.def_blocks[self.def_start[v] as usize..self.def_start[v + 1] as usize];
            self.idf.query(defs.iter().copied(), &mut self.out);
            for &y in &self.out {
                operands = operands.saturating_add(1 + g.predecessors(y).count() as u64);
            }
            if operands > budget {
                return Err(operands);
            }
            self.pairs.extend(self.out.iter().map(|&y| (y, v as VarId)));
        }
        Ok(())
    }

    /// The entry merges the params with every path back to it: a phi for
    /// each global var (unless placement put one there already). `pairs`
    /// are grouped by var in increasing order, and stay so.
    fn add_entry_phis(&mut self, e: Node, local: &Local) {
        let mut k = 0;
        let before = self.pairs.len();
        for v in 0..local.global.len() {
            if !local.global[v] {
                continue;
            }
            while k < before && self.pairs[k].1 < v as VarId {
                k += 1;
            }
            let mut has = false;
            while k < before && self.pairs[k].1 == v as VarId {
                has |= self.pairs[k].0 == e;
                k += 1;
            }
            if !has {
                self.pairs.push((e, v as VarId));
            }
        }
        self.pairs.sort_by_key(|&(_, v)| v);
    }

    /// The definition blocks of each global var, from the walk's exits
    /// (blocks in increasing order), in CSR by var.
    fn def_blocks_of_globals(&mut self, n: usize, local: &Local) {
        // Collected once (exits are global vars' only), then bucketed from
        // the slice: the exits' rows are read once instead of once per
        // bucketing pass.
        self.def_pairs.clear();
        for b in 0..n as Node {
            self.def_pairs.extend(local.exits(b).iter().map(|&(v, _)| (v, b)));
        }
        cfg_dom::csr::bucket(local.global.len(), &self.def_pairs, &mut self.def_start, &mut self.def_blocks);
    }

    /// Per node its dominance frontier as a bitset, by the runner walk of
    /// Cooper, Harvey and Kennedy.
    fn small_frontiers<G: Graph>(&mut self, g: &G, dt: &DomTree) {
        let n = g.num_nodes();
        let words = n.div_ceil(64).max(1);
        let df = &mut self.df;
        df.clear();
        df.resize(n * words, 0);
        let root = dt.root();
        for y in 0..n as Node {
            let stop = match dt.idom(y) {
                Some(iy) => iy,
                None if Some(y) == root => u32::MAX,
                None => continue,
            };
            let (w, bit) = (y as usize / 64, 1u64 << (y % 64));
            for p in g.predecessors(y) {
                if !dt.is_reachable(p) {
                    continue;
                }
                let mut runner = p;
                while runner != stop {
                    let cell = &mut df[runner as usize * words + w];
                    if *cell & bit != 0 {
                        break; // the rest of this run is already recorded
                    }
                    *cell |= bit;
                    match dt.idom(runner) {
                        Some(r) => runner = r,
                        None => break,
                    }
                }
            }
        }
    }

    /// A bitset worklist per global var over [`Placement::small_frontiers`],
    /// counting operands: `Err(operands)` the moment they pass `budget`.
    fn place_small<G: Graph>(&mut self, g: &G, n: usize, local: &Local, budget: u64) -> Result<(), u64> {
        let mut operands = 0u64;
        let words = n.div_ceil(64).max(1);
        let df = &self.df;
        let sets = &mut self.sets;
        sets.clear();
        sets.resize(3 * words, 0);
        let (placed, rest) = sets.split_at_mut(words);
        let (queued, work) = rest.split_at_mut(words);
        for v in 0..local.global.len() {
            if !local.global[v] {
                continue;
            }
            placed.fill(0);
            queued.fill(0);
            work.fill(0);
            for &b in &self.def_blocks[self.def_start[v] as usize..self.def_start[v + 1] as usize] {
                let (w, bit) = (b as usize / 64, 1u64 << (b % 64));
                queued[w] |= bit;
                work[w] |= bit;
            }
            let mut lo = 0;
            while lo < words {
                if work[lo] == 0 {
                    lo += 1;
                    continue;
                }
                let x = lo * 64 + work[lo].trailing_zeros() as usize;
                work[lo] &= work[lo] - 1;
                let row = &df[x * words..(x + 1) * words];
                for w in 0..words {
                    let new = row[w] & !placed[w];
                    if new != 0 {
                        placed[w] |= new;
                        let add = new & !queued[w];
                        queued[w] |= add;
                        work[w] |= add;
                        lo = lo.min(w);
                    }
                }
            }
            for (w, &bits) in placed.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let y = (w * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    operands = operands.saturating_add(1 + g.predecessors(y).count() as u64);
                    self.pairs.push((y, v as VarId));
                }
            }
            if operands > budget {
                return Err(operands);
            }
        }
        Ok(())
    }
}
