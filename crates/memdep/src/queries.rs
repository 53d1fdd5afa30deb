//! Queries beyond the chains, for the passes that use them: do two
//! accesses overlap ([`MemQueries::may_overlap`]); do the iterations of a
//! loop conflict, and at which distances ([`MemQueries::loop_carried`],
//! [`MemQueries::carried_pairs`]: the MLU backend's "are consecutive tiles
//! independent", for double buffering and splitting a loop across cores);
//! may anything overwrite a descriptor between two points
//! ([`MemQueries::clobbered_between`]: PRE's "do two loads of the same
//! descriptor have a definition between them").
//!
//! Invariants: a [`MemQueries`] owns a copy of the checked input (the CFG
//! as a [`CsrGraph`], the flattened accesses), its dominator tree and loop
//! forest, and per symbol the blocks where it changes; queries never call
//! the input traits again. Unknown is never answered as independent.

use crate::code::{Access, InputBuffers, InputError, MemCode, MemInput, Offset};
use crate::deps::{ANY, Site};
use crate::overlap::{self, Answer, Reason, SymInLoop};
use cfg_dom::{CsrGraph, DomTree, Graph, InstId, LoopForest, LoopId, Node};

/// A conflict between two accesses of a loop in different iterations.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CarriedPair {
    /// The access in the earlier iteration.
    pub earlier: Site,
    /// The access in a later iteration.
    pub later: Site,
    /// The answer (never [`Answer::NoDep`] in a list of pairs).
    pub answer: Answer,
}

/// The input of one function, kept for queries (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct MemQueries {
    graph: CsrGraph,
    input: InputBuffers,
    stamp: Option<u64>,
    dt: DomTree,
    loops: LoopForest,
    /// Per symbol: the blocks where it changes, with the step when the
    /// change is an induction at that block.
    sym_blocks: Vec<Vec<(Node, Option<i64>)>>,
}

impl MemQueries {
    /// Queries on `code` with its CFG `graph`.
    pub fn new<G: Graph, C: MemCode>(graph: &G, code: &C) -> Result<MemQueries, InputError> {
        let mut q = MemQueries::default();
        let n = graph.num_nodes();
        {
            let input = MemInput::new(graph, code, &mut q.input)?;
            q.stamp = input.stamp();
        }
        let edges: Vec<(Node, Node)> = (0..n as Node).flat_map(|a| graph.successors(a).map(move |b| (a, b))).collect();
        q.graph = CsrGraph::from_edges(n, graph.entry(), edges)?;
        q.graph.set_stamp(graph.stamp());
        q.dt.compute(&q.graph);
        q.loops.compute(&q.graph);
        let input = q.view();
        let mut sym_blocks: Vec<Vec<(Node, Option<i64>)>> = Vec::new();
        let mut put = |s: u32, b: Node, step: Option<i64>| {
            if sym_blocks.len() <= s as usize {
                sym_blocks.resize_with(s as usize + 1, Vec::new);
            }
            sym_blocks[s as usize].push((b, step));
        };
        for b in 0..n as Node {
            for &i in input.block_insts(b) {
                for &s in input.changes_after(i) {
                    put(s, b, None);
                }
            }
            for &s in input.changes_at_entry(b) {
                put(s, b, None);
            }
            for &(s, step) in input.inductions(b) {
                put(s, b, Some(step));
            }
        }
        q.sym_blocks = sym_blocks;
        Ok(q)
    }

    fn view(&self) -> MemInput<'_, CsrGraph> {
        MemInput::view(&self.graph, self.stamp, &self.input)
    }

    /// The loop forest of the CFG.
    pub fn loops(&self) -> &LoopForest {
        &self.loops
    }

    /// The dominator tree of the CFG.
    pub fn dom_tree(&self) -> &DomTree {
        &self.dt
    }

    /// The CFG.
    pub fn graph(&self) -> &CsrGraph {
        &self.graph
    }

    /// Access `k` of `inst`.
    pub fn access(&self, inst: InstId, k: u32) -> Option<Access> {
        self.view().accesses(inst).get(k as usize).copied()
    }

    /// The instructions of block `b`.
    pub fn block_insts(&self, b: Node) -> &[InstId] {
        MemInput::view(&self.graph, self.stamp, &self.input).block_insts(b)
    }

    /// The block of `inst`, if a block lists it.
    pub fn block_of(&self, inst: InstId) -> Option<Node> {
        self.view().block_of(inst)
    }

    /// The accesses of `inst`.
    pub fn accesses(&self, inst: InstId) -> &[Access] {
        MemInput::view(&self.graph, self.stamp, &self.input).accesses(inst)
    }

    /// The length of an object.
    pub fn object_len(&self, o: u32) -> u64 {
        self.view().object_len(o)
    }

    /// Do two sites' accesses overlap, evaluated at one point (the same
    /// symbol values)? A site reading or writing anything may overlap
    /// anything.
    pub fn may_overlap(&self, a: Site, b: Site) -> Answer {
        match (self.site_access(a), self.site_access(b)) {
            (Some(x), Some(y)) => overlap::may_overlap(&x, &y, self.object_len(x.object), self.object_len(y.object)),
            _ => Answer::May(Reason::Anything),
        }
    }

    fn site_access(&self, s: Site) -> Option<Access> {
        if s.access == ANY { None } else { self.access(s.inst, s.access) }
    }

    /// The step by which `sym` advances per iteration of loop `l`, when it
    /// is the loop's induction variable (and changes nowhere else in it).
    pub fn induction_step(&self, l: LoopId, sym: u32) -> Option<i64> {
        match self.sym_in_loop(l, sym) {
            SymInLoop::Induction(step) => Some(step),
            _ => None,
        }
    }

    /// How symbol `sym` behaves in loop `l`.
    fn sym_in_loop(&self, l: LoopId, sym: u32) -> SymInLoop {
        let h = self.loops.header(l);
        let mut iv = None;
        for &(b, step) in self.sym_blocks.get(sym as usize).map_or(&[][..], |v| v.as_slice()) {
            if !self.loops.contains(l, b) {
                continue;
            }
            match step {
                Some(s) if b == h && !self.loops.is_irreducible(l) && iv.is_none() => iv = Some(s),
                _ => return SymInLoop::Varies,
            }
        }
        iv.map_or(SymInLoop::Invariant, SymInLoop::Induction)
    }

    /// Does site `later`, in an iteration of loop `l` after the one in
    /// which site `earlier` runs, touch what `earlier` touched? (Both in
    /// the loop; at least one should write for this to be a dependence.)
    pub fn loop_carried(&self, l: LoopId, earlier: Site, later: Site) -> Answer {
        let (Some(a), Some(b)) = (self.site_access(earlier), self.site_access(later)) else {
            return Answer::May(Reason::Anything);
        };
        overlap::carried(&a, &b, self.object_len(a.object), self.object_len(b.object), |s| self.sym_in_loop(l, s))
    }

    /// Every pair of accesses of loop `l` (at least one a write, same
    /// object, or touching anything) that may conflict across iterations,
    /// in both orders. Quadratic in the loop's accesses per object.
    pub fn carried_pairs(&self, l: LoopId) -> Vec<CarriedPair> {
        let input = self.view();
        let mut sites: Vec<(Site, Option<Access>)> = Vec::new();
        for &b in self.loops.body(l) {
            for &i in input.block_insts(b) {
                for (k, a) in input.accesses(i).iter().enumerate() {
                    sites.push((Site { inst: i, access: k as u32 }, Some(*a)));
                }
                let e = input.effects(i);
                if e.reads_anything || e.writes_anything {
                    sites.push((Site { inst: i, access: ANY }, None));
                }
            }
        }
        sites.sort_by_key(|(s, a)| (a.map_or(u32::MAX, |a| a.object), *s));
        let mut out = Vec::new();
        for (x, ax) in &sites {
            for (y, ay) in &sites {
                let writes = |a: &Option<Access>| a.is_none_or(|a| a.write);
                if !(writes(ax) || writes(ay)) {
                    continue;
                }
                if let (Some(p), Some(q)) = (ax, ay)
                    && p.object != q.object
                {
                    continue;
                }
                let answer = self.loop_carried(l, *x, *y);
                if answer.is_dep() {
                    out.push(CarriedPair { earlier: *x, later: *y, answer });
                }
            }
        }
        out
    }

    /// True when no two accesses of different iterations of loop `l`
    /// (at least one writing) may overlap: its iterations may run in any
    /// order, or in parallel.
    pub fn iterations_independent(&self, l: LoopId) -> bool {
        self.carried_pairs(l).is_empty()
    }

    /// May something overwrite what `access` describes on some path from
    /// just after `from` to just before `to`? True also when a symbol of
    /// `access` changes on such a path (the descriptor then names other
    /// elements at `to`), and false when no path exists. O(instructions)
    /// per query.
    pub fn clobbered_between(&self, from: InstId, to: InstId, access: &Access) -> bool {
        let input = self.view();
        let (Some(fb), Some(tb)) = (input.block_of(from), input.block_of(to)) else { return false };
        let sym = match access.offset {
            Offset::Affine { sym, .. } => Some(sym),
            _ => None,
        };
        let len = input.object_len(access.object);
        let hits = |i: InstId| -> bool {
            let e = input.effects(i);
            if e.writes_anything {
                return true;
            }
            let w = input
                .accesses(i)
                .iter()
                .any(|w| w.write && overlap::may_overlap(w, access, input.object_len(w.object), len).is_dep());
            w || sym.is_some_and(|s| input.changes_after(i).contains(&s))
        };
        let entry_changes = |b: Node| -> bool {
            sym.is_some_and(|s| {
                input.changes_at_entry(b).contains(&s) || input.inductions(b).iter().any(|&(x, _)| x == s)
            })
        };
        // Instructions of fb after `from` (and `from`'s own symbol changes).
        let insts = input.block_insts(fb);
        let start = insts.iter().position(|&i| i == from).unwrap_or(insts.len());
        if sym.is_some_and(|s| input.changes_after(from).contains(&s)) {
            return true;
        }
        for &i in &insts[start + 1..] {
            if i == to {
                return false;
            }
            if hits(i) {
                return true;
            }
        }
        let n = self.graph.num_nodes();
        let mut seen = vec![false; n];
        let mut work: Vec<Node> = self.graph.succ_slice(fb).to_vec();
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut seen[b as usize], true) {
                continue;
            }
            if entry_changes(b) {
                return true;
            }
            let mut reached = false;
            for &i in input.block_insts(b) {
                if b == tb && i == to {
                    reached = true;
                    break;
                }
                if hits(i) {
                    return true;
                }
            }
            if !reached {
                work.extend_from_slice(self.graph.succ_slice(b));
            }
        }
        false
    }
}
