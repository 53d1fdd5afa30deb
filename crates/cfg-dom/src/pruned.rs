//! Pruned phi placement, one var at a time, in time linear in the var's
//! live range: a phi of `v` at `b` exactly when `b ∈ IDF(defs(v))` and `v`
//! is live on entry to `b` (pruned SSA form: Choi, Cytron and Ferrante,
//! "Automatic construction of sparse data flow evaluation graphs", POPL
//! 1991), without computing either set in full.
//!
//! Per var `v`, two walks over its live range only:
//! 1. **Live-in blocks**, backward from its uses: a block with an
//!    upward-exposed use is live-in, a block whose successor's phi reads
//!    `v` along the edge is live-out, and a live-out block without an
//!    unguarded definition of `v` is live-in; the walk goes from a live-in
//!    block to its predecessors and stops at blocks that kill `v`. These
//!    are exactly `cfg_dom::Liveness`'s sets for `v` (same gen, kill and
//!    phi conventions), restricted to reachable blocks, whose sets the
//!    unreachable ones cannot change.
//! 2. **Phi blocks**, forward from the definitions: sources (definition
//!    blocks and phi blocks found so far) are taken deepest first in the
//!    dominator tree (a priority queue); from each source `w` a flood
//!    follows CFG edges through live-in blocks that `w` strictly dominates
//!    and that are not sources themselves: where `w`'s value reaches. An
//!    edge `c -> y` out of the flood with `y` live-in and not strictly
//!    dominated by `w` has `y ∈ DF(w)`: `y` gets a phi and becomes a
//!    source. This is Cytron's IDF restricted to live-in blocks as LLVM's
//!    `IDFCalculator` with live-in blocks does (its Sreedhar–Gao walk
//!    replaced by the flood, which never leaves the live range); that the
//!    restriction loses no phi follows from minimal SSA: the operand a
//!    live phi at `y` receives along some edge `p -> y` is defined at the
//!    nearest definition or phi `w` dominating `p`, which is live (a path
//!    from `w` to `p` free of definitions carries it to the use `y` leads
//!    to) and has `y` in its frontier, and following such operands never
//!    cycles (a cycle would stay at one dominator-tree depth, where each
//!    step goes to a phi placed in an earlier round of Cytron's iteration).
//!    The property test `pruned_is_idf_intersected_with_liveness` checks
//!    the result against the definition on generated CFGs.
//!
//! A shortcut skips both walks for a var with one definition block `w`,
//! where the definition kills, all of whose uses are in blocks `w`
//! strictly dominates (phi operands: read at the end of blocks `w`
//! dominates): walking backward from a block below `w` stays below `w`
//! until it stops at `w` (every predecessor of a block `w` strictly
//! dominates is `w` or below it), so the var is live-in only below `w`,
//! and no block `w` strictly dominates is in `IDF({w})` (a join of paths
//! from the entry and from `w` would share `w`): no phi. That is every
//! level's var of issue 30's nest, and the common case of a temporary.
//!
//! Cost per var: its definition blocks (with a `log` for the queue), its
//! phis, and the blocks and edges of its live range, each visited at most
//! once per walk: no flood enters a block twice, because of two sources
//! strictly dominating it the deeper one is taken first and stops the
//! other's flood. Every scratch mark is stamped with the var, so nothing is
//! cleared between vars. In total: the program plus the sum of the live
//! ranges plus the output, never blocks × vars. (On the 10,000-deep loop
//! nest of issue 30, 10,000 vars whose IDFs hold 5·10^7 blocks and none of
//! whose phis is live, the live ranges alone sum to 10^8 blocks; the
//! shortcut decides every one of those vars in constant time.)
//!
//! Used by `keel-ssa` (its pruned policy, and the fallback of its other
//! policies past their phi budget) and by `defuse` (the fallback of its
//! semi-pruned placement): the caller says which vars to place and where
//! each is defined, this module finds the live phis.
//!
//! Invariants: only reachable blocks get phis; pairs are produced var by
//! var in id order (the caller buckets them by block, e.g. with
//! [`crate::csr::bucket`]); the output depends only on the input, never on
//! what the buffers held before.

use crate::{DomTree, Graph, Input, Node, VarCode, VarId, csr};
use std::collections::BinaryHeap;

/// Pruned phi placement by per-var live-range walks, with its buffers
/// (kept across functions: once warm, a call allocates only when an input
/// is larger than any before).
///
/// ```
/// use cfg_dom::{CsrGraph, DomTree, Input, InputBuffers, Node, PrunedPhis, Use, VarCode, Versioned};
///
/// // 0 -> {1, 2} -> 3 -> 4: `x` (var 0) set in 1 and 2 and read in 3; `t`
/// // (var 1) set in 1 and 2 but never read: its IDF phi at 3 is dead.
/// struct Diamond;
/// impl Versioned for Diamond {}
/// impl VarCode for Diamond {
///     fn num_blocks(&self) -> usize { 5 }
///     fn num_vars(&self) -> usize { 2 }
///     fn num_insts(&self) -> usize { 5 }
///     fn params(&self) -> impl Iterator<Item = u32> + '_ { [].into_iter() }
///     fn block_insts(&self, b: u32) -> impl Iterator<Item = u32> + '_ { [b].into_iter() }
///     fn defs(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
///         if i == 1 || i == 2 { vec![0, 1] } else { vec![] }.into_iter()
///     }
///     fn uses(&self, i: u32) -> impl Iterator<Item = Use> + '_ { (i == 3).then_some(Use::at(0)).into_iter() }
///     fn is_guarded(&self, _: u32) -> bool { false }
/// }
/// let cfg = CsrGraph::from_edges(5, Some(0), [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]).unwrap();
/// let mut buffers = InputBuffers::default();
/// let input = Input::new(&cfg, &Diamond, &mut buffers).unwrap();
/// let dt = DomTree::of(&cfg);
/// let defs: [&[Node]; 2] = [&[1, 2], &[1, 2]];
/// let mut phis = Vec::new();
/// PrunedPhis::new().place(&input, &dt, |v| defs[v as usize], |_| true, &mut phis);
/// assert_eq!(phis, [(3, 0)]); // x's phi; none for t
/// ```
#[derive(Clone, Debug, Default)]
pub struct PrunedPhis {
    /// CSR per var: reachable blocks with an unguarded definition of it
    /// (`kills`), with a use before any such definition (`gens`), and
    /// predecessors reading it for a successor's phi (`outs`).
    kill_start: Vec<u32>,
    kills: Vec<Node>,
    gen_start: Vec<u32>,
    gens: Vec<Node>,
    out_start: Vec<u32>,
    outs: Vec<Node>,
    /// Scratch of the table build: `(var, block)` pairs of each table, and
    /// per var the last block an unguarded definition was seen in.
    kill_pairs: Vec<(VarId, Node)>,
    gen_pairs: Vec<(VarId, Node)>,
    out_pairs: Vec<(VarId, Node)>,
    killed_in: Vec<u32>,
    /// Per block, the var stamp when the block kills the var, is live-in,
    /// is a source (definition or phi), was flooded, has the var's phi.
    kill: Vec<u32>,
    live: Vec<u32>,
    source: Vec<u32>,
    flooded: Vec<u32>,
    phi: Vec<u32>,
    stamp: u32,
    work: Vec<Node>,
    heap: BinaryHeap<(u32, Node)>,
}

impl PrunedPhis {
    /// The phi budget past which semi-pruned or minimal placement should
    /// give way to this one, for a function of `blocks` blocks, `insts`
    /// instructions and `edges` CFG edges, in phi operands (a phi counts
    /// one plus its predecessors): `32 (blocks + insts + edges)`, at least
    /// 2^21. Ordinary programs place far fewer; a deep loop nest whose
    /// levels each define a var would place a quadratic number. `keel-ssa`
    /// and `defuse` both use it.
    pub fn default_budget(blocks: usize, insts: usize, edges: usize) -> u64 {
        let size = (blocks as u64).saturating_add(insts as u64).saturating_add(edges as u64);
        size.saturating_mul(32).max(1 << 21)
    }

    /// Empty buffers.
    pub fn new() -> PrunedPhis {
        PrunedPhis::default()
    }

    /// Appends `(block, var)` for every pruned phi of `input` to `out`,
    /// vars in id order, for the vars `wanted` accepts. `dt` must be the
    /// dominator tree of the input's graph (the caller checks it belongs,
    /// e.g. with [`crate::belongs`]); `def_blocks(v)` lists the reachable
    /// blocks defining `v` (a param: the entry), guarded definitions
    /// included, each once (an empty list: no phi). Vars are not read
    /// past the input's `num_vars()`.
    pub fn place<'d, G: Graph, C: VarCode>(
        &mut self,
        input: &Input<'_, G, C>,
        dt: &DomTree,
        def_blocks: impl Fn(VarId) -> &'d [Node],
        wanted: impl Fn(VarId) -> bool,
        out: &mut Vec<(Node, VarId)>,
    ) {
        let g = input.graph();
        let n = g.num_nodes();
        self.tables(input, dt);
        for marks in [&mut self.kill, &mut self.live, &mut self.source, &mut self.flooded, &mut self.phi] {
            if marks.len() < n {
                marks.resize(n, 0);
            }
        }
        for v in 0..input.num_vars() as VarId {
            if !wanted(v) || def_blocks(v).is_empty() {
                continue;
            }
            let (gens, outs) =
                (csr::row(&self.gen_start, &self.gens, v as usize), csr::row(&self.out_start, &self.outs, v as usize));
            if gens.is_empty() && outs.is_empty() {
                continue; // never live anywhere
            }
            let (defs, kills) = (def_blocks(v), csr::row(&self.kill_start, &self.kills, v as usize));
            if let ([w], [k]) = (defs, kills)
                && w == k
                && gens.iter().all(|&b| dt.strictly_dominates(*w, b))
                && outs.iter().all(|&b| dt.dominates(*w, b))
            {
                continue; // live only below its one killing definition
            }
            let s = self.next_stamp();
            for &b in csr::row(&self.kill_start, &self.kills, v as usize) {
                self.kill[b as usize] = s;
            }
            self.live_range(g, dt, v, s);
            self.phis(g, dt, def_blocks(v), v, s, out);
        }
    }

    /// A fresh stamp; on wrap-around every mark is reset.
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for marks in [&mut self.kill, &mut self.live, &mut self.source, &mut self.flooded, &mut self.phi] {
                marks.iter_mut().for_each(|m| *m = 0);
            }
            self.stamp = 1;
        }
        self.stamp
    }

    /// One pass over the reachable blocks' instructions, in order: the
    /// kill, gen and phi-read tables (`cfg_dom::Liveness`'s transfer, kept
    /// sparse per var).
    fn tables<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>, dt: &DomTree) {
        let g = input.graph();
        let nv = input.num_vars();
        let killed_in = &mut self.killed_in;
        killed_in.clear();
        killed_in.resize(nv, u32::MAX);
        let (kill_pairs, gen_pairs, out_pairs) = (&mut self.kill_pairs, &mut self.gen_pairs, &mut self.out_pairs);
        kill_pairs.clear();
        gen_pairs.clear();
        out_pairs.clear();
        for b in (0..g.num_nodes() as Node).filter(|&b| dt.is_reachable(b)) {
            for &inst in input.block_insts(b) {
                for u in input.uses(inst) {
                    match u.pred {
                        // Read at the end of `p` along `p -> b`.
                        Some(p) if dt.is_reachable(p) && g.successors(p).any(|s| s == b) => {
                            out_pairs.push((u.var, p));
                        }
                        Some(_) => {}
                        None if killed_in[u.var as usize] != b => gen_pairs.push((u.var, b)),
                        None => {}
                    }
                }
                if !input.is_guarded(inst) {
                    for &r in input.defs(inst) {
                        if killed_in[r as usize] != b {
                            killed_in[r as usize] = b;
                            kill_pairs.push((r, b));
                        }
                    }
                }
            }
        }
        csr::bucket(nv, kill_pairs, &mut self.kill_start, &mut self.kills);
        csr::bucket(nv, gen_pairs, &mut self.gen_start, &mut self.gens);
        csr::bucket(nv, out_pairs, &mut self.out_start, &mut self.outs);
    }

    /// Marks the reachable blocks where `v` is live-in with stamp `s`
    /// (`kill` already stamped with `v`'s killing blocks).
    fn live_range<G: Graph>(&mut self, g: &G, dt: &DomTree, v: VarId, s: u32) {
        let (live, kill, work) = (&mut self.live, &self.kill, &mut self.work);
        work.clear();
        for &b in csr::row(&self.gen_start, &self.gens, v as usize) {
            if live[b as usize] != s {
                live[b as usize] = s;
                work.push(b);
            }
        }
        // Live-out by a successor's phi: live-in unless killed here.
        for &p in csr::row(&self.out_start, &self.outs, v as usize) {
            if kill[p as usize] != s && live[p as usize] != s {
                live[p as usize] = s;
                work.push(p);
            }
        }
        while let Some(b) = work.pop() {
            for p in g.predecessors(b) {
                let i = p as usize;
                if kill[i] != s && live[i] != s && dt.is_reachable(p) {
                    live[i] = s;
                    work.push(p);
                }
            }
        }
    }

    /// Appends `(block, v)` for each phi of `v`: the floods from its
    /// sources, deepest first (see the module doc).
    fn phis<G: Graph>(&mut self, g: &G, dt: &DomTree, defs: &[Node], v: VarId, s: u32, out: &mut Vec<(Node, VarId)>) {
        let (live, source, flooded, phi) = (&self.live, &mut self.source, &mut self.flooded, &mut self.phi);
        let (heap, work) = (&mut self.heap, &mut self.work);
        heap.clear();
        for &d in defs {
            if let Some(depth) = dt.depth(d) {
                source[d as usize] = s;
                heap.push((depth, d));
            }
        }
        while let Some((_, w)) = heap.pop() {
            work.clear();
            work.push(w);
            while let Some(c) = work.pop() {
                for y in g.successors(c) {
                    let i = y as usize;
                    if live[i] != s {
                        continue;
                    }
                    if dt.strictly_dominates(w, y) {
                        // Still `w`'s value, unless a deeper source took over.
                        if source[i] != s && flooded[i] != s {
                            flooded[i] = s;
                            work.push(y);
                        }
                    } else if phi[i] != s {
                        // y ∈ DF(w), live: a phi (once).
                        phi[i] = s;
                        if source[i] != s {
                            source[i] = s;
                            heap.push((dt.depth(y).unwrap_or(0), y));
                        }
                        out.push((y, v));
                    }
                }
            }
        }
    }
}
