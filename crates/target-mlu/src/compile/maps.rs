//! Tensor maps (`tadd` … `tsigmoid`, `tfill`): the tile loop, single- or
//! double-buffered, with its buffer set sized by `regalloc-pebble`'s
//! red-blue game (J.-W. Hong and H. T. Kung, "I/O complexity: the red-blue
//! pebble game", STOC 1981, as source document 004 plays it;
//! `docs/references.md`), split over cores when the tiles are independent.
//!
//! Invariants:
//! - a map is double-buffered only when `memdep::may_overlap` proves tile
//!   `i + 1`'s sources independent of tile `i`'s result, and it has more
//!   than one tile; the loop is unrolled by two so each half names its
//!   buffers statically, and the last tile leaves on its own path;
//! - each set holds the buffers `buffer_plan` finds: the fewest whose
//!   pebbling reaches the DMA lower bound (every distinct source copied in
//!   once, the result copied out once per tile);
//! - only the tile's own elements are copied out (padding lanes never reach
//!   memory); an integer `tdiv`'s padding lanes are 0 / 1 (no spurious
//!   trap);
//! - in split code, independent tiles are shared out by core (a split
//!   region with its partition), others run on core 0.

use super::emit::at;
use super::error::{BufferPlanError, CompileError, CopyOf, Unlowerable};
use super::lowerer::{Instance as LowerInstance, Lowerer};
use super::staging::{Desc, partition};
use crate::planted::Bug;
use ir_core::{Function, Opcode, Slot};
use mlu_isa::{Addr, BinOp, Inst, IntCC, MemId, Operand, Route, Space, Ty, VBinOp, VSrc, VUnOp};

/// How one tile of a tensor map uses its buffers, from `regalloc-pebble`'s
/// red-blue game on the tile's DAG: each distinct source descriptor a
/// source (its copy in is a load), the operation a node, its result a sink
/// (its copy out is a store); buffers are red pebbles.
struct BufferPlan {
    /// Buffers per set: the fewest that reach the lower bound
    /// (`regalloc_pebble::min_registers`, the vector-register search).
    regs: u32,
    /// Per slot, the buffer of its source (`None`: a scalar).
    src_reg: Vec<Option<u32>>,
    /// The result's buffer (the game lets it take a source's buffer that
    /// dies at the operation: vector instructions read before they write).
    out_reg: u32,
    /// Loads + stores per tile.
    lower_bound: u64,
    /// The buffer counts the search tried.
    tried: Vec<u32>,
}

/// The [`BufferPlan`] of a map with source slots `srcs`; equal descriptors
/// share one source (not for integer `tdiv`, whose two operands get
/// different padding).
fn buffer_plan(srcs: &[Result<Desc, Operand>], int_div: bool) -> Result<BufferPlan, BufferPlanError> {
    use regalloc_pebble::{DagBuilder, Move, OpKind, Output, RegClass, Regs, ValueId};
    let mut b = DagBuilder::new();
    let mut sources: Vec<(Option<(MemId, Operand)>, ValueId)> = Vec::new();
    let mut slot_value: Vec<Option<ValueId>> = Vec::with_capacity(srcs.len());
    for s in srcs {
        let Ok(d) = s else {
            slot_value.push(None);
            continue;
        };
        let key = (!int_div).then_some((d.mem, d.off));
        let v = match sources.iter().find(|(k, _)| k.is_some() && *k == key) {
            Some(&(_, v)) => v,
            None => {
                let v = b.source(RegClass::Vector);
                sources.push((key, v));
                v
            }
        };
        slot_value.push(Some(v));
    }
    let inputs: Vec<ValueId> = sources.iter().map(|s| s.1).collect();
    let op = b.op(OpKind::Pure, &inputs, &[Output::new(RegClass::Vector)]);
    let out = b.outputs(op)[0];
    b.sink(out);
    let dag = b.build().map_err(BufferPlanError::Dag)?;
    let count = regalloc_pebble::min_registers(&dag, RegClass::Vector, 1, 0).map_err(BufferPlanError::Pebble)?;
    let sched = regalloc_pebble::pebble(&dag, Regs::new(0, count.regs)).map_err(BufferPlanError::Pebble)?;
    if sched.cost() != count.lower_bound {
        return Err(BufferPlanError::AboveBound { cost: sched.cost(), bound: count.lower_bound });
    }
    let mut reg_of = vec![u32::MAX; dag.num_values()];
    for m in &sched.moves {
        if let Move::Load { value, reg } = *m {
            reg_of[value as usize] = reg.index;
        }
    }
    let out_reg = sched.reg_of(out).map(|r| r.index).ok_or(BufferPlanError::NoResult)?;
    let src_reg = slot_value.iter().map(|v| v.map(|v| reg_of[v as usize])).collect::<Vec<_>>();
    if src_reg.iter().flatten().any(|&r| r >= count.regs) || out_reg >= count.regs {
        return Err(BufferPlanError::MissingBuffer);
    }
    Ok(BufferPlan {
        regs: count.regs,
        src_reg,
        out_reg,
        lower_bound: count.lower_bound,
        tried: count.trials.iter().map(|t| t.regs).collect(),
    })
}

/// One tile's work in three steps, each on buffer set `set`: copies in,
/// compute, copies out ([`Lowerer::ping_pong`] overlaps the next tile's
/// copies in with the compute).
pub(super) trait TileSteps {
    /// Elements per tile.
    fn te(&self) -> u64;
    /// Buffer sets: 2 double-buffers.
    fn sets(&self) -> usize;
    /// Copies tile `i` (`cnt` elements) in.
    fn load(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError>;
    /// Computes over `padded` elements.
    fn compute(&self, s: &mut Lowerer<'_>, set: usize, padded: Operand) -> Result<(), CompileError>;
    /// Copies tile `i`'s `cnt` result elements out.
    fn store(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError>;
}

impl TileSteps for MapTile {
    fn te(&self) -> u64 {
        self.te
    }
    fn sets(&self) -> usize {
        self.bufs.len()
    }
    fn load(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        s.map_load(self, set, i, cnt)
    }
    fn compute(&self, s: &mut Lowerer<'_>, set: usize, padded: Operand) -> Result<(), CompileError> {
        s.map_compute(self, set, padded)
    }
    fn store(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        s.map_store(self, set, i, cnt)
    }
}

/// One set of tile buffers: the result's and one per source descriptor.
struct TileBufs {
    out: MemId,
    srcs: Vec<Option<MemId>>,
}

/// A tensor map being tiled.
pub(super) struct MapTile {
    op: Opcode,
    elem: Ty,
    dst: Desc,
    srcs: Vec<Result<Desc, Operand>>,
    te: u64,
    what: String,
    int_div: bool,
    bufs: Vec<TileBufs>,
}

impl Lowerer<'_> {
    pub(super) fn lower_map(
        &mut self,
        inst: &LowerInstance,
        f: &Function,
        op: Opcode,
        slots: &[Slot],
    ) -> Result<(), CompileError> {
        let Some(&Slot::Desc(d0)) = slots.first() else { return Err(self.unsupported_op(op)) };
        let dst = self.desc(inst, f, d0)?;
        let mut srcs: Vec<Result<Desc, Operand>> = Vec::with_capacity(slots.len());
        for s in &slots[1..] {
            srcs.push(match *s {
                Slot::Desc(d) => Ok(self.desc(inst, f, d)?),
                Slot::Scalar(o) => Err(self.op(inst, f, o)),
            });
        }
        self.check_bounds(&dst)?;
        for s in srcs.iter().flatten() {
            self.check_bounds(s)?;
            self.check_equal(s.size, dst.size)?;
        }
        let elem = dst.elem;
        let eb = elem.bytes() as i64;
        self.wram_destination(&dst, op)?;
        if op == Opcode::Dma {
            let Some(Ok(src)) = srcs.first().copied() else { return Err(self.unsupported_op(op)) };
            let bytes = self.e.bin64(BinOp::Mul, dst.size, Operand::int(eb))?;
            let direct = Route::new(src.space, dst.space).exists();
            let src = if direct { src } else { self.unalias(src, &dst)? };
            let (to, from) = (self.elem_addr(&dst, Operand::Imm(0))?, self.elem_addr(&src, Operand::Imm(0))?);
            let copy = CopyOf::Dma { from: src.space, to: dst.space };
            return self.region(true, |s| s.copy(to, from, bytes, copy));
        }
        if elem == Ty::I1 {
            return Err(self.unsupported(Unlowerable::I1Elements(op)));
        }
        if let Some(w) = srcs.iter().flatten().find(|s| s.space == Space::Wram) {
            let object = Some(self.mems[w.mem.index()].name.clone());
            return Err(CompileError::WramSource { at: self.here.clone(), op, object });
        }
        let mut staged = Vec::with_capacity(srcs.len());
        for s in srcs {
            staged.push(match s {
                Ok(d) => Ok(self.unalias(d, &dst)?),
                Err(o) => Err(o),
            });
        }
        let te = self.tile_elems(elem)?;
        let what = format!("`{}`", op.name());
        let independent = self.tiles_independent(&dst, &staged, te);
        let one_tile = dst.len <= te || dst.size.imm_i64().is_some_and(|n| n <= te as i64);
        let sets = if self.double && independent && !one_tile { 2 } else { 1 };
        self.buffering.push(if one_tile {
            format!("{what}: one tile (nothing to overlap)")
        } else if sets == 2 {
            format!("{what}: double-buffered (memdep: tile i + 1's sources and tile i's result are independent)")
        } else if self.double {
            format!("{what}: single-buffered (memdep cannot prove consecutive tiles independent)")
        } else {
            format!("{what}: single-buffered (naive: one buffer per tensor slot)")
        });
        let int_div = op == Opcode::Tdiv && elem.is_int();
        let mut bufs = Vec::with_capacity(sets);
        if self.double {
            // The red-blue game sizes the buffer set of a tile.
            let plan = buffer_plan(&staged, int_div).map_err(|e| self.unsupported(Unlowerable::BufferPlan(e)))?;
            if let Some(last) = self.buffering.last_mut() {
                last.push_str(&format!(
                    "; {} buffer(s) per set (red-blue game: {} copies per tile, the lower bound, searched over {:?} buffers)",
                    plan.regs, plan.lower_bound, plan.tried
                ));
            }
            // A result buffer of its own (no source's to take) is shared by
            // both sets: the sync before each compute already waits for the
            // previous result's copy, and after the loop one buffer, whatever
            // the tile count, holds the copy in flight.
            let slid = plan.src_reg.contains(&Some(plan.out_reg));
            for set in 0..sets {
                let mut regs = Vec::with_capacity(plan.regs as usize);
                for r in 0..plan.regs {
                    let own = set == 0 || (r == plan.out_reg && !slid);
                    regs.push(self.stage_in(if own { 0 } else { set }, r as usize)?);
                }
                let srcs = plan.src_reg.iter().map(|r| r.map(|r| regs[r as usize])).collect();
                bufs.push(TileBufs { out: regs[plan.out_reg as usize], srcs });
            }
        } else {
            // Naive: one buffer per tensor slot.
            let out = self.stage(0)?;
            let mut srcs = Vec::with_capacity(staged.len());
            for (k, src) in staged.iter().enumerate() {
                srcs.push(if src.is_ok() { Some(self.stage(k + 1)?) } else { None });
            }
            bufs.push(TileBufs { out, srcs });
        }
        let map = MapTile { op, elem, dst, srcs: staged, te, what, int_div, bufs };
        // Split code: independent tiles are shared out, others run on core 0.
        let part = independent.then(|| partition(dst.size, te, map.srcs.iter().flatten().chain([&dst]))).flatten();
        self.region_parts(!independent, part, |s| {
            let range = if independent { s.core_range(dst.size, te)? } else { (Operand::Imm(0), dst.size) };
            s.run_tiles(&map, range, map.dst.len)
        })
    }

    /// Runs `m` over the element range: one set, a plain tile loop; two,
    /// [`Lowerer::ping_pong`]. `most` bounds the elements (see `tiles`).
    pub(super) fn run_tiles(
        &mut self,
        m: &dyn TileSteps,
        range: (Operand, Operand),
        most: u64,
    ) -> Result<(), CompileError> {
        if m.sets() == 1 {
            return self.tiles(range, (m.te(), most), |s, i, cnt, padded| {
                m.load(s, 0, i, cnt)?;
                m.compute(s, 0, padded)?;
                m.store(s, 0, i, cnt)
            });
        }
        self.ping_pong(m, range)
    }

    /// Do tile `i + 1`'s source reads and tile `i`'s result write touch
    /// disjoint memory? Asked of `memdep::may_overlap` with the tile start
    /// as a symbol: a source at the destination's offset (or in another
    /// object) is independent; anything unproven is not.
    fn tiles_independent(&self, dst: &Desc, srcs: &[Result<Desc, Operand>], te: u64) -> bool {
        // Symbol 0: the tile start; symbol 1 + r: the tile start plus the
        // descriptor offset held in register `r`.
        let tile = |d: &Desc, ahead: u64, write: bool| {
            let offset = match d.off {
                Operand::Imm(o) => {
                    memdep::Offset::Affine { sym: 0, scale: 1, add: (o as i64).wrapping_add(ahead as i64) }
                }
                Operand::Reg(r) => memdep::Offset::Affine { sym: 1 + u32::from(r.0), scale: 1, add: ahead as i64 },
            };
            memdep::Access { write, object: d.mem.0, offset, size: Some(te), within: None, may: false }
        };
        let out = tile(dst, 0, true);
        srcs.iter().flatten().all(|s| {
            let next = tile(s, te, false);
            memdep::may_overlap(&next, &out, s.len, dst.len) == memdep::Answer::NoDep
        })
    }

    /// Copies tile `i` (`cnt` elements) of every source into `b`.
    fn map_load(&mut self, m: &MapTile, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        let b = &m.bufs[set];
        let eb = m.elem.bytes() as i64;
        let bytes = self.e.bin64(BinOp::Mul, cnt, Operand::int(eb))?;
        let mut loaded: Vec<MemId> = Vec::with_capacity(m.srcs.len());
        for (k, src) in m.srcs.iter().enumerate() {
            let (Ok(d), Some(buf)) = (src, b.srcs[k]) else { continue };
            if loaded.contains(&buf) {
                continue; // the same descriptor twice: one copy
            }
            loaded.push(buf);
            let buf = at(Space::Nram, buf, None, 0);
            if m.int_div {
                let fill = Operand::Imm(if k == 1 { 1 } else { 0 });
                let n = Operand::int(m.te as i64);
                self.e.compute(Inst::VFill { ty: m.elem, dst: buf, value: fill, n }, "a padding fill")?;
            }
            let from = self.elem_addr(d, i)?;
            self.e.dma(buf, from, bytes, &format!("an operand tile of {}", m.what))?;
        }
        Ok(())
    }

    /// The vector instruction over the tile in `b` (`padded` elements).
    fn map_compute(&mut self, m: &MapTile, set: usize, padded: Operand) -> Result<(), CompileError> {
        let b = &m.bufs[set];
        let vs: Vec<VSrc> = m
            .srcs
            .iter()
            .zip(&b.srcs)
            .map(|(s, buf)| match (s, buf) {
                (Ok(_), Some(buf)) => VSrc::Mem(at(Space::Nram, *buf, None, 0)),
                (Err(o), _) => VSrc::Scalar(*o),
                (Ok(_), None) => VSrc::Scalar(Operand::Imm(0)),
            })
            .collect();
        let d = at(Space::Nram, b.out, None, 0);
        let vinst = self.vector_inst(m.op, m.elem, d, &vs, padded)?;
        self.e.compute(vinst, &m.what)
    }

    /// The vector instruction of map `op` on `elem`: `d = op(vs)` over `n`
    /// elements.
    pub(super) fn vector_inst(
        &self,
        op: Opcode,
        elem: Ty,
        d: Addr,
        vs: &[VSrc],
        n: Operand,
    ) -> Result<Inst, CompileError> {
        let vinst = match op {
            Opcode::Tadd | Opcode::Tsub | Opcode::Tmul | Opcode::Tdiv | Opcode::Tmin | Opcode::Tmax => {
                let vop = match op {
                    Opcode::Tadd => VBinOp::Add,
                    Opcode::Tsub => VBinOp::Sub,
                    Opcode::Tmul => VBinOp::Mul,
                    Opcode::Tdiv => VBinOp::Div,
                    Opcode::Tmin => VBinOp::Min,
                    _ => VBinOp::Max,
                };
                Inst::VBinary { op: vop, ty: elem, dst: d, a: vs[0], b: vs[1], n }
            }
            Opcode::Tfma => Inst::VFma { ty: elem, dst: d, a: vs[0], b: vs[1], c: vs[2], n },
            Opcode::Tfill => match vs[0] {
                VSrc::Scalar(value) => Inst::VFill { ty: elem, dst: d, value, n },
                VSrc::Mem(_) => return Err(self.unsupported(Unlowerable::TfillFromDescriptor)),
            },
            _ => {
                let vop = match op {
                    Opcode::Tneg => VUnOp::Neg,
                    Opcode::Tabs => VUnOp::Abs,
                    Opcode::Trelu => VUnOp::Relu,
                    Opcode::Texp => VUnOp::Exp,
                    Opcode::Tlog => VUnOp::Log,
                    Opcode::Tsqrt => VUnOp::Sqrt,
                    Opcode::Ttanh => VUnOp::Tanh,
                    Opcode::Tsigmoid => VUnOp::Sigmoid,
                    other => return Err(self.unsupported_op(other)),
                };
                let VSrc::Mem(src) = vs[0] else { return Err(self.unsupported_op(op)) };
                Inst::VUnary { op: vop, ty: elem, dst: d, src, n }
            }
        };
        Ok(vinst)
    }

    /// Copies the tile's own `cnt` result elements out of `b`.
    fn map_store(&mut self, m: &MapTile, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        self.store_tile(&m.dst, m.bufs[set].out, (i, cnt), &m.what)
    }

    /// Copies tile `i`'s own `cnt` elements of `d` out of buffer `buf`
    /// (one element short under the planted `ShortResultTile`).
    pub(super) fn store_tile(
        &mut self,
        d: &Desc,
        buf: MemId,
        (i, cnt): (Operand, Operand),
        what: &str,
    ) -> Result<(), CompileError> {
        let eb = d.elem.bytes() as i64;
        let bytes = self.e.bin64(BinOp::Mul, cnt, Operand::int(eb))?;
        let to = self.elem_addr(d, i)?;
        let bytes = if self.plants.has(Bug::ShortResultTile) {
            let short = self.e.bin64(BinOp::Sub, bytes, Operand::int(eb))?;
            self.e.bin64(BinOp::Smax, short, Operand::Imm(0))?
        } else {
            bytes
        };
        self.e.dma(to, at(Space::Nram, buf, None, 0), bytes, &format!("a result tile of {what}"))
    }

    /// The tile loop with two sets of source buffers, unrolled by two so
    /// each copy names its buffers statically. Each half computes tile `i`
    /// from its set into the result buffer, then (unless `i` is the last
    /// tile) starts the copies of tile `i + 1` into the other set, which
    /// overlap the compute, then copies tile `i`'s result out. The syncs
    /// pass puts a `sync.io` (or `.move`) before each compute — it waits for
    /// this tile's sources and the previous result copy, which is why one
    /// result buffer suffices — and a `sync.compute` before each result
    /// copy. The last tile leaves the loop on its own path (no source copy
    /// in flight after the loop, whatever the tile count).
    fn ping_pong(&mut self, m: &dyn TileSteps, (start, n): (Operand, Operand)) -> Result<(), CompileError> {
        let te = m.te() as i64;
        let i = self.e.mov(Ty::I64, start)?;
        let (head, done) = (self.e.label(), self.e.label());
        let len = self.e.bin64(BinOp::Sub, n, start)?;
        self.skip_if_empty(len, done)?;
        let cnt = self.e.vreg()?;
        self.e.push(Inst::Binary { op: BinOp::Smin, ty: Ty::I64, dst: cnt, a: len, b: Operand::int(te) })?;
        m.load(self, 0, Operand::Reg(i), Operand::Reg(cnt))?;
        self.e.bind(head);
        let mut lasts = Vec::with_capacity(2);
        for half in 0..2 {
            let (x, y) = (half, 1 - half);
            let rem = self.e.bin64(BinOp::Sub, n, Operand::Reg(i))?;
            let cnt = self.e.vreg()?;
            self.e.push(Inst::Binary { op: BinOp::Smin, ty: Ty::I64, dst: cnt, a: rem, b: Operand::int(te) })?;
            let padded = self.padded(Operand::Reg(cnt))?;
            m.compute(self, x, padded)?;
            let j = self.e.bin64(BinOp::Add, Operand::Reg(i), Operand::int(te))?;
            let rem2 = self.e.bin64(BinOp::Sub, n, j)?;
            let last = self.e.cmp64(IntCC::Sle, rem2, Operand::Imm(0))?;
            let exit = self.e.label();
            self.e.push(Inst::Branch { on_zero: false, cond: last, target: exit })?;
            lasts.push((exit, x, cnt));
            let cnt2 = self.e.vreg()?;
            self.e.push(Inst::Binary { op: BinOp::Smin, ty: Ty::I64, dst: cnt2, a: rem2, b: Operand::int(te) })?;
            m.load(self, y, j, Operand::Reg(cnt2))?;
            m.store(self, x, Operand::Reg(i), Operand::Reg(cnt))?;
            self.e.push(Inst::Binary {
                op: BinOp::Add,
                ty: Ty::I64,
                dst: i,
                a: Operand::Reg(i),
                b: Operand::int(te),
            })?;
        }
        self.e.push(Inst::Jump { target: head })?;
        for (k, (exit, x, cnt)) in lasts.into_iter().enumerate() {
            self.e.bind(exit);
            m.store(self, x, Operand::Reg(i), Operand::Reg(cnt))?;
            if k == 0 {
                self.e.push(Inst::Jump { target: done })?;
            }
        }
        self.e.bind(done);
        Ok(())
    }
}
