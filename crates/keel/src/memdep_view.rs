//! What both of `keel memdep`'s forms print of one function: its
//! dependences, its memory instructions numbered in layout order (the
//! document's `irN`, found by a table indexed by instruction, not a
//! search), the descriptors as the IR writes them, the summary line and
//! the JSON edge counts. The expanded form (`memdep_cmd`) and the compact
//! one (`memdep_compact`) render from it.

use ir_core::text::DisplayInst;
use ir_core::{Arg, Function, Module};
use memdep::{ANY, MemDeps, MemQueries, Site};
use serde_json::{Value, json};
use std::io::Write;

/// One function's analysis and what the views need of it.
pub(crate) struct View<'a> {
    pub(crate) module: &'a Module,
    pub(crate) func: &'a Function,
    pub(crate) deps: MemDeps,
    pub(crate) q: MemQueries,
    /// Memory instructions in layout order (the document's `irN`).
    pub(crate) mem: Vec<u32>,
    /// By instruction id: its position in `mem` plus one (0: none).
    position: Vec<u32>,
}

impl<'a> View<'a> {
    /// The view of `func`'s dependences `deps` (and its queries `q`): its
    /// memory instructions (those with a read or a write site), numbered.
    pub(crate) fn new(module: &'a Module, func: &'a Function, deps: MemDeps, q: MemQueries) -> View<'a> {
        let mem: Vec<u32> = func
            .blocks()
            .flat_map(|b| func.block_insts(b))
            .map(|i| i.as_u32())
            .filter(|&i| !deps.sites().uses_of_inst(i).is_empty() || !deps.sites().defs_of_inst(i).is_empty())
            .collect();
        let mut position = vec![0u32; func.num_insts()];
        for (k, &i) in mem.iter().enumerate() {
            position[i as usize] = k as u32 + 1;
        }
        View { module, func, deps, q, mem, position }
    }

    /// The position of `inst` among the memory instructions.
    pub(crate) fn position(&self, inst: u32) -> Option<usize> {
        match self.position.get(inst as usize) {
            Some(&k) if k > 0 => Some(k as usize - 1),
            _ => None,
        }
    }

    /// `irN` for the N-th memory instruction (`instK` for another).
    pub(crate) fn label(&self, inst: u32) -> String {
        match self.position(inst) {
            Some(k) => format!("ir{}", k + 1),
            None => format!("inst{inst}"),
        }
    }

    /// The instruction as the IR text writes it.
    pub(crate) fn inst_text(&self, inst: u32) -> String {
        DisplayInst { module: self.module, func: self.func, inst: ir_core::Inst::from_u32(inst) }.to_string()
    }

    /// The descriptor of access `k` of `inst`, as the IR writes it.
    pub(crate) fn descriptor(&self, s: Site) -> String {
        if s.access == ANY {
            return "anything".into();
        }
        let arg = |a: Arg| match a {
            Arg::Var(v) => format!("%{}", self.func.var_name(v)),
            Arg::Imm(i) => i.as_i64().to_string(),
        };
        let name = |o: u32| {
            self.module.mem(ir_core::Mem::from_u32(o)).map_or("?".to_string(), |m| crate::out::global(&m.name))
        };
        let ir = self.func.accesses(ir_core::Inst::from_u32(s.inst), self.module);
        match ir.get(s.access as usize) {
            Some(a) => format!("{}[{}, {}]", name(a.mem.as_u32()), arg(a.offset), arg(a.size)),
            // A callee's possible access (its summary).
            None => match self.q.access(s.inst, s.access) {
                Some(a) => match a.within {
                    Some((lo, hi)) => format!("{}[{lo}..{hi}] (callee)", name(a.object)),
                    None => format!("{} (callee)", name(a.object)),
                },
                None => "?".into(),
            },
        }
    }
}

/// The function's summary line, in both forms.
pub(crate) fn header(v: &View<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    let c = v.deps.counts();
    writeln!(
        out,
        "{}: {} memory instructions, {} reads, {} writes; flow: {} pairs, {} ranges in {} distinct sets",
        crate::out::global(v.func.name()),
        v.mem.len(),
        c.uses,
        c.defs,
        c.pairs,
        c.ranges,
        c.distinct_sets
    )
}

/// The edge counts of both JSON forms.
pub(crate) fn counts_json(deps: &MemDeps) -> Value {
    let c = deps.counts();
    json!({
        "uses": c.uses, "defs": c.defs, "flow_pairs": c.pairs, "flow_grouped": c.grouped,
        "flow_ranges": c.ranges, "distinct_sets": c.distinct_sets,
        "output_pairs": c.output_pairs, "anti_pairs": c.anti_pairs,
    })
}
