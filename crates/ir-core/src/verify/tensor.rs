//! Checks of tensor instructions: slot counts and kinds, descriptor
//! bounds, and agreement of exact sizes and matmul shapes.
//!
//! Invariant: like every check, never panics on malformed instructions;
//! sizes that are not immediates are not compared (they are checked at run
//! time by the interpreter).

use super::context::{Ctx, exact, global, plural};
use super::error::ErrorKind;
use crate::entities::{Inst, Var};
use crate::instructions::{MemDesc, Operand, Slot};
use crate::opcode::{Format, Opcode, SlotRule};

pub(super) fn check_tensor(cx: &mut Ctx<'_>, inst: Inst, results: &[Var], ops: &[Operand]) {
    let func = cx.func;
    let op = func.opcode(inst);
    let slots = func.tensor_slots(inst);
    let (slot_ops, _) = func.slot_operands(inst);
    let (want_slots, want_results, want_tail) = match op.format() {
        Format::TensorMap => (1 + op.tensor_sources().len(), 0, 0),
        Format::TensorReduce => (1, 1, 0),
        _ => (3, 0, 3),
    };
    if results.len() != want_results {
        cx.err(
            ErrorKind::Arity,
            format!("`{op}` defines {want_results} result{}, found {}", plural(want_results), results.len()),
        );
        return;
    }
    if slots.len() != want_slots {
        cx.err(
            ErrorKind::Arity,
            format!("`{op}` takes {want_slots} tensor operand{}, found {}", plural(want_slots), slots.len()),
        );
        return;
    }
    if ops.len() != slot_ops + want_tail {
        let found = ops.len().saturating_sub(slot_ops);
        let msg = if op == Opcode::Matmul {
            format!("`matmul` takes 3 dimensions (m, k, n) after its tensor operands, found {found}")
        } else {
            format!("`{op}` takes no operands after its tensor operands, found {found}")
        };
        cx.err(ErrorKind::Arity, msg);
        return;
    }
    // Which slots must be descriptors, which scalars.
    for (i, s) in slots.iter().enumerate() {
        let rule = match op.format() {
            Format::TensorMap if i > 0 => op.tensor_sources()[i - 1],
            _ => SlotRule::Desc,
        };
        let bad = match (rule, s) {
            (SlotRule::Desc, Slot::Scalar(_)) => Some("a memory descriptor"),
            (SlotRule::Scalar, Slot::Desc(_)) => Some("a scalar"),
            _ => None,
        };
        if let Some(want) = bad {
            let which = if i == 0 && op.format() != Format::TensorReduce {
                "the destination".to_string()
            } else {
                format!("tensor operand {i}")
            };
            cx.err(ErrorKind::Arity, format!("{which} of `{op}` must be {want}"));
            return;
        }
    }
    let descs: Vec<MemDesc> =
        slots.iter().filter_map(|s| if let Slot::Desc(d) = s { Some(*d) } else { None }).collect();
    let mut elem = None;
    for d in &descs {
        let Some(obj) = cx.m.mem(d.mem) else {
            cx.err(ErrorKind::UnknownEntity, format!("{} is not a memory object of this module", d.mem));
            return;
        };
        check_desc_bounds(cx, d, obj.len, &obj.name);
        match elem {
            None => elem = Some(obj.elem),
            Some(e) if e != obj.elem => {
                let name = global(&obj.name);
                cx.err(
                    ErrorKind::TypeMismatch,
                    format!("{name} holds {}, but `{op}`'s first operand holds {e}", obj.elem),
                );
            }
            _ => {}
        }
    }
    let Some(elem) = elem else { return };
    cx.expect_class(op, elem);
    for s in &slots {
        if let Slot::Scalar(o) = s {
            cx.expect_ty("the scalar operand", *o, elem);
        }
    }
    if op.format() == Format::TensorReduce {
        cx.expect_result_ty(results[0], elem);
    }
    let size = |d: &MemDesc| exact(func, d.size);
    if op.format() == Format::TensorMap {
        let sizes: Vec<i64> = descs.iter().filter_map(size).collect();
        if sizes.windows(2).any(|w| w[0] != w[1]) {
            let list: Vec<String> = sizes.iter().map(i64::to_string).collect();
            cx.err(ErrorKind::TensorShape, format!("`{op}` operands have different sizes ({})", list.join(", ")));
        }
    }
    if op == Opcode::Matmul {
        let dims = &ops[slot_ops..];
        for (i, &d) in dims.iter().enumerate() {
            cx.expect_int(&format!("dimension {}", ["m", "k", "n"][i]), d);
        }
        let dims: Vec<Option<i64>> = dims.iter().map(|&d| exact(func, d)).collect();
        for (name, d) in ["m", "k", "n"].iter().zip(&dims) {
            if let Some(v) = d.filter(|&v| v < 0) {
                cx.err(ErrorKind::TensorShape, format!("matmul dimension {name} = {v} is negative"));
            }
        }
        if let [Some(m), Some(k), Some(n)] = dims[..]
            && m >= 0
            && k >= 0
            && n >= 0
        {
            let want = [("C", m.checked_mul(n)), ("A", m.checked_mul(k)), ("B", k.checked_mul(n))];
            if want.iter().any(|w| w.1.is_none()) {
                cx.err(ErrorKind::TensorShape, format!("matmul dimensions m={m}, k={k}, n={n} overflow"));
            }
            for (d, (name, w)) in descs.iter().zip(want) {
                if let (Some(got), Some(w)) = (size(d), w)
                    && got != w
                {
                    cx.err(
                        ErrorKind::TensorShape,
                        format!("matmul {name} has {got} elements, expected {w} for m={m}, k={k}, n={n}"),
                    );
                }
            }
        }
    }
}

fn check_desc_bounds(cx: &mut Ctx<'_>, d: &MemDesc, len: u64, name: &str) {
    let func = cx.func;
    cx.expect_int("a descriptor offset", d.offset);
    cx.expect_int("a descriptor size", d.size);
    let (off, size) = (exact(func, d.offset), exact(func, d.size));
    let name = global(name);
    let shown = format!("{name}[{}, {}]", cx.show(d.offset), cx.show(d.size));
    if MemDesc::statically_out_of_bounds(off, size, len) {
        cx.err(
            ErrorKind::DescriptorOutOfBounds,
            format!("descriptor {shown} is out of bounds: {name} has {len} elements"),
        );
    }
}
