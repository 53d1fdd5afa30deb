//! Tensor instructions: descriptors resolved at run time, element loops.
//!
//! Invariants: every descriptor is bounds-checked before any element is
//! touched; all source elements are copied out before the destination is
//! written (so any overlap behaves as if through a temporary, `docs/ir.md`
//! §6.7); fuel for the element work is charged before doing it.

use super::memory::Memory;
use super::ops::{self, sval};
use super::trap::{Trap, TrapKind};
use crate::entities::{Inst, Mem};
use crate::function::Function;
use crate::imm::Imm;
use crate::instructions::{Operand, Slot};
use crate::opcode::{Format, Opcode};
use crate::types::Type;

type R<T> = Result<T, Trap>;

/// A descriptor resolved against memory: elements `start..start + len`.
#[derive(Copy, Clone)]
struct Range {
    mem: Mem,
    start: usize,
    len: usize,
}

enum Source {
    Range(Range),
    Scalar(Imm),
}

fn resolve(memory: &Memory, mem: Mem, offset: Imm, size: Imm) -> R<Range> {
    let (off, size) = (sval(offset), sval(size));
    let len = memory.len(mem) as u64;
    if off < 0 || size < 0 || (off as u64).saturating_add(size as u64) > len {
        return Err(Trap::new(
            TrapKind::OutOfBounds,
            format!("descriptor [{off}, {size}] outside an object of {len} elements"),
        ));
    }
    Ok(Range { mem, start: off as usize, len: size as usize })
}

/// Elements processed per step of an element-wise instruction: sources are
/// read for a chunk, then the chunk is written, so no temporary grows with
/// the instruction.
const CHUNK: usize = 1024;

/// The elements of `r`.
fn elements(memory: &Memory, r: Range) -> &[u64] {
    &memory.raw(r.mem)[r.start..r.start + r.len]
}

/// True when `a` and `b` share an element.
fn overlap(a: Range, b: Range) -> bool {
    a.mem == b.mem && a.start < b.start + b.len && b.start < a.start + a.len
}

/// Where a source operand's elements are read from: the memory itself, a
/// copy (when it overlaps the destination at another offset, so a write
/// cannot change what a later element reads: overlap acts through a
/// temporary), or one value for every element.
enum Column {
    Memory(Range),
    Copy(Vec<u64>),
    Broadcast(Imm),
}

/// The element type of the destination, checked on every value written.
fn store(memory: &mut Memory, dst: Range, at: usize, bits: &[u64]) {
    memory.raw_mut(dst.mem)[dst.start + at..dst.start + at + bits.len()].copy_from_slice(bits);
}

fn op_trap((kind, message): (TrapKind, String)) -> Trap {
    Trap::new(kind, message)
}

/// Executes a tensor instruction; returns the scalar result of a reduction.
pub(super) fn execute(
    f: &Function,
    inst: Inst,
    memory: &mut Memory,
    read: &dyn Fn(Operand) -> R<Imm>,
    fuel: &mut dyn FnMut(u64) -> R<()>,
    observe: &mut dyn FnMut(u32, bool, Mem, usize, usize),
) -> R<Option<Imm>> {
    let op = f.opcode(inst);
    let mut sources = Vec::new();
    for slot in f.tensor_slots(inst) {
        sources.push(match slot {
            Slot::Desc(d) => Source::Range(resolve(memory, d.mem, read(d.offset)?, read(d.size)?)?),
            Slot::Scalar(o) => Source::Scalar(read(o)?),
        });
    }
    // Descriptor `k` of the instruction (`Function::accesses` order) is
    // the k-th range among the slots.
    let desc_index = |slot: usize| sources[..slot].iter().filter(|s| matches!(s, Source::Range(_))).count() as u32;
    let reads = |slots: core::ops::Range<usize>, observe: &mut dyn FnMut(u32, bool, Mem, usize, usize)| {
        for k in slots {
            if let Some(Source::Range(r)) = sources.get(k) {
                observe(desc_index(k), false, r.mem, r.start, r.len);
            }
        }
    };
    let malformed = |why: &str| Trap::new(TrapKind::Malformed, format!("`{op}`: {why}"));
    match op.format() {
        Format::TensorReduce => {
            let Some(Source::Range(src)) = sources.first() else { return Err(malformed("needs a descriptor")) };
            fuel(src.len as u64)?;
            reads(0..1, observe);
            let elem = memory.elem_type(src.mem).unwrap_or(Type::I64);
            let values = elements(memory, *src);
            let result = match op {
                // Left to right from the first element; empty is +0.
                Opcode::Tsum => fold(elem, values, ops::zero(elem), |a, b| {
                    ops::binary(if elem.is_float() { Opcode::Fadd } else { Opcode::Add }, a, b)
                })?,
                // NaN-propagating maximum; empty is the lowest value.
                _ => fold(elem, values, ops::lowest(elem), |a, b| {
                    ops::binary(if elem.is_float() { Opcode::Fmax } else { Opcode::Smax }, a, b)
                })?,
            };
            Ok(Some(result))
        }
        Format::Matmul => {
            let (slot_ops, _) = f.slot_operands(inst);
            let dims: Vec<i64> =
                f.operands(inst).get(slot_ops..).unwrap_or(&[]).iter().map(|&o| read(o).map(sval)).collect::<R<_>>()?;
            let (&[m, k, n], [Source::Range(c), Source::Range(a), Source::Range(b)]) = (&dims[..], &sources[..]) else {
                return Err(malformed("needs three descriptors and three dimensions"));
            };
            let shape = |got: usize, x: i64, y: i64, name: &str| -> R<()> {
                match x.checked_mul(y) {
                    Some(w) if x >= 0 && y >= 0 && w as u64 == got as u64 => Ok(()),
                    _ => Err(Trap::new(
                        TrapKind::ShapeMismatch,
                        format!("matmul {name} has {got} elements; m={m}, k={k}, n={n} need {x}·{y}"),
                    )),
                }
            };
            shape(c.len, m, n, "C")?;
            shape(a.len, m, k, "A")?;
            shape(b.len, k, n, "B")?;
            let (m, k, n) = (m as usize, k as usize, n as usize);
            fuel((m as u64).saturating_mul(n as u64).saturating_mul(k as u64))?;
            reads(1..3, observe);
            let elem = memory.elem_type(c.mem).unwrap_or(Type::I64);
            let (ea, eb) = (memory.elem_type(a.mem).unwrap_or(Type::I64), memory.elem_type(b.mem).unwrap_or(Type::I64));
            // C is written only at the end when it overlaps A or B (then
            // through a temporary, counted against the memory budget);
            // otherwise each element goes straight to memory.
            let through_temp = overlap(*c, *a) || overlap(*c, *b);
            if through_temp {
                memory.reserve_temporary(c.len)?;
            }
            let mut out = Vec::with_capacity(if through_temp { c.len } else { 0 });
            observe(0, true, c.mem, c.start, c.len);
            let (mul, add) = if elem.is_float() { (Opcode::Fmul, Opcode::Fadd) } else { (Opcode::Mul, Opcode::Add) };
            for i in 0..m {
                for j in 0..n {
                    let mut acc = None;
                    for p in 0..k {
                        let x = Imm::from_bits(ea, memory.raw(a.mem)[a.start + i * k + p]);
                        let y = Imm::from_bits(eb, memory.raw(b.mem)[b.start + p * n + j]);
                        let prod = ops::binary(mul, x, y).map_err(op_trap)?;
                        acc = Some(match acc {
                            None => prod,
                            Some(s) => ops::binary(add, s, prod).map_err(op_trap)?,
                        });
                    }
                    let v = acc.unwrap_or(ops::zero(elem));
                    if v.ty() != elem {
                        return Err(mistyped(elem));
                    }
                    if through_temp {
                        out.push(v.bits());
                    } else {
                        store(memory, *c, i * n + j, &[v.bits()]);
                    }
                }
            }
            if through_temp {
                store(memory, *c, 0, &out);
            }
            Ok(None)
        }
        _ => {
            let Some(Source::Range(dst)) = sources.first() else {
                return Err(malformed("the destination must be a descriptor"));
            };
            let dst = *dst;
            for s in &sources[1..] {
                if let Source::Range(r) = s
                    && r.len != dst.len
                {
                    return Err(Trap::new(
                        TrapKind::ShapeMismatch,
                        format!("operands of {} and {} elements", dst.len, r.len),
                    ));
                }
            }
            fuel(dst.len as u64)?;
            reads(1..sources.len(), observe);
            // A source read at the same offset as the destination is safe
            // to read chunk by chunk; one that overlaps it elsewhere is
            // copied first (overlap acts through a temporary).
            let mut columns = Vec::with_capacity(sources.len() - 1);
            for s in &sources[1..] {
                columns.push(match *s {
                    Source::Range(r) if overlap(r, dst) && r.start != dst.start => {
                        memory.reserve_temporary(r.len)?;
                        Column::Copy(elements(memory, r).to_vec())
                    }
                    Source::Range(r) => Column::Memory(r),
                    Source::Scalar(v) => Column::Broadcast(v),
                });
            }
            let elem = memory.elem_type(dst.mem).unwrap_or(Type::I64);
            let at = |memory: &Memory, c: usize, i: usize| -> Option<Imm> {
                Some(match columns.get(c)? {
                    Column::Memory(r) => Imm::from_bits(memory.elem_type(r.mem)?, memory.raw(r.mem)[r.start + i]),
                    Column::Copy(v) => Imm::from_bits(memory.elem_type(source_mem(&sources, c)?)?, v[i]),
                    Column::Broadcast(x) => *x,
                })
            };
            let value = |memory: &Memory, i: usize| -> R<u64> {
                let a = at(memory, 0, i).ok_or_else(|| malformed("missing source"))?;
                let v = match op {
                    Opcode::Tfill | Opcode::Dma => a,
                    _ => {
                        let b = at(memory, 1, i).unwrap_or(a);
                        let c = at(memory, 2, i).unwrap_or(a);
                        ops::tensor_elem(op, a, b, c).map_err(op_trap)?
                    }
                };
                if v.ty() != elem {
                    return Err(mistyped(elem));
                }
                Ok(v.bits())
            };
            // An instruction that traps writes nothing. Only integer
            // division can trap on its values: check every element first.
            if op == Opcode::Tdiv && !elem.is_float() {
                for i in 0..dst.len {
                    value(memory, i)?;
                }
            }
            observe(0, true, dst.mem, dst.start, dst.len);
            let mut chunk = [0u64; CHUNK];
            let mut done = 0;
            while done < dst.len {
                let len = CHUNK.min(dst.len - done);
                for (k, slot) in chunk[..len].iter_mut().enumerate() {
                    *slot = value(memory, done + k)?;
                }
                store(memory, dst, done, &chunk[..len]);
                done += len;
            }
            Ok(None)
        }
    }
}

/// The object source operand `c` (counting after the destination) reads.
fn source_mem(sources: &[Source], c: usize) -> Option<Mem> {
    match sources.get(c + 1)? {
        Source::Range(r) => Some(r.mem),
        Source::Scalar(_) => None,
    }
}

fn mistyped(elem: Type) -> Trap {
    Trap::new(TrapKind::Malformed, format!("a value of another type than {elem} written to memory"))
}

/// Left fold from the first element (of type `elem`); `empty` when there
/// is none.
fn fold(elem: Type, values: &[u64], empty: Imm, step: impl Fn(Imm, Imm) -> ops::OpResult) -> R<Imm> {
    let Some((&first, rest)) = values.split_first() else { return Ok(empty) };
    rest.iter().try_fold(Imm::from_bits(elem, first), |acc, &v| step(acc, Imm::from_bits(elem, v))).map_err(op_trap)
}
