//! The product: UD chains (use → definitions) and DU chains (definition →
//! uses), in CSR form.
//!
//! Invariants: each UD list is sorted by definition id and each DU list by
//! use id, with no duplicates; the two are transposes of each other (the DU
//! side is a stable counting sort of the UD pairs by definition); chains carry the
//! code stamp of the function they were computed on (`check` catches a
//! changed function). Two `Chains` are equal when they relate the same
//! pairs. Queries with ids out of range answer empty lists.

use crate::sites::{DefId, Sites, UseId};
use cfg_dom::{Stale, Versioned, csr};

/// UD and DU chains of one function.
#[derive(Clone, Debug, Default)]
pub struct Chains {
    sites: Sites,
    ud_start: Vec<u32>,
    ud: Vec<DefId>,
    du_start: Vec<u32>,
    du: Vec<UseId>,
    stamp: Option<u64>,
}

impl Chains {
    /// Empty chains (of a function with no uses). Keep one and hand it to
    /// [`crate::ViaSsa::compute_into`] to reuse its buffers.
    pub fn new() -> Chains {
        Chains::default()
    }

    /// Builds chains from UD lists given use by use (each sorted, no
    /// duplicates) in CSR form; derives the DU side.
    pub(crate) fn from_ud(sites: Sites, ud_start: Vec<u32>, ud: Vec<DefId>, stamp: Option<u64>) -> Chains {
        let mut c = Chains { sites, ud_start, ud, du_start: Vec::new(), du: Vec::new(), stamp };
        c.derive_du();
        c
    }

    /// The buffers a method fills in place: the sites, the UD offsets and
    /// list (then [`Chains::finish`]).
    pub(crate) fn parts(&mut self) -> (&mut Sites, &mut Vec<u32>, &mut Vec<DefId>) {
        (&mut self.sites, &mut self.ud_start, &mut self.ud)
    }

    /// Derives the DU side of UD lists filled through [`Chains::parts`],
    /// and sets the stamp.
    pub(crate) fn finish(&mut self, stamp: Option<u64>) {
        self.stamp = stamp;
        self.derive_du();
    }

    /// The DU side: the UD lists transposed by the workspace's one CSR
    /// builder (a stable counting sort), so each definition's uses come out
    /// in increasing use order.
    fn derive_du(&mut self) {
        csr::transpose(self.sites.num_defs(), &self.ud_start, &self.ud, &mut self.du_start, &mut self.du);
    }

    /// The definition and use sites.
    pub fn sites(&self) -> &Sites {
        &self.sites
    }

    /// The definitions that may reach use `u`.
    pub fn defs_of(&self, u: UseId) -> &[DefId] {
        csr::row(&self.ud_start, &self.ud, u as usize)
    }

    /// The uses definition `d` may reach.
    pub fn uses_of(&self, d: DefId) -> &[UseId] {
        csr::row(&self.du_start, &self.du, d as usize)
    }

    /// Number of (definition, use) pairs.
    pub fn num_edges(&self) -> usize {
        self.ud.len()
    }

    /// `Ok` when the chains were computed on `func` as it is now.
    pub fn check(&self, func: &impl Versioned) -> Result<(), Stale> {
        cfg_dom::check_stamp(self.stamp, func.code_stamp())
    }

    /// The uses whose definition lists differ between `self` and `other`
    /// (computed on the same function), with both lists.
    pub fn differences<'a>(&'a self, other: &'a Chains) -> Vec<(UseId, &'a [DefId], &'a [DefId])> {
        let n = self.sites.num_uses().max(other.sites.num_uses());
        (0..n as UseId)
            .filter(|&u| self.defs_of(u) != other.defs_of(u))
            .map(|u| (u, self.defs_of(u), other.defs_of(u)))
            .collect()
    }
}

impl PartialEq for Chains {
    fn eq(&self, other: &Chains) -> bool {
        self.ud_start == other.ud_start && self.ud == other.ud
    }
}

impl Eq for Chains {}

/// Collects UD lists use by use into CSR form.
#[derive(Debug, Default)]
pub(crate) struct UdBuilder {
    pub(crate) start: Vec<u32>,
    pub(crate) list: Vec<DefId>,
}

impl UdBuilder {
    pub(crate) fn with_capacity(uses: usize) -> UdBuilder {
        let mut start = Vec::with_capacity(uses + 1);
        start.push(0);
        UdBuilder { start, list: Vec::new() }
    }

    /// Closes the list of the next use (the defs pushed since the last call
    /// are sorted and deduplicated).
    pub(crate) fn close(&mut self) {
        let from = *self.start.last().unwrap_or(&0) as usize;
        let tail = &mut self.list[from..];
        tail.sort_unstable();
        let mut w = from;
        for r in from..self.list.len() {
            if w == from || self.list[r] != self.list[w - 1] {
                self.list[w] = self.list[r];
                w += 1;
            }
        }
        self.list.truncate(w);
        self.start.push(self.list.len() as u32);
    }
}
