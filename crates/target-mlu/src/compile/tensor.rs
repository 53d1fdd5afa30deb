//! The lowering of tensor instructions: descriptors and their checks,
//! staging buffers, the tile loop, copies, reductions and `matmul` (maps
//! are in `maps`). Syncs come from the `syncs` pass, or (the naive policy)
//! from the emitter after every copy and compute instruction.
//!
//! Invariants:
//! - a tile has `te` elements, a multiple of the ISA's `count_multiple`
//!   that fits the staging buffer; vector instructions run over the tile's
//!   count rounded up to that multiple, and only the tile's own elements
//!   are copied out, so padding lanes never reach memory;
//! - padding lanes that a result could see are filled first: with 0 / 1
//!   for an integer `tdiv`'s dividend / divisor (no spurious trap), with
//!   the reduction's identity for `tsum` and `tredmax` (−0.0 for a float
//!   sum, the exact identity of IEEE addition; an empty sum is +0.0);
//! - a float `tsum` longer than one tile is summed by a scalar loop in
//!   index order (vector partial sums would reassociate it);
//! - a source that may overlap the destination's object at another offset
//!   is copied whole to a DRAM temporary before the tiles run (the IR reads
//!   every source before it writes: docs/ir.md §6.7);
//! - descriptors with var parts get the interpreter's checks (offset and
//!   size in bounds, equal sizes, `matmul` shapes) before anything moves.

use super::CompileError;
use super::emit::at;
use super::lower::{Instance as LowerInstance, Lowerer, space, ty};
use super::place::PlacedKind;
use ir_core::{Function, MemDesc, Opcode, Slot};
use mlu_isa::{Addr, BinOp, Inst, IntCC, MemId, Operand, RedOp, Route, Space, Ty};

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

impl Lowerer<'_> {
    pub(super) fn desc(&mut self, inst: &LowerInstance, f: &Function, d: MemDesc) -> Result<Desc, CompileError> {
        let obj = self.module.mem(d.mem).ok_or_else(|| self.unsupported("a descriptor of a missing object"))?;
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
    pub(super) fn wram_destination(&self, d: &Desc, what: &str) -> Result<(), CompileError> {
        if d.space != Space::Wram {
            return Ok(());
        }
        let align = self.config.wram_align.max(1) as i64;
        match d.off {
            Operand::Imm(o) if (o as i64).wrapping_mul(d.elem.bytes() as i64) % align == 0 => Ok(()),
            _ => Err(CompileError::new(format!(
                "cannot lower `{what}` ({}): its WRAM destination must start at an immediate offset aligned to {align} bytes",
                self.here
            ))),
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
            return Err(CompileError::new(format!(
                "a {}-byte staging buffer holds no whole vector of {elem} ({} elements)",
                self.tile_bytes, cm
            )));
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
        let q = self.ceil_div(cnt, cm)?;
        self.e.bin64(BinOp::Mul, q, Operand::int(cm))
    }

    /// `⌈x / d⌉` for a non-negative `x` and a positive `d`.
    pub(super) fn ceil_div(&mut self, x: Operand, d: i64) -> Result<Operand, CompileError> {
        let up = self.e.bin64(BinOp::Add, x, Operand::int(d - 1))?;
        self.e.bin64(BinOp::Udiv, up, Operand::int(d))
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
    pub(super) fn copy(&mut self, dst: Addr, src: Addr, bytes: Operand, why: &str) -> Result<(), CompileError> {
        if Route::new(src.space, dst.space).exists() {
            return self.e.dma(dst, src, bytes, why);
        }
        if src.space == Space::Wram {
            return Err(CompileError::new(format!(
                "cannot lower the copy of {why} ({}): nothing copies out of WRAM (docs/mlu-isa.md §2.3)",
                self.here
            )));
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
        self.region(true, |s| s.copy(to, from, bytes, "a source overlapping its destination to a temporary"))?;
        Ok(copy)
    }

    pub(crate) fn lower_tensor(
        &mut self,
        inst: &LowerInstance,
        f: &Function,
        i: ir_core::Inst,
    ) -> Result<(), CompileError> {
        let op = f.opcode(i);
        let slots = f.tensor_slots(i);
        match op {
            Opcode::Matmul => self.lower_matmul(inst, f, i, &slots),
            Opcode::Tsum | Opcode::Tredmax => self.lower_reduce(inst, f, i, &slots),
            _ => self.lower_map(inst, f, op, &slots),
        }
    }

    fn lower_reduce(
        &mut self,
        inst: &LowerInstance,
        f: &Function,
        i: ir_core::Inst,
        slots: &[Slot],
    ) -> Result<(), CompileError> {
        let op = f.opcode(i);
        let Some(&Slot::Desc(d)) = slots.first() else { return Err(self.unsupported(op.name())) };
        let Some(&res) = f.results(i).first() else { return Err(self.unsupported(op.name())) };
        let src = self.desc(inst, f, d)?;
        self.check_bounds(&src)?;
        let elem = src.elem;
        if elem == Ty::I1 {
            return Err(self.unsupported(&format!("`{}` on i1 elements (no vector form)", op.name())));
        }
        if src.space == Space::Wram {
            return Err(CompileError::new(format!(
                "cannot lower `{}` ({}): its source is in WRAM, which only the matrix unit reads",
                op.name(),
                self.here
            )));
        }
        let dst = Operand::Reg(self.var(inst, res));
        let red = if op == Opcode::Tsum { RedOp::Sum } else { RedOp::Max };
        let identity = mlu_isa::semantics::reduce_empty(red, elem);
        let te = self.tile_elems(elem)?;
        let buf = self.stage(1)?;
        let baddr = at(Space::Nram, buf, None, 0);
        let eb = elem.bytes() as i64;
        // A float sum starts from −0.0, the exact identity of IEEE addition
        // (the sum of −0.0s is −0.0, as the IR's index-order sum gives); an
        // empty one is +0.0 (fixed up at the end).
        let float_sum = red == RedOp::Sum && elem.is_float();
        let neutral = match elem {
            Ty::F32 if float_sum => ir_core::Imm::f32(-0.0).bits(),
            Ty::F64 if float_sum => ir_core::Imm::f64(-0.0).bits(),
            _ => identity,
        };
        let acc = self.e.mov(elem, Operand::Imm(neutral))?;
        let what = format!("`{}`", op.name());
        let end = self.e.label();
        // A float sum longer than one tile: a scalar loop in index order
        // (decided statically when the size is an immediate).
        let scalar_sum = red == RedOp::Sum && elem.is_float();
        let known = src.size.imm_i64();
        if scalar_sum && known.is_none_or(|n| n > te as i64) {
            let vector = self.e.label();
            if known.is_none() {
                let small = self.e.cmp64(IntCC::Sle, src.size, Operand::int(te as i64))?;
                self.e.push(Inst::Branch { on_zero: false, cond: small, target: vector })?;
            }
            self.tiles((Operand::Imm(0), src.size), (te, src.len), |s, i, cnt, _| {
                let bytes = s.e.bin64(BinOp::Mul, cnt, Operand::int(eb))?;
                let from = s.elem_addr(&src, i)?;
                s.e.dma(baddr, from, bytes, &format!("an operand tile of {what}"))?;
                // A tile holds at least one element: the loop tests at its end.
                let j = s.e.mov(Ty::I64, Operand::Imm(0))?;
                let head = s.e.label();
                s.e.bind(head);
                let off = s.e.bin64(BinOp::Mul, Operand::Reg(j), Operand::int(eb))?;
                let off = s.e.in_reg(Ty::I64, off)?;
                let x = s.e.vreg()?;
                s.e.push(Inst::Load { ty: elem, dst: x, addr: at(Space::Nram, buf, Some(off), 0) })?;
                s.e.push(Inst::Binary {
                    op: BinOp::Fadd,
                    ty: elem,
                    dst: acc,
                    a: Operand::Reg(acc),
                    b: Operand::Reg(x),
                })?;
                s.e.push(Inst::Binary { op: BinOp::Add, ty: Ty::I64, dst: j, a: Operand::Reg(j), b: Operand::Imm(1) })?;
                let more = s.e.cmp64(IntCC::Slt, Operand::Reg(j), cnt)?;
                s.e.push(Inst::Branch { on_zero: false, cond: more, target: head })
            })?;
            if known.is_some() {
                // Longer than a tile, so not empty.
                self.e.bind(end);
                let Operand::Reg(d) = dst else { return Err(self.unsupported(op.name())) };
                return self.e.push(Inst::Mov { ty: elem, dst: d, src: Operand::Reg(acc) });
            }
            self.e.push(Inst::Jump { target: end })?;
            self.e.bind(vector);
        }
        let combine = match (red, elem.is_float()) {
            (RedOp::Sum, false) => BinOp::Add,
            (RedOp::Sum, true) => BinOp::Fadd,
            (RedOp::Max, false) => BinOp::Smax,
            (RedOp::Max, true) => BinOp::Fmax,
        };
        // Split code: each core reduces its tiles, then the partials are
        // combined in core order (not a float sum: its order is the IR's,
        // so every core computes all of it).
        let split = self.core.is_some() && !scalar_sum;
        let tile_loop = |s: &mut Self| -> Result<(), CompileError> {
            let range = if split { s.core_range(src.size, te)? } else { (Operand::Imm(0), src.size) };
            s.tiles(range, (te, src.len), |s, i, cnt, padded| {
                let fill =
                    Inst::VFill { ty: elem, dst: baddr, value: Operand::Imm(neutral), n: Operand::int(te as i64) };
                s.e.compute(fill, "the identity fill of a reduction tile")?;
                let bytes = s.e.bin64(BinOp::Mul, cnt, Operand::int(eb))?;
                let from = s.elem_addr(&src, i)?;
                s.e.dma(baddr, from, bytes, &format!("an operand tile of {what}"))?;
                let t = s.e.vreg()?;
                s.e.compute(Inst::VReduce { op: red, ty: elem, dst: t, src: baddr, n: padded }, &what)?;
                s.e.push(Inst::Binary { op: combine, ty: elem, dst: acc, a: Operand::Reg(acc), b: Operand::Reg(t) })
            })?;
            if split {
                let total = s.combine_partials(acc, elem, combine, identity)?;
                s.e.push(Inst::Mov { ty: elem, dst: acc, src: Operand::Reg(total) })?;
            }
            Ok(())
        };
        if split {
            let part = super::maps::partition(src.size, te, [&src]);
            self.region_parts(false, part, tile_loop)?
        } else {
            tile_loop(self)?
        }
        self.e.bind(end);
        if float_sum && known.is_none_or(|n| n <= 0) {
            let empty = self.e.cmp64(IntCC::Eq, src.size, Operand::Imm(0))?;
            self.e.push(Inst::Select {
                ty: elem,
                dst: acc,
                cond: empty,
                a: Operand::Imm(identity),
                b: Operand::Reg(acc),
            })?;
        }
        let Operand::Reg(d) = dst else { return Err(self.unsupported(op.name())) };
        self.e.push(Inst::Mov { ty: elem, dst: d, src: Operand::Reg(acc) })
    }

    fn lower_matmul(
        &mut self,
        inst: &LowerInstance,
        f: &Function,
        i: ir_core::Inst,
        slots: &[Slot],
    ) -> Result<(), CompileError> {
        let (Some(&Slot::Desc(dc)), Some(&Slot::Desc(da)), Some(&Slot::Desc(db))) =
            (slots.first(), slots.get(1), slots.get(2))
        else {
            return Err(self.unsupported("matmul"));
        };
        let dims = f.matmul_dims(i).ok_or_else(|| self.unsupported("matmul"))?;
        let (c, a, b) = (self.desc(inst, f, dc)?, self.desc(inst, f, da)?, self.desc(inst, f, db)?);
        let [m, k, n] = [self.index(inst, f, dims[0])?, self.index(inst, f, dims[1])?, self.index(inst, f, dims[2])?];
        let elem = c.elem;
        if elem == Ty::I1 {
            return Err(self.unsupported("`matmul` on i1 elements (no matrix form)"));
        }
        if a.space == Space::Wram {
            return Err(CompileError::new(format!(
                "cannot lower `matmul` ({}): its left operand is in WRAM; the matrix unit reads it from NRAM",
                self.here
            )));
        }
        self.wram_destination(&c, "matmul")?;
        for d in [&c, &a, &b] {
            self.check_bounds(d)?;
        }
        if [m, k, n].iter().any(|x| matches!(x, Operand::Reg(_))) {
            for x in [m, k, n] {
                let neg = self.e.cmp64(IntCC::Slt, x, Operand::Imm(0))?;
                self.e.trap_if(neg)?;
            }
            let mn = self.e.bin64(BinOp::Mul, m, n)?;
            let mk = self.e.bin64(BinOp::Mul, m, k)?;
            let kn = self.e.bin64(BinOp::Mul, k, n)?;
            self.check_equal(c.size, mn)?;
            self.check_equal(a.size, mk)?;
            self.check_equal(b.size, kn)?;
        } else {
            for (d, x, y) in [(&c, m, n), (&a, m, k), (&b, k, n)] {
                if !d.exact() {
                    let want = self.e.bin64(BinOp::Mul, x, y)?;
                    self.check_equal(d.size, want)?;
                }
            }
        }
        // Split code: core 0 multiplies.
        self.region(true, |s| {
            let eb = elem.bytes() as i64;
            let bytes_of = |s: &mut Self, d: &Desc| s.e.bin64(BinOp::Mul, d.size, Operand::int(eb));
            let buf_a = s.mm_buffer(0, Space::Nram, a.len * a.elem.bytes())?;
            let buf_c = s.mm_buffer(1, Space::Nram, c.len * c.elem.bytes())?;
            let from = s.elem_addr(&a, Operand::Imm(0))?;
            let nb = bytes_of(s, &a)?;
            s.e.dma(at(Space::Nram, buf_a, None, 0), from, nb, "the left operand of `matmul`")?;
            let b_addr = if b.space == Space::Wram {
                match b.off {
                    Operand::Imm(o) if (o as i64 * eb) % s.config.wram_align as i64 == 0 => {
                        at(Space::Wram, b.mem, None, o as i64 * eb)
                    }
                    _ => {
                        return Err(CompileError::new(format!(
                            "cannot lower `matmul` ({}): its WRAM operand must start at an immediate offset aligned to {} bytes",
                            s.here, s.config.wram_align
                        )));
                    }
                }
            } else {
                let buf_b = s.mm_buffer(2, Space::Wram, b.len * b.elem.bytes())?;
                let from = s.elem_addr(&b, Operand::Imm(0))?;
                let nb = bytes_of(s, &b)?;
                let to = at(Space::Wram, buf_b, None, 0);
                s.copy(to, from, nb, "the right operand of `matmul`")?;
                to
            };
            let (ca, aa) = (at(Space::Nram, buf_c, None, 0), at(Space::Nram, buf_a, None, 0));
            s.e.compute(Inst::Matmul { ty: elem, c: ca, a: aa, b: b_addr, m, k, n }, "`matmul`")?;
            let to = s.elem_addr(&c, Operand::Imm(0))?;
            let nb = bytes_of(s, &c)?;
            s.copy(to, ca, nb, "the result of `matmul`")
        })
    }

    /// A whole-operand matmul buffer, grown to `bytes`.
    fn mm_buffer(&mut self, idx: usize, sp: Space, bytes: u64) -> Result<MemId, CompileError> {
        let m = match self.mm[idx] {
            Some(m) => m,
            None => {
                let name = ["keel.mm_a", "keel.mm_c", "keel.mm_b"][idx];
                let m = self.object(name, Ty::I8, 0, sp, Vec::new(), PlacedKind::MatmulBuffer)?;
                self.mm[idx] = Some(m);
                m
            }
        };
        let decl = &mut self.mems[m.index()];
        decl.len = decl.len.max(bytes);
        Ok(m)
    }
}
