//! Where a Keel instruction's memory descriptors are, shared by the
//! adapter ([`super::code`]) and the call summaries ([`super::summaries`]):
//! each descriptor as `(write, object, offset, size)` in
//! `Function::accesses` order, the operand indices of its offset and size,
//! and an integer immediate read as the interpreter reads offsets.
//!
//! Invariant: pure functions of one instruction; nothing is cached.

use crate::code::ObjectId;
use ir_core::{Arg, Format, Function, Imm, Inst, Module, Slot, Type};
use smallvec::SmallVec;

/// The value of an integer immediate as the interpreter reads offsets.
pub(super) fn ival(i: Imm) -> i64 {
    if i.ty() == Type::I1 { -(i.bits() as i64) } else { i.as_i64() }
}

/// The descriptors of a memory instruction, in `Function::accesses`
/// order: `(write, object, offset, size)`, with the offset's operand index.
pub(super) fn descriptors(func: &Function, inst: Inst, module: &Module) -> Vec<(bool, ObjectId, Arg, Arg)> {
    func.accesses(inst, module)
        .into_iter()
        .map(|a| (a.access == ir_core::Access::Write, a.mem.as_u32(), a.offset, a.size))
        .collect()
}

/// The operand indices of each descriptor's offset and size, in
/// `Function::accesses` order.
pub(super) fn descriptor_operands(func: &Function, inst: Inst) -> SmallVec<[(usize, Option<usize>); 4]> {
    let mut out = SmallVec::new();
    match func.opcode(inst).format() {
        Format::Load | Format::Store => out.push((0, None)),
        Format::TensorMap | Format::TensorReduce | Format::Matmul => {
            let mut i = 0;
            for s in func.tensor_slots(inst) {
                match s {
                    Slot::Desc(_) => {
                        out.push((i, Some(i + 1)));
                        i += 2;
                    }
                    Slot::Scalar(_) => i += 1,
                }
            }
        }
        _ => {}
    }
    out
}
