//! Multi-core kernels (`CompileOptions::cores`, `keel compile --cores N`):
//! SPMD code every core runs, with the tile loops of tensor operations
//! split across the cores by `%taskid`.
//!
//! The model: scalar code is replicated (each core computes the same
//! values in its own registers and takes the same branches), so control
//! flow outside tensor operations is uniform and every core reaches every
//! barrier the same number of times. Memory side effects on shared memory
//! (DRAM, and SRAM on one cluster) come only from *regions*:
//!
//! - a **split** region: a tensor map whose consecutive tiles `memdep`
//!   proves independent (`memdep::may_overlap` on the tile descriptors:
//!   every source tile at the destination's offset, or in another object),
//!   so tiles of different cores are disjoint too; core `c` of `N` runs
//!   tiles `c·⌈T/N⌉ .. (c+1)·⌈T/N⌉` of the `T` tiles; an integer `tsum`
//!   or any `tredmax` reduces its own tiles, stores the partial result to
//!   `@keel.partials[c]` (SRAM on one cluster, DRAM across clusters),
//!   waits at a barrier, and combines all `N` partials in core order. With
//!   an immediate size and offsets, the region records its partition, so
//!   that two regions sharing an object out the same way (same size and
//!   tile, same offset) need no barrier between them: each core reads only
//!   what it wrote (the "owner computes" rule of D. Callahan and
//!   K. Kennedy, "Compiling programs for distributed-memory
//!   multiprocessors", The Journal of Supercomputing 2(2), 1988;
//!   `docs/references.md`);
//! - a **core-0** region: every other tensor operation with a shared
//!   destination (`matmul`, `dma`, a map `memdep` cannot prove, the copy
//!   of a source that overlaps its destination), every scalar store to
//!   shared memory, and the result stores of `ret`, guarded so that only
//!   core 0 runs them.
//!
//! A float `tsum` is not split (its order of additions is the IR's) and
//! only reads: every core computes it. Barriers between regions come from
//! dependences (module `syncs`): code that may access what another core's
//! region accessed waits at a barrier first.
//!
//! Scalar stores to shared memory are core-0 regions too (one instruction
//! each); scalar loads and every other access of shared memory outside
//! regions are made by every core, and module `syncs` puts a barrier
//! between them and any region that may write what they read.
//!
//! A kernel is split only when this model holds for all of it (checked by
//! [`why_single_core`] before lowering): no tensor operand in a core's
//! private NRAM or WRAM (each core would hold only its part), and some
//! tensor operation to split. Otherwise the compile stays single-core —
//! every core but task 0 exits at once — and the report says why.
//!
//! This module adds the multi-core methods to `Lowerer` (regions, each
//! core's range, the partials, the prologue) on the base module `lowerer`
//! alone; the modules lowering memory and tensor operations call them. What
//! it records for the syncs pass (regions, partitions, the core count) and
//! the barrier it emits are module `cores`, which the syncs pass reads
//! without depending on the lowering.
//!
//! Invariants: regions never nest; a region starts with a `nop` that no
//! branch inside it targets (module `syncs` enters the region there); cores
//! with `%taskid ≥ N` exit at once, so launching more cores is harmless.

use super::cores::{Partition, barrier_over};
use super::emit::at;
use super::error::CompileError;
use super::lowerer::{Lowerer, space};
use super::place::PlacedKind;
use ir_core::{FuncId, MemSpace, Module, Slot};
use mlu_isa::{BinOp, Inst, IntCC, LabelId, MemId, Operand, Reg, Space, Ty};

/// Why `func` (with the functions it reaches) cannot be split over cores,
/// or `None` when it can.
pub(crate) fn why_single_core(module: &Module, reachable: &[FuncId], cores: u32) -> Option<String> {
    let mut tensor = false;
    for &g in reachable {
        let Some(f) = module.function(g) else { continue };
        for b in f.blocks() {
            for i in f.block_insts(b) {
                let op = f.opcode(i);
                for slot in f.tensor_slots(i) {
                    let Slot::Desc(d) = slot else { continue };
                    tensor = true;
                    let Some(obj) = module.mem(d.mem) else { continue };
                    let private = matches!(obj.space, MemSpace::Nram | MemSpace::Wram);
                    if private || (obj.space == MemSpace::Sram && cores > 4) {
                        return Some(format!(
                            "`{}` in @{} has the operand @{} in {}, which is private to each {}",
                            op.name(),
                            f.name(),
                            obj.name,
                            space_name(obj.space),
                            if private { "core" } else { "cluster" }
                        ));
                    }
                }
            }
        }
    }
    (!tensor).then(|| "it has no tensor operation to split".to_string())
}

fn space_name(s: MemSpace) -> &'static str {
    space(s).name()
}

impl Lowerer<'_> {
    /// Runs `body` as a region (multi-core code; plain code otherwise);
    /// with `core0`, only core 0 runs it.
    pub(crate) fn region<R>(
        &mut self,
        core0: bool,
        body: impl FnOnce(&mut Self) -> Result<R, CompileError>,
    ) -> Result<R, CompileError> {
        self.region_parts(core0, None, body)
    }

    /// [`Lowerer::region`] with the region's partition (split regions).
    pub(crate) fn region_parts<R>(
        &mut self,
        core0: bool,
        partition: Option<Partition>,
        body: impl FnOnce(&mut Self) -> Result<R, CompileError>,
    ) -> Result<R, CompileError> {
        let Some(core) = self.core else { return body(self) };
        let id = self.e.region_begin()?;
        self.e.regions[id].partition = partition;
        let skip: Option<LabelId> = if core0 {
            let l = self.e.label();
            self.e.push(Inst::Branch { on_zero: false, cond: core, target: l })?;
            Some(l)
        } else {
            None
        };
        let r = body(self)?;
        if let Some(l) = skip {
            self.e.bind(l);
        }
        self.e.region_end(id);
        Ok(r)
    }

    /// This core's element range `[lo, hi)` of `n` elements in tiles of
    /// `te`: a contiguous run of whole tiles (empty for a core past the
    /// end). Single-core code: `[0, n)`.
    pub(crate) fn core_range(&mut self, n: Operand, te: u64) -> Result<(Operand, Operand), CompileError> {
        let Some(core) = self.core else { return Ok((Operand::Imm(0), n)) };
        let len = self.e.bin64(BinOp::Smax, n, Operand::Imm(0))?;
        let tiles = self.e.ceil_div(len, te as i64)?;
        let per = self.e.ceil_div(tiles, i64::from(self.cores))?;
        let span = self.e.bin64(BinOp::Mul, per, Operand::int(te as i64))?;
        let lo = self.e.bin64(BinOp::Mul, Operand::Reg(core), span)?;
        let end = self.e.bin64(BinOp::Add, lo, span)?;
        let hi = self.e.bin64(BinOp::Smin, end, len)?;
        Ok((lo, hi))
    }

    /// The reduction partials object (one 8-byte slot per core).
    fn partials(&mut self) -> Result<MemId, CompileError> {
        if let Some(m) = self.partials {
            return Ok(m);
        }
        let space = if self.cores <= 4 { Space::Sram } else { Space::Dram };
        let n = u64::from(self.cores);
        let m = self.object("keel.partials", Ty::I64, n, space, Vec::new(), PlacedKind::Partials)?;
        self.partials = Some(m);
        Ok(m)
    }

    /// The barrier over the kernel's cores.
    pub(crate) fn barrier(&self) -> Inst {
        barrier_over(self.cores)
    }

    /// Combines every core's partial `acc` (of type `ty`, with `combine`
    /// from `identity`) through `@keel.partials` and a barrier, in core
    /// order; returns the register holding the result.
    pub(crate) fn combine_partials(
        &mut self,
        acc: Reg,
        ty: Ty,
        combine: BinOp,
        identity: u64,
    ) -> Result<Reg, CompileError> {
        let Some(core) = self.core else { return Ok(acc) };
        let m = self.partials()?;
        let sp = self.mems[m.index()].space;
        let off = self.e.bin64(BinOp::Mul, Operand::Reg(core), Operand::Imm(8))?;
        let off = self.e.in_reg(Ty::I64, off)?;
        let addr = at(sp, m, Some(off), 0);
        self.e.push(Inst::Store { ty, addr, value: Operand::Reg(acc) })?;
        let b = self.barrier();
        self.e.push(b)?;
        let total = self.e.mov(ty, Operand::Imm(identity))?;
        for c in 0..self.cores {
            let x = self.e.vreg()?;
            self.e.push(Inst::Load { ty, dst: x, addr: at(sp, m, None, 8 * i64::from(c)) })?;
            self.e.push(Inst::Binary { op: combine, ty, dst: total, a: Operand::Reg(total), b: Operand::Reg(x) })?;
        }
        Ok(total)
    }

    /// Multi-core prologue: `core = %taskid`; cores past the kernel's
    /// count branch to `others` (which exits).
    pub(crate) fn core_prologue(&mut self, others: LabelId) -> Result<(), CompileError> {
        let task = self.e.vreg()?;
        self.e.push(Inst::ReadSreg { dst: task, sreg: mlu_isa::Sreg::TaskId })?;
        if self.split {
            let extra = self.e.cmp64(IntCC::Uge, Operand::Reg(task), Operand::int(i64::from(self.cores)))?;
            self.e.push(Inst::Branch { on_zero: false, cond: extra, target: others })?;
            self.core = Some(task);
        } else {
            self.e.push(Inst::Branch { on_zero: false, cond: task, target: others })?;
        }
        Ok(())
    }
}
