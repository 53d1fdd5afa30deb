//! Keel's IR as [`RegCode`]: register classes and how each instruction
//! may move.
//!
//! Invariant: the answers are conservative: an instruction that might
//! trap or touch memory is an effect, so the pebble game never moves it
//! past another effect.

use crate::input::{InstKind, RegCode};
use cfg_dom::InstId;
use ir_core::{Format, Function, Inst, Opcode};

/// Keel's IR: every var is scalar (Keel has no vector types; tensors live
/// in memory objects); terminators are terminators; memory, calls,
/// intrinsics and instructions that may trap (division by a var or by 0
/// or −1, float-to-int conversions that are not saturating) are effects;
/// the rest is pure.
impl RegCode for Function {
    fn inst_kind(&self, inst: InstId) -> InstKind {
        let i = Inst::from_u32(inst);
        let Some(data) = self.inst(i) else { return InstKind::Effect };
        let op = data.opcode();
        if op.is_terminator() {
            return InstKind::Terminator;
        }
        match op.format() {
            Format::Const | Format::Undef | Format::Unary | Format::Select | Format::Compare => InstKind::Pure,
            Format::Convert => {
                if matches!(op, Opcode::Fptosi | Opcode::Fptoui) {
                    InstKind::Effect
                } else {
                    InstKind::Pure
                }
            }
            Format::Binary => {
                if matches!(op, Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem) && !safe_divisor(self, i, op)
                {
                    InstKind::Effect
                } else {
                    InstKind::Pure
                }
            }
            _ => InstKind::Effect,
        }
    }

    fn is_copy(&self, inst: InstId) -> bool {
        let i = Inst::from_u32(inst);
        self.inst(i).is_some_and(|d| d.opcode() == Opcode::Copy && d.guard().is_none())
            && self.operands(i).first().is_some_and(|o| o.as_var().is_some())
    }
}

/// The divisor of a division is an immediate that cannot trap it (not 0,
/// and not −1 for the signed forms, whose `MIN / -1` overflows).
fn safe_divisor(f: &Function, i: Inst, op: Opcode) -> bool {
    let Some(d) = f.operands(i).get(1).and_then(|o| o.as_const()).and_then(|c| f.imm(c)) else { return false };
    let v = d.as_i64();
    v != 0 && !(v == -1 && matches!(op, Opcode::Sdiv | Opcode::Srem))
}
