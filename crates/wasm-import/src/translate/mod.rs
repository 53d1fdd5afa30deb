//! One wasm function body → one `ir-core` function.
//!
//! The translator walks the operators once, in lockstep with wasmparser's
//! function validator (which has already accepted each operator when the
//! translator sees it), keeping three explicit stacks and no recursion:
//!
//! - **The operand stack**, one [`Entry`](state::Entry) per IR value part,
//!   kept in `state.rs` with the invariants that make its lazy entries sound.
//! - **The control stack** of [`Frame`](state::Frame)s, whose blocks,
//!   branches and joins are `control.rs`.
//! - **Dead code**: after `br`, `br_table`, `return`, `unreachable` or a
//!   statically out-of-bounds access, nothing is emitted until the enclosing
//!   frame's `else`/`end`; nested frames opened meanwhile are only counted.
//!
//! Files, each depending only on `env.rs` and `state.rs` (never on one
//! another); this file dispatches each operator to them:
//!
//! - `env.rs`: what a body may refer to (the module environment) and the
//!   wasm → IR type mapping.
//! - `state.rs`: the [`Translator`] and what every concern shares: the
//!   operand and control stacks, the vars, dead code.
//! - `control.rs`: structured control, branches, `br_table`, calls.
//! - `memory.rs`: loads, stores, bulk memory, address computation.
//! - `numeric.rs`: arithmetic, comparisons, conversions, constants, `select`.
//! - `variables.rs`: locals and globals.
//! - here: [`Pre`], the dispatch, and the generic lowering to
//!   `intrinsic "wasm.NAME"` for everything else (SIMD, atomics, tables,
//!   `memory.size`/`grow`, ...).
//!
//! Errors are values: an operator the translator cannot express, or an
//! internal inconsistency (which validated input cannot cause), is an
//! `Err(FuncErrorKind)` for this function only (`crate::error`; the
//! inconsistencies are `Inconsistency` values). Nothing here panics on
//! input.

mod control;
mod env;
mod memory;
mod numeric;
mod state;
mod variables;

pub(crate) use env::{GlobalEnv, MemEnv, ModuleEnv, flatten, param_names};
pub(crate) use state::Translator;

use crate::error::{FuncErrorKind, Inconsistency, TypeInfo};
use crate::generic::generic;
use env::parts;
use ir_core::Arg;
use memory::access;
use numeric::numeric;
use smallvec::SmallVec;
use state::R;
use wasmparser::{FuncValidator, Operator, ValType, ValidatorResources};

/// What the validator knew before an operator: its arity and the types of
/// the operands it pops (deepest first).
#[derive(Debug, Default)]
pub(crate) struct Pre {
    arity: Option<(u32, u32)>,
    inputs: SmallVec<[ValType; 4]>,
    inputs_known: bool,
}

impl Pre {
    /// True when translating `op` may need [`Pre`]: `drop`, `select` and the
    /// generic lowering do. Capturing costs about as much as translating,
    /// so the operators that make up most code skip it.
    pub(crate) fn wanted(op: &Operator<'_>) -> bool {
        use Operator as W;
        let skip = numeric(op).is_some()
            || access(op).is_some()
            || matches!(
                op,
                W::LocalGet { .. }
                    | W::LocalSet { .. }
                    | W::LocalTee { .. }
                    | W::GlobalGet { .. }
                    | W::GlobalSet { .. }
                    | W::I32Const { .. }
                    | W::I64Const { .. }
                    | W::F32Const { .. }
                    | W::F64Const { .. }
                    | W::Block { .. }
                    | W::Loop { .. }
                    | W::If { .. }
                    | W::Else
                    | W::End
                    | W::Br { .. }
                    | W::BrIf { .. }
                    | W::BrTable { .. }
                    | W::Return
                    | W::Call { .. }
                    | W::CallIndirect { .. }
                    | W::Nop
                    | W::Unreachable
            );
        !skip
    }

    /// Captures the operand types `op` is about to pop.
    pub(crate) fn capture(op: &Operator<'_>, v: &mut FuncValidator<ValidatorResources>, offset: u64) -> Pre {
        let arity = op.operator_arity(&v.visitor(offset));
        let mut pre = Pre { arity, inputs: SmallVec::new(), inputs_known: true };
        if let Some((pops, _)) = arity {
            for depth in (0..pops as usize).rev() {
                match v.get_operand_type(depth) {
                    Some(Some(t)) => pre.inputs.push(t),
                    _ => {
                        pre.inputs_known = false;
                        break;
                    }
                }
            }
        }
        pre
    }
}

impl Translator<'_, '_> {
    /// The generic lowering: `intrinsic "wasm.NAME"(IMMEDIATES...,
    /// OPERANDS...)` with the result types the validator reports after the
    /// operator; a memory immediate's address operand becomes the effective
    /// address.
    fn op_generic(&mut self, op: &Operator<'_>, pre: Option<&Pre>, v: &FuncValidator<ValidatorResources>) -> R<()> {
        let g = generic(op);
        let mut name = String::new();
        g.intrinsic_name(&mut name);
        let op = &name["wasm.".len()..];
        if !g.known {
            return Err(FuncErrorKind::UnknownOperator);
        }
        if let Some(immediate) = g.unsupported {
            return Err(FuncErrorKind::NoScalarForm { op: op.to_string(), immediate });
        }
        let unknown = |missing| Inconsistency::TypesUnknown { op: op.to_string(), missing };
        let pre = pre.filter(|p| p.inputs_known).ok_or_else(|| unknown(TypeInfo::OperandTypes))?;
        let (_, pushes) = pre.arity.ok_or_else(|| unknown(TypeInfo::Arity))?;
        let inputs = flatten(&pre.inputs);
        let mut args = self.pop_args(inputs.len())?;
        if let Some(memarg) = g.memarg {
            let mem = self.memory(&memarg)?;
            if let Some(first) = args.first_mut() {
                *first = self.intrinsic_address(mem, memarg.offset, *first);
            }
        }
        let mut outputs: SmallVec<[ValType; 2]> = SmallVec::new();
        for depth in (0..pushes as usize).rev() {
            match v.get_operand_type(depth) {
                Some(Some(t)) => outputs.push(t),
                _ => return Err(unknown(TypeInfo::ResultTypes).into()),
            }
        }
        let results = self.results_of(&outputs);
        let mut ops: SmallVec<[Arg; 8]> = g.imms.iter().map(|&i| Arg::Imm(i)).collect();
        ops.extend(args);
        self.b.ins().intrinsic(&name, &results, &ops);
        Ok(())
    }

    /// Translates one operator (already accepted by the validator `v`;
    /// `pre` is what the validator knew before it, when the code is live).
    pub(crate) fn op(&mut self, op: &Operator<'_>, pre: Option<&Pre>, v: &FuncValidator<ValidatorResources>) -> R<()> {
        use Operator as W;
        if self.dead {
            // Only structure matters in dead code.
            match op {
                W::Block { .. } | W::Loop { .. } | W::If { .. } => self.dead_nesting += 1,
                W::Else if self.dead_nesting == 0 => self.op_else()?,
                W::End if self.dead_nesting > 0 => self.dead_nesting -= 1,
                W::End => self.op_end()?,
                W::Try { .. } | W::TryTable { .. } | W::Delegate { .. } | W::Catch { .. } | W::CatchAll => {
                    return Err(FuncErrorKind::ExceptionHandling);
                }
                _ => {}
            }
            return Ok(());
        }
        if let Some(num) = numeric(op) {
            return self.op_numeric(num);
        }
        if let Some((memarg, acc)) = access(op) {
            return self.op_access(&memarg, acc);
        }
        if self.push_constant(op) {
            return Ok(());
        }
        match op {
            W::Unreachable => self.trap_here(),
            W::Nop => {}
            W::Block { blockty } => self.op_block(*blockty)?,
            W::Loop { blockty } => self.op_loop(*blockty)?,
            W::If { blockty } => self.op_if(*blockty)?,
            W::Else => self.op_else()?,
            W::End => self.op_end()?,
            W::Br { relative_depth } => self.op_br(*relative_depth)?,
            W::BrIf { relative_depth } => self.op_br_if(*relative_depth)?,
            W::BrTable { targets } => self.op_br_table(targets)?,
            W::Return => self.op_return()?,
            W::Call { function_index } => {
                self.op_call(*function_index)?;
            }
            W::CallIndirect { type_index, table_index } => {
                self.op_call_indirect(*type_index, *table_index)?;
            }
            W::ReturnCall { function_index } => {
                let results = self.op_call(*function_index)?;
                self.tail(results);
            }
            W::ReturnCallIndirect { type_index, table_index } => {
                let results = self.op_call_indirect(*type_index, *table_index)?;
                self.tail(results);
            }
            W::Drop => {
                let ty = pre.and_then(|p| p.inputs.first().copied()).ok_or_else(|| operand_unknown("drop"))?;
                for _ in parts(ty) {
                    self.pop()?;
                }
            }
            W::Select => {
                let ty = pre.and_then(|p| p.inputs.first().copied()).ok_or_else(|| operand_unknown("select"))?;
                self.op_select(parts(ty))?;
            }
            W::TypedSelect { ty } => self.op_select(parts(*ty))?,
            W::TypedSelectMulti { tys } => self.op_select(&flatten(tys))?,
            W::LocalGet { local_index } => self.op_local_get(*local_index)?,
            W::LocalSet { local_index } => self.op_local_set(*local_index)?,
            W::LocalTee { local_index } => self.op_local_tee(*local_index)?,
            W::GlobalGet { global_index } => self.op_global_get(*global_index)?,
            W::GlobalSet { global_index } => self.op_global_set(*global_index)?,
            W::V128Load { memarg } => self.op_v128_load(memarg)?,
            W::V128Store { memarg } => self.op_v128_store(memarg)?,
            W::RefIsNull => self.op_ref_is_null()?,
            W::MemoryCopy { dst_mem, src_mem } => self.op_memory_copy(*dst_mem, *src_mem)?,
            W::MemoryFill { mem } => self.op_memory_fill(*mem)?,
            W::MemoryInit { data_index, mem } => {
                if !self.op_memory_init(*data_index, *mem)? {
                    self.op_generic(op, pre, v)?;
                }
            }
            W::Try { .. } | W::TryTable { .. } | W::Delegate { .. } | W::Catch { .. } | W::CatchAll => {
                return Err(FuncErrorKind::ExceptionHandling);
            }
            W::Throw { .. } | W::ThrowRef | W::Rethrow { .. } => {
                // The exception leaves the function: an opaque effect, then
                // an abnormal exit.
                self.op_generic(op, pre, v)?;
                self.trap_here();
            }
            _ => self.op_generic(op, pre, v)?,
        }
        Ok(())
    }
}

/// The validator did not know the type of `op`'s one operand.
fn operand_unknown(op: &str) -> Inconsistency {
    Inconsistency::TypesUnknown { op: op.to_string(), missing: TypeInfo::OperandType }
}
