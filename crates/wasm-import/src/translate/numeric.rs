//! Numeric operators: arithmetic, comparisons, conversions, sign
//! extension, constants, and `select`/`ref.is_null`: each becomes one or
//! two scalar IR instructions per part (constants none).
//!
//! Invariants: a comparison leaves a `Cond` entry (`%cD`, an `i1`) that
//! becomes an `i32` only when something reads it (`state.rs`); `eqz` of a
//! comparison is its negation. Constants stay immediates on the stack.

use super::state::{Entry, R, Translator, zero};
use ir_core::{Arg, FloatCC, Imm, IntCC, Opcode, Type};
use wasmparser::Operator;

/// How an operator maps onto a scalar IR operation.
pub(super) enum Num {
    Unary(Opcode, Type),
    Binary(Opcode, Type),
    Setp(IntCC),
    Fsetp(FloatCC),
    Eqz,
    Convert(Opcode, Type),
    /// Sign-extend the low bits of a value in place: `trunc` to the narrow
    /// type, then `sext` back.
    ExtendLow(Type, Type),
}

/// The scalar IR operation of a numeric operator; `None` for any other.
pub(super) fn numeric(op: &Operator<'_>) -> Option<Num> {
    use Num::*;
    use Opcode as O;
    use Operator as W;
    use Type::{F32, F64, I8, I16, I32, I64};
    Some(match op {
        W::I32Eqz | W::I64Eqz => Eqz,
        W::I32Eq | W::I64Eq => Setp(IntCC::Eq),
        W::I32Ne | W::I64Ne => Setp(IntCC::Ne),
        W::I32LtS | W::I64LtS => Setp(IntCC::Slt),
        W::I32LtU | W::I64LtU => Setp(IntCC::Ult),
        W::I32GtS | W::I64GtS => Setp(IntCC::Sgt),
        W::I32GtU | W::I64GtU => Setp(IntCC::Ugt),
        W::I32LeS | W::I64LeS => Setp(IntCC::Sle),
        W::I32LeU | W::I64LeU => Setp(IntCC::Ule),
        W::I32GeS | W::I64GeS => Setp(IntCC::Sge),
        W::I32GeU | W::I64GeU => Setp(IntCC::Uge),
        W::F32Eq | W::F64Eq => Fsetp(FloatCC::Eq),
        W::F32Ne | W::F64Ne => Fsetp(FloatCC::Ne),
        W::F32Lt | W::F64Lt => Fsetp(FloatCC::Lt),
        W::F32Gt | W::F64Gt => Fsetp(FloatCC::Gt),
        W::F32Le | W::F64Le => Fsetp(FloatCC::Le),
        W::F32Ge | W::F64Ge => Fsetp(FloatCC::Ge),

        W::I32Clz => Unary(O::Clz, I32),
        W::I32Ctz => Unary(O::Ctz, I32),
        W::I32Popcnt => Unary(O::Popcnt, I32),
        W::I64Clz => Unary(O::Clz, I64),
        W::I64Ctz => Unary(O::Ctz, I64),
        W::I64Popcnt => Unary(O::Popcnt, I64),

        W::I32Add => Binary(O::Add, I32),
        W::I32Sub => Binary(O::Sub, I32),
        W::I32Mul => Binary(O::Mul, I32),
        W::I32DivS => Binary(O::Sdiv, I32),
        W::I32DivU => Binary(O::Udiv, I32),
        W::I32RemS => Binary(O::Srem, I32),
        W::I32RemU => Binary(O::Urem, I32),
        W::I32And => Binary(O::And, I32),
        W::I32Or => Binary(O::Or, I32),
        W::I32Xor => Binary(O::Xor, I32),
        W::I32Shl => Binary(O::Shl, I32),
        W::I32ShrS => Binary(O::Ashr, I32),
        W::I32ShrU => Binary(O::Lshr, I32),
        W::I32Rotl => Binary(O::Rotl, I32),
        W::I32Rotr => Binary(O::Rotr, I32),
        W::I64Add => Binary(O::Add, I64),
        W::I64Sub => Binary(O::Sub, I64),
        W::I64Mul => Binary(O::Mul, I64),
        W::I64DivS => Binary(O::Sdiv, I64),
        W::I64DivU => Binary(O::Udiv, I64),
        W::I64RemS => Binary(O::Srem, I64),
        W::I64RemU => Binary(O::Urem, I64),
        W::I64And => Binary(O::And, I64),
        W::I64Or => Binary(O::Or, I64),
        W::I64Xor => Binary(O::Xor, I64),
        W::I64Shl => Binary(O::Shl, I64),
        W::I64ShrS => Binary(O::Ashr, I64),
        W::I64ShrU => Binary(O::Lshr, I64),
        W::I64Rotl => Binary(O::Rotl, I64),
        W::I64Rotr => Binary(O::Rotr, I64),

        W::F32Abs => Unary(O::Fabs, F32),
        W::F32Neg => Unary(O::Fneg, F32),
        W::F32Ceil => Unary(O::Fceil, F32),
        W::F32Floor => Unary(O::Ffloor, F32),
        W::F32Trunc => Unary(O::Ftrunc, F32),
        W::F32Nearest => Unary(O::Fnearest, F32),
        W::F32Sqrt => Unary(O::Fsqrt, F32),
        W::F64Abs => Unary(O::Fabs, F64),
        W::F64Neg => Unary(O::Fneg, F64),
        W::F64Ceil => Unary(O::Fceil, F64),
        W::F64Floor => Unary(O::Ffloor, F64),
        W::F64Trunc => Unary(O::Ftrunc, F64),
        W::F64Nearest => Unary(O::Fnearest, F64),
        W::F64Sqrt => Unary(O::Fsqrt, F64),
        W::F32Add => Binary(O::Fadd, F32),
        W::F32Sub => Binary(O::Fsub, F32),
        W::F32Mul => Binary(O::Fmul, F32),
        W::F32Div => Binary(O::Fdiv, F32),
        W::F32Min => Binary(O::Fmin, F32),
        W::F32Max => Binary(O::Fmax, F32),
        W::F32Copysign => Binary(O::Fcopysign, F32),
        W::F64Add => Binary(O::Fadd, F64),
        W::F64Sub => Binary(O::Fsub, F64),
        W::F64Mul => Binary(O::Fmul, F64),
        W::F64Div => Binary(O::Fdiv, F64),
        W::F64Min => Binary(O::Fmin, F64),
        W::F64Max => Binary(O::Fmax, F64),
        W::F64Copysign => Binary(O::Fcopysign, F64),

        W::I32WrapI64 => Convert(O::Trunc, I32),
        W::I32TruncF32S | W::I32TruncF64S => Convert(O::Fptosi, I32),
        W::I32TruncF32U | W::I32TruncF64U => Convert(O::Fptoui, I32),
        W::I64ExtendI32S => Convert(O::Sext, I64),
        W::I64ExtendI32U => Convert(O::Zext, I64),
        W::I64TruncF32S | W::I64TruncF64S => Convert(O::Fptosi, I64),
        W::I64TruncF32U | W::I64TruncF64U => Convert(O::Fptoui, I64),
        W::F32ConvertI32S | W::F32ConvertI64S => Convert(O::Sitofp, F32),
        W::F32ConvertI32U | W::F32ConvertI64U => Convert(O::Uitofp, F32),
        W::F32DemoteF64 => Convert(O::Fptrunc, F32),
        W::F64ConvertI32S | W::F64ConvertI64S => Convert(O::Sitofp, F64),
        W::F64ConvertI32U | W::F64ConvertI64U => Convert(O::Uitofp, F64),
        W::F64PromoteF32 => Convert(O::Fpext, F64),
        W::I32ReinterpretF32 => Convert(O::Bitcast, I32),
        W::I64ReinterpretF64 => Convert(O::Bitcast, I64),
        W::F32ReinterpretI32 => Convert(O::Bitcast, F32),
        W::F64ReinterpretI64 => Convert(O::Bitcast, F64),

        W::I32Extend8S => ExtendLow(I8, I32),
        W::I32Extend16S => ExtendLow(I16, I32),
        W::I64Extend8S => ExtendLow(I8, I64),
        W::I64Extend16S => ExtendLow(I16, I64),
        W::I64Extend32S => ExtendLow(I32, I64),

        W::I32TruncSatF32S | W::I32TruncSatF64S => Convert(O::FptosiSat, I32),
        W::I32TruncSatF32U | W::I32TruncSatF64U => Convert(O::FptouiSat, I32),
        W::I64TruncSatF32S | W::I64TruncSatF64S => Convert(O::FptosiSat, I64),
        W::I64TruncSatF32U | W::I64TruncSatF64U => Convert(O::FptouiSat, I64),
        _ => return None,
    })
}

impl Translator<'_, '_> {
    /// Pushes the parts of a constant operator; false if `op` is not one.
    pub(super) fn push_constant(&mut self, op: &Operator<'_>) -> bool {
        let Some(parts) = crate::generic::constant_parts(op) else { return false };
        for i in parts {
            self.push(Entry::Imm(i));
        }
        true
    }

    /// `ref.is_null`: the handle compared with the null handle `0`.
    pub(super) fn op_ref_is_null(&mut self) -> R<()> {
        let a = self.pop_arg()?;
        let c = self.cond(self.stack.len());
        self.b.ins().setp(IntCC::Eq, c, a, Imm::int(Type::I64, 0));
        self.push(Entry::Cond(c));
        Ok(())
    }

    /// `select`, part by part, on an `i1` condition.
    pub(super) fn op_select(&mut self, types: &[Type]) -> R<()> {
        let c = self.pop_cond()?;
        let n = types.len();
        let b = self.pop_args(n)?;
        let a = self.pop_args(n)?;
        for (i, &ty) in types.iter().enumerate() {
            let r = self.push_result(ty);
            self.b.ins().select(r, c, a[i], b[i]);
        }
        Ok(())
    }

    /// Translates a numeric operator classified by [`numeric`].
    pub(super) fn op_numeric(&mut self, num: Num) -> R<()> {
        match num {
            Num::Unary(op, ty) => {
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().unary(op, r, a);
            }
            Num::Binary(op, ty) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().binary(op, r, a, b);
            }
            Num::Setp(cc) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let c = self.cond(self.stack.len());
                self.b.ins().setp(cc, c, a, b);
                self.push(Entry::Cond(c));
            }
            Num::Fsetp(cc) => {
                let b = self.pop_arg()?;
                let a = self.pop_arg()?;
                let c = self.cond(self.stack.len());
                self.b.ins().fsetp(cc, c, a, b);
                self.push(Entry::Cond(c));
            }
            Num::Eqz => {
                let e = self.pop()?;
                let depth = self.stack.len();
                let c = self.cond(depth);
                match e {
                    // `eqz` of a comparison is its negation.
                    Entry::Cond(x) => {
                        self.b.ins().unary(Opcode::Not, c, x);
                    }
                    _ => {
                        let a = self.read(e, depth);
                        let ty = match a {
                            Arg::Imm(i) => i.ty(),
                            Arg::Var(v) => self.var_ty(v)?,
                        };
                        self.b.ins().setp(IntCC::Eq, c, a, zero(ty));
                    }
                }
                self.push(Entry::Cond(c));
            }
            Num::Convert(op, ty) => {
                let a = self.pop_arg()?;
                let r = self.push_result(ty);
                self.b.ins().convert(op, r, a);
            }
            Num::ExtendLow(narrow, ty) => {
                let a = self.pop_arg()?;
                let depth = self.stack.len();
                let t = self.slot(depth, narrow);
                self.b.ins().convert(Opcode::Trunc, t, a);
                let r = self.push_result(ty);
                self.b.ins().convert(Opcode::Sext, r, t);
            }
        }
        Ok(())
    }
}
