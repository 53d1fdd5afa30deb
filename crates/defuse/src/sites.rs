//! Definition and use sites, numbered densely.
//!
//! A definition is a param (defined on entry) or a result of an instruction
//! some block lists: `(instruction, result index)`. A use is a use of such
//! an instruction: `(instruction, use number)`, numbered in
//! [`cfg_dom::VarCode::uses`] order (for Keel IR, `Function::uses` order:
//! operands, guard, fallbacks; `Function::use_site` maps a number back to
//! its [`ir_core::UseSite`]).
//!
//! Invariants: definition ids are params first, then results by
//! instruction id; use ids are by instruction id, then use number. Both are
//! looked up from `(instruction, index)` through CSR offsets per
//! instruction, in O(1); the other way (an id's instruction) is a binary
//! search of those offsets, O(log instructions), which keeps the sites at
//! a var per site plus an offset per instruction (the chains are built
//! per function, read back by id mostly for display).

use cfg_dom::{Graph, Input, InstId, VarCode, VarId};

/// A definition id.
pub type DefId = u32;

/// A use id.
pub type UseId = u32;

/// Where a definition is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Def {
    /// The `i`-th param, defined on entry.
    Param(u32),
    /// Result `index` of `inst`.
    Result {
        /// The instruction.
        inst: InstId,
        /// Which result.
        index: u32,
    },
}

/// Where a use is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Use {
    /// The instruction.
    pub inst: InstId,
    /// Which of its uses.
    pub index: u32,
}

/// The sites of one function.
///
/// Stored as flat arrays (per definition its var, per use likewise, per
/// instruction its first definition and use id), so that building them is
/// a few copies of the checked input's arrays and a warm
/// [`crate::Chains`] refills them without allocating.
#[derive(Clone, Debug, Default)]
pub struct Sites {
    def_var: Vec<VarId>,
    use_var: Vec<VarId>,
    /// Per instruction id: first definition id (params come before), and
    /// first use id; one more entry at the end.
    def_start: Vec<u32>,
    use_start: Vec<u32>,
    num_params: u32,
}

/// For CSR offsets `starts` (by instruction, plus the end) and an entry
/// `k` below the end, the instruction whose row holds it: the last one
/// starting at or before `k` (rows of instructions without sites are
/// empty, so that one is unique).
fn owner(starts: &[u32], k: u32) -> InstId {
    (starts.partition_point(|&s| s <= k) - 1) as InstId
}

impl Sites {
    /// The sites of a checked input (instructions some block lists only),
    /// copied from its flat arrays (which are already by instruction id).
    pub fn of<G: Graph, C: VarCode>(input: &Input<'_, G, C>) -> Sites {
        let mut s = Sites::default();
        s.fill(input);
        s
    }

    /// [`Sites::of`] into these buffers (no allocation once they are large
    /// enough).
    pub(crate) fn fill<G: Graph, C: VarCode>(&mut self, input: &Input<'_, G, C>) {
        let params = input.params();
        let np = params.len() as u32;
        let (def_starts, use_starts) = (input.def_starts(), input.use_starts());
        self.num_params = np;
        self.def_var.clear();
        self.def_var.extend_from_slice(params);
        self.def_var.extend_from_slice(input.all_defs());
        self.use_var.clear();
        self.use_var.extend(input.all_uses().iter().map(|u| u.var));
        self.def_start.clear();
        self.def_start.extend(def_starts.iter().map(|&d| d + np));
        self.use_start.clear();
        self.use_start.extend_from_slice(use_starts);
    }

    /// Number of definitions.
    pub fn num_defs(&self) -> usize {
        self.def_var.len()
    }

    /// Number of uses.
    pub fn num_uses(&self) -> usize {
        self.use_var.len()
    }

    /// Number of params (their definitions are ids `0..num_params()`).
    pub fn num_params(&self) -> usize {
        self.num_params as usize
    }

    /// A definition; `None` for an id out of range. O(log instructions).
    pub fn def(&self, d: DefId) -> Option<Def> {
        if d as usize >= self.def_var.len() {
            return None;
        }
        if d < self.num_params {
            return Some(Def::Param(d));
        }
        let inst = owner(&self.def_start, d);
        Some(Def::Result { inst, index: d - self.def_start[inst as usize] })
    }

    /// The var a definition defines; `None` for an id out of range.
    pub fn def_var(&self, d: DefId) -> Option<VarId> {
        self.def_var.get(d as usize).copied()
    }

    /// A use; `None` for an id out of range. O(log instructions).
    pub fn use_at(&self, u: UseId) -> Option<Use> {
        if u as usize >= self.use_var.len() {
            return None;
        }
        let inst = owner(&self.use_start, u);
        Some(Use { inst, index: u - self.use_start[inst as usize] })
    }

    /// The var a use reads; `None` for an id out of range.
    pub fn use_var(&self, u: UseId) -> Option<VarId> {
        self.use_var.get(u as usize).copied()
    }

    /// The var of a definition known to exist (ids come from these sites).
    #[inline]
    pub(crate) fn var_of_def(&self, d: DefId) -> VarId {
        self.def_var[d as usize]
    }

    /// The var of a use known to exist (ids come from these sites).
    #[inline]
    pub(crate) fn var_of_use(&self, u: UseId) -> VarId {
        self.use_var[u as usize]
    }

    /// The id of the `i`-th param's definition.
    pub fn param_def(&self, i: u32) -> Option<DefId> {
        (i < self.num_params).then_some(i)
    }

    /// The id of result `index` of `inst`.
    pub fn def_id(&self, inst: InstId, index: u32) -> Option<DefId> {
        let r = self.defs_of_inst(inst);
        r.start.checked_add(index).filter(|d| r.contains(d))
    }

    /// The id of use number `index` of `inst`.
    pub fn use_id(&self, inst: InstId, index: u32) -> Option<UseId> {
        let r = self.uses_of_inst(inst);
        r.start.checked_add(index).filter(|u| r.contains(u))
    }

    /// The definition ids of `inst`'s results (empty for an id no block
    /// lists, or out of range).
    pub fn defs_of_inst(&self, inst: InstId) -> core::ops::Range<DefId> {
        match (self.def_start.get(inst as usize), self.def_start.get(inst as usize + 1)) {
            (Some(&s), Some(&e)) => s..e,
            _ => 0..0,
        }
    }

    /// The use ids of `inst` (empty for an id no block lists, or out of
    /// range).
    pub fn uses_of_inst(&self, inst: InstId) -> core::ops::Range<UseId> {
        match (self.use_start.get(inst as usize), self.use_start.get(inst as usize + 1)) {
            (Some(&s), Some(&e)) => s..e,
            _ => 0..0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Def, Sites, Use};
    use cfg_dom::{Input, InputBuffers};
    use ir_gen::{GenConfig, generate};

    /// Every id maps to its site and back, including instructions with no
    /// definitions or no uses (empty rows the binary search must skip) and
    /// unlisted instruction ids.
    #[test]
    fn ids_and_sites_round_trip() {
        let config = GenConfig { blocks: 12, vars: 6, predication: 0.3, unreachable: 0.2, ..GenConfig::default() };
        for seed in 0..40 {
            let g = generate(&config, seed);
            for (_, f) in g.module.functions() {
                let cfg = f.cfg();
                let mut buffers = InputBuffers::default();
                let sites = Sites::of(&Input::new(&cfg, f, &mut buffers).unwrap());
                for d in 0..sites.num_defs() as u32 {
                    let back = match sites.def(d).unwrap() {
                        Def::Param(i) => sites.param_def(i),
                        Def::Result { inst, index } => sites.def_id(inst, index),
                    };
                    assert_eq!(back, Some(d));
                }
                for u in 0..sites.num_uses() as u32 {
                    let Use { inst, index } = sites.use_at(u).unwrap();
                    assert_eq!(sites.use_id(inst, index), Some(u));
                }
                assert_eq!(sites.def(sites.num_defs() as u32), None);
                assert_eq!(sites.use_at(sites.num_uses() as u32), None);
            }
        }
    }
}
