//! Linear memory: scalar and `v128` loads and stores, bulk memory
//! (`memory.copy`, `memory.fill`, `memory.init`), and the address
//! computation they and the generic lowering share.
//!
//! Invariants: the index of a load or store never wraps. It is either the `i32` address itself
//! (a memory smaller than 2^31 bytes and no offset, where a negative index
//! traps exactly where the unsigned address is out of bounds) or the
//! effective address computed in `i64` (`%aD`, `%aD.hi`: the depth's own
//! address vars). An access that is out of bounds for every address is a
//! `trap`, after which the code is dead. `memory.size`/`memory.grow` have no
//! IR counterpart and go through the generic lowering (`mod.rs`).

use super::env::MemEnv;
use super::state::{R, Translator};
use crate::error::{FuncErrorKind, Inconsistency};
use ir_core::{Arg, Desc, Imm, MemDesc, Opcode, TensorArg, Type, Var};
use wasmparser::{MemArg, MemArgTarget, Operator};

/// A scalar memory access: the loaded or stored IR type, and for narrow
/// accesses the extension (loads) or the full type (stores).
pub(super) enum Access {
    Load(Type),
    LoadExt(Type, Opcode, Type),
    Store(Type),
    StoreNarrow(Type),
}

/// The scalar load or store an operator is; `None` for any other.
pub(super) fn access(op: &Operator<'_>) -> Option<(MemArg, Access)> {
    use Access::*;
    use Opcode::{Sext, Zext};
    use Operator as W;
    use Type::{F32, F64, I8, I16, I32, I64};
    Some(match *op {
        W::I32Load { memarg } => (memarg, Load(I32)),
        W::I64Load { memarg } => (memarg, Load(I64)),
        W::F32Load { memarg } => (memarg, Load(F32)),
        W::F64Load { memarg } => (memarg, Load(F64)),
        W::I32Load8S { memarg } => (memarg, LoadExt(I8, Sext, I32)),
        W::I32Load8U { memarg } => (memarg, LoadExt(I8, Zext, I32)),
        W::I32Load16S { memarg } => (memarg, LoadExt(I16, Sext, I32)),
        W::I32Load16U { memarg } => (memarg, LoadExt(I16, Zext, I32)),
        W::I64Load8S { memarg } => (memarg, LoadExt(I8, Sext, I64)),
        W::I64Load8U { memarg } => (memarg, LoadExt(I8, Zext, I64)),
        W::I64Load16S { memarg } => (memarg, LoadExt(I16, Sext, I64)),
        W::I64Load16U { memarg } => (memarg, LoadExt(I16, Zext, I64)),
        W::I64Load32S { memarg } => (memarg, LoadExt(I32, Sext, I64)),
        W::I64Load32U { memarg } => (memarg, LoadExt(I32, Zext, I64)),
        W::I32Store { memarg } => (memarg, Store(I32)),
        W::I64Store { memarg } => (memarg, Store(I64)),
        W::F32Store { memarg } => (memarg, Store(F32)),
        W::F64Store { memarg } => (memarg, Store(F64)),
        W::I32Store8 { memarg } | W::I64Store8 { memarg } => (memarg, StoreNarrow(I8)),
        W::I32Store16 { memarg } | W::I64Store16 { memarg } => (memarg, StoreNarrow(I16)),
        W::I64Store32 { memarg } => (memarg, StoreNarrow(I32)),
        _ => return None,
    })
}

impl Translator<'_, '_> {
    /// The memory a memory immediate names.
    pub(super) fn memory(&self, memarg: &MemArg) -> R<MemEnv> {
        match memarg.target {
            MemArgTarget::Memory(m) => self.memory_at(m),
            MemArgTarget::Array(_) => Err(FuncErrorKind::GcArrayAccess),
        }
    }

    fn memory_at(&self, m: u32) -> R<MemEnv> {
        self.env.memories.get(m as usize).copied().ok_or_else(|| Inconsistency::NoSuchMemory(m).into())
    }

    /// The index of an access of `width` bytes at `addr + offset` (the
    /// address entry was at `depth`), or `None` when every execution traps
    /// (the caller emits `trap`). With a 32-bit memory smaller than 2^31
    /// bytes and no offset, the `i32` address itself is the index: a
    /// negative index then traps exactly where the unsigned address would
    /// be out of bounds. Otherwise the effective address is computed in
    /// `i64` so that it never wraps (see `effective_var`).
    fn effective(&mut self, mem: MemEnv, offset: u64, addr: Arg, depth: usize, width: u64) -> R<Option<Arg>> {
        match addr {
            Arg::Imm(i) => {
                let a = i.as_u64();
                let ea = a.checked_add(offset);
                Ok(ea
                    .filter(|&ea| ea.checked_add(width).is_some_and(|end| end <= mem.len))
                    .map(|ea| Arg::Imm(Imm::int(Type::I64, ea as i64))))
            }
            Arg::Var(v) => {
                if offset.saturating_add(width) > mem.len {
                    return Ok(None);
                }
                if offset == 0 && width <= 8 && (mem.memory64 || mem.len < 1 << 31) {
                    return Ok(Some(Arg::Var(v)));
                }
                Ok(Some(Arg::Var(self.effective_var(mem, offset, v, depth))))
            }
        }
    }

    /// `%aD = addr + offset` in `i64`, without wrapping. A 32-bit address
    /// is zero-extended first. A 64-bit one is first clamped to the
    /// memory's length (`umin`): an address beyond it is out of bounds
    /// either way, and the clamp keeps `add` from wrapping a huge unsigned
    /// address back into the memory.
    fn effective_var(&mut self, mem: MemEnv, offset: u64, v: Var, depth: usize) -> Var {
        let a = self.addr(depth, false);
        let offset = Imm::int(Type::I64, offset as i64);
        if mem.memory64 {
            self.b.ins().binary(Opcode::Umin, a, v, Imm::int(Type::I64, mem.len as i64));
            self.b.ins().binary(Opcode::Add, a, a, offset);
        } else {
            self.b.ins().convert(Opcode::Zext, a, v);
            if offset.as_i64() != 0 {
                self.b.ins().binary(Opcode::Add, a, a, offset);
            }
        }
        a
    }

    /// The address operand of a generic (intrinsic) memory operator, just
    /// popped: its effective address, as in `effective` but with no static
    /// bounds check (the access is the intrinsic's).
    pub(super) fn intrinsic_address(&mut self, mem: MemEnv, offset: u64, addr: Arg) -> Arg {
        let depth = self.stack.len();
        match addr {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_u64().wrapping_add(offset) as i64)),
            a @ Arg::Var(_) if offset == 0 && (mem.memory64 || mem.len < 1 << 31) => a,
            Arg::Var(a) => Arg::Var(self.effective_var(mem, offset, a, depth)),
        }
    }

    /// Translates a scalar load or store classified by [`access`].
    pub(super) fn op_access(&mut self, memarg: &MemArg, access: Access) -> R<()> {
        let mem = self.memory(memarg)?;
        match access {
            Access::Load(ty) | Access::LoadExt(ty, ..) => {
                let addr = self.pop_arg()?;
                let depth = self.stack.len();
                let Some(index) = self.effective(mem, memarg.offset, addr, depth, u64::from(ty.bytes()))? else {
                    self.trap_here();
                    return Ok(());
                };
                if let Access::LoadExt(_, ext, full) = access {
                    let narrow = self.slot(depth, ty);
                    self.b.ins().load(narrow, mem.mem, index);
                    let r = self.push_result(full);
                    self.b.ins().convert(ext, r, narrow);
                } else {
                    let r = self.push_result(ty);
                    self.b.ins().load(r, mem.mem, index);
                }
            }
            Access::Store(ty) | Access::StoreNarrow(ty) => {
                let value = self.pop_arg()?;
                let addr = self.pop_arg()?;
                let depth = self.stack.len();
                let Some(index) = self.effective(mem, memarg.offset, addr, depth, u64::from(ty.bytes()))? else {
                    self.trap_here();
                    return Ok(());
                };
                let value = match (access, value) {
                    (Access::StoreNarrow(_), Arg::Imm(i)) => Arg::Imm(Imm::int(ty, i.as_i64())),
                    (Access::StoreNarrow(_), Arg::Var(v)) => {
                        let t = self.slot(depth + 1, ty);
                        self.b.ins().convert(Opcode::Trunc, t, v);
                        Arg::Var(t)
                    }
                    _ => value,
                };
                self.b.ins().store(mem.mem, index, value);
            }
        }
        Ok(())
    }

    fn hi_index(&mut self, index: Arg, depth: usize) -> Arg {
        match index {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_i64().wrapping_add(8))),
            Arg::Var(a) => {
                let hi = self.addr(depth, true);
                self.b.ins().binary(Opcode::Add, hi, a, Imm::int(Type::I64, 8));
                Arg::Var(hi)
            }
        }
    }

    pub(super) fn op_v128_load(&mut self, memarg: &MemArg) -> R<()> {
        let mem = self.memory(memarg)?;
        let addr = self.pop_arg()?;
        let depth = self.stack.len();
        let Some(index) = self.effective(mem, memarg.offset, addr, depth, 16)? else {
            self.trap_here();
            return Ok(());
        };
        let hi = self.hi_index(index, depth);
        let lo_var = self.push_result(Type::I64);
        self.b.ins().load(lo_var, mem.mem, index);
        let hi_var = self.push_result(Type::I64);
        self.b.ins().load(hi_var, mem.mem, hi);
        Ok(())
    }

    pub(super) fn op_v128_store(&mut self, memarg: &MemArg) -> R<()> {
        let mem = self.memory(memarg)?;
        let values = self.pop_args(2)?;
        let addr = self.pop_arg()?;
        let depth = self.stack.len();
        let Some(index) = self.effective(mem, memarg.offset, addr, depth, 16)? else {
            self.trap_here();
            return Ok(());
        };
        let hi = self.hi_index(index, depth);
        self.b.ins().store(mem.mem, index, values[0]);
        self.b.ins().store(mem.mem, hi, values[1]);
        Ok(())
    }

    /// An offset or size operand of a bulk-memory instruction on `mem`
    /// (the entry was at `depth`): an immediate becomes its unsigned value,
    /// a var is used as it is when the memory is small enough for its
    /// signed reading to be exact (see `effective`), else zero-extended.
    fn bulk_operand(&mut self, mem: MemEnv, arg: Arg, depth: usize) -> Arg {
        match arg {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I64, i.as_u64() as i64)),
            Arg::Var(v) if mem.memory64 || mem.len < 1 << 31 => Arg::Var(v),
            Arg::Var(v) => {
                let a = self.addr(depth, false);
                self.b.ins().convert(Opcode::Zext, a, v);
                Arg::Var(a)
            }
        }
    }

    /// True when the verifier would reject the descriptor statically
    /// (`MemDesc::statically_out_of_bounds`); the access then always traps.
    fn static_out_of_bounds(offset: Arg, size: Arg, len: u64) -> bool {
        let exact = |a: Arg| match a {
            Arg::Imm(i) => Some(i.as_i64()),
            Arg::Var(_) => None,
        };
        MemDesc::statically_out_of_bounds(exact(offset), exact(size), len)
    }

    pub(super) fn op_memory_copy(&mut self, dst_mem: u32, src_mem: u32) -> R<()> {
        let (dm, sm) = (self.memory_at(dst_mem)?, self.memory_at(src_mem)?);
        let n = self.pop_arg()?;
        let s = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(dm, d, depth);
        let s = self.bulk_operand(sm, s, depth + 1);
        let n = self.bulk_operand(if dm.len < sm.len { dm } else { sm }, n, depth + 2);
        if Self::static_out_of_bounds(d, n, dm.len) || Self::static_out_of_bounds(s, n, sm.len) {
            self.trap_here();
            return Ok(());
        }
        self.b.ins().tensor(Opcode::Dma, Desc::new(dm.mem, d, n), &[TensorArg::Desc(Desc::new(sm.mem, s, n))]);
        Ok(())
    }

    pub(super) fn op_memory_fill(&mut self, m: u32) -> R<()> {
        let mem = self.memory_at(m)?;
        let n = self.pop_arg()?;
        let value = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(mem, d, depth);
        let n = self.bulk_operand(mem, n, depth + 2);
        if Self::static_out_of_bounds(d, n, mem.len) {
            self.trap_here();
            return Ok(());
        }
        let byte = match value {
            Arg::Imm(i) => Arg::Imm(Imm::int(Type::I8, i.as_i64())),
            Arg::Var(v) => {
                let t = self.slot(depth + 1, Type::I8);
                self.b.ins().convert(Opcode::Trunc, t, v);
                Arg::Var(t)
            }
        };
        self.b.ins().tensor(Opcode::Tfill, Desc::new(mem.mem, d, n), &[TensorArg::Scalar(byte)]);
        Ok(())
    }

    /// `memory.init` of a passive segment is a `dma` from the segment's
    /// object; other segments go through the generic lowering.
    pub(super) fn op_memory_init(&mut self, seg: u32, m: u32) -> R<bool> {
        let Some(Some((data, seg_len))) = self.env.data.get(seg as usize).copied() else { return Ok(false) };
        let mem = self.memory_at(m)?;
        let n = self.pop_arg()?;
        let s = self.pop_arg()?;
        let d = self.pop_arg()?;
        let depth = self.stack.len();
        let d = self.bulk_operand(mem, d, depth);
        // The segment is small (it came from the input): its offsets are
        // `i32` in any memory.
        let small = MemEnv { mem: data, memory64: false, len: 0 };
        let s = self.bulk_operand(small, s, depth + 1);
        let n = self.bulk_operand(small, n, depth + 2);
        if Self::static_out_of_bounds(d, n, mem.len) || Self::static_out_of_bounds(s, n, seg_len) {
            self.trap_here();
            return Ok(true);
        }
        self.b.ins().tensor(Opcode::Dma, Desc::new(mem.mem, d, n), &[TensorArg::Desc(Desc::new(data, s, n))]);
        Ok(true)
    }
}
