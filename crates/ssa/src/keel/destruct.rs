//! Out of SSA: phis become copies, fallbacks become copies.
//!
//! Method (Sreedhar, Ju, Gillies and Santhanam, "Translating out of static
//! single assignment form", SAS 1999; Boissinot et al., "Revisiting out-of-SSA
//! translation for correctness, code quality and efficiency", CGO 2009):
//! 1. every edge `P -> S` into a block with phis, where `P` has another
//!    successor, is split by a new block (this is what avoids the *lost-copy*
//!    problem: a copy at the end of `P` would clobber a value live on `P`'s
//!    other edge);
//! 2. the phis of `S` become one *parallel copy* per incoming edge, at the
//!    end of the predecessor (or of the new block), which is then
//!    sequentialized so that no copy overwrites a value another still needs
//!    (the *swap* problem): a copy goes out once its destination is read by
//!    no pending copy; what is left is cycles, each broken with one temporary;
//! 3. phis are removed (a phi that only ever receives its own value becomes
//!    `undef`, since that is its value and its var still needs a definition);
//! 4. a guarded definition with fallbacks, `@%p %x.5 = op else %x.2`,
//!    becomes `%x.5 = copy %x.2; @%p %x.5 = op` (again a parallel copy when
//!    there are several results).
//!
//! Invariants: the result has no phis and no fallbacks and computes what the
//! SSA form computed (checked against the reference interpreter). `undef`
//! definitions stay: they are valid everywhere. No copy coalescing is done:
//! versions stay distinct vars.

use ir_core::entity::EntityRef;
use ir_core::{Block, Function, FunctionBuilder, Inst, Opcode, Operand, Var};
use ir_core::{block, node};

/// What destruction did.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Critical edges split.
    pub edges_split: usize,
    /// Copies inserted.
    pub copies: usize,
    /// Temporaries created to break copy cycles.
    pub temporaries: usize,
    /// Phis removed.
    pub phis: usize,
}

/// Takes `func` out of SSA form in place.
pub fn destruct(func: &mut Function) -> Stats {
    let mut stats = Stats::default();
    let graph = func.cfg();
    let join_blocks: Vec<Block> =
        func.blocks().filter(|&b| func.layout().first_inst(b).is_some_and(|i| func.opcode(i) == Opcode::Phi)).collect();
    for s in join_blocks {
        let phis: Vec<Inst> = func.block_insts(s).take_while(|&i| func.opcode(i) == Opcode::Phi).collect();
        for &p in graph.pred_slice(node(s)) {
            let pred = block(p);
            let site = if graph.succ_slice(p).len() > 1 { split_edge(func, pred, s, &phis, &mut stats) } else { pred };
            // The parallel copy for this edge: each phi's value from `site`.
            let copies: Vec<(Var, Operand)> = phis
                .iter()
                .filter_map(|&phi| {
                    let dst = *func.results(phi).first()?;
                    let src = func.phi_incoming(phi).find(|&(b, _)| b == site)?.1;
                    Some((dst, src))
                })
                .collect();
            let Some(term) = func.terminator(site) else { continue };
            sequentialize(func, term, copies, &mut stats);
        }
        for phi in phis {
            stats.phis += 1;
            // A phi that only ever receives itself (a self-loop in
            // unreachable code, say) got no copy: its value is undefined,
            // and something must still define its var.
            let only_self =
                func.results(phi).first().is_some_and(|&r| func.operands(phi).iter().all(|o| o.as_var() == Some(r)));
            if only_self {
                let dst = func.results(phi)[0];
                FunctionBuilder::new(func).replace(phi).undef(dst);
            } else {
                let _ = func.remove_inst(phi);
            }
        }
    }
    // Fallbacks: copy the kept value in first, then let the guard decide.
    let guarded: Vec<Inst> =
        func.blocks().flat_map(|b| func.block_insts(b)).filter(|&i| !func.fallbacks(i).is_empty()).collect();
    for inst in guarded {
        let copies: Vec<(Var, Operand)> =
            func.results(inst).iter().copied().zip(func.fallbacks(inst).iter().copied()).collect();
        func.set_fallbacks(inst, &[]);
        sequentialize(func, inst, copies, &mut stats);
    }
    stats
}

/// Splits `pred -> succ` with a new block placed after `pred`; returns it.
fn split_edge(func: &mut Function, pred: Block, succ: Block, phis: &[Inst], stats: &mut Stats) -> Block {
    let e = func.create_block();
    // `pred` is in the layout, so inserting after it cannot fail.
    let _ = func.insert_block_after(e, pred);
    let mut b = FunctionBuilder::new(func);
    b.switch_to_block(e);
    b.ins().jump(succ);
    if let Some(term) = func.terminator(pred) {
        let targets: Vec<Block> = func.successors(term).collect();
        for (i, t) in targets.into_iter().enumerate() {
            if t == succ {
                func.set_successor(term, i, e);
            }
        }
    }
    for &phi in phis {
        if let Some(k) = func.phi_blocks(phi).iter().position(|&b| b == pred) {
            func.set_phi_block(phi, k, e);
        }
    }
    stats.edges_split += 1;
    e
}

/// Emits the parallel copy `copies` (distinct destinations) before
/// `before`, in an order that gives every destination its source's value
/// from before the copy.
fn sequentialize(func: &mut Function, before: Inst, copies: Vec<(Var, Operand)>, stats: &mut Stats) {
    let mut pending: Vec<(Var, Operand)> = copies.into_iter().filter(|&(d, s)| s.as_var() != Some(d)).collect();
    if pending.is_empty() {
        return;
    }
    // How many pending copies read each var.
    let mut readers: Vec<u32> = vec![0; func.num_vars()];
    for &(_, s) in &pending {
        if let Some(v) = s.as_var().filter(|v| v.index() < readers.len()) {
            readers[v.index()] += 1;
        }
    }
    let mut emit: Vec<(Var, Operand)> = Vec::with_capacity(pending.len() + 1);
    while !pending.is_empty() {
        // Emit every copy whose destination no pending copy still reads.
        let mut progressed = false;
        let mut i = 0;
        while i < pending.len() {
            let (d, s) = pending[i];
            if readers.get(d.index()).copied().unwrap_or(0) == 0 {
                emit.push((d, s));
                if let Some(v) = s.as_var().filter(|v| v.index() < readers.len()) {
                    readers[v.index()] -= 1;
                }
                pending.swap_remove(i);
                progressed = true;
            } else {
                i += 1;
            }
        }
        if progressed || pending.is_empty() {
            continue;
        }
        // Only cycles remain: save one destination in a temporary and let
        // its readers read the temporary instead.
        let (d, _) = pending[0];
        let ty = func.var_type(d).unwrap_or(ir_core::Type::I64);
        let name = format!("{}_swap", func.var_name(d));
        let t = func.add_var(&name, ty);
        readers.push(0);
        stats.temporaries += 1;
        emit.push((t, Operand::var(d)));
        for copy in pending.iter_mut() {
            if copy.1.as_var() == Some(d) {
                copy.1 = Operand::var(t);
                readers[d.index()] -= 1;
                readers[t.index()] += 1;
            }
        }
    }
    let mut b = FunctionBuilder::new(func);
    b.position_before(before);
    for (d, s) in emit {
        // A constant the function lacks (only in malformed input) has
        // nothing to copy.
        let Some(arg) = b.func().arg(s) else { continue };
        b.ins().copy(d, arg);
        stats.copies += 1;
    }
}
