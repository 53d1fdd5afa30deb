//! The lowering of tensor instructions: the dispatch (maps go to module
//! `maps`), reductions and `matmul`, on the staging primitives of module
//! `staging` (descriptors and their checks, staging buffers, the tile
//! loop, copies). Syncs come from the `syncs` pass, or (the naive policy)
//! from the emitter after every copy and compute instruction.
//!
//! Invariants:
//! - padding lanes a reduction could see are filled first with its
//!   identity for `tsum` and `tredmax` (−0.0 for a float sum, the exact
//!   identity of IEEE addition; an empty sum is +0.0); only a tile's own
//!   elements are copied in;
//! - a float `tsum` longer than one tile is summed by a scalar loop in
//!   index order (vector partial sums would reassociate it);
//! - in split code an integer `tsum` or a `tredmax` reduces each core's
//!   tiles and combines the partials in core order; a float `tsum` runs
//!   whole on every core; `matmul` runs on core 0;
//! - `matmul` operands with var parts get the interpreter's shape checks
//!   (`m·n`, `m·k`, `k·n` against the sizes) before anything moves; A and
//!   C are staged whole in NRAM, B in WRAM (read in place when it is there
//!   at an aligned immediate offset).
//!
//! Algorithm: a reduction is strip-mined like a map (one vector reduce per
//! tile, folded into a scalar accumulator); `matmul` is one `mmul` over
//! whole operands.

use super::emit::at;
use super::error::{CompileError, CopyOf, Unlowerable};
use super::lowerer::{Instance as LowerInstance, Lowerer};
use super::place::PlacedKind;
use super::staging::{Desc, partition};
use ir_core::{Function, Opcode, Slot};
use mlu_isa::{BinOp, Inst, IntCC, MemId, Operand, RedOp, Space, Ty};

impl Lowerer<'_> {
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
        let Some(&Slot::Desc(d)) = slots.first() else { return Err(self.unsupported_op(op)) };
        let Some(&res) = f.results(i).first() else { return Err(self.unsupported_op(op)) };
        let src = self.desc(inst, f, d)?;
        self.check_bounds(&src)?;
        let elem = src.elem;
        if elem == Ty::I1 {
            return Err(self.unsupported(Unlowerable::I1Elements(op)));
        }
        if src.space == Space::Wram {
            return Err(CompileError::WramSource { at: self.here.clone(), op, object: None });
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
                let Operand::Reg(d) = dst else { return Err(self.unsupported_op(op)) };
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
            let part = partition(src.size, te, [&src]);
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
        let Operand::Reg(d) = dst else { return Err(self.unsupported_op(op)) };
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
            return Err(self.unsupported_op(Opcode::Matmul));
        };
        let dims = f.matmul_dims(i).ok_or_else(|| self.unsupported_op(Opcode::Matmul))?;
        let (c, a, b) = (self.desc(inst, f, dc)?, self.desc(inst, f, da)?, self.desc(inst, f, db)?);
        let [m, k, n] = [self.index(inst, f, dims[0])?, self.index(inst, f, dims[1])?, self.index(inst, f, dims[2])?];
        let elem = c.elem;
        if elem == Ty::I1 {
            return Err(self.unsupported(Unlowerable::I1Elements(Opcode::Matmul)));
        }
        if a.space == Space::Wram {
            return Err(CompileError::MatmulLeftInWram { at: self.here.clone() });
        }
        self.wram_destination(&c, Opcode::Matmul)?;
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
                        return Err(CompileError::MatmulWramOffset { at: s.here.clone(), align: s.config.wram_align });
                    }
                }
            } else {
                let buf_b = s.mm_buffer(2, Space::Wram, b.len * b.elem.bytes())?;
                let from = s.elem_addr(&b, Operand::Imm(0))?;
                let nb = bytes_of(s, &b)?;
                let to = at(Space::Wram, buf_b, None, 0);
                s.copy(to, from, nb, CopyOf::MatmulRight)?;
                to
            };
            let (ca, aa) = (at(Space::Nram, buf_c, None, 0), at(Space::Nram, buf_a, None, 0));
            s.e.compute(Inst::Matmul { ty: elem, c: ca, a: aa, b: b_addr, m, k, n }, "`matmul`")?;
            let to = s.elem_addr(&c, Operand::Imm(0))?;
            let nb = bytes_of(s, &c)?;
            s.copy(to, ca, nb, CopyOf::MatmulResult)
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
