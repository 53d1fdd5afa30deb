//! The lowering's state ([`Lowerer`]) and the primitives every lowering
//! module builds on: Keel types and spaces as the ISA's ([`ty`],
//! [`space`]), object declarations, inlined instances with one virtual
//! register per var, operands, and parallel copies.
//!
//! The lowering is layered so that every dependency goes one way. This
//! module is its base. Above it, each module adds methods to `Lowerer`
//! and uses only the modules below it: `split` (regions, each core's
//! range, partials, the prologue) on this one; `access` (scalar memory),
//! `control` (control flow, calls) and `staging` (descriptors, staging
//! buffers, the tile loop, copies) on `split`; `maps` (tensor maps) on
//! `staging`; `fuse` (fused runs of maps) and `tensor` (the tensor
//! dispatch, reductions, `matmul`) on `maps`. Module `lower`, the driver,
//! is the top: it alone calls into `access`, `control`, `fuse` and
//! `tensor`, and no lowering module calls into it.
//!
//! Invariants: each Keel var of each inlined instance has one virtual
//! register for its whole life (vars are storage locations, not SSA
//! values), zeroed in the prologue, so every virtual register is defined
//! before any use; registers are read and written canonically (the ISA's
//! register form is Keel's immediate form, so no conversion is ever
//! needed between them); at most [`MAX_INSTANCES`] instances per compile;
//! a parallel copy reads every source before it writes any destination.
//! Algorithm: the parallel copy goes through temporaries (P. Briggs,
//! K. D. Cooper, T. J. Harvey and L. T. Simpson, "Practical improvements to
//! the construction and destruction of static single assignment form",
//! Software—Practice and Experience 28(8), 1998; `docs/references.md`);
//! the rest is bookkeeping.

use super::emit::Emitter;
use super::error::{CompileError, Site, Unlowerable};
use super::place::PlacedKind;
use crate::planted::Plants;
use ir_core::{Block, FuncId, Function, Module, Type, Var};
use mlu_isa::{ConvOp, Inst, LabelId, MachineConfig, MemDecl, MemId, Operand, Reg, Space, Ty};
use std::collections::{HashMap, VecDeque};

/// The MLU type of a Keel type.
pub fn ty(t: Type) -> Ty {
    match t {
        Type::I1 => Ty::I1,
        Type::I8 => Ty::I8,
        Type::I16 => Ty::I16,
        Type::I32 => Ty::I32,
        Type::I64 => Ty::I64,
        Type::F32 => Ty::F32,
        Type::F64 => Ty::F64,
    }
}

/// The MLU space of a Keel space.
pub fn space(s: ir_core::MemSpace) -> Space {
    match s {
        ir_core::MemSpace::Dram => Space::Dram,
        ir_core::MemSpace::Sram => Space::Sram,
        ir_core::MemSpace::Nram => Space::Nram,
        ir_core::MemSpace::Wram => Space::Wram,
    }
}

/// Most inlined call instances in one compile.
pub const MAX_INSTANCES: usize = 100_000;

/// A copy `dst ← src` of type `T`.
pub(crate) type Move = (Reg, Ty, Operand);

/// One inlined copy of a function.
pub(crate) struct Instance {
    pub(crate) func: FuncId,
    pub(crate) vars: Vec<Reg>,
    pub(crate) blocks: Vec<LabelId>,
    /// Where `ret` goes and the registers results are copied into; `None`
    /// for the compiled function itself (its `ret` writes `@keel.ret`).
    pub(crate) ret: Option<(LabelId, Vec<Reg>)>,
}

/// The lowering state.
pub(crate) struct Lowerer<'m> {
    pub module: &'m Module,
    pub config: &'m MachineConfig,
    pub e: Emitter,
    pub mems: Vec<MemDecl>,
    pub kinds: Vec<PlacedKind>,
    /// Keel object index to program object.
    pub mem_map: Vec<MemId>,
    /// Staging buffer bytes.
    pub tile_bytes: u64,
    /// NRAM staging buffers, one per tensor slot, created on first use;
    /// the second set holds the ping-pong partners.
    pub stage: [[Option<MemId>; 8]; 2],
    /// How each tensor map was buffered, and why.
    pub buffering: Vec<String>,
    /// Whole-operand matmul buffers (A, C in NRAM; B in WRAM).
    pub mm: [Option<MemId>; 3],
    /// DRAM copies of objects whose ranges may alias a destination.
    pub alias: Vec<Option<MemId>>,
    /// The bug planted for this compile (tests only), read when the
    /// lowering starts.
    pub plants: Plants,
    /// Ping-pong buffers for independent tile loops.
    pub double: bool,
    /// Cores asked for.
    pub cores: u32,
    /// Whether the kernel is split over the cores (module `split`).
    pub split: bool,
    /// The register holding `%taskid` in split code.
    pub core: Option<Reg>,
    /// The reduction partials object (split code).
    pub partials: Option<MemId>,
    pub(crate) queue: VecDeque<Instance>,
    pub(crate) instances: usize,
    pub(crate) args_mem: MemId,
    pub(crate) ret_mem: MemId,
    /// Where the instruction being lowered is, for errors.
    pub here: Site,
    /// The phi copies of each edge `(from, to)` of the instance being lowered.
    pub(crate) phi_moves: HashMap<(Block, Block), Vec<Move>>,
}

impl Lowerer<'_> {
    /// Declares an object (address assigned at placement).
    pub fn object(
        &mut self,
        name: &str,
        ty: Ty,
        len: u64,
        space: Space,
        init: Vec<u64>,
        kind: PlacedKind,
    ) -> Result<MemId, CompileError> {
        self.mems.push(MemDecl { name: name.into(), ty, len, space, addr: 0, init });
        self.kinds.push(kind);
        Ok(MemId(self.mems.len() as u32 - 1))
    }

    pub(crate) fn instance(
        &mut self,
        func: FuncId,
        ret: Option<(LabelId, Vec<Reg>)>,
    ) -> Result<Instance, CompileError> {
        self.instances += 1;
        if self.instances > MAX_INSTANCES {
            return Err(CompileError::TooManyInstances { limit: MAX_INSTANCES });
        }
        let f = self.module.function(func).ok_or(CompileError::MissingCallee { func })?;
        let mut vars = Vec::with_capacity(f.num_vars());
        for v in f.vars() {
            let r = self.e.vreg()?;
            // Registers start at 0, but say so: every virtual register is
            // then defined before any use, which the allocation checker needs.
            self.e.prologue.push(Inst::Mov { ty: Self::var_ty(f, v), dst: r, src: Operand::Imm(0) });
            vars.push(r);
        }
        let blocks = (0..f.num_blocks()).map(|_| self.e.label()).collect();
        Ok(Instance { func, vars, blocks, ret })
    }

    /// The register or immediate of a Keel operand.
    pub fn op(&self, inst: &Instance, f: &Function, o: ir_core::Operand) -> Operand {
        match f.arg(o) {
            Some(ir_core::Arg::Var(v)) => Operand::Reg(inst.vars[v.as_u32() as usize]),
            Some(ir_core::Arg::Imm(imm)) => Operand::Imm(imm.bits()),
            None => Operand::Imm(0),
        }
    }

    /// A Keel integer operand (index, offset, size, dimension) as a signed
    /// 64-bit value: `i1` true is −1 (docs/ir.md §6.7).
    pub fn index(&mut self, inst: &Instance, f: &Function, o: ir_core::Operand) -> Result<Operand, CompileError> {
        let t = f.operand_type(o).unwrap_or(Type::I64);
        match (self.op(inst, f, o), t) {
            (Operand::Imm(bits), _) => Ok(Operand::int(ir_core::Imm::from_bits(t, bits).as_i64())),
            (Operand::Reg(r), Type::I1) => {
                let dst = self.e.vreg()?;
                self.e.push(Inst::Convert {
                    op: ConvOp::Sext,
                    to: Ty::I64,
                    from: Ty::I1,
                    dst,
                    src: Operand::Reg(r),
                })?;
                Ok(Operand::Reg(dst))
            }
            (o, _) => Ok(o),
        }
    }

    pub(crate) fn var(&self, inst: &Instance, v: Var) -> Reg {
        inst.vars[v.as_u32() as usize]
    }

    pub(crate) fn var_ty(f: &Function, v: Var) -> Ty {
        ty(f.var_type(v).unwrap_or(Type::I64))
    }

    /// `what` has no MLU form, at the instruction being lowered.
    pub fn unsupported(&self, what: Unlowerable) -> CompileError {
        CompileError::Unsupported { at: self.here.clone(), what }
    }

    /// [`Lowerer::unsupported`] for an operation.
    pub fn unsupported_op(&self, op: ir_core::Opcode) -> CompileError {
        self.unsupported(Unlowerable::Op(op))
    }

    /// `dst_i ← src_i` for all `i` at once (through temporaries).
    pub(crate) fn parallel_copy(&mut self, moves: &[Move]) -> Result<(), CompileError> {
        let mut temps = Vec::with_capacity(moves.len());
        for &(_, t, src) in moves {
            temps.push(self.e.mov(t, src)?);
        }
        for (&(dst, t, _), &tmp) in moves.iter().zip(&temps) {
            self.e.push(Inst::Mov { ty: t, dst, src: Operand::Reg(tmp) })?;
        }
        Ok(())
    }
}
