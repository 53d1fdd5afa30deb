//! The code buffer the lowering writes into: instructions over virtual
//! registers, forward labels, and the notes the report prints.
//!
//! Invariants: virtual registers are numbered densely from 0 and never
//! exceed [`MAX_VREGS`] (an error past that, never a wrap); a label is
//! bound at most once; [`Emitter::finish`] orders labels by position (ties
//! in creation order), as `Program` requires, and remaps every branch.

use super::cores::Region;
use super::error::CompileError;
use mlu_isa::{Addr, Inst, Label, LabelId, MemId, Operand, Pipe, Program, Reg, Route, Space, SyncKind, Ty};

/// Most virtual registers one compiled function may use (registers are
/// 16-bit ids in the program form).
pub const MAX_VREGS: u32 = 60_000;

/// Most instructions one compiled function may have (inlining and tiling
/// grow code; past this the compile stops with an error).
pub const MAX_INSTS: usize = 4_000_000;

/// A sync or barrier the compiler inserted, and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SyncNote {
    /// The instruction: a `sync` or a `barrier`.
    pub inst: Inst,
    /// Why it is there.
    pub reason: String,
}

/// The code of one compile in virtual registers.
#[derive(Debug, Default)]
pub(crate) struct Emitter {
    pub insts: Vec<Inst>,
    labels: Vec<Option<u32>>,
    pub vregs: u32,
    pub syncs: Vec<SyncNote>,
    /// The shared trap label (bounds and shape checks jump here).
    pub trap: Option<LabelId>,
    /// Instructions that run first (the zeroing of every var's register,
    /// so that every virtual register is defined before any use).
    pub prologue: Vec<Inst>,
    /// The naive sync policy: a sync after every copy and compute
    /// instruction. Off, the lowering emits none and `syncs` places them.
    pub naive_syncs: bool,
    /// Multi-core code: the regions, positions in `insts` before the
    /// prologue (see `cores` and `syncs`).
    pub regions: Vec<Region>,
}

impl Emitter {
    /// An empty buffer; `naive_syncs` selects the naive sync policy.
    pub fn new(naive_syncs: bool) -> Emitter {
        Emitter { naive_syncs, ..Emitter::default() }
    }

    pub fn vreg(&mut self) -> Result<Reg, CompileError> {
        if self.vregs >= MAX_VREGS {
            return Err(CompileError::TooManyVregs { limit: MAX_VREGS });
        }
        self.vregs += 1;
        Ok(Reg((self.vregs - 1) as u16))
    }

    pub fn label(&mut self) -> LabelId {
        self.labels.push(None);
        LabelId(self.labels.len() as u32 - 1)
    }

    pub fn bind(&mut self, l: LabelId) {
        self.labels[l.index()] = Some(self.insts.len() as u32);
    }

    pub fn push(&mut self, inst: Inst) -> Result<(), CompileError> {
        if self.insts.len() >= MAX_INSTS {
            return Err(CompileError::TooManyInsts { limit: MAX_INSTS });
        }
        self.insts.push(inst);
        Ok(())
    }

    /// The shared trap label.
    pub fn trap_label(&mut self) -> LabelId {
        match self.trap {
            Some(l) => l,
            None => {
                let l = self.label();
                self.trap = Some(l);
                l
            }
        }
    }

    /// `br cond, trap`.
    pub fn trap_if(&mut self, cond: Reg) -> Result<(), CompileError> {
        let target = self.trap_label();
        self.push(Inst::Branch { on_zero: false, cond, target })
    }

    /// A fresh register holding `v` (a `mov.T`).
    pub fn mov(&mut self, ty: Ty, src: Operand) -> Result<Reg, CompileError> {
        let dst = self.vreg()?;
        self.push(Inst::Mov { ty, dst, src })?;
        Ok(dst)
    }

    /// A fresh register holding `op(a, b)` in `i64`.
    pub fn bin64(&mut self, op: mlu_isa::BinOp, a: Operand, b: Operand) -> Result<Operand, CompileError> {
        if let (Operand::Imm(x), Operand::Imm(y)) = (a, b) {
            let (x, y) = (x as i64, y as i64);
            let folded = match op {
                mlu_isa::BinOp::Add => Some(x.wrapping_add(y)),
                mlu_isa::BinOp::Sub => Some(x.wrapping_sub(y)),
                mlu_isa::BinOp::Mul => Some(x.wrapping_mul(y)),
                _ => None,
            };
            if let Some(v) = folded {
                return Ok(Operand::int(v));
            }
        }
        // Identities: `0 + x`, `x + 0`, `x - 0`, `1 * x`, `x * 1`.
        match (op, a, b) {
            (mlu_isa::BinOp::Add, Operand::Imm(0), x)
            | (mlu_isa::BinOp::Add | mlu_isa::BinOp::Sub, x, Operand::Imm(0)) => {
                return Ok(x);
            }
            (mlu_isa::BinOp::Mul, Operand::Imm(1), x) | (mlu_isa::BinOp::Mul, x, Operand::Imm(1)) => return Ok(x),
            _ => {}
        }
        let dst = self.vreg()?;
        self.push(Inst::Binary { op, ty: Ty::I64, dst, a, b })?;
        Ok(Operand::Reg(dst))
    }

    /// `⌈x / d⌉` for a non-negative `x` and a positive `d` (in `i64`).
    pub fn ceil_div(&mut self, x: Operand, d: i64) -> Result<Operand, CompileError> {
        let up = self.bin64(mlu_isa::BinOp::Add, x, Operand::int(d - 1))?;
        self.bin64(mlu_isa::BinOp::Udiv, up, Operand::int(d))
    }

    /// A fresh `i1` register: `a CC b` on `i64`.
    pub fn cmp64(&mut self, cc: mlu_isa::IntCC, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        let dst = self.vreg()?;
        self.push(Inst::Setp { cc, ty: Ty::I64, dst, a, b })?;
        Ok(dst)
    }

    /// A register holding `o` (a copy when `o` is an immediate).
    pub fn in_reg(&mut self, ty: Ty, o: Operand) -> Result<Reg, CompileError> {
        match o {
            Operand::Reg(r) => Ok(r),
            Operand::Imm(_) => self.mov(ty, o),
        }
    }

    /// A copy of `bytes` bytes, followed (naive policy) by the sync of its
    /// pipe.
    pub fn dma(&mut self, dst: Addr, src: Addr, bytes: Operand, why: &str) -> Result<(), CompileError> {
        let route = Route::new(src.space, dst.space);
        self.push(Inst::Dma { dst, src, bytes })?;
        if !self.naive_syncs {
            return Ok(());
        }
        let kind = if route.pipe() == Pipe::Io { SyncKind::Io } else { SyncKind::Move };
        self.sync(kind, format!("after the {route} copy of {why} (naive: every copy is waited for at once)"))
    }

    /// A compute instruction followed (naive policy) by `sync.compute`.
    pub fn compute(&mut self, inst: Inst, why: &str) -> Result<(), CompileError> {
        self.push(inst)?;
        if !self.naive_syncs {
            return Ok(());
        }
        self.sync(SyncKind::Compute, format!("after {why} (naive: compute is waited for before its result is copied)"))
    }

    /// Opens a region (multi-core code) with its entry `nop`; returns its
    /// id.
    pub fn region_begin(&mut self) -> Result<usize, CompileError> {
        let at = self.insts.len() as u32;
        self.push(Inst::Nop)?;
        self.regions.push(Region { start: at, end: at, partition: None });
        Ok(self.regions.len() - 1)
    }

    /// Closes region `id` at the current position.
    pub fn region_end(&mut self, id: usize) {
        self.regions[id].end = self.insts.len() as u32;
    }

    pub fn sync(&mut self, kind: SyncKind, reason: String) -> Result<(), CompileError> {
        self.push(Inst::Sync(kind))?;
        self.syncs.push(SyncNote { inst: Inst::Sync(kind), reason });
        Ok(())
    }

    /// The program: instructions, labels in position order, the given
    /// memory objects.
    pub fn finish(mut self, mems: Vec<mlu_isa::MemDecl>) -> Program {
        if let Some(t) = self.trap {
            self.bind(t);
            self.insts.push(Inst::Trap);
        }
        if !self.insts.last().is_some_and(Inst::ends_flow) {
            self.insts.push(Inst::Trap);
        }
        let shift = self.prologue.len() as u32;
        if shift > 0 {
            let mut all = std::mem::take(&mut self.prologue);
            all.append(&mut self.insts);
            self.insts = all;
            for at in self.labels.iter_mut().flatten() {
                *at += shift;
            }
        }
        let end = self.insts.len() as u32;
        // Only labels some branch names survive (guards without a skip, ...).
        let mut named = vec![false; self.labels.len()];
        for inst in &self.insts {
            if let Some(t) = inst.target() {
                named[t.index()] = true;
            }
        }
        let mut order: Vec<(u32, u32)> = self
            .labels
            .iter()
            .enumerate()
            .filter(|&(i, _)| named[i])
            .map(|(i, at)| (at.unwrap_or(end), i as u32))
            .collect();
        order.sort_unstable();
        let mut remap = vec![0u32; self.labels.len()];
        let mut labels = Vec::with_capacity(order.len());
        for (new, &(at, old)) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
            labels.push(Label { name: format!("L{new}"), at });
        }
        for inst in &mut self.insts {
            if let Inst::Jump { target } | Inst::Branch { target, .. } = inst {
                *target = LabelId(remap[target.index()]);
            }
        }
        Program { mems, labels, insts: self.insts }
    }
}

/// `space[@sym + base + offset]`.
pub(crate) fn at(space: Space, sym: MemId, base: Option<Reg>, offset: i64) -> Addr {
    Addr { space, sym: Some(sym), base, offset }
}
