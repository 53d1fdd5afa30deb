//! Structural equality of two modules, position by position, naming the
//! first difference. Instruction ids are compared by layout position (the
//! parser numbers instructions in text order); everything else by id.

use ir_core::{Arg, Function, Inst, Module, Slot};

fn arg(f: &Function, a: Option<Arg>) -> String {
    match a {
        Some(Arg::Var(v)) => format!("%{}", f.var_name(v)),
        Some(Arg::Imm(i)) => format!("{i:?}"),
        None => "<unknown constant>".to_string(),
    }
}

fn inst_repr(m: &Module, f: &Function, i: Inst) -> String {
    let mut s = format!("{:?}", f.opcode(i));
    if let Some(g) = f.guard(i) {
        s += &format!(" guard({}{})", if g.negated { "!" } else { "" }, f.var_name(g.var));
    }
    let rs: Vec<&str> = f.results(i).iter().map(|&v| f.var_name(v)).collect();
    s += &format!(" results{rs:?}");
    let ops: Vec<String> = f.operands(i).iter().map(|&o| arg(f, f.arg(o))).collect();
    s += &format!(" ops{ops:?}");
    if let Some(cc) = f.int_cc(i) {
        s += &format!(" cc={cc}");
    }
    if let Some(cc) = f.float_cc(i) {
        s += &format!(" fcc={cc}");
    }
    if let Some(c) = f.callee(i) {
        s += &format!(" callee={}", m.callee_name(c));
    }
    if let Some(n) = f.intrinsic_name(i) {
        s += &format!(" intrinsic={n:?}");
    }
    if let Some(mem) = f.scalar_mem(i) {
        s += &format!(" mem={}", m.mem(mem).map_or("?", |o| &o.name));
    }
    for slot in f.tensor_slots(i) {
        match slot {
            Slot::Desc(d) => {
                s += &format!(
                    " desc({}, {}, {})",
                    m.mem(d.mem).map_or("?", |o| &o.name),
                    arg(f, f.arg(d.offset)),
                    arg(f, f.arg(d.size))
                )
            }
            Slot::Scalar(o) => s += &format!(" scalar({})", arg(f, f.arg(o))),
        }
    }
    let phi: Vec<String> = f.phi_blocks(i).iter().map(|b| b.to_string()).collect();
    if !phi.is_empty() {
        s += &format!(" phi{phi:?}");
    }
    let succ: Vec<String> = f.successors(i).map(|b| b.to_string()).collect();
    if !succ.is_empty() {
        s += &format!(" succ{succ:?}");
    }
    if let Some(jt) = f.switch_table(i) {
        s += &format!(" cases{:?}", jt.cases);
    }
    s
}

/// `None` when equal, else the first difference.
pub fn module_diff(a: &Module, b: &Module) -> Option<String> {
    let mems_a: Vec<_> = a.mems().map(|(id, m)| (id, m.clone())).collect();
    let mems_b: Vec<_> = b.mems().map(|(id, m)| (id, m.clone())).collect();
    if mems_a != mems_b {
        return Some(format!("memory objects differ:\n{mems_a:?}\n{mems_b:?}"));
    }
    let ext_a: Vec<_> = a.externs().map(|(id, e)| (id, e.clone())).collect();
    let ext_b: Vec<_> = b.externs().map(|(id, e)| (id, e.clone())).collect();
    if ext_a != ext_b {
        return Some(format!("externs differ:\n{ext_a:?}\n{ext_b:?}"));
    }
    if a.num_functions() != b.num_functions() {
        return Some("function counts differ".into());
    }
    for ((fa_id, fa), (fb_id, fb)) in a.functions().zip(b.functions()) {
        if fa_id != fb_id || fa.name() != fb.name() || fa.signature() != fb.signature() || fa.params() != fb.params() {
            return Some(format!("function headers differ: @{} vs @{}", fa.name(), fb.name()));
        }
        let vars_a: Vec<_> = fa.vars().map(|v| fa.var_data(v).cloned()).collect();
        let vars_b: Vec<_> = fb.vars().map(|v| fb.var_data(v).cloned()).collect();
        if vars_a != vars_b {
            return Some(format!("vars of @{} differ:\n{vars_a:?}\n{vars_b:?}", fa.name()));
        }
        let blocks_a: Vec<_> = fa.blocks().collect();
        let blocks_b: Vec<_> = fb.blocks().collect();
        if blocks_a != blocks_b {
            return Some(format!("block layouts of @{} differ: {blocks_a:?} vs {blocks_b:?}", fa.name()));
        }
        for blk in blocks_a {
            let ia: Vec<String> = fa.block_insts(blk).map(|i| inst_repr(a, fa, i)).collect();
            let ib: Vec<String> = fb.block_insts(blk).map(|i| inst_repr(b, fb, i)).collect();
            if ia != ib {
                return Some(format!("@{} {blk} differs:\n{ia:#?}\n{ib:#?}", fa.name()));
            }
        }
    }
    None
}
