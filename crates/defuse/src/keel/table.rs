//! The chains as a table in the document's style: one row per statement,
//! with what it defines and where that is used, and what it uses and where
//! that was defined.
//!
//! Statements are named `s1`, `s2`, ... in layout order, every instruction
//! counted; params are named `param0`, `param1`, ....

use crate::chains::Chains;
use crate::sites::{Def, DefId, UseId};
use cfg_dom::{InstId, VarId};
use core::fmt::{self, Write};
use ir_core::entity::EntityRef;
use ir_core::text::DisplayInst;
use ir_core::{Function, Inst, Module, Var};

/// Statement names: `s<N>` by layout position.
#[derive(Clone, Debug)]
pub struct StatementNames {
    number: Vec<u32>,
}

impl StatementNames {
    /// Numbers the statements of `func` in layout order, from 1.
    pub fn of(func: &Function) -> StatementNames {
        let mut number = vec![0; func.num_insts()];
        let mut k = 0;
        for b in func.blocks() {
            for i in func.block_insts(b) {
                k += 1;
                number[i.index()] = k;
            }
        }
        StatementNames { number }
    }

    /// The name of a statement (`s7`; `s?` for an instruction that is not
    /// laid out).
    pub fn name(&self, inst: Inst) -> String {
        match self.number.get(inst.index()).copied().filter(|&k| k > 0) {
            Some(k) => format!("s{k}"),
            None => "s?".to_string(),
        }
    }

    /// The name of the statement of an instruction id of the chains.
    pub fn name_of(&self, inst: InstId) -> String {
        self.name(Inst::from_u32(inst))
    }

    /// The name of a definition: its statement, or `paramN`.
    pub fn def(&self, d: Def) -> String {
        match d {
            Def::Param(i) => format!("param{i}"),
            Def::Result { inst, .. } => self.name_of(inst),
        }
    }
}

/// The statement names of `chains`' uses `uses`, and of its definitions.
impl StatementNames {
    fn uses(&self, chains: &Chains, uses: &[UseId]) -> Vec<String> {
        uses.iter().filter_map(|&u| chains.sites().use_at(u)).map(|at| self.name_of(at.inst)).collect()
    }

    fn defs(&self, chains: &Chains, defs: &[DefId]) -> Vec<String> {
        defs.iter().filter_map(|&d| chains.sites().def(d)).map(|d| self.def(d)).collect()
    }
}

/// Writes the table of `chains` for `func`.
pub fn write_table(m: &Module, func: &Function, chains: &Chains, out: &mut impl Write) -> fmt::Result {
    let names = StatementNames::of(func);
    let sites = chains.sites();
    let var = |v: Option<VarId>| {
        let mut s = String::new();
        let _ = ir_core::text::write_var_name(&mut s, v.map_or("?", |v| func.var_name(Var::from_u32(v))));
        s
    };
    writeln!(
        out,
        "{:<6} {:<6} {:<40} {:<34} uses <- defined at",
        "stmt", "block", "instruction", "defines -> used at"
    )?;
    for (i, _) in func.params().iter().enumerate() {
        if let Some(d) = sites.param_def(i as u32) {
            let used = names.uses(chains, chains.uses_of(d));
            writeln!(
                out,
                "{:<6} {:<6} {:<40} {} -> {}",
                format!("param{i}"),
                "",
                "",
                var(sites.def_var(d)),
                list(&used)
            )?;
        }
    }
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            let defs: Vec<String> = sites
                .defs_of_inst(inst.as_u32())
                .map(|d| format!("{} -> {}", var(sites.def_var(d)), list(&names.uses(chains, chains.uses_of(d)))))
                .collect();
            let uses: Vec<String> = sites
                .uses_of_inst(inst.as_u32())
                .map(|u| format!("{} <- {}", var(sites.use_var(u)), list(&names.defs(chains, chains.defs_of(u)))))
                .collect();
            let text = DisplayInst { module: m, func, inst }.to_string();
            writeln!(
                out,
                "{:<6} {:<6} {:<40} {:<34} {}",
                names.name(inst),
                format!("{b}"),
                text,
                defs.join("; "),
                uses.join("; ")
            )?;
        }
    }
    Ok(())
}

fn list(items: &[String]) -> String {
    if items.is_empty() { "{}".to_string() } else { format!("{{{}}}", items.join(", ")) }
}
