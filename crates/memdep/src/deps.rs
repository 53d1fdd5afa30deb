//! The product: memory dependences as plain data.
//!
//! Sites: every read of an instruction is a *use* ([`UseId`]), every write
//! a *definition* ([`DefId`]); "reads anything" and "writes anything" are
//! one use and one definition each ([`ANY`] as the access number). Ids are
//! dense and grouped by object, exact sites then wide ones (inexact or
//! symbolic), the "anything" sites last; within a group they follow
//! reverse postorder of the blocks, then instruction order, then access
//! order (unreachable blocks last). The definitions reaching a point are
//! then a few runs of consecutive ids: every store of a stretch of code
//! through one pointer, every tile written to one output.
//!
//! Dependences are kept in *range form*: each use's set of reaching
//! definitions is a sorted list of id ranges, interned, so uses reaching
//! the same definitions share one stored list ([`MemDeps::flow_set`] names
//! it). [`MemDeps::counts`] says how many edges each form holds: expanded
//! pairs (a plain CSR), grouped (one stored copy per distinct set), ranges.
//!
//! Invariants: flow sets (use → definitions), output sets (definition →
//! earlier definitions) and anti sets (definition → earlier reads) are
//! canonical range lists; the DU side ([`MemDeps::uses_of`]) is the exact
//! transpose of the flow side, also as ranges; results carry the code
//! stamp of the function they were computed on.

use crate::sets::{self, SetId};
use cfg_dom::{InstId, Stale, Versioned};

/// A use (read) site id.
pub type UseId = u32;

/// A definition (write) site id.
pub type DefId = u32;

/// The access number of an instruction's "reads anything" or "writes
/// anything" site.
pub const ANY: u32 = u32::MAX;

/// Where a site is: an instruction and the number of its access (in
/// [`crate::MemCode::accesses`] order), or [`ANY`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Site {
    /// The instruction.
    pub inst: InstId,
    /// The access number, or [`ANY`].
    pub access: u32,
}

/// The sites of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sites {
    pub(crate) uses: Vec<Site>,
    pub(crate) defs: Vec<Site>,
    /// By instruction id, in CSR form: its use ids and its definition ids,
    /// in access order.
    pub(crate) use_start: Vec<u32>,
    pub(crate) use_list: Vec<UseId>,
    pub(crate) def_start: Vec<u32>,
    pub(crate) def_list: Vec<DefId>,
    /// Per site: in a block the entry reaches.
    pub(crate) use_live: Vec<bool>,
    pub(crate) def_live: Vec<bool>,
}

impl Sites {
    /// Empties, keeping capacity.
    pub(crate) fn clear(&mut self) {
        self.uses.clear();
        self.defs.clear();
        self.use_start.clear();
        self.use_list.clear();
        self.def_start.clear();
        self.def_list.clear();
        self.use_live.clear();
        self.def_live.clear();
    }

    /// Number of uses.
    pub fn num_uses(&self) -> usize {
        self.uses.len()
    }

    /// Number of definitions.
    pub fn num_defs(&self) -> usize {
        self.defs.len()
    }

    /// Where use `u` is (`None` out of range).
    pub fn use_site(&self, u: UseId) -> Option<Site> {
        self.uses.get(u as usize).copied()
    }

    /// Where definition `d` is (`None` out of range).
    pub fn def_site(&self, d: DefId) -> Option<Site> {
        self.defs.get(d as usize).copied()
    }

    /// The uses of `inst`, in access order (empty for an id out of range
    /// or not listed).
    pub fn uses_of_inst(&self, inst: InstId) -> &[UseId] {
        cfg_dom::csr::row(&self.use_start, &self.use_list, inst as usize)
    }

    /// The definitions of `inst`, in access order.
    pub fn defs_of_inst(&self, inst: InstId) -> &[DefId] {
        cfg_dom::csr::row(&self.def_start, &self.def_list, inst as usize)
    }

    /// The use of access `access` (or [`ANY`]) of `inst`.
    pub fn use_id(&self, inst: InstId, access: u32) -> Option<UseId> {
        self.uses_of_inst(inst).iter().copied().find(|&u| self.uses[u as usize].access == access)
    }

    /// The definition of access `access` (or [`ANY`]) of `inst`.
    pub fn def_id(&self, inst: InstId, access: u32) -> Option<DefId> {
        self.defs_of_inst(inst).iter().copied().find(|&d| self.defs[d as usize].access == access)
    }

    /// True when use `u` is in a block the entry reaches.
    pub fn use_reachable(&self, u: UseId) -> bool {
        self.use_live.get(u as usize).copied().unwrap_or(false)
    }

    /// True when definition `d` is in a block the entry reaches.
    pub fn def_reachable(&self, d: DefId) -> bool {
        self.def_live.get(d as usize).copied().unwrap_or(false)
    }
}

/// The kinds of dependence between two instructions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct DepKinds {
    /// The later one reads what the earlier one wrote (read after write).
    pub flow: bool,
    /// The later one overwrites what the earlier one read (write after
    /// read).
    pub anti: bool,
    /// The later one overwrites what the earlier one wrote (write after
    /// write).
    pub output: bool,
}

impl DepKinds {
    /// True when any kind holds.
    pub fn any(&self) -> bool {
        self.flow || self.anti || self.output
    }
}

/// How many edges each representation holds (see the module doc).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct EdgeCounts {
    /// Use sites.
    pub uses: u64,
    /// Definition sites.
    pub defs: u64,
    /// Flow edges (use, definition) written out one by one: what a plain
    /// CSR of pairs would hold.
    pub pairs: u64,
    /// Distinct flow sets.
    pub distinct_sets: u64,
    /// Grouped form: one set reference per use plus each distinct set's
    /// elements once.
    pub grouped: u64,
    /// Range form (what is stored): one set reference per use plus each
    /// distinct set's ranges once.
    pub ranges: u64,
    /// Output-dependence pairs (definition, earlier definition), expanded.
    pub output_pairs: u64,
    /// Anti-dependence pairs (definition, earlier read), expanded.
    pub anti_pairs: u64,
}

/// A use whose flow sets differ: the use, and both range lists.
pub type Difference<'a> = (UseId, &'a [(DefId, DefId)], &'a [(DefId, DefId)]);

/// Interned range sets, frozen: set `k` is `ranges[starts[k]..starts[k+1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frozen {
    pub starts: Vec<u32>,
    pub ranges: Vec<(u32, u32)>,
}

impl Frozen {
    pub fn get(&self, s: SetId) -> &[(u32, u32)] {
        cfg_dom::csr::row(&self.starts, &self.ranges, s as usize)
    }
}

/// Per use the object it reads an exact range of (`u32::MAX`: none), per
/// object the id range of its exact definitions, and the uncertain
/// definitions (guarded, possible or "anything" writes) as sorted ranges:
/// what [`MemDeps::must_of`] needs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Exactness {
    pub use_object: Vec<u32>,
    pub exact_defs: Vec<(u32, u32)>,
    pub uncertain: Vec<(u32, u32)>,
}

/// Memory dependences of one function.
#[derive(Clone, Debug, Default)]
pub struct MemDeps {
    pub(crate) sites: Sites,
    /// Per use: its flow set (reaching definitions).
    pub(crate) flow: Vec<SetId>,
    /// What splits a flow set into must and may dependences.
    pub(crate) exactness: Exactness,
    /// Per definition: earlier definitions it overwrites (output) and
    /// earlier reads it overwrites (anti); empty when not computed.
    pub(crate) output: Vec<SetId>,
    pub(crate) anti: Vec<SetId>,
    pub(crate) sets: Frozen,
    /// Per definition: the uses it reaches, as ranges.
    pub(crate) du_start: Vec<u32>,
    pub(crate) du: Vec<(u32, u32)>,
    pub(crate) stamp: Option<u64>,
    pub(crate) has_anti_output: bool,
    /// Per (loop header, use), sorted: the definitions reaching the use
    /// around that loop's back edge (non-empty sets only).
    pub(crate) carried: Vec<(u32, UseId, SetId)>,
    pub(crate) has_carried: bool,
}

impl PartialEq for MemDeps {
    /// Equal when they relate the same sites the same way.
    fn eq(&self, other: &MemDeps) -> bool {
        self.sites == other.sites
            && (0..self.flow.len() as u32).all(|u| self.defs_of(u) == other.defs_of(u))
            && self.has_anti_output == other.has_anti_output
            && (0..self.output.len() as u32).all(|d| self.output_of(d) == other.output_of(d))
            && (0..self.anti.len() as u32).all(|d| self.anti_of(d) == other.anti_of(d))
    }
}

impl MemDeps {
    /// The sites.
    pub fn sites(&self) -> &Sites {
        &self.sites
    }

    /// The definitions that may reach use `u`, as sorted half-open id
    /// ranges (empty out of range).
    pub fn defs_of(&self, u: UseId) -> &[(DefId, DefId)] {
        self.flow.get(u as usize).map_or(&[], |&s| self.sets.get(s))
    }

    /// The definitions reaching `u`, one by one.
    pub fn defs_of_iter(&self, u: UseId) -> impl Iterator<Item = DefId> + '_ {
        self.defs_of(u).iter().flat_map(|&(lo, hi)| lo..hi)
    }

    /// The interned flow set of `u`: uses with equal ids have equal sets.
    pub fn flow_set(&self, u: UseId) -> Option<SetId> {
        self.flow.get(u as usize).copied()
    }

    /// The definitions use `u` *must* depend on, as sorted half-open id
    /// ranges, a part of its flow set ([`MemDeps::defs_of`]): `u` reads an
    /// exact range, and each of them is a certain (unguarded, not only
    /// possible) write of an exact range of the same object that reaches
    /// `u` on part of its range, so the two overlap whenever both execute.
    /// Computed on the flow set's ranges (its intersection with the
    /// object's exact definitions, one id range, minus the uncertain ones):
    /// no pair is enumerated. Empty out of range.
    pub fn must_of(&self, u: UseId) -> Vec<(DefId, DefId)> {
        let mut out = Vec::new();
        let e = &self.exactness;
        let Some(&(lo, hi)) = e.use_object.get(u as usize).and_then(|&o| e.exact_defs.get(o as usize)) else {
            return out;
        };
        // The flow ranges inside [lo, hi), each minus the uncertain ranges
        // it meets (found by binary search: the cost is the output plus a
        // log per range, never the whole uncertain list).
        let flow = self.defs_of(u);
        let first = flow.partition_point(|&(_, b)| b <= lo);
        for &(a, b) in flow[first..].iter().take_while(|&&(a, _)| a < hi) {
            sets::minus_one(a.max(lo), b.min(hi), &e.uncertain, &mut out);
        }
        out
    }

    /// The rest of use `u`'s flow set: the definitions it *may* depend on
    /// (inexact, symbolic, guarded, possible or "anything" writes, or any
    /// write when `u` itself is not exact), as sorted half-open ranges.
    pub fn may_of(&self, u: UseId) -> Vec<(DefId, DefId)> {
        let mut out = Vec::new();
        sets::minus(self.defs_of(u), &self.must_of(u), &mut out);
        out
    }

    /// The ranges of interned set `s`: sorted half-open ranges of
    /// definition ids for the sets of [`MemDeps::flow_set`],
    /// [`MemDeps::output_set`] and [`MemDeps::carried_sets`], of use ids
    /// for those of [`MemDeps::anti_set`] (empty out of range). This is
    /// the compact form: uses with equal dependences share one set id, so
    /// a client lists each distinct set once and each use's id, and
    /// expands one use lazily ([`MemDeps::defs_of_iter`]) only when asked.
    pub fn set(&self, s: SetId) -> &[(u32, u32)] {
        if (s as usize) + 1 < self.sets.starts.len() { self.sets.get(s) } else { &[] }
    }

    /// The interned output set of definition `d` (the earlier definitions
    /// it may overwrite; `None` out of range or when not computed).
    pub fn output_set(&self, d: DefId) -> Option<SetId> {
        self.output.get(d as usize).copied()
    }

    /// The interned anti set of definition `d` (the earlier reads it may
    /// overwrite, as use ids; `None` out of range or when not computed).
    pub fn anti_set(&self, d: DefId) -> Option<SetId> {
        self.anti.get(d as usize).copied()
    }

    /// Every non-empty loop-carried flow set, as `(loop header, use, set)`
    /// sorted by header then use: the definitions reaching the use around
    /// that loop's back edge (see [`MemDeps::carried_defs`]).
    pub fn carried_sets(&self) -> impl Iterator<Item = (u32, UseId, SetId)> + '_ {
        self.carried.iter().copied()
    }

    /// True when definition `d` may reach use `u`.
    pub fn reaches(&self, d: DefId, u: UseId) -> bool {
        sets::contains(self.defs_of(u), d)
    }

    /// The uses definition `d` may reach, as sorted half-open id ranges.
    pub fn uses_of(&self, d: DefId) -> &[(UseId, UseId)] {
        cfg_dom::csr::row(&self.du_start, &self.du, d as usize)
    }

    /// The uses `d` may reach, one by one.
    pub fn uses_of_iter(&self, d: DefId) -> impl Iterator<Item = UseId> + '_ {
        self.uses_of(d).iter().flat_map(|&(lo, hi)| lo..hi)
    }

    /// The earlier definitions that definition `d` may overwrite (output
    /// dependences; empty unless computed, see [`crate::Options`]).
    pub fn output_of(&self, d: DefId) -> &[(DefId, DefId)] {
        self.output.get(d as usize).map_or(&[], |&s| self.sets.get(s))
    }

    /// The earlier reads that definition `d` may overwrite (anti
    /// dependences; empty unless computed).
    pub fn anti_of(&self, d: DefId) -> &[(UseId, UseId)] {
        self.anti.get(d as usize).map_or(&[], |&s| self.sets.get(s))
    }

    /// The definitions that reach use `u` around the back edge of the loop
    /// headed by block `header` (from an earlier iteration of it): a subset
    /// of [`MemDeps::defs_of`]. Empty unless computed
    /// ([`crate::Options::loop_carried`]), for uses outside that loop, and
    /// for irreducible loops.
    pub fn carried_defs(&self, header: u32, u: UseId) -> &[(DefId, DefId)] {
        match self.carried.binary_search_by_key(&(header, u), |&(h, x, _)| (h, x)) {
            Ok(k) => self.sets.get(self.carried[k].2),
            Err(_) => &[],
        }
    }

    /// True when the loop-carried flow dependences were computed.
    pub fn has_carried(&self) -> bool {
        self.has_carried
    }

    /// True when output and anti-dependences were computed.
    pub fn has_anti_output(&self) -> bool {
        self.has_anti_output
    }

    /// The definitions (with their instructions) reaching any read of
    /// `inst`: "the definitions reaching this use", by instruction.
    pub fn reaching_insts(&self, inst: InstId) -> Vec<InstId> {
        let mut out: Vec<InstId> = self
            .sites
            .uses_of_inst(inst)
            .iter()
            .flat_map(|&u| self.defs_of_iter(u))
            .filter_map(|d| self.sites.def_site(d).map(|s| s.inst))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `later` depends on `earlier` through memory, and how: it
    /// reads what `earlier` may have written (flow), or overwrites what
    /// `earlier` may have read (anti) or written (output), along some
    /// path from `earlier` to `later` (through a loop, `earlier` may be
    /// `later` itself, or come after it). Anti and output kinds are only
    /// known when computed ([`crate::Options::anti_and_output`]).
    pub fn depends(&self, earlier: InstId, later: InstId) -> DepKinds {
        let defs = self.sites.defs_of_inst(earlier);
        let reads = self.sites.uses_of_inst(earlier);
        // Does the range list hold any of the ids?
        let hits = |list: &[(u32, u32)], ids: &[u32]| ids.iter().any(|&x| sets::contains(list, x));
        let later_uses = self.sites.uses_of_inst(later);
        let later_defs = self.sites.defs_of_inst(later);
        let flow = later_uses.iter().any(|&u| hits(self.defs_of(u), defs));
        let output = later_defs.iter().any(|&d| hits(self.output_of(d), defs));
        let anti = later_defs.iter().any(|&d| hits(self.anti_of(d), reads));
        DepKinds { flow, anti, output }
    }

    /// Edge counts in each form.
    pub fn counts(&self) -> EdgeCounts {
        let mut c = EdgeCounts {
            uses: self.sites.num_uses() as u64,
            defs: self.sites.num_defs() as u64,
            ..EdgeCounts::default()
        };
        let mut seen = vec![false; self.sets.starts.len().saturating_sub(1)];
        for &s in &self.flow {
            let r = self.sets.get(s);
            let n = sets::count(r);
            c.pairs += n;
            c.grouped += 1;
            c.ranges += 1;
            if !std::mem::replace(&mut seen[s as usize], true) {
                c.distinct_sets += 1;
                c.grouped += n;
                c.ranges += r.len() as u64;
            }
        }
        c.output_pairs = self.output.iter().map(|&s| sets::count(self.sets.get(s))).sum();
        c.anti_pairs = self.anti.iter().map(|&s| sets::count(self.sets.get(s))).sum();
        c
    }

    /// `Ok` when the dependences were computed on `func` as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        cfg_dom::check_stamp(self.stamp, func.code_stamp())
    }

    /// The code stamp the dependences were computed at.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }

    /// The uses whose flow sets differ between `self` and `other`, with
    /// both lists (for tests and tools).
    pub fn differences<'a>(&'a self, other: &'a MemDeps) -> Vec<Difference<'a>> {
        let n = self.flow.len().max(other.flow.len());
        (0..n as UseId)
            .filter(|&u| self.defs_of(u) != other.defs_of(u))
            .map(|u| (u, self.defs_of(u), other.defs_of(u)))
            .collect()
    }
}

/// The DU side in range form: for each definition, the uses whose flow set
/// contains it. A sweep over use ids: between consecutive uses the flow
/// set changes by what one adds and the other drops (nothing when the sets
/// are equal, as they often are: interned), and each definition in the
/// change opens or closes a run of its uses there. The runs come out per
/// definition in order, so the cost is the changes between consecutive
/// flow sets (a merge of their range lists) plus twice the output.
pub(crate) fn transpose(
    num_defs: usize,
    flow: &[SetId],
    sets: &Frozen,
    start: &mut Vec<u32>,
    out: &mut Vec<(u32, u32)>,
) {
    // (definition, use where a run of it opens or closes): toggles.
    let mut toggles: Vec<(u32, u32)> = Vec::new();
    let mut changed: Vec<(u32, u32)> = Vec::new();
    let mut prev: &[(u32, u32)] = &[];
    let mut prev_id = None;
    for u in 0..=flow.len() {
        let (cur, cur_id): (&[(u32, u32)], _) = match flow.get(u) {
            Some(&s) => (sets.get(s), Some(s)),
            None => (&[], None),
        };
        if cur_id == prev_id && u < flow.len() {
            continue;
        }
        changed.clear();
        sets::symmetric_difference(cur, prev, &mut changed);
        for &(lo, hi) in &changed {
            toggles.extend((lo..hi).map(|d| (d, u as u32)));
        }
        (prev, prev_id) = (cur, cur_id);
    }
    let (mut ts, mut tl) = (Vec::new(), Vec::new());
    cfg_dom::csr::bucket(num_defs, &toggles, &mut ts, &mut tl);
    start.clear();
    out.clear();
    for d in 0..num_defs {
        start.push(out.len() as u32);
        out.extend(cfg_dom::csr::row(&ts, &tl, d).chunks_exact(2).map(|p| (p[0], p[1])));
    }
    start.push(out.len() as u32);
}
