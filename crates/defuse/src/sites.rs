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
//! instruction, in O(1).

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
#[derive(Clone, Debug, Default)]
pub struct Sites {
    defs: Vec<Def>,
    def_var: Vec<VarId>,
    uses: Vec<Use>,
    use_var: Vec<VarId>,
    /// Per instruction id: first definition id (params come before), and
    /// first use id; one more entry at the end.
    def_start: Vec<u32>,
    use_start: Vec<u32>,
    num_params: u32,
}

impl Sites {
    /// The sites of a checked input (instructions some block lists only),
    /// copied from its flat arrays (which are already by instruction id).
    pub fn of<G: Graph, C: VarCode>(input: &Input<'_, G, C>) -> Sites {
        let params = input.params();
        let np = params.len() as u32;
        let (def_starts, use_starts) = (input.def_starts(), input.use_starts());
        let mut s = Sites { num_params: np, ..Sites::default() };
        s.def_var.reserve(params.len() + input.all_defs().len());
        s.def_var.extend_from_slice(params);
        s.def_var.extend_from_slice(input.all_defs());
        s.use_var.extend(input.all_uses().iter().map(|u| u.var));
        s.def_start.extend(def_starts.iter().map(|&d| d + np));
        s.use_start.extend_from_slice(use_starts);
        s.defs.reserve(s.def_var.len());
        s.defs.extend((0..np).map(Def::Param));
        s.uses.reserve(s.use_var.len());
        for inst in 0..input.num_insts() as InstId {
            let (d0, d1) = (def_starts[inst as usize], def_starts[inst as usize + 1]);
            s.defs.extend((0..d1 - d0).map(|index| Def::Result { inst, index }));
            let (u0, u1) = (use_starts[inst as usize], use_starts[inst as usize + 1]);
            s.uses.extend((0..u1 - u0).map(|index| Use { inst, index }));
        }
        s
    }

    /// Number of definitions.
    pub fn num_defs(&self) -> usize {
        self.defs.len()
    }

    /// Number of uses.
    pub fn num_uses(&self) -> usize {
        self.uses.len()
    }

    /// A definition; `None` for an id out of range.
    pub fn def(&self, d: DefId) -> Option<Def> {
        self.defs.get(d as usize).copied()
    }

    /// The var a definition defines; `None` for an id out of range.
    pub fn def_var(&self, d: DefId) -> Option<VarId> {
        self.def_var.get(d as usize).copied()
    }

    /// A use; `None` for an id out of range.
    pub fn use_at(&self, u: UseId) -> Option<Use> {
        self.uses.get(u as usize).copied()
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
