//! The analysis: reaching definitions over memory ranges, block by block
//! in reverse postorder to a fixed point (digest §002, made precise).
//!
//! 1. The input is checked and flattened ([`MemInput`]); sites are
//!    numbered in reverse postorder; each access's extent is prepared once
//!    ([`Shape`]).
//! 2. Per block, the state on entry is the join of its predecessors'
//!    states on exit (definitions unite, kills intersect), each first
//!    carried along its edge: an induction variable of the block advances
//!    along a back edge and is reset along any other edge, and symbols
//!    changing on entry lose their relations, and classes of symbols that
//!    nothing ahead uses are dropped (a backward liveness over symbols).
//!    The entry starts empty. Blocks are visited in a weak topological
//!    order (a reverse postorder in which each loop is contiguous, header
//!    first) with Bourdoncle's recursive strategy: a loop's blocks are
//!    swept, again while its header's input changed, before the code after
//!    it; a block is processed only when an input changed, until nothing
//!    changes: the least fixed point, which is exactly the textbook
//!    reaching definitions at element granularity for exact ranges. The
//!    code after a loop is computed once, from the loop's final state. (The
//!    document seeds each block with its immediate dominator's state; in
//!    reverse postorder the dominator's state reaches a block through its
//!    processed predecessors on the first visit anyway, and seeding
//!    literally would keep definitions that every path kills.)
//! 3. Per instruction, in the document's order — uses before definitions:
//!    each read's flow set is what the definitions layer holds on its
//!    extent; each write's output and anti sets likewise in both layers;
//!    then the reads enter the reads layer; then each write enters the
//!    definitions layer, killing what it covers if it is certain (not
//!    guarded, not a possible access) and exact (or symbolic with a known
//!    size, relative to its symbol), and kills the reads there too; then
//!    the symbols the instruction changes lose their relations.
//!
//! Each block is processed again whenever its input changed, so the sets
//! recorded on its last visit are those of the fixed point. States are
//! persistent ([`crate::segmap`]): a block's state costs O(objects) to
//! keep, an access O(log n) set operations, a join what differs between
//! its inputs. Sets are interned and recent operations on them cached.
//! Nothing recurses deeper than a treap's height.
//!
//! This module numbers the sites, runs a block (the transfer) and freezes
//! the result; the iteration to the fixed point is `engine/fixpoint.rs`,
//! the loop-carried pass `engine/carried.rs`, the must/may records
//! `engine/must.rs`, the symbol liveness `engine/symbols.rs` and the
//! document's view at one point `engine/explain.rs`.

use crate::code::{InputBuffers, InputError, MemCode, MemInput, Offset};
use crate::deps::{ANY, Frozen, MemDeps, Site, Sites, transpose};
use crate::planted::{Bug, Planted};
use crate::segmap::INF;
use crate::sets::{EMPTY, SetId, SetTable};
use crate::state::{Rel, Shape, State};
use cfg_dom::{Dfs, DomTree, Graph, Node};

mod carried;
mod explain;
mod fixpoint;
mod must;
mod symbols;

pub use explain::{Explanation, LiveOnObject, LiveSegment, RelativeSegments};

/// What to compute.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Options {
    /// Also output (write after write) and anti (write after read)
    /// dependences. On by default.
    pub anti_and_output: bool,
    /// Use affine offsets (same symbol, different constants; induction
    /// variables). Off: an affine offset counts as unknown. On by default.
    pub symbolic: bool,
    /// Also find, per loop, which flow dependences cross its back edge
    /// ([`MemDeps::carried_defs`]): one more pass over each loop's body.
    /// Off by default.
    pub loop_carried: bool,
    /// The memory budget, in bytes, of the interned site sets (the
    /// analysis's only table that can grow faster than the code): past it
    /// the run stops with [`InputError::TooLarge`]. Default 2 GiB.
    pub max_memory: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { anti_and_output: true, symbolic: true, loop_carried: false, max_memory: 2 << 30 }
    }
}

/// The analysis context: its buffers, kept across functions.
///
/// Lifecycle: [`MemDep::new`] (or [`MemDep::with_options`]), then
/// [`MemDep::compute`] per function (any IR) — or
/// [`MemDep::compute_function`] for a Keel function —, which reuses every
/// buffer; [`MemDep::clear`] drops contents and keeps capacity. Nothing of
/// one function's result stays in the context: the returned [`MemDeps`]
/// carries the function's stamp.
#[derive(Clone, Debug, Default)]
pub struct MemDep {
    options: Options,
    pub(crate) input: InputBuffers,
    dfs: Dfs,
    pub(crate) dt: DomTree,
    sets: SetTable,
    /// Per access, its extent, in the order sites are visited (blocks in
    /// site order, each instruction's accesses in order).
    shapes: Vec<Shape>,
    outs: Vec<State>,
    pending: Vec<bool>,
    sites: Sites,
    /// Per instruction, where its sites start (by instruction id).
    flow: Vec<SetId>,
    output: Vec<SetId>,
    anti: Vec<SetId>,
    /// Per use/def site, its shape index (`u32::MAX` for ANY).
    use_shape: Vec<u32>,
    def_shape: Vec<u32>,
    /// Per shape (access): only a possible access (`Access::may`), kept
    /// beside the shapes so that a block's transfer does not go back to
    /// the input's accesses (a cache miss per definition on large
    /// functions).
    shape_may: Vec<bool>,
    /// Buffers of the join at a block's entry (`engine/fixpoint.rs`).
    spare: State,
    carried_state: State,
    work: State,
    #[cfg(feature = "keel")]
    pub(crate) keel: crate::keel::KeelState,
    /// The bug planted when this run started (empty without `fuzzing`).
    planted: Planted,
    /// The loop-carried pass: loops, exit states per block, flow sets.
    loops: cfg_dom::LoopForest,
    louts: Vec<State>,
    carried_flow: Vec<SetId>,
    carried: Vec<(Node, u32, SetId)>,
    /// Per object: some site may write it (a "writes anything" site writes
    /// every object). Reads of the others need not be tracked.
    written: Vec<bool>,
    /// Symbol liveness: per block, the symbols accesses name live on
    /// entry.
    symbols: symbols::SymbolLiveness,
    /// Keep every block's exit state after the fixed point (`explain`
    /// reads them); otherwise each goes once nothing will read it.
    keep_exit_states: bool,
}

impl MemDep {
    /// A context with default options.
    pub fn new() -> MemDep {
        MemDep::default()
    }

    /// A context with `options`.
    pub fn with_options(options: Options) -> MemDep {
        MemDep { options, ..MemDep::default() }
    }

    /// The options.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Empties every buffer, keeping capacity.
    pub fn clear(&mut self) {
        self.input = InputBuffers::default();
        self.dfs.clear();
        self.dt.clear();
        self.sets.clear();
        self.shapes.clear();
        self.outs.clear();
        self.pending.clear();
        self.sites.clear();
        self.flow.clear();
        self.output.clear();
        self.anti.clear();
        self.use_shape.clear();
        self.def_shape.clear();
        self.shape_may.clear();
        self.work.clear();
        self.spare.clear();
        self.carried_state.clear();
        self.loops.clear();
        self.louts.clear();
        self.carried_flow.clear();
        self.carried.clear();
        self.written.clear();
    }

    /// Memory dependences of `code` on its CFG `graph`; an error when the
    /// input is malformed.
    pub fn compute<G: Graph, C: MemCode>(&mut self, graph: &G, code: &C) -> Result<MemDeps, InputError> {
        let mut input = std::mem::take(&mut self.input);
        let result = MemInput::new(graph, code, &mut input).and_then(|mi| self.run(&mi));
        self.input = input;
        result
    }

    /// The analysis on a checked input; [`InputError::TooLarge`] when the
    /// site sets outgrow [`Options::max_memory`].
    pub(crate) fn run<G: Graph>(&mut self, input: &MemInput<'_, G>) -> Result<MemDeps, InputError> {
        self.planted = Planted::now();
        self.prepare(input);
        self.carried.clear();
        if self.sites.uses.is_empty() && self.sites.defs.is_empty() {
            // No access and no effect: every answer is empty, and the
            // fixpoint over the CFG (quadratic in the nesting depth of
            // loops on deep nests) has nothing to compute.
            return Ok(self.freeze(input));
        }
        self.fixpoint(input);
        if self.options.loop_carried && !self.sets.exceeded() {
            self.carried_pass(input);
        }
        if self.sets.exceeded() {
            let (blocks, insts) = (input.num_blocks(), input.num_insts());
            let bytes = self.sets.refused_bytes();
            self.sets.clear();
            return Err(InputError::TooLarge { blocks, insts, bytes, limit: self.options.max_memory });
        }
        Ok(self.freeze(input))
    }

    /// Traversals, site numbering and shapes: what the analysis and the
    /// baselines share.
    pub(crate) fn prepare<G: Graph>(&mut self, input: &MemInput<'_, G>) {
        let graph = input.graph();
        self.dfs.compute(graph);
        self.dt.compute(graph);
        self.sets.clear();
        self.sets.set_limit(self.options.max_memory);
        self.number_sites(input);
        self.symbols.compute(input, &self.dfs, &self.dt, self.options.symbolic);
    }

    /// What [`MemDep::prepare`] left, for the baselines: the traversal, the
    /// sites, the shapes, the per-site shape indices, the set table and the
    /// flow, output and anti sets to fill.
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        Parts {
            dfs: &self.dfs,
            sites: &self.sites,
            shapes: &self.shapes,
            use_shape: &self.use_shape,
            def_shape: &self.def_shape,
            sets: &mut self.sets,
            flow: &mut self.flow,
            output: &mut self.output,
            anti: &mut self.anti,
        }
    }

    /// The frozen result of the sets filled through [`MemDep::parts`].
    pub(crate) fn finish<G: Graph>(&mut self, input: &MemInput<'_, G>) -> MemDeps {
        self.freeze(input)
    }

    /// Blocks in the order sites are numbered: reverse postorder, then the
    /// unreachable blocks by id.
    fn block_order(&self, n: usize) -> Vec<Node> {
        let mut order: Vec<Node> = self.dfs.reverse_postorder().collect();
        order.extend((0..n as Node).filter(|&b| !self.dfs.is_reachable(b)));
        order
    }

    fn number_sites<G: Graph>(&mut self, input: &MemInput<'_, G>) {
        let n = input.num_blocks();
        let ni = input.num_insts();
        let no = input.num_objects() as u32;
        self.sites.clear();
        self.shapes.clear();
        self.shape_may.clear();
        self.use_shape.clear();
        self.def_shape.clear();
        let symbolic = self.options.symbolic;
        // Sites in block order (reverse postorder, then unreachable blocks),
        // with the object they group under ("anything" after every object).
        // Shapes are made in the same pass, in block order, so a block's
        // transfer reads them in one forward run (one pass over the input's
        // access records: a large function's are read once).
        let reachable_blocks = self.dfs.reverse_postorder().len();
        let order = self.block_order(n);
        let mut uses: Vec<(u32, Site, u32, bool)> = Vec::new();
        let mut defs: Vec<(u32, Site, u32, bool)> = Vec::new();
        for (pos, &b) in order.iter().enumerate() {
            let live = pos < reachable_blocks;
            for &inst in input.block_insts(b) {
                for (k, a) in input.accesses(inst).iter().enumerate() {
                    let site = Site { inst, access: k as u32 };
                    let shape = self.shapes.len() as u32;
                    let extent = self::shape(a, input.object_len(a.object), symbolic);
                    self.shapes.push(extent);
                    self.shape_may.push(a.may);
                    // Exact sites of an object, then its wide ones (inexact
                    // or symbolic, live over the object's bounds): what is
                    // live at a point is then a run of each.
                    let group = 2 * a.object + u32::from(!extent.exact);
                    let entry = (group, site, shape, live);
                    if a.write { defs.push(entry) } else { uses.push(entry) }
                }
                let e = input.effects(inst);
                if e.reads_anything {
                    uses.push((2 * no, Site { inst, access: ANY }, u32::MAX, live));
                }
                if e.writes_anything {
                    defs.push((2 * no, Site { inst, access: ANY }, u32::MAX, live));
                }
            }
        }
        // Ids: grouped by object, stable (so block order within a group).
        // Each list stays in block order, where an instruction's entries
        // are in access order ("anything" last); `ids` gives their ids.
        // Returns the entries in id order and, per entry, its id.
        let number = |list: &[(u32, Site, u32, bool)]| -> (Vec<u32>, Vec<u32>) {
            let (mut start, mut sorted) = (Vec::new(), Vec::new());
            cfg_dom::csr::bucket_by(
                2 * no as usize + 1,
                list.iter().enumerate().map(|(i, e)| (e.0, i as u32)),
                &mut start,
                &mut sorted,
            );
            let mut ids = vec![0; list.len()];
            for (id, &i) in sorted.iter().enumerate() {
                ids[i as usize] = id as u32;
            }
            (sorted, ids)
        };
        let (use_order, use_ids) = number(&uses);
        let (def_order, def_ids) = number(&defs);
        self.written.clear();
        self.written.resize(no as usize, false);
        for &(group, site, _, _) in &defs {
            if site.access == ANY {
                self.written.fill(true);
                break;
            }
            self.written[(group / 2) as usize] = true;
        }
        for &i in &use_order {
            let (_, site, shape, live) = uses[i as usize];
            self.sites.uses.push(site);
            self.use_shape.push(shape);
            self.sites.use_live.push(live);
        }
        for &i in &def_order {
            let (_, site, shape, live) = defs[i as usize];
            self.sites.defs.push(site);
            self.def_shape.push(shape);
            self.sites.def_live.push(live);
        }
        // Per instruction, its ids in access order ("anything" last): a
        // stable bucketing of the lists in block order.
        let by_inst = |list: &[(u32, Site, u32, bool)], ids: &[u32], start: &mut Vec<u32>, out: &mut Vec<u32>| {
            cfg_dom::csr::bucket_by(ni, list.iter().zip(ids).map(|(e, &id)| (e.1.inst, id)), start, out);
        };
        by_inst(&uses, &use_ids, &mut self.sites.use_start, &mut self.sites.use_list);
        by_inst(&defs, &def_ids, &mut self.sites.def_start, &mut self.sites.def_list);
        // Every site's singleton is made on its first visit: all at once.
        let singles = self.sites.uses.len().max(self.sites.defs.len());
        let sites = self.sites.uses.len() + self.sites.defs.len();
        self.sets.reserve_singletons(u32::try_from(singles).unwrap_or(u32::MAX - 1), sites);
        self.flow.clear();
        self.flow.resize(self.sites.uses.len(), EMPTY);
        let nd = if self.options.anti_and_output { self.sites.defs.len() } else { 0 };
        self.output.clear();
        self.output.resize(nd, EMPTY);
        self.anti.clear();
        self.anti.resize(nd, EMPTY);
    }

    /// Runs block `b` on `state` (its entry state), recording every site's
    /// sets.
    /// In the loop-carried pass (`carried`), flow sets go to
    /// `carried_flow` and anti and output dependences are not tracked.
    fn transfer<G: Graph>(&mut self, input: &MemInput<'_, G>, b: Node, state: &mut State, carried: bool) {
        self.transfer_until(input, b, state, carried, None);
    }

    /// [`MemDep::transfer`], stopping before instruction `until` when it
    /// is in the block (`MemDep::explain`).
    fn transfer_until<G: Graph>(
        &mut self,
        input: &MemInput<'_, G>,
        b: Node,
        state: &mut State,
        carried: bool,
        until: Option<cfg_dom::InstId>,
    ) {
        let anti = self.options.anti_and_output && !carried;
        let lens = || (0..input.num_objects() as u32).map(|o| input.object_len(o));
        for &inst in input.block_insts(b) {
            if Some(inst) == until {
                break;
            }
            let e = input.effects(inst);
            let uses = self.sites.uses_of_inst(inst);
            let defs = self.sites.defs_of_inst(inst);
            // 1. Reads see what was written before.
            for &u in uses {
                let k = self.use_shape[u as usize];
                let set = if k == u32::MAX {
                    state.defs.query_all(&mut self.sets)
                } else {
                    state.defs.query(&self.shapes[k as usize], &mut self.sets)
                };
                if carried {
                    self.carried_flow[u as usize] = set;
                } else {
                    self.flow[u as usize] = set;
                }
            }
            if anti {
                // 2. Writes see the definitions and reads before them.
                for &d in defs {
                    let k = self.def_shape[d as usize];
                    let (o, a) = if k == u32::MAX {
                        (state.defs.query_all(&mut self.sets), state.reads.query_all(&mut self.sets))
                    } else {
                        let s = &self.shapes[k as usize];
                        (state.defs.query(s, &mut self.sets), state.reads.query(s, &mut self.sets))
                    };
                    self.output[d as usize] = o;
                    self.anti[d as usize] = a;
                }
                // 3. The reads become live reads (of objects something
                // writes: no anti-dependence can end at the others).
                for &u in uses {
                    let item = self.sets.single(u);
                    let k = self.use_shape[u as usize];
                    if k == u32::MAX {
                        let written = &self.written;
                        let lens = lens().enumerate().map(|(o, len)| if written[o] { len } else { 0 });
                        state.reads.insert_everywhere(item, lens, &mut self.sets);
                    } else {
                        let s = &self.shapes[k as usize];
                        if self.written[s.obj as usize] {
                            state.reads.insert(s, item, false, &mut self.sets);
                        }
                    }
                }
            }
            // 4. The writes: certain ones of known ranges kill. (In the
            // loop-carried pass they only kill: what they define is not
            // carried around the loop yet.)
            for &d in defs {
                let item = self.sets.single(d);
                let k = self.def_shape[d as usize];
                if k == u32::MAX {
                    if !carried {
                        state.defs.insert_everywhere(item, lens(), &mut self.sets);
                    }
                    continue;
                }
                let guarded = e.guarded && !self.planted.has(Bug::GuardedKills);
                let certain = !guarded && !self.shape_may[k as usize];
                let s = self.shapes[k as usize];
                if carried {
                    if certain {
                        state.defs.clear_range(&s, &mut self.sets);
                    }
                    continue;
                }
                let s = if self.planted.has(Bug::InexactKills) { Shape { exact: true, ..s } } else { s };
                state.defs.insert(&s, item, certain, &mut self.sets);
                if anti && certain {
                    state.reads.clear_range(&s, &mut self.sets);
                }
            }
            // 5. Symbols the instruction changes.
            for &sym in input.changes_after(inst) {
                state.forget(sym);
            }
        }
    }

    /// Copies the referenced sets out of the working table and derives the
    /// DU side.
    ///
    /// The referenced sets are marked in a bitset (one bit a set, small
    /// enough to stay in the processor's caches), copied in id order (one
    /// forward pass over the table's ranges) and renumbered by rank: set
    /// `s` becomes the number of referenced sets below it. Copying them in
    /// order of first reference instead read the table at random, a cache
    /// miss per set on large functions.
    fn freeze<G: Graph>(&mut self, input: &MemInput<'_, G>) -> MemDeps {
        let exactness = self.exactness(input);
        let mut marked = vec![0u64; self.sets.len().div_ceil(64)];
        let referenced =
            self.flow.iter().chain(&self.output).chain(&self.anti).chain(self.carried.iter().map(|c| &c.2));
        for &s in referenced {
            marked[s as usize / 64] |= 1 << (s % 64);
        }
        // `rank[w]`: referenced sets below word `w`.
        let mut rank: Vec<u32> = Vec::with_capacity(marked.len());
        let mut frozen = Frozen { starts: vec![0], ranges: Vec::new() };
        for (w, &word) in marked.iter().enumerate() {
            rank.push((frozen.starts.len() - 1) as u32);
            let mut bits = word;
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                frozen.ranges.extend_from_slice(self.sets.ranges(s as SetId));
                frozen.starts.push(frozen.ranges.len() as u32);
            }
        }
        let map = |s: SetId| -> SetId {
            let (w, bit) = (s as usize / 64, s % 64);
            rank[w] + (marked[w] & ((1u64 << bit) - 1)).count_ones()
        };
        let flow: Vec<SetId> = self.flow.iter().map(|&s| map(s)).collect();
        let output: Vec<SetId> = self.output.iter().map(|&s| map(s)).collect();
        let anti: Vec<SetId> = self.anti.iter().map(|&s| map(s)).collect();
        let carried: Vec<(Node, u32, SetId)> = self.carried.iter().map(|&(h, u, s)| (h, u, map(s))).collect();
        let (mut du_start, mut du) = (Vec::new(), Vec::new());
        transpose(self.sites.num_defs(), &flow, &frozen, &mut du_start, &mut du);
        MemDeps {
            sites: self.sites.clone(),
            flow,
            exactness,
            output,
            anti,
            sets: frozen,
            du_start,
            du,
            stamp: input.stamp(),
            has_anti_output: self.options.anti_and_output,
            carried,
            has_carried: self.options.loop_carried,
        }
    }
}

/// Borrowed internals for the baselines (see [`MemDep::parts`]).
pub(crate) struct Parts<'a> {
    pub dfs: &'a Dfs,
    pub sites: &'a Sites,
    pub shapes: &'a [Shape],
    pub use_shape: &'a [u32],
    pub def_shape: &'a [u32],
    pub sets: &'a mut SetTable,
    pub flow: &'a mut [SetId],
    pub output: &'a mut [SetId],
    pub anti: &'a mut [SetId],
}

/// The extent of an access (see [`Shape`]).
pub(crate) fn shape(a: &crate::code::Access, len: u64, symbolic: bool) -> Shape {
    let len = i64::try_from(len).unwrap_or(INF);
    let (blo, bhi) = match a.within {
        Some((lo, hi)) => (i64::try_from(lo).unwrap_or(INF), i64::try_from(hi).unwrap_or(INF)),
        None => (0, len),
    };
    let size = a.size.and_then(|s| i64::try_from(s).ok());
    match (a.offset, size) {
        (Offset::Exact(o), Some(s)) => {
            Shape { obj: a.object, lo: o, hi: o.checked_add(s).unwrap_or(INF), exact: true, class: None }
        }
        (Offset::Exact(o), None) => Shape { obj: a.object, lo: o.max(blo), hi: bhi.max(o), exact: false, class: None },
        (Offset::Affine { sym, scale, add }, s) if symbolic => {
            let hi = match s {
                Some(s) => add.checked_add(s),
                None => Some(INF),
            };
            let class = hi.map(|hi| Rel { sym, scale, lo: add, hi, exact: s.is_some() });
            Shape { obj: a.object, lo: blo, hi: bhi, exact: false, class }
        }
        _ => Shape { obj: a.object, lo: blo, hi: bhi, exact: false, class: None },
    }
}
