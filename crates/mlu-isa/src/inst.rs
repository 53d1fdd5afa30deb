//! Instructions: the in-memory form the assembler builds, the verifier
//! checks and the simulator runs. `docs/mlu-isa.md` gives every
//! instruction's syntax, semantics, rules and cost.
//!
//! Invariants: an [`Inst`] is plain data (no ids of other programs except
//! [`MemId`] and [`LabelId`], which index the owning [`Program`](crate::Program));
//! each variant's operands are exactly what the text shows, so the printer
//! writes it back unchanged. Immediates are stored as 64-bit patterns: in a
//! typed position (the `T` of `add.T`) the canonical register form of that
//! type ([`Ty::canonical`]); in an address, count, stride or barrier
//! position, a signed 64-bit integer.

use crate::ops::{BinOp, ConvOp, FloatCC, IntCC, RedOp, Route, Scope, SyncKind, UnOp, VBinOp, VUnOp};
use crate::types::{Pipe, Reg, Space, Sreg, Ty};

/// A memory object of the program (an index into `Program::mems`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct MemId(pub u32);

impl MemId {
    /// The index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A label of the program (an index into `Program::labels`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct LabelId(pub u32);

impl LabelId {
    /// The index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A scalar operand: a register or an immediate (a 64-bit pattern; see the
/// module doc for how it is read).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    /// A general-purpose register.
    Reg(Reg),
    /// An immediate.
    Imm(u64),
}

impl Operand {
    /// An immediate holding a signed integer (addresses, counts, strides).
    pub fn int(v: i64) -> Operand {
        Operand::Imm(v as u64)
    }

    /// The register, if this operand is one.
    pub fn reg(self) -> Option<Reg> {
        match self {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) => None,
        }
    }

    /// The immediate read as a signed integer, if this operand is one.
    pub fn imm_i64(self) -> Option<i64> {
        match self {
            Operand::Imm(v) => Some(v as i64),
            Operand::Reg(_) => None,
        }
    }
}

/// A memory address: `SPACE[@sym + %reg + offset]`, each part optional. The
/// byte address in the space is `addr(@sym) + %reg + offset` (wrapping
/// 64-bit arithmetic; a negative result is out of bounds).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Addr {
    /// The space the address is in.
    pub space: Space,
    /// A memory object whose address is added (it must be in `space`).
    pub sym: Option<MemId>,
    /// A register whose value is added.
    pub base: Option<Reg>,
    /// A constant byte offset.
    pub offset: i64,
}

impl Addr {
    /// `space[offset]`.
    pub fn abs(space: Space, offset: i64) -> Addr {
        Addr { space, sym: None, base: None, offset }
    }

    /// `space[@sym + offset]`.
    pub fn sym(space: Space, sym: MemId, offset: i64) -> Addr {
        Addr { space, sym: Some(sym), base: None, offset }
    }

    /// `space[%base + offset]`.
    pub fn reg(space: Space, base: Reg, offset: i64) -> Addr {
        Addr { space, sym: None, base: Some(base), offset }
    }
}

/// A vector source: a range in memory or a scalar broadcast to every
/// element.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum VSrc {
    /// Elements read from memory.
    Mem(Addr),
    /// One value (of the instruction's type) for every element.
    Scalar(Operand),
}

/// One instruction. The text syntax of each variant is in its doc; `T` is a
/// value type, `A`, `D`, ... are addresses (`SPACE[...]`), `a`, `b` are
/// scalar operands (register or immediate), `n` an element count.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Inst {
    /// `mov.T %rD, a`: `rD ← a` (canonicalized to `T`).
    Mov {
        /// Value type.
        ty: Ty,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Operand,
    },
    /// `OP.T %rD, a` (`neg`, `fsqrt`, ...).
    Unary {
        /// Operation.
        op: UnOp,
        /// Value type.
        ty: Ty,
        /// Destination.
        dst: Reg,
        /// Operand.
        a: Operand,
    },
    /// `OP.T %rD, a, b` (`add`, `fmul`, ...).
    Binary {
        /// Operation.
        op: BinOp,
        /// Value type.
        ty: Ty,
        /// Destination.
        dst: Reg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// `setp.CC.T %rD, a, b`: `rD ← 1` if the integer comparison holds, else 0.
    Setp {
        /// Condition.
        cc: IntCC,
        /// Operand type.
        ty: Ty,
        /// Destination (an `i1`).
        dst: Reg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// `fsetp.CC.T %rD, a, b`: float comparison.
    Fsetp {
        /// Condition.
        cc: FloatCC,
        /// Operand type.
        ty: Ty,
        /// Destination (an `i1`).
        dst: Reg,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
    },
    /// `sel.T %rD, %rC, a, b`: `rD ← rC ≠ 0 ? a : b`.
    Select {
        /// Value type.
        ty: Ty,
        /// Destination.
        dst: Reg,
        /// Condition register.
        cond: Reg,
        /// Value when the condition holds.
        a: Operand,
        /// Value otherwise.
        b: Operand,
    },
    /// `OP.TO.FROM %rD, a` (`sext.i64.i32`, `sitofp.f32.i32`, ...).
    Convert {
        /// Operation.
        op: ConvOp,
        /// Result type.
        to: Ty,
        /// Source type.
        from: Ty,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Operand,
    },
    /// `ld.T %rD, A`: load `bytes(T)` bytes, little-endian (NRAM, SRAM or DRAM).
    Load {
        /// Value type.
        ty: Ty,
        /// Destination.
        dst: Reg,
        /// Address.
        addr: Addr,
    },
    /// `st.T A, a`: store `bytes(T)` bytes, little-endian.
    Store {
        /// Value type.
        ty: Ty,
        /// Address.
        addr: Addr,
        /// Value.
        value: Operand,
    },
    /// `sreg %rD, %NAME`: read a special register.
    ReadSreg {
        /// Destination.
        dst: Reg,
        /// Which special register.
        sreg: Sreg,
    },
    /// `jmp LABEL`.
    Jump {
        /// Target.
        target: LabelId,
    },
    /// `br %rC, LABEL` (taken when `rC ≠ 0`) or `brz %rC, LABEL` (taken when `rC = 0`).
    Branch {
        /// `brz` rather than `br`.
        on_zero: bool,
        /// Condition register.
        cond: Reg,
        /// Target.
        target: LabelId,
    },
    /// `exit`: the core is done (after its pipes drain).
    Exit,
    /// `trap`: abort the run.
    Trap,
    /// `nop`.
    Nop,
    /// `vOP.T D, A, n` (`vneg`, `vabs`, `vrelu`, `vexp`, `vlog`, `vsqrt`, `vtanh`, `vsigmoid`).
    VUnary {
        /// Operation.
        op: VUnOp,
        /// Element type.
        ty: Ty,
        /// Destination range.
        dst: Addr,
        /// Source range.
        src: Addr,
        /// Element count.
        n: Operand,
    },
    /// `vOP.T D, a, b, n` (`vadd`, `vsub`, `vmul`, `vdiv`, `vmin`, `vmax`).
    VBinary {
        /// Operation.
        op: VBinOp,
        /// Element type.
        ty: Ty,
        /// Destination range.
        dst: Addr,
        /// Left source.
        a: VSrc,
        /// Right source.
        b: VSrc,
        /// Element count.
        n: Operand,
    },
    /// `vfma.T D, a, b, c, n`: `D[i] = a[i]·b[i] + c[i]`, unfused.
    VFma {
        /// Element type.
        ty: Ty,
        /// Destination range.
        dst: Addr,
        /// Multiplicand.
        a: VSrc,
        /// Multiplier.
        b: VSrc,
        /// Addend.
        c: VSrc,
        /// Element count.
        n: Operand,
    },
    /// `vfill.T D, a, n`: `D[i] = a`.
    VFill {
        /// Element type.
        ty: Ty,
        /// Destination range.
        dst: Addr,
        /// The value.
        value: Operand,
        /// Element count.
        n: Operand,
    },
    /// `vcvt.OP.TO.FROM D, A, n`: element-wise conversion.
    VConvert {
        /// Operation.
        op: ConvOp,
        /// Result element type.
        to: Ty,
        /// Source element type.
        from: Ty,
        /// Destination range.
        dst: Addr,
        /// Source range.
        src: Addr,
        /// Element count.
        n: Operand,
    },
    /// `vredsum.T %rD, A, n` / `vredmax.T %rD, A, n`.
    VReduce {
        /// Operation.
        op: RedOp,
        /// Element type.
        ty: Ty,
        /// Destination register.
        dst: Reg,
        /// Source range.
        src: Addr,
        /// Element count.
        n: Operand,
    },
    /// `mmul.T C, A, B, m, k, n`: row-major `C[m×n] = A[m×k] · B[k×n]`, A
    /// and C in NRAM, B in WRAM.
    Matmul {
        /// Element type.
        ty: Ty,
        /// Result (NRAM).
        c: Addr,
        /// Left operand (NRAM).
        a: Addr,
        /// Right operand (WRAM).
        b: Addr,
        /// Rows of A and C.
        m: Operand,
        /// Columns of A, rows of B.
        k: Operand,
        /// Columns of B and C.
        n: Operand,
    },
    /// `dma D, S, bytes`: asynchronous copy; the direction is given by the
    /// spaces of `D` and `S`.
    Dma {
        /// Destination.
        dst: Addr,
        /// Source.
        src: Addr,
        /// Byte count.
        bytes: Operand,
    },
    /// `dma2d D, S, bytes, dst_stride, src_stride, rows`: `rows` copies of
    /// `bytes` bytes, row `i` from `S + i·src_stride` to `D + i·dst_stride`.
    Dma2d {
        /// Destination.
        dst: Addr,
        /// Source.
        src: Addr,
        /// Bytes per row.
        bytes: Operand,
        /// Destination stride in bytes.
        dst_stride: Operand,
        /// Source stride in bytes.
        src_stride: Operand,
        /// Row count.
        rows: Operand,
    },
    /// `sync.io` / `sync.move` / `sync.compute` / `sync.all`.
    Sync(SyncKind),
    /// `barrier.sync.local id, count` / `barrier.sync.global id, count`.
    Barrier {
        /// Local or global.
        scope: Scope,
        /// Barrier id: barriers with different ids are independent.
        id: Operand,
        /// How many cores must arrive.
        count: Operand,
    },
}

/// The registers an instruction reads ([`Inst::uses`]): at most eight.
#[derive(Copy, Clone, Debug)]
pub struct Uses {
    regs: [Reg; 8],
    len: usize,
}

impl Uses {
    fn push(&mut self, r: Reg) {
        // No instruction reads more than six registers.
        if self.len < self.regs.len() {
            self.regs[self.len] = r;
            self.len += 1;
        }
    }

    fn op(&mut self, o: &Operand) {
        if let Operand::Reg(r) = o {
            self.push(*r);
        }
    }

    fn addr(&mut self, a: &Addr) {
        if let Some(r) = a.base {
            self.push(r);
        }
    }

    fn src(&mut self, s: &VSrc) {
        match s {
            VSrc::Mem(a) => self.addr(a),
            VSrc::Scalar(o) => self.op(o),
        }
    }

    /// The registers, in operand order.
    pub fn as_slice(&self) -> &[Reg] {
        &self.regs[..self.len]
    }
}

impl Inst {
    /// The pipe the instruction runs on. A copy whose direction does not
    /// exist is charged to Move-DMA (it traps when it runs).
    pub fn pipe(&self) -> Pipe {
        match self {
            Inst::VUnary { .. }
            | Inst::VBinary { .. }
            | Inst::VFma { .. }
            | Inst::VFill { .. }
            | Inst::VConvert { .. }
            | Inst::VReduce { .. }
            | Inst::Matmul { .. } => Pipe::Compute,
            Inst::Dma { dst, src, .. } | Inst::Dma2d { dst, src, .. } => Route::new(src.space, dst.space).pipe(),
            _ => Pipe::Scalar,
        }
    }

    /// The opcode word as the text writes it (`add.i32`, `vadd.f32`,
    /// `dma`, `sync.io`).
    pub fn mnemonic(&self) -> String {
        match self {
            Inst::Mov { ty, .. } => format!("mov.{ty}"),
            Inst::Unary { op, ty, .. } => format!("{op}.{ty}"),
            Inst::Binary { op, ty, .. } => format!("{op}.{ty}"),
            Inst::Setp { cc, ty, .. } => format!("setp.{cc}.{ty}"),
            Inst::Fsetp { cc, ty, .. } => format!("fsetp.{cc}.{ty}"),
            Inst::Select { ty, .. } => format!("sel.{ty}"),
            Inst::Convert { op, to, from, .. } => format!("{op}.{to}.{from}"),
            Inst::Load { ty, .. } => format!("ld.{ty}"),
            Inst::Store { ty, .. } => format!("st.{ty}"),
            Inst::ReadSreg { .. } => "sreg".into(),
            Inst::Jump { .. } => "jmp".into(),
            Inst::Branch { on_zero, .. } => (if *on_zero { "brz" } else { "br" }).into(),
            Inst::Exit => "exit".into(),
            Inst::Trap => "trap".into(),
            Inst::Nop => "nop".into(),
            Inst::VUnary { op, ty, .. } => format!("{op}.{ty}"),
            Inst::VBinary { op, ty, .. } => format!("{op}.{ty}"),
            Inst::VFma { ty, .. } => format!("vfma.{ty}"),
            Inst::VFill { ty, .. } => format!("vfill.{ty}"),
            Inst::VConvert { op, to, from, .. } => format!("vcvt.{op}.{to}.{from}"),
            Inst::VReduce { op, ty, .. } => format!("{op}.{ty}"),
            Inst::Matmul { ty, .. } => format!("mmul.{ty}"),
            Inst::Dma { .. } => "dma".into(),
            Inst::Dma2d { .. } => "dma2d".into(),
            Inst::Sync(k) => k.name().into(),
            Inst::Barrier { scope, .. } => scope.name().into(),
        }
    }

    /// The register the instruction writes, if any.
    pub fn def(&self) -> Option<Reg> {
        match *self {
            Inst::Mov { dst, .. }
            | Inst::Unary { dst, .. }
            | Inst::Binary { dst, .. }
            | Inst::Setp { dst, .. }
            | Inst::Fsetp { dst, .. }
            | Inst::Select { dst, .. }
            | Inst::Convert { dst, .. }
            | Inst::Load { dst, .. }
            | Inst::ReadSreg { dst, .. }
            | Inst::VReduce { dst, .. } => Some(dst),
            _ => None,
        }
    }

    /// The registers the instruction reads, in operand order (address
    /// registers included; a register may appear twice).
    pub fn uses(&self) -> Uses {
        let mut u = Uses { regs: [Reg(0); 8], len: 0 };
        match self {
            Inst::Mov { src, .. } | Inst::Unary { a: src, .. } | Inst::Convert { src, .. } => u.op(src),
            Inst::Binary { a, b, .. } | Inst::Setp { a, b, .. } | Inst::Fsetp { a, b, .. } => {
                u.op(a);
                u.op(b);
            }
            Inst::Select { cond, a, b, .. } => {
                u.push(*cond);
                u.op(a);
                u.op(b);
            }
            Inst::Load { addr, .. } => u.addr(addr),
            Inst::Store { addr, value, .. } => {
                u.addr(addr);
                u.op(value);
            }
            Inst::ReadSreg { .. } | Inst::Jump { .. } | Inst::Exit | Inst::Trap | Inst::Nop | Inst::Sync(_) => {}
            Inst::Branch { cond, .. } => u.push(*cond),
            Inst::VUnary { dst, src, n, .. } | Inst::VConvert { dst, src, n, .. } => {
                u.addr(dst);
                u.addr(src);
                u.op(n);
            }
            Inst::VBinary { dst, a, b, n, .. } => {
                u.addr(dst);
                u.src(a);
                u.src(b);
                u.op(n);
            }
            Inst::VFma { dst, a, b, c, n, .. } => {
                u.addr(dst);
                u.src(a);
                u.src(b);
                u.src(c);
                u.op(n);
            }
            Inst::VFill { dst, value, n, .. } => {
                u.addr(dst);
                u.op(value);
                u.op(n);
            }
            Inst::VReduce { src, n, .. } => {
                u.addr(src);
                u.op(n);
            }
            Inst::Matmul { c, a, b, m, k, n, .. } => {
                u.addr(c);
                u.addr(a);
                u.addr(b);
                u.op(m);
                u.op(k);
                u.op(n);
            }
            Inst::Dma { dst, src, bytes } => {
                u.addr(dst);
                u.addr(src);
                u.op(bytes);
            }
            Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows } => {
                u.addr(dst);
                u.addr(src);
                u.op(bytes);
                u.op(dst_stride);
                u.op(src_stride);
                u.op(rows);
            }
            Inst::Barrier { id, count, .. } => {
                u.op(id);
                u.op(count);
            }
        }
        u
    }

    /// Every address operand, in operand order.
    pub fn addrs(&self) -> Vec<Addr> {
        let src = |s: &VSrc| match s {
            VSrc::Mem(a) => Some(*a),
            VSrc::Scalar(_) => None,
        };
        match self {
            Inst::Load { addr, .. } | Inst::Store { addr, .. } => vec![*addr],
            Inst::VUnary { dst, src, .. } | Inst::VConvert { dst, src, .. } => vec![*dst, *src],
            Inst::VBinary { dst, a, b, .. } => [Some(*dst), src(a), src(b)].into_iter().flatten().collect(),
            Inst::VFma { dst, a, b, c, .. } => [Some(*dst), src(a), src(b), src(c)].into_iter().flatten().collect(),
            Inst::VFill { dst, .. } => vec![*dst],
            Inst::VReduce { src, .. } => vec![*src],
            Inst::Matmul { c, a, b, .. } => vec![*c, *a, *b],
            Inst::Dma { dst, src, .. } | Inst::Dma2d { dst, src, .. } => vec![*dst, *src],
            _ => Vec::new(),
        }
    }

    /// The branch target, for `jmp`, `br` and `brz`.
    pub fn target(&self) -> Option<LabelId> {
        match self {
            Inst::Jump { target } | Inst::Branch { target, .. } => Some(*target),
            _ => None,
        }
    }

    /// Whether control never falls through to the next instruction.
    pub fn ends_flow(&self) -> bool {
        matches!(self, Inst::Jump { .. } | Inst::Exit | Inst::Trap)
    }

    /// Vector and matrix element types: every type but `i1` (which has no
    /// packed memory form).
    pub fn vector_type_ok(ty: Ty) -> bool {
        ty != Ty::I1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::VBinOp;

    #[test]
    fn uses_include_address_registers() {
        let i = Inst::VBinary {
            op: VBinOp::Add,
            ty: Ty::F32,
            dst: Addr::reg(Space::Nram, Reg(1), 0),
            a: VSrc::Mem(Addr::reg(Space::Nram, Reg(2), 0)),
            b: VSrc::Scalar(Operand::Reg(Reg(3))),
            n: Operand::Reg(Reg(4)),
        };
        let mut used: Vec<u16> = i.uses().as_slice().iter().map(|r| r.0).collect();
        used.sort_unstable();
        assert_eq!(used, [1, 2, 3, 4]);
        assert_eq!(i.pipe(), Pipe::Compute);
        assert_eq!(i.mnemonic(), "vadd.f32");
    }
}
