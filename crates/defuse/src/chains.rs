//! The product: UD chains (use → definitions) and DU chains (definition →
//! uses), in CSR form.
//!
//! Invariants: each UD list is sorted by definition id and each DU list by
//! use id, with no duplicates; the two are transposes of each other; chains
//! computed from a function carry its epoch (`check` catches a changed
//! function). Two `Chains` are equal when they relate the same pairs.

use crate::sites::{DefId, Sites, UseId};
use cfg_dom::Stale;
use ir_core::{Epoch, Function, csr};

/// UD and DU chains of one function.
#[derive(Clone, Debug, Default)]
pub struct Chains {
    sites: Sites,
    ud_start: Vec<u32>,
    ud: Vec<DefId>,
    du_start: Vec<u32>,
    du: Vec<UseId>,
    epoch: Option<Epoch>,
}

impl Chains {
    /// Builds chains from UD lists given use by use (each sorted, no
    /// duplicates) in CSR form; derives the DU side.
    pub(crate) fn from_ud(sites: Sites, ud_start: Vec<u32>, ud: Vec<DefId>, epoch: Epoch) -> Chains {
        let nd = sites.num_defs();
        let mut du_start = vec![0u32; nd + 1];
        for &d in &ud {
            du_start[d as usize + 1] += 1;
        }
        for i in 0..nd {
            du_start[i + 1] += du_start[i];
        }
        let mut fill = du_start.clone();
        let mut du = vec![0; ud.len()];
        // Uses in increasing order, so each DU list comes out sorted.
        for u in 0..sites.num_uses() {
            for &d in &ud[ud_start[u] as usize..ud_start[u + 1] as usize] {
                du[fill[d as usize] as usize] = u as UseId;
                fill[d as usize] += 1;
            }
        }
        Chains { sites, ud_start, ud, du_start, du, epoch: Some(epoch) }
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
    pub fn check(&self, func: &Function) -> Result<(), Stale> {
        match self.epoch {
            None => Err(Stale::Unstamped),
            Some(e) if e == func.epoch() => Ok(()),
            Some(e) => Err(Stale::Changed { computed: e, current: func.epoch() }),
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
