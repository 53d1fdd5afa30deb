//! The product: UD chains (use → definitions) and DU chains (definition →
//! uses), in CSR form.
//!
//! Invariants: each UD list is sorted by definition id and each DU list by
//! use id, with no duplicates; the two are transposes of each other (the DU
//! side is `cfg_dom::csr`'s stable bucket of the UD pairs); chains carry the
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
    /// Builds chains from UD lists given use by use (each sorted, no
    /// duplicates) in CSR form; derives the DU side.
    pub(crate) fn from_ud(sites: Sites, ud_start: Vec<u32>, ud: Vec<DefId>, stamp: Option<u64>) -> Chains {
        let nd = sites.num_defs();
        let (mut du_start, mut du) = (Vec::new(), Vec::new());
        // Uses in increasing order, so each DU list comes out sorted.
        csr::bucket_by(nd, Transposed::new(&ud_start, &ud), &mut du_start, &mut du);
        Chains { sites, ud_start, ud, du_start, du, stamp }
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
        match self.stamp {
            None => Err(Stale::Unstamped),
            Some(e) if Some(e) == func.code_stamp() => Ok(()),
            Some(e) => Err(Stale::Changed { computed: e, current: func.code_stamp() }),
        }
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

/// The `(definition, use)` pairs of UD lists in CSR form, in use order,
/// walked from both ends (what the stable bucket needs) by position in the
/// flat list, with the use found by moving along the offsets: O(1)
/// amortised per pair, no closure per use.
#[derive(Clone, Debug)]
struct Transposed<'a> {
    start: &'a [u32],
    list: &'a [DefId],
    /// Next position from the front, and the use it belongs to.
    front: usize,
    front_use: usize,
    /// One past the next position from the back, and the use of the
    /// position before it.
    back: usize,
    back_use: usize,
}

impl<'a> Transposed<'a> {
    fn new(start: &'a [u32], list: &'a [DefId]) -> Transposed<'a> {
        Transposed { start, list, front: 0, front_use: 0, back: list.len(), back_use: start.len().saturating_sub(2) }
    }
}

impl Iterator for Transposed<'_> {
    type Item = (DefId, UseId);

    #[inline]
    fn next(&mut self) -> Option<(DefId, UseId)> {
        if self.front >= self.back {
            return None;
        }
        while self.start[self.front_use + 1] as usize <= self.front {
            self.front_use += 1;
        }
        let pair = (self.list[self.front], self.front_use as UseId);
        self.front += 1;
        Some(pair)
    }
}

impl DoubleEndedIterator for Transposed<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(DefId, UseId)> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        while self.start[self.back_use] as usize > self.back {
            self.back_use -= 1;
        }
        Some((self.list[self.back], self.back_use as UseId))
    }
}
