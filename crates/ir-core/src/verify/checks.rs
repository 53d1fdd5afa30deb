//! The base-level checks: structure, entities, arity, types, memory.
//!
//! Invariants: one pass over the layout, linear in the size of the
//! function; the CFG is the function's own ([`crate::Function::cfg`]: each
//! distinct laid-out successor once), built once and handed to the SSA
//! level.

use super::context::{Ctx, exact, global, plural};
use super::error::{ErrorKind, Location, VerifierError};
use super::tensor::check_tensor;
use crate::access::scalar_access_width;
use crate::code::{block as block_of, node};
use crate::entities::{Block, Inst, Var};
use crate::imm::Imm;
use crate::instructions::{Extra, Operand};
use crate::module::Module;
use crate::opcode::{Format, Opcode};
use crate::types::Type;
use cfg_dom::CsrGraph;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet;

/// Checks memory objects' initial values.
pub(super) fn check_mems(m: &Module, errors: &mut Vec<VerifierError>) {
    for (id, mem) in m.mems() {
        let mut name = String::new();
        let _ = crate::text::write_global_name(&mut name, &mem.name);
        let error = |message| VerifierError {
            location: Location { mem: Some(id), ..Location::default() },
            kind: ErrorKind::MemInit,
            message,
        };
        if mem.init.len() as u64 > mem.len {
            errors.push(error(format!("{name} has {} elements but {} initial values", mem.len, mem.init.len())));
        }
        if let Some(bad) = mem.init.iter().find(|i| i.ty() != mem.elem) {
            errors.push(error(format!("{name} holds {} but an initial value is {bad:?}", mem.elem)));
        }
    }
}

/// Checks one function at the base level; returns its CFG (`None` when it
/// has no blocks).
pub(super) fn check_function(cx: &mut Ctx<'_>) -> Option<CsrGraph> {
    let func = cx.func;
    let Some(entry) = func.entry_block() else {
        cx.err(ErrorKind::NoBlocks, "function has no blocks");
        return None;
    };
    let cfg = func.cfg();
    if !cfg.pred_slice(node(entry)).is_empty() {
        cx.block = Some(entry);
        let preds: Vec<String> = cfg.pred_slice(node(entry)).iter().map(|&b| block_of(b).to_string()).collect();
        cx.err(ErrorKind::EntryBlock, format!("the entry block has predecessors ({})", preds.join(", ")));
    }
    for b in func.blocks() {
        cx.block = Some(b);
        cx.inst = None;
        let Some(last) = func.layout().last_inst(b) else {
            cx.err(ErrorKind::MissingTerminator, "block is empty; it needs a terminator");
            continue;
        };
        let mut seen_non_phi = false;
        for inst in func.block_insts(b) {
            cx.inst = Some(inst);
            let op = func.opcode(inst);
            if op == Opcode::Phi {
                if seen_non_phi {
                    cx.err(ErrorKind::MisplacedPhi, "phi after a non-phi instruction; phis must start their block");
                }
                if b == entry {
                    cx.err(ErrorKind::EntryBlock, "phi in the entry block");
                }
            } else {
                seen_non_phi = true;
            }
            if op.is_terminator() && inst != last {
                cx.err(ErrorKind::MisplacedTerminator, format!("`{op}` must be the last instruction of its block"));
            }
            if inst == last && !op.is_terminator() {
                cx.err(ErrorKind::MissingTerminator, "block does not end in a terminator");
            }
            check_inst(cx, &cfg, b, inst);
        }
    }
    cx.block = None;
    cx.inst = None;
    check_defined(cx);
    Some(cfg)
}

/// Reports vars that are used but defined nowhere (once per var).
fn check_defined(cx: &mut Ctx<'_>) {
    let func = cx.func;
    let mut defined: SecondaryMap<Var, bool> = SecondaryMap::with_capacity(func.num_vars());
    for &p in func.params() {
        defined[p] = true;
    }
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            for &r in func.results(inst) {
                defined[r] = true;
            }
        }
    }
    let mut reported: SecondaryMap<Var, bool> = SecondaryMap::new();
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            for (_, v) in func.uses(inst) {
                if func.var_data(v).is_some() && !defined[v] && !reported[v] {
                    reported[v] = true;
                    cx.block = Some(b);
                    cx.inst = Some(inst);
                    let shown = cx.show_var(v);
                    cx.err_var(ErrorKind::UndefinedVar, Some(v), format!("{shown} is used but never defined"));
                }
            }
        }
    }
}

fn extra_matches(format: Format, extra: &Extra) -> bool {
    matches!(
        (format, extra),
        (
            Format::Const
                | Format::Undef
                | Format::Unary
                | Format::Binary
                | Format::Select
                | Format::Convert
                | Format::Ret
                | Format::Trap,
            Extra::None
        ) | (Format::Compare, Extra::IntCC(_) | Extra::FloatCC(_))
            | (Format::Call, Extra::Call(_))
            | (Format::Intrinsic, Extra::Intrinsic(_))
            | (Format::Load | Format::Store, Extra::Mem(_))
            | (Format::TensorMap | Format::TensorReduce | Format::Matmul, Extra::Tensor { .. })
            | (Format::Phi, Extra::Phi(_))
            | (Format::Jump, Extra::Jump(_))
            | (Format::Branch, Extra::Branch(_))
            | (Format::Switch, Extra::Switch(_))
    )
}

fn check_inst(cx: &mut Ctx<'_>, cfg: &CsrGraph, block: Block, inst: Inst) {
    let func = cx.func;
    let Some(data) = func.inst(inst) else { return };
    let op = data.opcode();
    let results = func.results(inst);
    let ops = func.operands(inst);

    let mut entities_ok = true;
    for (i, &r) in results.iter().enumerate() {
        if func.var_data(r).is_none() {
            cx.err(ErrorKind::UnknownEntity, format!("result {i} is {r}, which is not a var of this function"));
            entities_ok = false;
        } else if results[..i].contains(&r) {
            let shown = cx.show_var(r);
            cx.err_var(ErrorKind::Arity, Some(r), format!("defines {shown} twice"));
        }
    }
    for (i, &o) in ops.iter().enumerate() {
        if func.operand_type(o).is_none() {
            cx.err(ErrorKind::UnknownEntity, format!("operand {i} ({o:?}) does not exist in this function"));
            entities_ok = false;
        }
    }
    if let Some(g) = data.guard() {
        if op == Opcode::Phi || op.is_terminator() {
            cx.err(ErrorKind::BadGuard, format!("`{op}` cannot be guarded"));
        }
        match func.var_type(g.var) {
            None => {
                cx.err(ErrorKind::UnknownEntity, format!("the guard {} is not a var of this function", g.var));
                entities_ok = false;
            }
            Some(Type::I1) => {}
            Some(t) => {
                let shown = cx.show_var(g.var);
                cx.err_var(ErrorKind::BadGuard, Some(g.var), format!("the guard {shown} has type {t}, expected i1"));
            }
        }
    }
    let keeps = func.fallbacks(inst);
    if !keeps.is_empty() {
        if data.guard().is_none() {
            cx.err(ErrorKind::BadGuard, "fallbacks (`else ...`) need a guard");
        }
        if keeps.len() != results.len() {
            cx.err(
                ErrorKind::Arity,
                format!(
                    "`{op}` has {} result{} but {} fallback{}",
                    results.len(),
                    plural(results.len()),
                    keeps.len(),
                    plural(keeps.len())
                ),
            );
        } else {
            for (i, (&k, &r)) in keeps.iter().zip(results).enumerate() {
                match (func.operand_type(k), func.var_type(r)) {
                    (None, _) => {
                        cx.err(
                            ErrorKind::UnknownEntity,
                            format!("fallback {i} ({k:?}) does not exist in this function"),
                        );
                        entities_ok = false;
                    }
                    (Some(_), Some(t)) => cx.expect_ty(&format!("fallback {i}"), k, t),
                    _ => {}
                }
            }
        }
    }
    let Some(extra) = func.extra(inst) else {
        return;
    };
    if !extra_matches(op.format(), extra) {
        cx.err(ErrorKind::Arity, format!("malformed `{op}`: it was built with another format's constructor"));
        return;
    }
    if !entities_ok {
        return;
    }
    let counts = |cx: &mut Ctx<'_>, nres: usize, nops: usize| -> bool {
        let mut ok = true;
        if results.len() != nres {
            cx.err(ErrorKind::Arity, format!("`{op}` defines {nres} result{}, found {}", plural(nres), results.len()));
            ok = false;
        }
        if ops.len() != nops {
            cx.err(ErrorKind::Arity, format!("`{op}` takes {nops} operand{}, found {}", plural(nops), ops.len()));
            ok = false;
        }
        ok
    };
    let rty = |i: usize| results.get(i).and_then(|&r| func.var_type(r));
    match op.format() {
        Format::Undef => {
            counts(cx, 1, 0);
        }
        Format::Const => {
            if counts(cx, 1, 1) {
                match ops[0].as_const() {
                    None => cx.err(ErrorKind::BadConst, "`const` needs an immediate; use `copy` for a var"),
                    // An unknown constant was reported with the operands.
                    Some(c) => {
                        if let Some(imm) = func.imm(c) {
                            cx.expect_result_ty(results[0], imm.ty());
                        }
                    }
                }
            }
        }
        Format::Unary | Format::Binary => {
            let n = if op.format() == Format::Unary { 1 } else { 2 };
            if counts(cx, 1, n)
                && let Some(t) = rty(0)
            {
                cx.expect_class(op, t);
                for (i, &o) in ops.iter().enumerate() {
                    cx.expect_ty(&format!("operand {i}"), o, t);
                }
            }
        }
        Format::Select => {
            if counts(cx, 1, 3) {
                cx.expect_ty("the condition", ops[0], Type::I1);
                if let Some(t) = rty(0) {
                    cx.expect_ty("operand 1", ops[1], t);
                    cx.expect_ty("operand 2", ops[2], t);
                }
            }
        }
        Format::Compare => {
            if counts(cx, 1, 2) {
                cx.expect_result_ty(results[0], Type::I1);
                if let Some(t) = func.operand_type(ops[0]) {
                    cx.expect_class(op, t);
                    cx.expect_ty("operand 1", ops[1], t);
                }
            }
        }
        Format::Convert => {
            if counts(cx, 1, 1)
                && let (Some(src), Some(dst)) = (func.operand_type(ops[0]), rty(0))
                && !conversion_ok(op, src, dst)
            {
                cx.err(ErrorKind::BadConversion, format!("`{op}` cannot convert {src} to {dst}"));
            }
        }
        Format::Call => check_call(cx, inst, results, ops),
        Format::Intrinsic => {}
        Format::Load | Format::Store => {
            let is_load = op == Opcode::Load;
            if counts(cx, usize::from(is_load), if is_load { 1 } else { 2 }) {
                let Some(mem) = func.scalar_mem(inst) else {
                    return;
                };
                let Some(obj) = cx.m.mem(mem) else {
                    cx.err(ErrorKind::UnknownEntity, format!("{mem} is not a memory object of this module"));
                    return;
                };
                cx.expect_int("the index", ops[0]);
                // The value type decides the width (docs/ir.md §6.6): the
                // element type itself (one element), or on an `i8` object any
                // wider type (`bytes(T)` elements, little-endian). An
                // ill-typed access is bounds-checked as one element.
                let value = if is_load { func.var_type(results[0]) } else { func.operand_type(ops[1]) };
                let width = value.and_then(|t| scalar_access_width(obj.elem, t));
                if let Some(i) = exact(func, ops[0])
                    .filter(|&i| i < 0 || (i as u64).saturating_add(u64::from(width.unwrap_or(1))) > obj.len)
                {
                    let name = global(&obj.name);
                    let what = match width {
                        Some(w) if w > 1 => format!("an access of {w} bytes at index {i}"),
                        _ => format!("index {i}"),
                    };
                    cx.err(
                        ErrorKind::DescriptorOutOfBounds,
                        format!("{what} is outside {name}, which has {} elements", obj.len),
                    );
                }
                match value {
                    _ if width.is_some() => {}
                    // Unknown vars were reported above.
                    None => {}
                    Some(_) if obj.elem != Type::I8 => {
                        if is_load {
                            cx.expect_result_ty(results[0], obj.elem);
                        } else {
                            cx.expect_ty("the stored value", ops[1], obj.elem);
                        }
                    }
                    // Only `i1` gets here: every other type fits an `i8` object.
                    Some(t) => {
                        let name = global(&obj.name);
                        let (what, shown, var) = if is_load {
                            ("result", cx.show_var(results[0]), Some(results[0]))
                        } else {
                            ("stored value", cx.show(ops[1]), ops[1].as_var())
                        };
                        cx.err_var(
                            ErrorKind::TypeMismatch,
                            var,
                            format!(
                                "the {what} {shown} has type {t}; {name} holds i8, so it must be i8 or a type read \
                                 as little-endian bytes (i16, i32, i64, f32, f64)"
                            ),
                        );
                    }
                }
            }
        }
        Format::TensorMap | Format::TensorReduce | Format::Matmul => check_tensor(cx, inst, results, ops),
        Format::Phi => check_phi(cx, cfg, block, inst, results, ops),
        Format::Jump | Format::Branch | Format::Switch => {
            let n = usize::from(op != Opcode::Jump);
            if counts(cx, 0, n) {
                if op == Opcode::Br {
                    cx.expect_ty("the condition", ops[0], Type::I1);
                }
                if op == Opcode::Switch {
                    check_switch(cx, inst, ops[0]);
                }
            }
            for t in func.successors(inst) {
                if !func.block_exists(t) {
                    cx.err(ErrorKind::UnknownEntity, format!("branch to {t}, which does not exist"));
                } else if !func.layout().is_block_inserted(t) {
                    cx.err(ErrorKind::UnknownTarget, format!("branch to {t}, which is not in the layout"));
                }
            }
        }
        Format::Ret => {
            let want = &func.signature().returns;
            if results.is_empty() && ops.len() != want.len() {
                cx.err(
                    ErrorKind::Arity,
                    format!(
                        "`ret` returns {} value{}, the signature says {}",
                        ops.len(),
                        plural(ops.len()),
                        want.len()
                    ),
                );
            } else if counts(cx, 0, want.len()) {
                for (i, (&o, &t)) in ops.iter().zip(want).enumerate() {
                    cx.expect_ty(&format!("return value {i}"), o, t);
                }
            }
        }
        Format::Trap => {
            counts(cx, 0, 0);
        }
    }
}

fn conversion_ok(op: Opcode, src: Type, dst: Type) -> bool {
    op.converts(src, dst)
}

fn check_call(cx: &mut Ctx<'_>, inst: Inst, results: &[Var], ops: &[Operand]) {
    let func = cx.func;
    let Some(callee) = func.callee(inst) else {
        return;
    };
    let Some(sig) = cx.m.callee_signature(callee) else {
        cx.err(ErrorKind::UnknownEntity, format!("the callee {callee:?} does not exist in this module"));
        return;
    };
    let name = global(cx.m.callee_name(callee));
    if ops.len() != sig.params.len() {
        cx.err(
            ErrorKind::CallSignature,
            format!("{name} takes {} argument{}, found {}", sig.params.len(), plural(sig.params.len()), ops.len()),
        );
    } else {
        for (i, (&o, &t)) in ops.iter().zip(&sig.params).enumerate() {
            if let Some(got) = func.operand_type(o).filter(|&g| g != t) {
                let shown = cx.show(o);
                cx.err(
                    ErrorKind::CallSignature,
                    format!("argument {i} ({shown}) of {name} has type {got}, expected {t}"),
                );
            }
        }
    }
    if results.len() != sig.returns.len() {
        cx.err(
            ErrorKind::CallSignature,
            format!(
                "{name} returns {} value{}, found {} result{}",
                sig.returns.len(),
                plural(sig.returns.len()),
                results.len(),
                plural(results.len())
            ),
        );
    } else {
        for (&r, &t) in results.iter().zip(&sig.returns) {
            if let Some(got) = func.var_type(r).filter(|&g| g != t) {
                let shown = cx.show_var(r);
                cx.err_var(
                    ErrorKind::CallSignature,
                    Some(r),
                    format!("result {shown} has type {got}, but {name} returns {t}"),
                );
            }
        }
    }
}

fn check_switch(cx: &mut Ctx<'_>, inst: Inst, value: Operand) {
    let func = cx.func;
    let Some(jt) = func.switch_table(inst) else {
        cx.err(ErrorKind::UnknownEntity, "the switch table does not exist");
        return;
    };
    let ty = func.operand_type(value);
    if let Some(t) = ty.filter(|t| !t.is_int()) {
        cx.err(ErrorKind::TypeMismatch, format!("the switch value has type {t}, expected an integer"));
        return;
    }
    let ty = ty.unwrap_or(Type::I64);
    let mut seen: Vec<i64> = Vec::with_capacity(jt.cases.len());
    for &(v, _) in &jt.cases {
        if Imm::int(ty, v).as_i64() != v {
            cx.err(
                ErrorKind::BadSwitchCase,
                format!("case value {v} is not a canonical {ty} (values are sign-extended)"),
            );
        }
        seen.push(v);
    }
    seen.sort_unstable();
    if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
        cx.err(ErrorKind::BadSwitchCase, format!("case value {} appears more than once", w[0]));
    }
}

fn check_phi(cx: &mut Ctx<'_>, cfg: &CsrGraph, block: Block, inst: Inst, results: &[Var], ops: &[Operand]) {
    let func = cx.func;
    if results.len() != 1 {
        cx.err(ErrorKind::Arity, format!("`phi` defines 1 result, found {}", results.len()));
    } else if let Some(t) = func.var_type(results[0]) {
        for (i, &o) in ops.iter().enumerate() {
            cx.expect_ty(&format!("incoming value {i}"), o, t);
        }
    }
    let preds = cfg.pred_slice(node(block));
    let incoming = func.phi_blocks(inst);
    // Scans for the usual few operands; hash sets past that, so a phi of
    // 10^5 operands costs linear time, not quadratic.
    const SCAN: usize = 16;
    let large = incoming.len() > SCAN || preds.len() > SCAN;
    let pred_set: FxHashSet<u32> = if large { preds.iter().copied().collect() } else { FxHashSet::default() };
    let mut named: FxHashSet<Block> = FxHashSet::default();
    for (i, &b) in incoming.iter().enumerate() {
        let twice = if large { !named.insert(b) } else { incoming[..i].contains(&b) };
        let is_pred = if large { pred_set.contains(&node(b)) } else { preds.contains(&node(b)) };
        if !func.block_exists(b) {
            cx.err(ErrorKind::UnknownEntity, format!("phi names {b}, which does not exist"));
        } else if twice {
            cx.err(ErrorKind::PhiPredecessors, format!("phi names {b} twice"));
        } else if !is_pred {
            cx.err(ErrorKind::PhiPredecessors, format!("phi names {b}, which is not a predecessor of {block}"));
        }
    }
    if large {
        named.extend(incoming.iter().copied());
    }
    for p in preds.iter().map(|&p| block_of(p)) {
        let has = if large { named.contains(&p) } else { incoming.contains(&p) };
        if !has {
            cx.err(ErrorKind::PhiPredecessors, format!("phi has no incoming value for predecessor {p}"));
        }
    }
}
