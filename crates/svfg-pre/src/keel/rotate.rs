//! Applying a [`RotationPlan`] to a Keel function ([`crate::rotation_plan`]):
//! for each rotated loop, its header's instructions are duplicated into a
//! guard block (laid out before the header, taking the edges from outside
//! the loop) and a bottom-test block (laid out after the last latch, taking
//! the back edges), and the header leaves the layout.
//!
//! A phi of the header's successors that reads a value from the header
//! reads the same var from both copies. A header with phis of its own is
//! left alone ([`Skip::HeaderPhis`]): its copies would need their operands
//! split by edge; rotation runs before SSA construction, where the input
//! has phis only if it was written with them.
//!
//! Invariant: the function computes what it computed (see the plan's module
//! doc).

use super::apply::retarget;
use crate::rotate::{RotationPlan, Skip, rotation_plan};
use ir_core::{Arg, Block, Function, FunctionBuilder, Inst, Opcode, block};

/// What a rotation run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RotateStats {
    /// Loops rotated.
    pub rotated: usize,
    /// Loops left alone, with the reason (by the header's block).
    pub skipped: Vec<(Block, Skip)>,
}

/// Rotates the top-tested loops of `func` (not in SSA form): see
/// [`crate::rotation_plan`].
pub fn rotate_loops(func: &mut Function) -> RotateStats {
    let plan = rotation_plan(&func.cfg());
    apply_rotation(func, &plan)
}

/// Applies `plan`, made for `func`'s CFG as it is.
pub fn apply_rotation(func: &mut Function, plan: &RotationPlan) -> RotateStats {
    let mut stats = RotateStats {
        skipped: plan.skipped.iter().map(|&(h, why)| (block(h), why)).collect(),
        ..RotateStats::default()
    };
    for r in &plan.rotations {
        let h = block(r.header);
        let insts: Vec<Inst> = func.block_insts(h).collect();
        let two_way = func.terminator(h).is_some_and(|t| func.opcode(t) == Opcode::Br);
        if !two_way {
            stats.skipped.push((h, Skip::NotTopTested));
            continue;
        }
        if insts.iter().any(|&i| func.opcode(i) == Opcode::Phi) {
            stats.skipped.push((h, Skip::HeaderPhis));
            continue;
        }
        let guard = copy_block(func, &insts);
        let test = copy_block(func, &insts);
        let _ = func.insert_block_before(guard, h);
        let last_latch = r.latches.iter().copied().max().map_or(h, block);
        let _ = func.insert_block_after(test, last_latch);
        for (&p, to) in r.entries.iter().map(|p| (p, guard)).chain(r.latches.iter().map(|p| (p, test))) {
            retarget(func, block(p), h, to);
        }
        // A phi of a successor that reads a value from `h` reads it from
        // both copies now (the same var, at the end of the copy run).
        for s in [block(r.inside), block(r.exit)] {
            let phis: Vec<Inst> = func.block_insts(s).take_while(|&i| func.opcode(i) == Opcode::Phi).collect();
            for phi in phis {
                if !func.phi_blocks(phi).contains(&h) {
                    continue;
                }
                let Some(&dst) = func.results(phi).first() else { continue };
                let mut incoming: Vec<(Block, Arg)> = Vec::new();
                for (b, op) in func.phi_incoming(phi).collect::<Vec<_>>() {
                    let Some(arg) = func.arg(op) else { continue };
                    if b == h {
                        incoming.extend([(guard, arg), (test, arg)]);
                    } else {
                        incoming.push((b, arg));
                    }
                }
                FunctionBuilder::new(func).replace(phi).phi(dst, &incoming);
            }
        }
        let _ = func.remove_block(h);
        stats.rotated += 1;
    }
    stats
}

/// A new block holding copies of `insts`, in order.
fn copy_block(func: &mut Function, insts: &[Inst]) -> Block {
    let b = func.create_block();
    for &i in insts {
        if let Some(d) = func.duplicate_inst(i) {
            let _ = func.append_inst(d, b);
        }
    }
    b
}
