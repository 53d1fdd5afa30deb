//! Decoding what an instruction touches: the slots of tensor instructions
//! (descriptors and broadcast scalars, packed in the operand list) and the
//! memory ranges any instruction reads and writes.
//!
//! Invariants: decoding never panics on malformed instructions (missing
//! operands end the slot list early); every range reported is
//! self-contained ([`MemAccess`] holds values, not constants of the
//! function), so reading accesses needs no mutable function.

use crate::entities::{Inst, Mem};
use crate::function::Function;
use crate::imm::Imm;
use crate::instructions::{Access, Arg, Extra, MemDesc, Operand, Slot};
use crate::module::Module;
use crate::opcode::{Format, Opcode};
use crate::types::Type;

/// How many elements of an object of element type `elem` a scalar `load` or
/// `store` of a `value`-typed value covers (docs/ir.md §6.6): 1 when
/// `value == elem`; `bytes(value)` for a *wide* access, where `elem` is
/// `i8` and `value` is `i16`, `i32`, `i64`, `f32` or `f64` (the bytes are
/// read or written little-endian from the index on); `None` for any other
/// pair, which the verifier rejects.
pub(crate) fn scalar_access_width(elem: Type, value: Type) -> Option<u32> {
    if value == elem {
        Some(1)
    } else if elem == Type::I8 && value != Type::I1 {
        Some(value.bytes())
    } else {
        None
    }
}

/// A memory range an instruction reads or writes: `@mem[offset, size]`,
/// exact when both are immediates (digest §002).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct MemAccess {
    /// Read or write.
    pub access: Access,
    /// The memory object.
    pub mem: Mem,
    /// First element.
    pub offset: Arg,
    /// Number of elements.
    pub size: Arg,
}

impl Function {
    /// The slots of a tensor map or reduction, in order (destination first
    /// for maps), each a descriptor or a scalar.
    pub fn tensor_slots(&self, inst: Inst) -> Vec<Slot> {
        let mut out = Vec::new();
        self.for_each_slot(inst, |s| out.push(s));
        out
    }

    fn for_each_slot(&self, inst: Inst, mut f: impl FnMut(Slot)) {
        let Some(data) = self.inst(inst) else {
            return;
        };
        let Extra::Tensor { mems, scalars } = &data.extra else {
            return;
        };
        let mems = mems.as_slice(&self.mem_pool);
        let args = data.args.as_slice(&self.operand_pool);
        let slots = mems.len() + scalars.count_ones() as usize;
        let (mut m, mut a) = (0, 0);
        for i in 0..slots.min(8) {
            if scalars & (1 << i) != 0 {
                let Some(&op) = args.get(a) else { return };
                f(Slot::Scalar(op));
                a += 1;
            } else {
                let (Some(&mem), Some(&offset), Some(&size)) = (mems.get(m), args.get(a), args.get(a + 1)) else {
                    return;
                };
                f(Slot::Desc(MemDesc { mem, offset, size }));
                m += 1;
                a += 2;
            }
        }
    }

    /// For a tensor instruction: how many leading operands belong to its
    /// slots, and a bit mask of those operands that are broadcast scalars
    /// (the others are descriptor offsets and sizes). Operands after the
    /// slots (a `matmul`'s dimensions) are not covered.
    pub fn slot_operands(&self, inst: Inst) -> (usize, u32) {
        let (mut n, mut mask) = (0usize, 0u32);
        self.for_each_slot(inst, |s| match s {
            Slot::Scalar(_) => {
                mask |= 1 << n;
                n += 1;
            }
            Slot::Desc(_) => n += 2,
        });
        (n, mask)
    }

    /// The dimensions `(m, k, n)` of a `matmul`.
    pub fn matmul_dims(&self, inst: Inst) -> Option<[Operand; 3]> {
        if self.opcode(inst) != Opcode::Matmul {
            return None;
        }
        let (n, _) = self.slot_operands(inst);
        match self.operands(inst).get(n..) {
            Some(&[m, k, n]) => Some([m, k, n]),
            _ => None,
        }
    }

    /// The memory ranges the instruction reads and writes. A scalar
    /// `load`/`store` covers `@M[index, w]`, where `w` is 1 when the value
    /// type is the object's element type and `bytes(T)` for a wide access to
    /// an `i8` object (docs/ir.md §6.6); `module` supplies the element types
    /// (an access to an object it lacks, or an ill-typed one, reads as one
    /// element). Tensor instructions give their descriptors, the
    /// destination written first (but for reductions, which only read).
    /// Calls and intrinsics may touch anything and report no range; see
    /// [`Opcode::touches_memory`].
    pub fn accesses(&self, inst: Inst, module: &Module) -> Vec<MemAccess> {
        let mut out = Vec::new();
        let Some(data) = self.inst(inst) else {
            return out;
        };
        match data.opcode.format() {
            Format::Load | Format::Store => {
                if let (Some(mem), Some(&index)) = (self.scalar_mem(inst), self.operands(inst).first()) {
                    let value = if data.opcode == Opcode::Load {
                        self.results(inst).first().and_then(|&r| self.var_type(r))
                    } else {
                        self.operands(inst).get(1).and_then(|&o| self.operand_type(o))
                    };
                    let elem = module.mem(mem).map(|m| m.elem);
                    let width = match (elem, value) {
                        (Some(e), Some(t)) => scalar_access_width(e, t).unwrap_or(1),
                        _ => 1,
                    };
                    let access = if data.opcode == Opcode::Load { Access::Read } else { Access::Write };
                    if let Some(offset) = self.arg(index) {
                        let size = Arg::Imm(Imm::int(Type::I64, i64::from(width)));
                        out.push(MemAccess { access, mem, offset, size });
                    }
                }
            }
            Format::TensorMap | Format::TensorReduce | Format::Matmul => {
                let writes_first = data.opcode.format() != Format::TensorReduce;
                let mut first = true;
                self.for_each_slot(inst, |s| {
                    if let Slot::Desc(d) = s
                        && let (Some(offset), Some(size)) = (self.arg(d.offset), self.arg(d.size))
                    {
                        let access = if first && writes_first { Access::Write } else { Access::Read };
                        out.push(MemAccess { access, mem: d.mem, offset, size });
                    }
                    first = false;
                });
            }
            _ => {}
        }
        out
    }
}
