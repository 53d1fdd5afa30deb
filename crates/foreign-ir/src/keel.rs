//! A Keel function copied into the toy IR (feature `keel`), for the
//! analysis crates' tests: the copy must get exactly the answers Keel's
//! own trait implementations get.
//!
//! Invariant: the copy keeps every id (vars, params, statements =
//! instructions, blocks, CFG edges) and reproduces Keel's `VarCode` uses
//! in order (operands, guard, then a phi's incoming values in operand
//! order), so use numbers agree; statement kinds and copies are Keel's
//! `RegCode` answers.

use crate::{Guard, Kind, Stmt, Toy, Var};
use cfg_dom::{Graph, Node};
use ir_core::{Function, UseSite};
use regalloc_pebble::{InstKind, RegCode};

/// The toy copy of `func` (any Keel function without guarded fallbacks,
/// that is, not in SSA form with guarded definitions).
///
/// # Panics
///
/// On an instruction with fallbacks (the toy IR has no such construct),
/// or a phi use that is not an operand (a verified function has none).
pub fn from_function(func: &Function) -> Toy {
    let cfg = func.cfg();
    let vars = func.vars().map(|v| Var { name: func.var_name(v).to_string(), vector: false }).collect();
    let params = func.params().iter().map(|v| v.as_u32()).collect();
    let mut stmts = vec![Stmt::default(); func.num_insts()];
    let mut blocks = vec![(Vec::new(), Vec::new()); func.num_blocks()];
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            assert!(func.fallbacks(inst).is_empty(), "the toy IR has no fallbacks");
            let i = inst.as_u32();
            let mut s = Stmt { text: format!("{inst}"), ..Stmt::default() };
            s.defs = func.results(inst).iter().map(|v| v.as_u32()).collect();
            if func.is_phi(inst) {
                let preds = func.phi_blocks(inst);
                let incoming = func.uses(inst).map(|(site, v)| match site {
                    UseSite::Operand(k) => (preds[k as usize].as_u32(), v.as_u32()),
                    other => panic!("a verified phi has no {other:?} use"),
                });
                s.phi = Some(incoming.collect());
            } else {
                s.uses = func.operands(inst).iter().filter_map(|o| o.as_var()).map(|v| v.as_u32()).collect();
                s.guard = func.guard(inst).map_or(Guard::None, |g| Guard::Var(g.var.as_u32()));
            }
            s.kind = match func.inst_kind(i) {
                InstKind::Pure => Kind::Pure,
                InstKind::Effect => Kind::Effect,
                InstKind::Terminator => Kind::Terminator,
            };
            s.copy = func.is_copy(i);
            stmts[i as usize] = s;
            blocks[b.as_u32() as usize].0.push(i);
        }
    }
    for (n, (_, succs)) in blocks.iter_mut().enumerate() {
        succs.extend(cfg.successors(n as Node));
    }
    Toy::new(vars, params, stmts, blocks)
}
