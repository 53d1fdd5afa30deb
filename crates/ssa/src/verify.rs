//! The SSA verifier: single definition, definitions dominate uses, a phi's
//! operands dominate the end of their predecessor, and guarded definitions
//! name their fallbacks — on `cfg-dom`'s dominator tree, so it is linear in
//! the size of the function (O(1) dominance queries, instruction positions
//! for same-block order).
//!
//! Invariants: the base-level rules (`ir_core::verify_function`) are checked
//! first and reported with these; uses in unreachable blocks, and phi pairs
//! from unreachable predecessors, are exempt from dominance (nothing runs
//! them); each var with several definitions is reported once and skipped by
//! the dominance check.

use cfg_dom::{CsrGraph, DomTree, node};
use ir_core::entity::EntityRef;
use ir_core::{
    ErrorKind, FuncId, Function, Inst, Location, Module, Opcode, UseSite, Var, VerifierError, VerifierErrors,
    VerifyOptions,
};

#[derive(Copy, Clone, PartialEq, Eq)]
enum Def {
    None,
    Param,
    At(Inst),
    Many,
}

/// Verifies that function `f` of `m` is valid and in SSA form.
pub fn verify(m: &Module, f: FuncId) -> Result<(), VerifierErrors> {
    let mut errors = match ir_core::verify_function(m, f, &VerifyOptions::default()) {
        Ok(()) => Vec::new(),
        Err(e) => e.0,
    };
    if let Some(func) = m.function(f) {
        check(func, f, &mut errors);
    }
    if errors.is_empty() { Ok(()) } else { Err(VerifierErrors(errors)) }
}

fn error(
    errors: &mut Vec<VerifierError>,
    f: FuncId,
    inst: Option<Inst>,
    func: &Function,
    var: Option<Var>,
    kind: ErrorKind,
    message: String,
) {
    let block = inst.and_then(|i| func.layout().inst_block(i));
    errors.push(VerifierError { location: Location { func: Some(f), block, inst, var, mem: None }, kind, message });
}

fn check(func: &Function, f: FuncId, errors: &mut Vec<VerifierError>) {
    let nv = func.num_vars();
    let graph = CsrGraph::from_function(func);
    let dt = DomTree::of(&graph);
    let mut def = vec![Def::None; nv];
    let mut count = vec![0u32; nv];
    let mut pos = vec![0u32; func.num_insts()];
    for &p in func.params() {
        if p.index() < nv {
            def[p.index()] = Def::Param;
            count[p.index()] += 1;
        }
    }
    for b in func.blocks() {
        for (k, inst) in func.block_insts(b).enumerate() {
            pos[inst.index()] = k as u32;
            for &r in func.results(inst).iter().filter(|r| r.index() < nv) {
                count[r.index()] += 1;
                def[r.index()] = if def[r.index()] == Def::None { Def::At(inst) } else { Def::Many };
            }
            if func.guard(inst).is_some() && !func.results(inst).is_empty() && func.fallbacks(inst).is_empty() {
                error(errors, f, Some(inst), func, None, ErrorKind::MissingFallback,
                    "a guarded definition in SSA form must name what its results keep when the guard fails (`else ...`)".into());
            }
        }
    }
    for v in func.vars().filter(|v| count[v.index()] > 1) {
        let name = func.var_name(v);
        error(
            errors,
            f,
            None,
            func,
            Some(v),
            ErrorKind::MultipleDefinitions,
            format!("%{name} is defined {} times; SSA allows one", count[v.index()]),
        );
    }
    // Does the definition of `v` dominate position `at` of block `b`
    // (`at == u32::MAX`: the end of the block)?
    let dominated = |v: Var, b: ir_core::Block, at: u32| -> bool {
        match def.get(v.index()).copied().unwrap_or(Def::None) {
            Def::None | Def::Param | Def::Many => true,
            Def::At(d) => match func.layout().inst_block(d) {
                Some(db) if db == b => pos[d.index()] < at,
                Some(db) => dt.dominates(node(db), node(b)),
                None => false,
            },
        }
    };
    for b in func.blocks().filter(|&b| dt.is_reachable(node(b))) {
        for inst in func.block_insts(b) {
            let here = pos[inst.index()];
            if func.opcode(inst) == Opcode::Phi {
                for (pred, op) in func.phi_incoming(inst) {
                    let Some(v) = op.as_var() else { continue };
                    if dt.is_reachable(node(pred)) && !dominated(v, pred, u32::MAX) {
                        error(
                            errors,
                            f,
                            Some(inst),
                            func,
                            Some(v),
                            ErrorKind::UseNotDominated,
                            format!("the definition of %{} does not dominate the end of {pred}", func.var_name(v)),
                        );
                    }
                }
                continue;
            }
            for (site, v) in func.uses(inst) {
                debug_assert!(!matches!(site, UseSite::Operand(_)) || func.opcode(inst) != Opcode::Phi);
                if !dominated(v, b, here) {
                    error(
                        errors,
                        f,
                        Some(inst),
                        func,
                        Some(v),
                        ErrorKind::UseNotDominated,
                        format!("the definition of %{} does not dominate this use", func.var_name(v)),
                    );
                }
            }
        }
    }
}
