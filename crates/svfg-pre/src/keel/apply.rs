//! Applying a [`Plan`] to a Keel function (the plan module's steps, in its
//! order), and the edge split both PRE and LCM use.
//!
//! New values are vars named `%preN` (a phi of value number `N`) and
//! `%preN.i` (an insertion feeding a phi of `N`); a phi operand from an
//! unreachable predecessor is zero of the phi's type. Splitting `p -> s`
//! makes a block laid out after `p` that jumps to `s`; `p`'s terminator and
//! `s`'s phis are retargeted to it.
//!
//! Invariant: the function is in SSA form after applying a plan made for
//! it (the plan's invariants), and the edits are those the plan lists, in
//! its order, so the output is deterministic.

use super::code::KeelOp;
use super::error::PreError;
use crate::plan::{Plan, PlanArg, PlanBlock};
use crate::vn::ValueNumber;
use ir_core::{Arg, Block, Format, Function, FunctionBuilder, Imm, Inst, Opcode, Type, Var, block};
use smallvec::SmallVec;
use std::time::{Duration, Instant};

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Computations turned into copies.
    pub removed: usize,
    /// Computations inserted.
    pub inserted: usize,
    /// The var each inserted computation defines, with the value number it
    /// counts for (for the per-value "never worse" oracle).
    pub inserted_values: Vec<(Var, ValueNumber)>,
    /// For each materialized extension phi of a value `t`, the pairs
    /// `(t, t_k)` of `t` and the translation each operand carries (on the
    /// path through that operand, `t_k` is `t`).
    pub translations: Vec<(ValueNumber, ValueNumber)>,
    /// Values the extension step extended (phis placed at their `dn`).
    pub extended: usize,
    /// Rebuilds of the semi-SVFG the extension step made.
    pub extension_rounds: u32,
    /// Phis of value numbers placed in the semi-SVFG.
    pub phis_placed: usize,
    /// Placed phis materialized as Keel phis.
    pub phis_created: usize,
    /// Placed phis deleted (unused or unavailable).
    pub phis_deleted: usize,
    /// Critical edges split for insertions.
    pub edges_split: usize,
    /// Time numbering values.
    pub time_vn: Duration,
    /// Time building the SVFG and its properties.
    pub time_svfg: Duration,
    /// Time planning and rewriting.
    pub time_rewrite: Duration,
}

/// Applies `plan` to `func`, the function it was made for (unchanged
/// since: [`PreError::StalePlan`] otherwise, and nothing is changed).
pub fn apply(func: &mut Function, plan: &Plan<KeelOp, Imm>) -> Result<Stats, PreError> {
    plan.check(func).map_err(PreError::StalePlan)?;
    Ok(apply_unchecked(func, plan))
}

/// [`apply`] without the stamp check (the caller just made the plan).
pub(crate) fn apply_unchecked(func: &mut Function, plan: &Plan<KeelOp, Imm>) -> Stats {
    let t0 = Instant::now();
    let vars: Vec<Var> = plan
        .values
        .iter()
        .map(|v| {
            let name = if v.phi { format!("pre{}", v.number.0) } else { format!("pre{}.i", v.number.0) };
            func.add_var(&name, v.op.ty)
        })
        .collect();
    let new_blocks: Vec<Block> = plan.splits.iter().map(|e| split_edge(func, block(e.from), block(e.to))).collect();
    let at = |b: PlanBlock| match b {
        PlanBlock::Existing(n) => block(n),
        PlanBlock::New(i) => new_blocks[i as usize],
    };
    let arg = |a: PlanArg<Imm>, ty: Type| match a {
        PlanArg::Value(v) => Arg::Var(Var::from_u32(v)),
        PlanArg::New(p) => Arg::Var(vars[p.index()]),
        PlanArg::Imm(i) => Arg::Imm(i),
        PlanArg::Any => Arg::Imm(Imm::from_bits(ty, 0)),
    };
    for ins in &plan.inserts {
        let args: SmallVec<[Arg; 3]> = ins.args.iter().map(|&a| arg(a, ins.op.ty)).collect();
        emit(func, at(ins.at), ins.op, vars[ins.def.index()], &args);
    }
    for phi in &plan.phis {
        let ty = plan.values[phi.def.index()].op.ty;
        let incoming: Vec<(Block, Arg)> = phi.incoming.iter().map(|&(b, a)| (at(b), arg(a, ty))).collect();
        let b = block(phi.block);
        let mut fb = FunctionBuilder::new(func);
        match fb.func().layout().first_inst(b) {
            Some(first) => fb.position_before(first),
            None => fb.switch_to_block(b),
        }
        fb.ins().phi(vars[phi.def.index()], &incoming);
    }
    for r in &plan.replacements {
        let src = match r.by {
            PlanArg::Value(v) => Var::from_u32(v),
            PlanArg::New(p) => vars[p.index()],
            PlanArg::Imm(_) | PlanArg::Any => continue,
        };
        let inst = Inst::from_u32(r.inst);
        let Some(&res) = func.results(inst).first() else { continue };
        FunctionBuilder::new(func).replace(inst).copy(res, src);
    }
    let s = &plan.stats;
    Stats {
        removed: s.removed,
        inserted: s.inserted,
        inserted_values: plan.inserts.iter().map(|i| (vars[i.def.index()], i.counts_for)).collect(),
        translations: s.translations.clone(),
        extended: s.extended,
        extension_rounds: s.extension_rounds,
        phis_placed: s.phis_placed,
        phis_created: s.phis_created,
        phis_deleted: s.phis_deleted,
        edges_split: s.edges_split,
        time_vn: s.time_vn,
        time_svfg: s.time_svfg,
        time_rewrite: s.time_plan + t0.elapsed(),
    }
}

/// Emits `dst = op args` before the terminator of `at`.
fn emit(func: &mut Function, at: Block, op: KeelOp, dst: Var, args: &[Arg]) {
    let mut fb = FunctionBuilder::new(func);
    match fb.func().terminator(at) {
        Some(t) => fb.position_before(t),
        None => fb.switch_to_block(at),
    }
    let a = |i: usize| args.get(i).copied().unwrap_or(Arg::Var(dst));
    let (opcode, cc) = (op.opcode, op.cc as usize);
    match opcode.format() {
        Format::Binary => fb.ins().binary(opcode, dst, a(0), a(1)),
        Format::Unary => fb.ins().unary(opcode, dst, a(0)),
        Format::Convert => fb.ins().convert(opcode, dst, a(0)),
        Format::Select => fb.ins().select(dst, a(0), a(1), a(2)),
        _ if opcode == Opcode::Setp => fb.ins().setp(ir_core::IntCC::ALL[cc], dst, a(0), a(1)),
        _ => fb.ins().fsetp(ir_core::FloatCC::ALL[cc], dst, a(0), a(1)),
    };
}

/// Splits the edge `pb -> sb`: a new block after `pb` that jumps to `sb`,
/// `pb`'s branch retargeted to it and `sb`'s phis reading from it. Used by
/// both LCM and PRE when an insertion needs its own block on an edge.
pub(crate) fn split_edge(func: &mut Function, pb: Block, sb: Block) -> Block {
    let e = func.create_block();
    let _ = func.insert_block_after(e, pb);
    let mut fb = FunctionBuilder::new(func);
    fb.switch_to_block(e);
    fb.ins().jump(sb);
    retarget(func, pb, sb, e);
    let phis: Vec<Inst> = func.block_insts(sb).take_while(|&i| func.opcode(i) == Opcode::Phi).collect();
    for phi in phis {
        if let Some(k) = func.phi_blocks(phi).iter().position(|&x| x == pb) {
            func.set_phi_block(phi, k, e);
        }
    }
    e
}

/// Points every edge of `from`'s terminator to `old` at `new` (edge
/// splits, loop rotation).
pub(crate) fn retarget(func: &mut Function, from: Block, old: Block, new: Block) {
    let Some(term) = func.terminator(from) else { return };
    let targets: Vec<Block> = func.successors(term).collect();
    for (k, t) in targets.into_iter().enumerate() {
        if t == old {
            func.set_successor(term, k, new);
        }
    }
}
