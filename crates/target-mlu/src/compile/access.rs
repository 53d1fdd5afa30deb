//! The lowering of scalar `load` and `store` (docs/ir.md §6.6).
//!
//! Invariants: a var index gets the interpreter's bounds check (`0 ≤ i`
//! and `i + w ≤ len` as one unsigned compare) before any access; a wide
//! access to an `i8` object is assembled or split byte by byte,
//! little-endian, so it needs no alignment; WRAM, which scalar instructions
//! cannot reach, is a compile error.

use super::emit::at;
use super::error::CompileError;
use super::lowerer::{Instance, Lowerer, space, ty};
use ir_core::{Function, Opcode};
use mlu_isa::{BinOp, ConvOp, Inst, IntCC, Operand, Space, Ty};

impl Lowerer<'_> {
    /// `load` / `store`, narrow or wide (docs/ir.md §6.6), with the
    /// interpreter's bounds check when the index is a var.
    pub(crate) fn lower_scalar_access(
        &mut self,
        inst: &Instance,
        f: &Function,
        i: ir_core::Inst,
    ) -> Result<(), CompileError> {
        let op = f.opcode(i);
        let load = op == Opcode::Load;
        let m = f.scalar_mem(i).ok_or_else(|| self.unsupported_op(op))?;
        let obj = self.module.mem(m).ok_or_else(|| self.unsupported_op(op))?;
        let elem = ty(obj.elem);
        let sp = space(obj.space);
        if sp == Space::Wram {
            return Err(CompileError::ScalarWram { at: self.here.clone(), op, object: obj.name.to_string() });
        }
        let ops = f.operands(i);
        let value_ty = if load {
            f.results(i).first().map(|&r| Self::var_ty(f, r)).unwrap_or(elem)
        } else {
            ops.get(1).and_then(|&o| f.operand_type(o)).map(ty).unwrap_or(elem)
        };
        let width = if value_ty == elem { 1 } else { value_ty.bytes() };
        let idx = self.index(inst, f, ops[0])?;
        let sym = self.mem_map[m.as_u32() as usize];
        let eb = elem.bytes() as i64;
        let (base, offset) = match idx {
            Operand::Imm(v) => (None, (v as i64).wrapping_mul(eb)),
            Operand::Reg(_) => {
                if obj.len < width {
                    self.e.push(Inst::Trap)?;
                } else {
                    let bad = self.e.cmp64(IntCC::Ugt, idx, Operand::int((obj.len - width) as i64))?;
                    self.e.trap_if(bad)?;
                }
                match self.e.bin64(BinOp::Mul, idx, Operand::int(eb))? {
                    Operand::Reg(r) => (Some(r), 0),
                    Operand::Imm(v) => (None, v as i64),
                }
            }
        };
        let addr = at(sp, sym, base, offset);
        if width == 1 {
            if load {
                let d = self.var(inst, f.results(i)[0]);
                return self.e.push(Inst::Load { ty: value_ty, dst: d, addr });
            }
            let v = self.op(inst, f, ops[1]);
            return self.shared_store(sp, |s| s.e.push(Inst::Store { ty: value_ty, addr, value: v }));
        }
        // Wide access to an i8 object: byte by byte, little-endian.
        let byte = |k: u64| mlu_isa::Addr { offset: addr.offset + k as i64, ..addr };
        if load {
            let d = self.var(inst, f.results(i)[0]);
            let acc = self.e.mov(Ty::I64, Operand::Imm(0))?;
            for k in 0..width {
                let t = self.e.vreg()?;
                self.e.push(Inst::Load { ty: Ty::I8, dst: t, addr: byte(k) })?;
                self.e.push(Inst::Convert {
                    op: ConvOp::Zext,
                    to: Ty::I64,
                    from: Ty::I8,
                    dst: t,
                    src: Operand::Reg(t),
                })?;
                self.e.push(Inst::Binary {
                    op: BinOp::Shl,
                    ty: Ty::I64,
                    dst: t,
                    a: Operand::Reg(t),
                    b: Operand::Imm(8 * k),
                })?;
                self.e.push(Inst::Binary {
                    op: BinOp::Or,
                    ty: Ty::I64,
                    dst: acc,
                    a: Operand::Reg(acc),
                    b: Operand::Reg(t),
                })?;
            }
            let src = Operand::Reg(acc);
            let inst = match value_ty {
                Ty::I64 => Inst::Mov { ty: Ty::I64, dst: d, src },
                Ty::F64 => Inst::Convert { op: ConvOp::Bitcast, to: Ty::F64, from: Ty::I64, dst: d, src },
                Ty::F32 => {
                    let t = self.e.vreg()?;
                    self.e.push(Inst::Convert { op: ConvOp::Trunc, to: Ty::I32, from: Ty::I64, dst: t, src })?;
                    Inst::Convert { op: ConvOp::Bitcast, to: Ty::F32, from: Ty::I32, dst: d, src: Operand::Reg(t) }
                }
                t => Inst::Convert { op: ConvOp::Trunc, to: t, from: Ty::I64, dst: d, src },
            };
            return self.e.push(inst);
        }
        let v = self.op(inst, f, ops[1]);
        self.shared_store(sp, |s| {
            let bits = s.e.vreg()?;
            let first = match value_ty {
                Ty::F64 => Inst::Convert { op: ConvOp::Bitcast, to: Ty::I64, from: Ty::F64, dst: bits, src: v },
                Ty::F32 => Inst::Convert { op: ConvOp::Bitcast, to: Ty::I32, from: Ty::F32, dst: bits, src: v },
                t => Inst::Mov { ty: t, dst: bits, src: v },
            };
            s.e.push(first)?;
            for k in 0..width {
                let t = s.e.vreg()?;
                s.e.push(Inst::Binary {
                    op: BinOp::Lshr,
                    ty: Ty::I64,
                    dst: t,
                    a: Operand::Reg(bits),
                    b: Operand::Imm(8 * k),
                })?;
                s.e.push(Inst::Convert { op: ConvOp::Trunc, to: Ty::I8, from: Ty::I64, dst: t, src: Operand::Reg(t) })?;
                s.e.push(Inst::Store { ty: Ty::I8, addr: byte(k), value: Operand::Reg(t) })?;
            }
            Ok(())
        })
    }

    /// Emits a store through `body`: in split code, a store to shared
    /// memory is core 0's alone (module `split`).
    fn shared_store(
        &mut self,
        sp: Space,
        body: impl FnOnce(&mut Self) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        if matches!(sp, Space::Dram | Space::Sram) { self.region(true, body) } else { body(self) }
    }
}
