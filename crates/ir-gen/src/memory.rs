//! Memory: the module's memory objects, and random memory instructions
//! that stay in bounds.
//!
//! Invariants, which make every access in bounds at run time whatever the
//! pool vars hold (every object's length `L` is a power of two):
//! - a scalar index is an immediate in `[0, L)` or `%ix = and %v, L - 1`
//!   computed immediately before (unguarded), so in `[0, L - 1]`;
//! - the descriptors of one tensor instruction share one size operand `s`:
//!   an immediate in `[0, Lmin / 2]` or `%sz = and %v, Lmin / 2 - 1`, where
//!   `Lmin` is the shortest object involved, so sizes are equal at run time
//!   and at most `L / 2` for every object;
//! - an offset is an immediate with `offset + s <= L` (for an immediate `s`)
//!   or `offset <= L / 2` (for a var `s`), or `%offN = and %v, L / 2 - 1`, so
//!   `offset + s <= L - 1 + 1 = L`;
//! - `dma` and every map use objects of one element type; integer `tdiv`
//!   (division by zero) is never emitted, float `tdiv` is IEEE and total;
//! - `matmul` has a fixed shape (`2x4 · 4x3`) with exact in-bounds
//!   descriptors on `f32` objects.
//!
//! A tensor instruction costs 1 plus the elements it processes, bounded by
//! the largest value its size operand can take (`m * k * n` for `matmul`).

use crate::body::{Body, MemInfo, Role};
use crate::source::{Choices, Source};
use crate::types::imm;
use ir_core::{Arg, Desc, Guard, Imm, MemSpace, Module, Opcode, SlotRule, TensorArg, Type};

/// The memory objects of a module with memory instructions: name, element
/// type, length (a power of two) and space.
const OBJECTS: [(&str, Type, u64, MemSpace); 6] = [
    ("nram_i32", Type::I32, 256, MemSpace::Nram),
    ("dram_f32", Type::F32, 256, MemSpace::Dram),
    ("sram_f64", Type::F64, 64, MemSpace::Sram),
    ("wram_i8", Type::I8, 64, MemSpace::Wram),
    ("nram_f32", Type::F32, 64, MemSpace::Nram),
    ("dram_i64", Type::I64, 128, MemSpace::Dram),
];

/// Most initial values an object gets.
const MAX_INIT: usize = 8;

/// `matmul` dimensions `m, k, n`.
const MATMUL: [u64; 3] = [2, 4, 3];

const INT_MAPS: [Opcode; 5] = [Opcode::Tadd, Opcode::Tsub, Opcode::Tmul, Opcode::Tmin, Opcode::Tmax];
/// Element-wise binary maps on float objects (every binary map).
pub(crate) const FLOAT_MAPS: [Opcode; 6] =
    [Opcode::Tadd, Opcode::Tsub, Opcode::Tmul, Opcode::Tmin, Opcode::Tmax, Opcode::Tdiv];
const INT_UNARY_MAPS: [Opcode; 3] = [Opcode::Tneg, Opcode::Tabs, Opcode::Trelu];
/// Element-wise unary maps on float objects (every unary map).
pub(crate) const FLOAT_UNARY_MAPS: [Opcode; 8] = [
    Opcode::Tneg,
    Opcode::Tabs,
    Opcode::Trelu,
    Opcode::Texp,
    Opcode::Tlog,
    Opcode::Tsqrt,
    Opcode::Ttanh,
    Opcode::Tsigmoid,
];

/// Declares the memory objects, some with initial values; with
/// `mlu_expressible`, WRAM objects go to NRAM, and with `shared` too, NRAM
/// objects go to DRAM (the names stay).
pub(crate) fn declare<S: Source + ?Sized>(
    module: &mut Module,
    src: &mut S,
    mlu_expressible: bool,
    shared: bool,
) -> Vec<MemInfo> {
    let mut out = Vec::with_capacity(OBJECTS.len());
    for (name, elem, len, space) in OBJECTS {
        let space = if mlu_expressible && space == MemSpace::Wram { MemSpace::Nram } else { space };
        let space = if shared && space == MemSpace::Nram { MemSpace::Dram } else { space };
        debug_assert!(len.is_power_of_two() && len >= 2);
        let mem = module.add_mem(name, elem, len, space).expect("the generator's names are distinct");
        let n = src.below(MAX_INIT + 1);
        if n > 0 {
            let init = (0..n).map(|_| imm(src, elem)).collect();
            module.set_mem_init(mem, init);
        }
        out.push(MemInfo { mem, elem, len });
    }
    out
}

impl<S: Source + ?Sized> Body<'_, '_, S> {
    /// A random memory instruction under guard `g`; its index, offset and
    /// size computations come first and are never guarded.
    pub(crate) fn memory_inst(&mut self, g: Option<Guard>) -> u64 {
        let env = self.env;
        if env.knobs.tiles > 0.0 && !self.loops.is_empty() && self.src.chance(env.knobs.tiles) {
            return self.tile_inst(g);
        }
        let m = self.src.below(env.mems.len());
        let obj = &env.mems[m];
        let float = obj.elem.is_float();
        match self.src.below(9) {
            0 => {
                let (index, pre) = self.index(obj.len);
                let dst = self.var(obj.elem);
                self.ins(g).load(dst, obj.mem, index);
                pre + 1
            }
            1 => {
                let (index, pre) = self.index(obj.len);
                let value = self.arg(obj.elem);
                self.ins(g).store(obj.mem, index, value);
                pre + 1
            }
            2 => {
                let op = if float { self.src.pick(&FLOAT_MAPS) } else { self.src.pick(&INT_MAPS) };
                self.map(g, op, m)
            }
            3 => {
                let op = if float { self.src.pick(&FLOAT_UNARY_MAPS) } else { self.src.pick(&INT_UNARY_MAPS) };
                self.map(g, op, m)
            }
            4 => self.map(g, Opcode::Tfma, m),
            5 => self.map(g, Opcode::Tfill, m),
            6 => self.map(g, Opcode::Dma, m),
            7 => {
                let op = self.src.pick(&[Opcode::Tsum, Opcode::Tredmax]);
                let (descs, elems, pre) = self.descriptors(&[m]);
                let dst = self.var(obj.elem);
                self.ins(g).reduce(op, dst, descs[0]);
                pre.saturating_add(1).saturating_add(elems)
            }
            _ => self.matmul(g),
        }
    }

    /// A scalar index into an object of `len` elements, and the cost of
    /// computing it.
    fn index(&mut self, len: u64) -> (Arg, u64) {
        if self.env.knobs.exact_memory || self.src.below(2) == 0 {
            (Arg::Imm(Imm::int(Type::I64, self.src.choose(len) as i64)), 0)
        } else {
            (Arg::Var(self.masked(Role::Index, len - 1)), 1)
        }
    }

    /// A tensor map writing object `m`: each source slot is a descriptor on
    /// an object of the same element type, or (where the opcode allows) a
    /// broadcast scalar.
    fn map(&mut self, g: Option<Guard>, op: Opcode, m: usize) -> u64 {
        let env = self.env;
        let elem = env.mems[m].elem;
        let same: Vec<usize> = (0..env.mems.len()).filter(|&i| env.mems[i].elem == elem).collect();
        // Which object each descriptor slot uses; `None` for a scalar.
        let mut slots: Vec<Option<usize>> = Vec::with_capacity(4);
        for &rule in op.tensor_sources() {
            let scalar = match rule {
                SlotRule::Desc => false,
                SlotRule::Scalar => true,
                SlotRule::DescOrScalar => self.src.below(2) == 1,
            };
            slots.push(if scalar { None } else { Some(self.src.pick(&same)) });
        }
        let objs: Vec<usize> = core::iter::once(m).chain(slots.iter().flatten().copied()).collect();
        let (descs, elems, pre) = self.descriptors(&objs);
        let mut next = 1;
        let mut sources = Vec::with_capacity(slots.len());
        for slot in slots {
            sources.push(match slot {
                Some(_) => {
                    next += 1;
                    TensorArg::Desc(descs[next - 1])
                }
                None => TensorArg::Scalar(self.arg(elem)),
            });
        }
        self.ins(g).tensor(op, descs[0], &sources);
        pre.saturating_add(1).saturating_add(elems)
    }

    /// Descriptors on `objs` (in order) sharing one size operand, each exact
    /// or inexact; returns them, the largest size they can have at run time,
    /// and the cost of the instructions computing the inexact parts.
    fn descriptors(&mut self, objs: &[usize]) -> (Vec<Desc>, u64, u64) {
        let env = self.env;
        let half = objs.iter().map(|&o| env.mems[o].len).min().unwrap_or(2) / 2;
        let mut pre = 0u64;
        let (size, exact_size, max_size) = if env.knobs.exact_memory || self.src.below(2) == 0 {
            let s = self.src.choose(half + 1);
            (Arg::Imm(Imm::int(Type::I64, s as i64)), Some(s), s)
        } else {
            pre += 1;
            (Arg::Var(self.masked(Role::Size, half - 1)), None, half - 1)
        };
        let mut descs = Vec::with_capacity(objs.len());
        for (n, &o) in objs.iter().enumerate() {
            let obj = &env.mems[o];
            let offset = if !env.knobs.exact_memory && self.src.chance(env.knobs.symbolic) {
                let (v, cost) = self.symbolic_offset(n, obj.len, exact_size);
                pre += cost;
                Arg::Var(v)
            } else if env.knobs.exact_memory || self.src.below(2) == 0 {
                let hi = match exact_size {
                    Some(s) => obj.len - s,
                    None => obj.len / 2,
                };
                Arg::Imm(Imm::int(Type::I64, self.src.choose(hi + 1) as i64))
            } else {
                pre += 1;
                Arg::Var(self.masked(Role::Offset(n), obj.len / 2 - 1))
            };
            descs.push(Desc { mem: obj.mem, offset, size });
        }
        (descs, max_size, pre)
    }

    /// `%offN = add %sb, c` (after `%sb = and %v, 15` now and then): the
    /// shared base is in `[0, 15]` and `c` keeps the descriptor in bounds
    /// for the size it has (`exact_size`, or at most `len / 2`). Returns
    /// the offset var and the cost of what was emitted.
    fn symbolic_offset(&mut self, n: usize, len: u64, exact_size: Option<u64>) -> (ir_core::Var, u64) {
        let mut cost = 1;
        let sb = self.dedicated(Role::SymBase);
        if self.src.below(4) == 0 {
            let v = self.var(Type::I64);
            self.b.ins().binary(Opcode::And, sb, v, Imm::int(Type::I64, 15));
            cost += 1;
        }
        let hi = match exact_size {
            Some(s) => len - s - 15,
            None => len / 2 - 15,
        };
        let c = self.src.choose(hi + 1);
        let off = self.dedicated(Role::Offset(n));
        self.b.ins().binary(Opcode::Add, off, sb, Imm::int(Type::I64, c as i64));
        (off, cost)
    }

    /// A tile access in a loop body: a scalar load or store, a map (`dma`,
    /// `tfill`, `tadd`, `tmax`) or a `tsum` whose descriptors have one
    /// exact size `T` and sit each at `%kD · T + c` (a tile of an enclosing
    /// loop's counter, `%kD` in `[1, max_trips]` there) or at an exact
    /// offset. `c` is in `[-T, len - (max_trips + 1) · T]`, so every tile is
    /// in bounds.
    fn tile_inst(&mut self, g: Option<Guard>) -> u64 {
        let env = self.env;
        let max = u64::from(env.knobs.max_trips.max(1));
        let m = self.src.below(env.mems.len());
        let elem = env.mems[m].elem;
        let same: Vec<usize> = (0..env.mems.len()).filter(|&i| env.mems[i].elem == elem).collect();
        let kind = self.src.below(5);
        let objs: Vec<usize> = match kind {
            0..=1 | 4 => vec![m],
            _ => {
                let src = self.src.pick(&same);
                vec![m, src]
            }
        };
        let min_len = objs.iter().map(|&o| env.mems[o].len).min().unwrap_or(2);
        let sizes: Vec<u64> = [1u64, 2, 4, 8, 16].into_iter().filter(|&t| (max + 1) * t <= min_len).collect();
        if sizes.is_empty() {
            // No tile fits: a load of element 0 instead.
            let dst = self.var(elem);
            self.ins(g).load(dst, env.mems[m].mem, Imm::int(Type::I64, 0));
            return 1;
        }
        let t = self.src.pick(&sizes);
        let k = self.loops[self.src.below(self.loops.len())];
        let mut pre = 0u64;
        let mut descs = Vec::with_capacity(objs.len());
        for (n, &o) in objs.iter().enumerate() {
            let obj = &env.mems[o];
            let offset = if n == 0 || self.src.below(2) == 0 {
                let lo = -(t as i64);
                let hi = obj.len as i64 - ((max + 1) * t) as i64;
                let c = lo + self.src.choose((hi - lo + 1) as u64) as i64;
                let v = self.dedicated(Role::Tile(n));
                self.b.ins().binary(Opcode::Mul, v, k, Imm::int(Type::I64, t as i64));
                self.b.ins().binary(Opcode::Add, v, v, Imm::int(Type::I64, c));
                pre += 2;
                Arg::Var(v)
            } else {
                Arg::Imm(Imm::int(Type::I64, self.src.choose(obj.len - t + 1) as i64))
            };
            descs.push(Desc { mem: obj.mem, offset, size: Arg::Imm(Imm::int(Type::I64, t as i64)) });
        }
        match kind {
            0 => {
                let dst = self.var(elem);
                self.ins(g).load(dst, descs[0].mem, descs[0].offset);
                pre + 1
            }
            1 => {
                let value = self.arg(elem);
                self.ins(g).store(descs[0].mem, descs[0].offset, value);
                pre + 1
            }
            4 => {
                let dst = self.var(elem);
                self.ins(g).reduce(Opcode::Tsum, dst, descs[0]);
                pre + 1 + t
            }
            _ => {
                let op = self.src.pick(&[Opcode::Dma, Opcode::Tfill, Opcode::Tadd, Opcode::Tmax]);
                let sources: Vec<TensorArg> = match op {
                    Opcode::Tfill => vec![TensorArg::Scalar(self.arg(elem))],
                    Opcode::Dma => vec![TensorArg::Desc(descs[1])],
                    _ => vec![TensorArg::Desc(descs[1]), TensorArg::Scalar(self.arg(elem))],
                };
                self.ins(g).tensor(op, descs[0], &sources);
                pre + 1 + t
            }
        }
    }

    /// `matmul C[2x3], A[2x4], B[4x3]` on `f32` objects at random exact
    /// in-bounds offsets.
    fn matmul(&mut self, g: Option<Guard>) -> u64 {
        let env = self.env;
        let f32s: Vec<usize> = (0..env.mems.len()).filter(|&i| env.mems[i].elem == Type::F32).collect();
        let [m, k, n] = MATMUL;
        let mut descs = Vec::with_capacity(3);
        for size in [m * n, m * k, k * n] {
            let obj = &env.mems[self.src.pick(&f32s)];
            let offset = self.src.choose(obj.len - size + 1);
            descs.push(Desc::new(obj.mem, Imm::int(Type::I64, offset as i64), Imm::int(Type::I64, size as i64)));
        }
        let dims = MATMUL.map(|d| Arg::Imm(Imm::int(Type::I64, d as i64)));
        self.ins(g).matmul(descs[0], descs[1], descs[2], dims);
        (m * k * n).saturating_add(1)
    }
}
