//! Tensor operands as the lowering stages them: lowered descriptors
//! ([`Desc`]) and the interpreter's checks on them, the NRAM staging
//! buffers, the tile loop, copies (bounced through a staging buffer where
//! the machine has no route), the DRAM temporaries of sources that overlap
//! their destination, and [`partition`] (the [`Partition`] a split region
//! over descriptors records). Maps (module `maps`), fused runs (`fuse`),
//! reductions and `matmul` (`tensor`) build on these; this module calls
//! into `lowerer` and `split` (the core-0 region of an overlapping
//! source's copy) only.
//!
//! Invariants:
//! - a tile has `te` elements, a multiple of the ISA's `count_multiple`
//!   that fits the staging buffer; vector instructions run over the tile's
//!   count rounded up to that multiple ([`Lowerer::padded`]);
//! - the tile loop tests at its end, with a guard only where the range may
//!   be empty, and a range known to hold at most one tile gets no loop (so
//!   the syncs pass sees no path that cannot run);
//! - a source that may overlap the destination's object at another offset
//!   is copied whole to a DRAM temporary before the tiles run (the IR reads
//!   every source before it writes: docs/ir.md §6.7);
//! - descriptors with var parts get the interpreter's checks (offset and
//!   size in bounds, equal sizes) before anything moves; a WRAM
//!   destination starts at an aligned immediate offset, or the compile
//!   fails naming the instruction.
//!
//! Algorithm: strip-mining (a loop over fixed-size tiles staged through
//! buffers, the last tile shortened; R. Allen and K. Kennedy, *Optimizing
//! Compilers for Modern Architectures: A Dependence-based Approach*, Morgan
//! Kaufmann, 2001; `docs/references.md`).

use super::cores::Partition;
use super::emit::at;
use super::error::{CompileError, CopyOf, Unlowerable};
use super::lowerer::{Instance as LowerInstance, Lowerer, space, ty};
use super::place::PlacedKind;
use ir_core::{Function, MemDesc, Opcode};
use mlu_isa::{Addr, BinOp, Inst, IntCC, MemId, Operand, Route, Space, Ty};

/// A descriptor, lowered.
#[derive(Copy, Clone, Debug)]
pub(super) struct Desc {
    pub(super) keel: ir_core::Mem,
    pub(super) mem: MemId,
    pub(super) space: Space,
    pub(super) elem: Ty,
    pub(super) len: u64,
    pub(super) off: Operand,
    pub(super) off_op: ir_core::Operand,
    pub(super) size: Operand,
}

impl Desc {
    /// Exact offset and size (both immediates).
    pub(super) fn exact(&self) -> bool {
        matches!((self.off, self.size), (Operand::Imm(_), Operand::Imm(_)))
    }
}

/// The partition of a split region over `n` elements in tiles of `te`
/// (module `split`): known when `n` and every descriptor's offset are
/// immediates.
pub(super) fn partition<'d>(n: Operand, te: u64, descs: impl IntoIterator<Item = &'d Desc>) -> Option<Partition> {
    let n = u64::try_from(n.imm_i64()?).ok()?;
    let mut objects = Vec::new();
    for d in descs {
        objects.push((d.mem.0, d.off.imm_i64()?));
    }
    Some(Partition { n, te, objects })
}

impl Lowerer<'_> {
    pub(super) fn desc(&mut self, inst: &LowerInstance, f: &Function, d: MemDesc) -> Result<Desc, CompileError> {
        let obj = self.module.mem(d.mem).ok_or_else(|| self.unsupported(Unlowerable::MissingObject(d.mem)))?;
        Ok(Desc {
            keel: d.mem,
            mem: self.mem_map[d.mem.as_u32() as usize],
            space: space(obj.space),
            elem: ty(obj.elem),
            len: obj.len,
            off: self.index(inst, f, d.offset)?,
            off_op: d.offset,
            size: self.index(inst, f, d.size)?,
        })
    }

    /// A WRAM destination must start at an immediate offset aligned to the
    /// ISA's WRAM alignment: copies into WRAM trap otherwise, where the
    /// interpreter would not.
    pub(super) fn wram_destination(&self, d: &Desc, op: Opcode) -> Result<(), CompileError> {
        if d.space != Space::Wram {
            return Ok(());
        }
        let align = self.config.wram_align.max(1);
        match d.off {
            Operand::Imm(o) if (o as i64).wrapping_mul(d.elem.bytes() as i64) % align as i64 == 0 => Ok(()),
            _ => Err(CompileError::WramDestinationOffset { at: self.here.clone(), op, align }),
        }
    }

    /// The interpreter's bounds check of a descriptor with var parts.
    pub(super) fn check_bounds(&mut self, d: &Desc) -> Result<(), CompileError> {
        if d.exact() {
            return Ok(());
        }
        let len = Operand::int(d.len as i64);
        let big = self.e.cmp64(IntCC::Ugt, d.size, len)?;
        self.e.trap_if(big)?;
        let room = self.e.bin64(BinOp::Sub, len, d.size)?;
        let past = self.e.cmp64(IntCC::Ugt, d.off, room)?;
        self.e.trap_if(past)
    }

    /// Traps unless `a == b` (nothing when both are the same operand).
    pub(super) fn check_equal(&mut self, a: Operand, b: Operand) -> Result<(), CompileError> {
        if a == b {
            return Ok(());
        }
        let ne = self.e.cmp64(IntCC::Ne, a, b)?;
        self.e.trap_if(ne)
    }

    /// The `idx`-th NRAM staging buffer of the first buffer set.
    pub(super) fn stage(&mut self, idx: usize) -> Result<MemId, CompileError> {
        self.stage_in(0, idx)
    }

    /// The `idx`-th NRAM staging buffer of buffer set `set` (0:
    /// `@keel.stageN`, 1: the ping-pong partners `@keel.pongN`).
    pub(super) fn stage_in(&mut self, set: usize, idx: usize) -> Result<MemId, CompileError> {
        if let Some(m) = self.stage[set][idx] {
            return Ok(m);
        }
        let name = if set == 0 { format!("keel.stage{idx}") } else { format!("keel.pong{idx}") };
        let m = self.object(&name, Ty::I8, self.tile_bytes, Space::Nram, Vec::new(), PlacedKind::Stage)?;
        self.stage[set][idx] = Some(m);
        Ok(m)
    }

    /// Elements per tile for `elem`.
    pub(super) fn tile_elems(&self, elem: Ty) -> Result<u64, CompileError> {
        let cm = self.config.count_multiple.max(1);
        let te = self.tile_bytes / elem.bytes() / cm * cm;
        if te == 0 {
            return Err(CompileError::TileTooSmall { tile_bytes: self.tile_bytes, elem, count_multiple: cm });
        }
        Ok(te)
    }

    /// The address of element `d.off + i` of `d`.
    pub(super) fn elem_addr(&mut self, d: &Desc, i: Operand) -> Result<Addr, CompileError> {
        let idx = self.e.bin64(BinOp::Add, d.off, i)?;
        let bytes = self.e.bin64(BinOp::Mul, idx, Operand::int(d.elem.bytes() as i64))?;
        Ok(match bytes {
            Operand::Imm(v) => at(d.space, d.mem, None, v as i64),
            Operand::Reg(r) => at(d.space, d.mem, Some(r), 0),
        })
    }

    /// `for i in (start..n).step_by(te)`: calls `body(i, count, padded)` with the
    /// tile's element count and that count rounded up to `count_multiple`.
    /// The loop tests at its end; a guard skips it when `n` may be zero or
    /// negative (none when `n` is a positive immediate, so the code has no
    /// zero-trip path the syncs pass would have to assume). A range known to
    /// hold at most one tile (immediate bounds, or at most `most` elements,
    /// `most ≤ te`) gets no loop.
    pub(super) fn tiles(
        &mut self,
        (start, n): (Operand, Operand),
        (te, most): (u64, u64),
        mut body: impl FnMut(&mut Self, Operand, Operand, Operand) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        let cm = self.config.count_multiple.max(1) as i64;
        if most <= te && !(start.imm_i64().is_some() && n.imm_i64().is_some()) {
            // At most `most` elements, one tile: no loop, a guard only.
            let done = self.e.label();
            let len = self.e.bin64(BinOp::Sub, n, start)?;
            self.skip_if_empty(len, done)?;
            let padded = self.padded(len)?;
            body(self, start, len, padded)?;
            self.e.bind(done);
            return Ok(());
        }
        if let (Some(lo), Some(hi)) = (start.imm_i64(), n.imm_i64())
            && hi.wrapping_sub(lo) <= te as i64
        {
            // At most one tile, known now: straight-line code with exact
            // counts (none for an empty range).
            let cnt = hi.wrapping_sub(lo);
            if cnt > 0 {
                let padded = (cnt + cm - 1) / cm * cm;
                body(self, start, Operand::int(cnt), Operand::int(padded))?;
            }
            return Ok(());
        }
        let i = self.e.mov(Ty::I64, start)?;
        let (head, done) = (self.e.label(), self.e.label());
        let len = self.e.bin64(BinOp::Sub, n, start)?;
        self.skip_if_empty(len, done)?;
        self.e.bind(head);
        let rem = self.e.bin64(BinOp::Sub, n, Operand::Reg(i))?;
        let cnt = self.e.vreg()?;
        self.e.push(Inst::Binary { op: BinOp::Smin, ty: Ty::I64, dst: cnt, a: rem, b: Operand::int(te as i64) })?;
        let padded = self.padded(Operand::Reg(cnt))?;
        body(self, Operand::Reg(i), Operand::Reg(cnt), padded)?;
        self.e.push(Inst::Binary {
            op: BinOp::Add,
            ty: Ty::I64,
            dst: i,
            a: Operand::Reg(i),
            b: Operand::int(te as i64),
        })?;
        let more = self.e.cmp64(IntCC::Slt, Operand::Reg(i), n)?;
        self.e.push(Inst::Branch { on_zero: false, cond: more, target: head })?;
        self.e.bind(done);
        Ok(())
    }

    /// `cnt` rounded up to the ISA's `count_multiple` (what a vector
    /// instruction over a tile of `cnt` elements runs on).
    pub(super) fn padded(&mut self, cnt: Operand) -> Result<Operand, CompileError> {
        let cm = self.config.count_multiple.max(1) as i64;
        let q = self.e.ceil_div(cnt, cm)?;
        self.e.bin64(BinOp::Mul, q, Operand::int(cm))
    }

    /// `if n <= 0 goto done`, unless `n` is a positive immediate.
    pub(super) fn skip_if_empty(&mut self, n: Operand, done: mlu_isa::LabelId) -> Result<(), CompileError> {
        if n.imm_i64().is_some_and(|v| v > 0) {
            return Ok(());
        }
        let end = self.e.cmp64(IntCC::Sle, n, Operand::Imm(0))?;
        self.e.push(Inst::Branch { on_zero: false, cond: end, target: done })
    }

    /// Copies `bytes` bytes from `src` to `dst`: one DMA where the machine
    /// has the route, otherwise through staging buffer 0, tile by tile.
    pub(super) fn copy(&mut self, dst: Addr, src: Addr, bytes: Operand, copy: CopyOf) -> Result<(), CompileError> {
        let why = &copy.to_string();
        if Route::new(src.space, dst.space).exists() {
            return self.e.dma(dst, src, bytes, why);
        }
        if src.space == Space::Wram {
            return Err(CompileError::CopyOutOfWram { at: self.here.clone(), copy });
        }
        let buf = self.stage(0)?;
        let tb = self.tile_bytes;
        self.tiles((Operand::Imm(0), bytes), (tb, u64::MAX), |s, i, cnt, _| {
            let shift = |a: Addr, s: &mut Self| -> Result<Addr, CompileError> {
                let base = match a.base {
                    Some(r) => s.e.bin64(BinOp::Add, Operand::Reg(r), i)?,
                    None => i,
                };
                let base = s.e.in_reg(Ty::I64, base)?;
                Ok(Addr { base: Some(base), ..a })
            };
            let (from, to) = (shift(src, s)?, shift(dst, s)?);
            let stage = at(Space::Nram, buf, None, 0);
            s.e.dma(stage, from, cnt, why)?;
            s.e.dma(to, stage, cnt, why)
        })
    }

    /// The DRAM temporary that holds a copy of Keel object `keel`.
    fn alias_temp(&mut self, d: &Desc) -> Result<MemId, CompileError> {
        let k = d.keel.as_u32() as usize;
        if let Some(m) = self.alias[k] {
            return Ok(m);
        }
        let name = format!("keel.alias{k}");
        let m = self.object(&name, d.elem, d.len, Space::Dram, Vec::new(), PlacedKind::AliasCopy)?;
        self.alias[k] = Some(m);
        Ok(m)
    }

    /// Copies a source that may overlap the destination `dst` (same object,
    /// another offset) to its DRAM temporary, and reads from there.
    pub(super) fn unalias(&mut self, src: Desc, dst: &Desc) -> Result<Desc, CompileError> {
        if src.keel != dst.keel || src.off_op == dst.off_op {
            return Ok(src);
        }
        let temp = self.alias_temp(&src)?;
        let copy = Desc { mem: temp, space: Space::Dram, ..src };
        let to = self.elem_addr(&copy, Operand::Imm(0))?;
        let from = self.elem_addr(&src, Operand::Imm(0))?;
        let bytes = self.e.bin64(BinOp::Mul, src.size, Operand::int(src.elem.bytes() as i64))?;
        self.region(true, |s| s.copy(to, from, bytes, CopyOf::AliasTemp))?;
        Ok(copy)
    }
}
