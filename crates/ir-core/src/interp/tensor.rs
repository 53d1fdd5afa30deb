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

fn gather(memory: &Memory, r: Range) -> Vec<Imm> {
    let elem = memory.elem_type(r.mem).unwrap_or(Type::I64);
    memory.raw(r.mem)[r.start..r.start + r.len].iter().map(|&b| Imm::from_bits(elem, b)).collect()
}

fn scatter(memory: &mut Memory, r: Range, values: &[Imm]) -> R<()> {
    let elem = memory.elem_type(r.mem).unwrap_or(Type::I64);
    if values.iter().any(|v| v.ty() != elem) {
        return Err(Trap::new(TrapKind::Malformed, format!("a value of another type than {elem} written to memory")));
    }
    for (slot, v) in memory.raw_mut(r.mem)[r.start..r.start + r.len].iter_mut().zip(values) {
        *slot = v.bits();
    }
    Ok(())
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
            let values = gather(memory, *src);
            let result = match op {
                // Left to right from the first element; empty is +0.
                Opcode::Tsum => fold(&values, ops::zero(elem), |a, b| {
                    ops::binary(if elem.is_float() { Opcode::Fadd } else { Opcode::Add }, a, b)
                })?,
                // NaN-propagating maximum; empty is the lowest value.
                _ => fold(&values, ops::lowest(elem), |a, b| {
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
            let (av, bv) = (gather(memory, *a), gather(memory, *b));
            let (mul, add) = if elem.is_float() { (Opcode::Fmul, Opcode::Fadd) } else { (Opcode::Mul, Opcode::Add) };
            let mut out = Vec::with_capacity(m * n);
            for i in 0..m {
                for j in 0..n {
                    let mut acc = None;
                    for p in 0..k {
                        let prod = ops::binary(mul, av[i * k + p], bv[p * n + j]).map_err(op_trap)?;
                        acc = Some(match acc {
                            None => prod,
                            Some(s) => ops::binary(add, s, prod).map_err(op_trap)?,
                        });
                    }
                    out.push(acc.unwrap_or(ops::zero(elem)));
                }
            }
            observe(0, true, c.mem, c.start, c.len);
            scatter(memory, *c, &out)?;
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
            // Copy every source out first: overlap acts through a temporary.
            let columns: Vec<Column> = sources[1..]
                .iter()
                .map(|s| match s {
                    Source::Range(r) => Column::Values(gather(memory, *r)),
                    Source::Scalar(v) => Column::Broadcast(*v),
                })
                .collect();
            let at = |c: usize, i: usize| columns.get(c).map(|col| col.get(i));
            let mut out = Vec::with_capacity(dst.len);
            for i in 0..dst.len {
                let a = at(0, i).ok_or_else(|| malformed("missing source"))?;
                let v = match op {
                    Opcode::Tfill | Opcode::Dma => a,
                    _ => {
                        let b = at(1, i).unwrap_or(a);
                        let c = at(2, i).unwrap_or(a);
                        ops::tensor_elem(op, a, b, c).map_err(op_trap)?
                    }
                };
                out.push(v);
            }
            observe(0, true, dst.mem, dst.start, dst.len);
            scatter(memory, dst, &out)?;
            Ok(None)
        }
    }
}

enum Column {
    Values(Vec<Imm>),
    Broadcast(Imm),
}

impl Column {
    fn get(&self, i: usize) -> Imm {
        match self {
            Column::Values(v) => v[i],
            Column::Broadcast(x) => *x,
        }
    }
}

/// Left fold from the first element; `empty` when there is none.
fn fold(values: &[Imm], empty: Imm, step: impl Fn(Imm, Imm) -> ops::OpResult) -> R<Imm> {
    let Some((&first, rest)) = values.split_first() else { return Ok(empty) };
    rest.iter().try_fold(first, |acc, &v| step(acc, v)).map_err(op_trap)
}
