//! Definition and use sites, numbered densely.
//!
//! A definition is a param (defined on entry) or a result of an instruction
//! in the layout: `(Inst, result index)`. A use is a use site of an
//! instruction in the layout: `(Inst, UseSite)` — an operand, the guard, or
//! a fallback (see `ir_core::Function::uses`).
//!
//! Invariants: definition ids are params first, then results by
//! instruction id; use ids are by instruction id, in `Function::uses`
//! order. Both are looked up from `(Inst, index)` through CSR offsets per
//! instruction, so lookups are O(1) for definitions and O(uses of the
//! instruction) for uses.

use ir_core::entity::EntityRef;
use ir_core::{Function, Inst, UseSite, Var};

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
        inst: Inst,
        /// Which result.
        index: u32,
    },
}

/// Where a use is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Use {
    /// The instruction.
    pub inst: Inst,
    /// Which operand.
    pub site: UseSite,
}

/// The sites of one function.
#[derive(Clone, Debug, Default)]
pub struct Sites {
    defs: Vec<Def>,
    def_var: Vec<Var>,
    uses: Vec<Use>,
    use_var: Vec<Var>,
    /// Per instruction id: first definition id (params come before), and
    /// first use id; one more entry at the end.
    def_start: Vec<u32>,
    use_start: Vec<u32>,
    num_params: u32,
}

impl Sites {
    /// The sites of `func` (instructions in the layout only).
    pub fn of(func: &Function) -> Sites {
        let mut s = Sites::default();
        for (i, &p) in func.params().iter().enumerate() {
            s.defs.push(Def::Param(i as u32));
            s.def_var.push(p);
        }
        s.num_params = s.defs.len() as u32;
        let n = func.num_insts();
        s.def_start.reserve(n + 1);
        s.use_start.reserve(n + 1);
        for i in 0..n {
            let inst = Inst::new(i);
            s.def_start.push(s.defs.len() as u32);
            s.use_start.push(s.uses.len() as u32);
            if func.layout().inst_block(inst).is_none() {
                continue;
            }
            for (index, &r) in func.results(inst).iter().enumerate() {
                s.defs.push(Def::Result { inst, index: index as u32 });
                s.def_var.push(r);
            }
            for (site, v) in func.uses(inst) {
                s.uses.push(Use { inst, site });
                s.use_var.push(v);
            }
        }
        s.def_start.push(s.defs.len() as u32);
        s.use_start.push(s.uses.len() as u32);
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

    /// A definition.
    pub fn def(&self, d: DefId) -> Def {
        self.defs[d as usize]
    }

    /// The var a definition defines.
    pub fn def_var(&self, d: DefId) -> Var {
        self.def_var[d as usize]
    }

    /// A use.
    pub fn use_at(&self, u: UseId) -> Use {
        self.uses[u as usize]
    }

    /// The var a use reads.
    pub fn use_var(&self, u: UseId) -> Var {
        self.use_var[u as usize]
    }

    /// The id of the `i`-th param's definition.
    pub fn param_def(&self, i: u32) -> Option<DefId> {
        (i < self.num_params).then_some(i)
    }

    /// The id of result `index` of `inst`.
    pub fn def_id(&self, inst: Inst, index: u32) -> Option<DefId> {
        let (s, e) = (*self.def_start.get(inst.index())?, *self.def_start.get(inst.index() + 1)?);
        (s + index < e).then_some(s + index)
    }

    /// The id of the use at `(inst, site)`.
    pub fn use_id(&self, inst: Inst, site: UseSite) -> Option<UseId> {
        let (s, e) = (*self.use_start.get(inst.index())?, *self.use_start.get(inst.index() + 1)?);
        (s..e).find(|&u| self.uses[u as usize].site == site)
    }

    /// The definition ids of `inst`'s results.
    pub fn defs_of_inst(&self, inst: Inst) -> core::ops::Range<DefId> {
        match (self.def_start.get(inst.index()), self.def_start.get(inst.index() + 1)) {
            (Some(&s), Some(&e)) => s..e,
            _ => 0..0,
        }
    }

    /// The use ids of `inst`.
    pub fn uses_of_inst(&self, inst: Inst) -> core::ops::Range<UseId> {
        match (self.use_start.get(inst.index()), self.use_start.get(inst.index() + 1)) {
            (Some(&s), Some(&e)) => s..e,
            _ => 0..0,
        }
    }
}
