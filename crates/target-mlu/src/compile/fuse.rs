//! Fused tensor DAGs: a run of consecutive tensor maps over the same
//! elements becomes one tile loop whose tile is a DAG pebbled by
//! `regalloc-pebble`'s red-blue game (Hong and Kung's, STOC 1981, as
//! source document 004 plays it; `docs/references.md`), so values one map
//! writes and a later one reads stay in NRAM buffers instead of going out
//! and back in.
//!
//! A **group** is a maximal run (at least two) of consecutive, unguarded
//! maps of one block (not `dma`, not an integer `tdiv`, whose padding
//! lanes would need fills), all on one element type, with immediate
//! descriptors of one size, each object at one offset throughout the run
//! (so tile `i` of every map covers the same elements of each object).
//!
//! The **tile DAG**: each object the run reads before writing it is a
//! source (copied in: a load), each map a node, the last value written to
//! each object a sink (copied out: a store); a value a later map reads is
//! the node's, never memory's. Buffers are red pebbles. The sources are
//! copied in before the tile's computes (so the next tile's copies overlap
//! this tile's computes when double-buffered): the game starts with every
//! source red, each in its own buffer, and the buffer count is the fewest,
//! from the source count up, for which the game's pebbling needs no load
//! and one store per sink — the DMA lower bound. A run for which no count
//! up to [`MAX_BUFFERS`] reaches the bound is lowered map by map.
//!
//! Correctness: within a tile every read of a source happens from its
//! buffer, loaded before any of the tile's stores, so a map overwriting an
//! object an earlier map read is safe; tiles touch disjoint elements of
//! each object (one offset per object), so consecutive tiles are
//! independent (double buffering, and the multi-core split, apply).
//!
//! Invariants: the emitted tile runs the game's moves in order (computes
//! and stores), after copying every source in; a value is in one buffer
//! for its whole life (no load means no reload).

use super::emit::at;
use super::error::CompileError;
use super::lowerer::{Instance as LowerInstance, Lowerer};
use super::maps::TileSteps;
use super::staging::{Desc, partition};
use ir_core::{Format, Function, Opcode, Slot};
use mlu_isa::{BinOp, MemId, Operand, Space, Ty, VSrc};
use regalloc_pebble::{DagBuilder, Move, OpKind, Output, Pebbler, RegClass, Setup, Start, ValueId};

/// Most buffers per set a fused tile may use.
pub const MAX_BUFFERS: u32 = 8;

/// A slot of a fused map: a DAG value or a scalar.
#[derive(Copy, Clone, Debug)]
enum Arg {
    Value(ValueId),
    Scalar(Operand),
}

/// One map of a group.
#[derive(Clone, Debug)]
struct FusedOp {
    op: Opcode,
    args: Vec<Arg>,
    out: ValueId,
}

/// A step of a tile, after its copies in.
#[derive(Copy, Clone, Debug)]
enum Step {
    Compute(usize),
    Store(ValueId),
}

/// A fused group, planned.
pub(super) struct FusedTile {
    elem: Ty,
    te: u64,
    ops: Vec<FusedOp>,
    /// Per source value (ids `0..sources.len()`), where it is copied from.
    sources: Vec<Desc>,
    /// Per sink value, where it is copied to.
    sinks: Vec<(ValueId, Desc)>,
    /// Per value, its buffer.
    buffer_of: Vec<u32>,
    steps: Vec<Step>,
    /// Steps `..first` run in `compute` (through the first compute), the
    /// rest in `store`.
    first: usize,
    /// Per set, per buffer index.
    bufs: Vec<Vec<MemId>>,
    what: String,
}

/// Is `i` a map a group may hold, and its size and element type?
fn fusable_map(module: &ir_core::Module, f: &Function, i: ir_core::Inst) -> Option<(u64, ir_core::Type)> {
    let op = f.opcode(i);
    if op.format() != Format::TensorMap || op == Opcode::Dma || f.guard(i).is_some() {
        return None;
    }
    let mut shape = None;
    for slot in f.tensor_slots(i) {
        let Slot::Desc(d) = slot else { continue };
        let obj = module.mem(d.mem)?;
        if obj.space == ir_core::MemSpace::Wram {
            return None;
        }
        let size = f.imm(d.size.as_const()?)?.as_u64();
        f.imm(d.offset.as_const()?)?;
        match shape {
            None => shape = Some((size, obj.elem)),
            Some(s) if s == (size, obj.elem) => {}
            Some(_) => return None,
        }
    }
    let shape = shape?;
    (!(op == Opcode::Tdiv && shape.1.is_int())).then_some(shape)
}

impl Lowerer<'_> {
    /// How many of `insts` (from the first) form a group: 0 when fewer
    /// than two.
    pub(super) fn group_len(&self, f: &Function, insts: &[ir_core::Inst]) -> usize {
        let mut first = None;
        let mut offsets: Vec<(ir_core::Mem, u64)> = Vec::new();
        let mut n = 0;
        for &i in insts {
            let shape = fusable_map(self.module, f, i);
            if shape.is_none() || (first.is_some() && shape != first) {
                break;
            }
            first = shape;
            let mut ok = true;
            let mut added = Vec::new();
            for slot in f.tensor_slots(i) {
                let Slot::Desc(d) = slot else { continue };
                let off = d.offset.as_const().and_then(|c| f.imm(c)).map_or(u64::MAX, |v| v.as_u64());
                match offsets.iter().chain(&added).find(|e| e.0 == d.mem) {
                    Some(e) if e.1 != off => ok = false,
                    Some(_) => {}
                    None => added.push((d.mem, off)),
                }
            }
            if !ok {
                break;
            }
            offsets.extend(added);
            n += 1;
        }
        if n >= 2 { n } else { 0 }
    }

    /// Lowers the group `insts` as one fused tile loop; `false` (nothing
    /// emitted) when the game finds no buffer count up to [`MAX_BUFFERS`].
    pub(super) fn lower_fused(
        &mut self,
        inst: &LowerInstance,
        f: &Function,
        insts: &[ir_core::Inst],
    ) -> Result<bool, CompileError> {
        let mut b = DagBuilder::new();
        let mut sources: Vec<Desc> = Vec::new();
        // Per Keel object, its current value and descriptor.
        let mut current: Vec<(ir_core::Mem, ValueId, Desc)> = Vec::new();
        let mut ops = Vec::with_capacity(insts.len());
        let mut elem = Ty::I8;
        // Sources first: value ids 0..sources.len().
        for &i in insts {
            let slots = f.tensor_slots(i);
            for slot in slots.iter().skip(1) {
                let &Slot::Desc(d) = slot else { continue };
                if current.iter().any(|c| c.0 == d.mem) {
                    continue;
                }
                let desc = self.desc(inst, f, d)?;
                let v = b.source(RegClass::Vector);
                sources.push(desc);
                current.push((d.mem, v, desc));
            }
            if let Some(Slot::Desc(d)) = slots.first()
                && !current.iter().any(|c| c.0 == d.mem)
            {
                // Written before read (or never read): not a source; a
                // placeholder that no map reads before the write.
                let desc = self.desc(inst, f, *d)?;
                current.push((d.mem, ValueId::MAX, desc));
            }
        }
        let mut written: Vec<ir_core::Mem> = Vec::new();
        for &i in insts {
            let slots = f.tensor_slots(i);
            let Some(&Slot::Desc(dst)) = slots.first() else { return Ok(false) };
            let mut args = Vec::with_capacity(slots.len() - 1);
            let mut inputs: Vec<ValueId> = Vec::new();
            for s in &slots[1..] {
                args.push(match *s {
                    Slot::Desc(d) => {
                        let v = current.iter().find(|c| c.0 == d.mem).map_or(ValueId::MAX, |c| c.1);
                        if v == ValueId::MAX {
                            return Ok(false);
                        }
                        if !inputs.contains(&v) {
                            inputs.push(v);
                        }
                        Arg::Value(v)
                    }
                    Slot::Scalar(o) => Arg::Scalar(self.op(inst, f, o)),
                });
            }
            let op = b.op(OpKind::Pure, &inputs, &[Output::new(RegClass::Vector)]);
            let out = b.outputs(op)[0];
            let Some(c) = current.iter_mut().find(|c| c.0 == dst.mem) else { return Ok(false) };
            c.1 = out;
            elem = c.2.elem;
            if !written.contains(&dst.mem) {
                written.push(dst.mem);
            }
            ops.push(FusedOp { op: f.opcode(i), args, out });
        }
        let sinks: Vec<(ValueId, Desc)> =
            written.iter().filter_map(|m| current.iter().find(|c| c.0 == *m).map(|c| (c.1, c.2))).collect();
        for &(v, _) in &sinks {
            b.sink(v);
        }
        let dag = b.build().map_err(CompileError::FusedDag)?;
        // The fewest buffers, from the source count up, at the bound.
        let nsrc = sources.len() as u32;
        let mut found = None;
        let mut pebbler = Pebbler::new();
        for regs in nsrc.max(1)..=MAX_BUFFERS {
            let setup = Setup {
                start: (0..nsrc).map(|k| Start::Red { reg: k, dirty: false }).collect(),
                available: [Vec::new(), (0..regs).collect()],
                ..Setup::default()
            };
            if let Ok(s) = pebbler.run(&dag, &setup)
                && s.loads == 0
                && s.stores == sinks.len() as u64
            {
                found = Some((regs, s));
                break;
            }
        }
        let Some((regs, sched)) = found else { return Ok(false) };
        let mut buffer_of = vec![u32::MAX; dag.num_values()];
        for k in 0..nsrc {
            buffer_of[k as usize] = k;
        }
        let mut steps = Vec::new();
        for m in &sched.moves {
            match *m {
                Move::Compute { op } => {
                    let fo = &ops[op as usize];
                    buffer_of[fo.out as usize] = sched.reg_of(fo.out).map_or(u32::MAX, |r| r.index);
                    steps.push(Step::Compute(op as usize));
                }
                Move::Store { value } => steps.push(Step::Store(value)),
                Move::Load { .. } => return Ok(false),
            }
        }
        if buffer_of.iter().enumerate().any(|(v, &r)| r >= regs && ops.iter().any(|o| o.out as usize == v)) {
            return Ok(false);
        }
        let first = steps.iter().position(|s| matches!(s, Step::Compute(_))).map_or(0, |p| p + 1);
        let te = self.tile_elems(elem)?;
        let n = sinks.first().map_or(0, |s| s.1.size.imm_i64().unwrap_or(0)) as u64;
        let sets = if n > te { 2 } else { 1 };
        let mut bufs = Vec::with_capacity(sets);
        for set in 0..sets {
            let mut list = Vec::with_capacity(regs as usize);
            for r in 0..regs as usize {
                list.push(self.stage_in(set, r)?);
            }
            bufs.push(list);
        }
        let names: Vec<&str> = ops.iter().map(|o| o.op.name()).collect();
        let what = format!("`{}`", names.join("` + `"));
        self.buffering.push(format!(
            "{what}: fused, {} ({} buffer(s) per set: red-blue game with the {} source(s) loaded ahead, {} store(s) per tile, no reload)",
            if sets == 2 { "double-buffered" } else { "one tile" },
            regs,
            nsrc,
            sinks.len()
        ));
        let dst = sinks[0].1;
        let tile = FusedTile { elem, te, ops, sources, sinks, buffer_of, steps, first, bufs, what };
        // Split code: tiles are shared out (every object at one offset).
        let descs: Vec<Desc> = tile.sources.iter().chain(tile.sinks.iter().map(|s| &s.1)).copied().collect();
        let part = partition(dst.size, te, descs.iter());
        self.region_parts(false, part, |s| {
            let range = s.core_range(dst.size, te)?;
            s.run_tiles(&tile, range, n)
        })?;
        Ok(true)
    }

    /// Runs `steps` of `t` on buffer set `set` for tile `i` (`cnt`
    /// elements).
    fn fused_steps(
        &mut self,
        t: &FusedTile,
        set: usize,
        steps: &[Step],
        (i, cnt): (Operand, Operand),
    ) -> Result<(), CompileError> {
        let buf = |v: ValueId| at(Space::Nram, t.bufs[set][t.buffer_of[v as usize] as usize], None, 0);
        for &s in steps {
            match s {
                Step::Compute(k) => {
                    let fo = &t.ops[k];
                    let padded = self.padded(cnt)?;
                    let vs: Vec<VSrc> = fo
                        .args
                        .iter()
                        .map(|a| match *a {
                            Arg::Value(v) => VSrc::Mem(buf(v)),
                            Arg::Scalar(o) => VSrc::Scalar(o),
                        })
                        .collect();
                    let vinst = self.vector_inst(fo.op, t.elem, buf(fo.out), &vs, padded)?;
                    self.e.compute(vinst, &t.what)?;
                }
                Step::Store(v) => {
                    let Some(&(_, d)) = t.sinks.iter().find(|s| s.0 == v) else { continue };
                    let b = t.bufs[set][t.buffer_of[v as usize] as usize];
                    self.store_tile(&d, b, (i, cnt), &t.what)?;
                }
            }
        }
        Ok(())
    }
}

impl TileSteps for FusedTile {
    fn te(&self) -> u64 {
        self.te
    }
    fn sets(&self) -> usize {
        self.bufs.len()
    }
    fn load(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        let bytes = s.e.bin64(BinOp::Mul, cnt, Operand::int(self.elem.bytes() as i64))?;
        for (k, d) in self.sources.iter().enumerate() {
            let from = s.elem_addr(d, i)?;
            let to = at(Space::Nram, self.bufs[set][k], None, 0);
            s.e.dma(to, from, bytes, &format!("an operand tile of {}", self.what))?;
        }
        Ok(())
    }
    fn compute(&self, s: &mut Lowerer<'_>, set: usize, padded: Operand) -> Result<(), CompileError> {
        // Through the first compute (the rest, with the stores, after the
        // next tile's copies in start); no store is among these steps.
        s.fused_steps(self, set, &self.steps[..self.first], (Operand::Imm(0), padded))
    }
    fn store(&self, s: &mut Lowerer<'_>, set: usize, i: Operand, cnt: Operand) -> Result<(), CompileError> {
        s.fused_steps(self, set, &self.steps[self.first..], (i, cnt))
    }
}
