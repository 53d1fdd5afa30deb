//! The interpreter's scalar semantics as a public API: what one `const`,
//! unary, binary, compare or conversion instruction computes on [`Imm`]
//! values, for other evaluators that must agree with this one bit for bit
//! (the `vectorize` crate's graph evaluator is one).
//!
//! Invariant: these are the very functions the executor calls (thin
//! wrappers over `ops.rs`), so a value computed here and one computed by
//! [`Interpreter`](super::Interpreter) for the same instruction are
//! identical, NaN bits included. A trap comes back as a [`Trap`] with no
//! location; operands of the wrong types give a [`TrapKind::Malformed`]
//! trap, never a panic.

use super::ops;
use super::trap::{Trap, TrapKind};
use crate::imm::Imm;
use crate::opcode::{FloatCC, IntCC, Opcode};
use crate::types::Type;

fn trap((kind, message): (TrapKind, String)) -> Trap {
    Trap::new(kind, message)
}

/// A unary opcode (`copy`, `neg` ... `fnearest`) applied to `a`.
pub fn unary(op: Opcode, a: Imm) -> Result<Imm, Trap> {
    ops::unary(op, a).map_err(trap)
}

/// A binary opcode (`add` ... `fcopysign`) applied to `a` and `b` (which
/// must have the same type).
pub fn binary(op: Opcode, a: Imm, b: Imm) -> Result<Imm, Trap> {
    ops::binary(op, a, b).map_err(trap)
}

/// `setp.cc a, b` on integers of one type.
pub fn int_compare(cc: IntCC, a: Imm, b: Imm) -> Result<Imm, Trap> {
    if a.ty() != b.ty() || !a.ty().is_int() {
        return Err(Trap::new(TrapKind::Malformed, format!("`setp.{cc}` on {} and {}", a.ty(), b.ty())));
    }
    Ok(ops::int_compare(cc, a, b))
}

/// `fsetp.cc a, b` on floats of one type.
pub fn float_compare(cc: FloatCC, a: Imm, b: Imm) -> Result<Imm, Trap> {
    if a.ty() != b.ty() || !a.ty().is_float() {
        return Err(Trap::new(TrapKind::Malformed, format!("`fsetp.{cc}` on {} and {}", a.ty(), b.ty())));
    }
    Ok(ops::float_compare(cc, a, b))
}

/// A conversion opcode (`sext` ... `bitcast`) from `a` to type `dst`.
pub fn convert(op: Opcode, a: Imm, dst: Type) -> Result<Imm, Trap> {
    if !op.converts(a.ty(), dst) {
        return Err(Trap::new(TrapKind::Malformed, format!("`{op}` cannot convert {} to {dst}", a.ty())));
    }
    ops::convert(op, a, dst).map_err(trap)
}

/// The additive identity of a type (`+0.0` for floats): an empty `tsum`.
pub fn zero(ty: Type) -> Imm {
    ops::zero(ty)
}

/// The smallest value of a type (signed `MIN`, or `-inf`): an empty
/// `tredmax`.
pub fn lowest(ty: Type) -> Imm {
    ops::lowest(ty)
}

/// One step of `tsum`: `acc + x` in the element type (`add` or `fadd`).
pub fn sum_step(acc: Imm, x: Imm) -> Result<Imm, Trap> {
    let op = if acc.ty().is_float() { Opcode::Fadd } else { Opcode::Add };
    binary(op, acc, x)
}

/// One step of `tredmax`: the NaN-propagating maximum (`smax` or `fmax`).
pub fn max_step(acc: Imm, x: Imm) -> Result<Imm, Trap> {
    let op = if acc.ty().is_float() { Opcode::Fmax } else { Opcode::Smax };
    binary(op, acc, x)
}

/// The signed value of an integer (`i1` true is −1), as offsets, sizes and
/// indices are read.
pub fn signed(a: Imm) -> i64 {
    ops::sval(a)
}
