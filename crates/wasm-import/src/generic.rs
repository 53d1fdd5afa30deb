//! The generic lowering's view of an operator: its name and immediates.
//!
//! Operators without a dedicated lowering (SIMD, atomics, table operations,
//! `memory.size`/`memory.grow`, exceptions' `throw`, ...) become
//! `intrinsic "wasm.NAME"(IMMEDIATES..., OPERANDS...)`. This module derives
//! `NAME` and the immediates from wasmparser's own operator table
//! (`for_each_operator!`), so every operator wasmparser knows has an entry
//! and none is named by hand.
//!
//! Invariants: `NAME` is wasmparser's visitor name without `visit_`, with its
//! first `_` replaced by `.` (`visit_i32x4_add` → `i32x4.add`,
//! `visit_memory_grow` → `memory.grow`). Immediates are, in declaration
//! order: integers (`u8`, `u32`, `i32`, `Ordering`) as `i32`, `i64` as
//! `i64`, float constants as `f32`/`f64` with their exact bits, 128-bit
//! constants and shuffle masks as two `i64` (low half first); a memory
//! immediate contributes its memory index as an `i32` and is reported in
//! [`Generic::memarg`] so the caller can turn the address operand into an
//! effective address. Immediates with no scalar form (block types, branch
//! tables, heap and value types, ...) make [`Generic::unsupported`] name
//! the [`Immediate`].

use crate::error::Immediate;
use ir_core::{Imm, Type};
use smallvec::SmallVec;
use wasmparser::{
    BlockType, BrTable, HeapType, Ieee32, Ieee64, MemArg, MemArgTarget, Operator, Ordering, RefType, ResumeTable,
    TryTable, V128, ValType,
};

/// An operator's name and immediates, for the generic lowering.
#[derive(Debug, Default)]
pub(crate) struct Generic {
    /// wasmparser's visitor name (`visit_i32x4_add`).
    pub(crate) visit: &'static str,
    /// Scalar immediates, in declaration order.
    pub(crate) imms: SmallVec<[Imm; 4]>,
    /// The memory immediate, if the operator has one.
    pub(crate) memarg: Option<MemArg>,
    /// The immediate that cannot be written as scalars, if there is one.
    pub(crate) unsupported: Option<Immediate>,
    /// False for an operator this importer's table does not list.
    pub(crate) known: bool,
}

impl Generic {
    /// `wasm.NAME`, written into `out`.
    pub(crate) fn intrinsic_name(&self, out: &mut String) {
        out.clear();
        out.push_str("wasm.");
        let name = self.visit.strip_prefix("visit_").unwrap_or(self.visit);
        match name.split_once('_') {
            Some((head, tail)) => {
                out.push_str(head);
                out.push('.');
                out.push_str(tail);
            }
            None => out.push_str(name),
        }
    }
}

/// One immediate field of an operator.
trait Field {
    fn add(&self, g: &mut Generic);
}

fn int(g: &mut Generic, v: i64) {
    g.imms.push(Imm::int(Type::I32, v));
}

/// A 128-bit constant as two `i64` halves, low first (little-endian, as
/// wasm stores a `v128`).
pub(crate) fn v128_halves(bytes: [u8; 16]) -> [Imm; 2] {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&bytes[..8]);
    hi.copy_from_slice(&bytes[8..]);
    [Imm::int(Type::I64, i64::from_le_bytes(lo)), Imm::int(Type::I64, i64::from_le_bytes(hi))]
}

/// The IR values of an operator that pushes a constant, in both function
/// bodies and constant expressions: `i32`/`i64`/`f32`/`f64.const` as
/// themselves, `v128.const` as two `i64` halves, references as `i64`
/// (`ref.null` is 0, `ref.func f` is `f + 1`). `None` for other operators.
pub(crate) fn constant_parts(op: &Operator<'_>) -> Option<SmallVec<[Imm; 2]>> {
    let one = |i: Imm| Some(SmallVec::from_slice(&[i]));
    match *op {
        Operator::I32Const { value } => one(Imm::int(Type::I32, i64::from(value))),
        Operator::I64Const { value } => one(Imm::int(Type::I64, value)),
        Operator::F32Const { value } => one(Imm::from_bits(Type::F32, u64::from(value.bits()))),
        Operator::F64Const { value } => one(Imm::from_bits(Type::F64, value.bits())),
        Operator::V128Const { value } => Some(SmallVec::from_slice(&v128_halves(*value.bytes()))),
        Operator::RefNull { .. } => one(Imm::int(Type::I64, 0)),
        Operator::RefFunc { function_index } => one(Imm::int(Type::I64, i64::from(function_index) + 1)),
        _ => None,
    }
}

fn two_halves(g: &mut Generic, bytes: [u8; 16]) {
    g.imms.extend(v128_halves(bytes));
}

impl Field for u8 {
    fn add(&self, g: &mut Generic) {
        int(g, i64::from(*self));
    }
}

impl Field for u32 {
    fn add(&self, g: &mut Generic) {
        int(g, i64::from(*self));
    }
}

impl Field for i32 {
    fn add(&self, g: &mut Generic) {
        int(g, i64::from(*self));
    }
}

impl Field for i64 {
    fn add(&self, g: &mut Generic) {
        g.imms.push(Imm::int(Type::I64, *self));
    }
}

impl Field for Ieee32 {
    fn add(&self, g: &mut Generic) {
        g.imms.push(Imm::from_bits(Type::F32, u64::from(self.bits())));
    }
}

impl Field for Ieee64 {
    fn add(&self, g: &mut Generic) {
        g.imms.push(Imm::from_bits(Type::F64, self.bits()));
    }
}

impl Field for V128 {
    fn add(&self, g: &mut Generic) {
        two_halves(g, *self.bytes());
    }
}

impl Field for [u8; 16] {
    fn add(&self, g: &mut Generic) {
        two_halves(g, *self);
    }
}

impl Field for Ordering {
    fn add(&self, g: &mut Generic) {
        int(g, i64::from(matches!(self, Ordering::AcqRel)));
    }
}

impl Field for MemArg {
    fn add(&self, g: &mut Generic) {
        match self.target {
            MemArgTarget::Memory(m) => int(g, i64::from(m)),
            MemArgTarget::Array(_) => g.unsupported = Some(Immediate::GcArrayMemArg),
        }
        g.memarg = Some(*self);
    }
}

macro_rules! no_scalar_form {
    ($($ty:ty => $which:ident,)*) => {
        $(impl Field for $ty {
            fn add(&self, g: &mut Generic) {
                g.unsupported = Some(Immediate::$which);
            }
        })*
    };
}

no_scalar_form! {
    BlockType => BlockType,
    BrTable<'_> => BranchTable,
    HeapType => HeapType,
    RefType => RefType,
    ValType => ValType,
    Vec<ValType> => ValTypeList,
    TryTable => TryTable,
    ResumeTable => ResumeTable,
}

macro_rules! define_generic {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident ($($ann:tt)*) )*) => {
        /// The name and immediates of any operator wasmparser knows.
        pub(crate) fn generic(op: &Operator<'_>) -> Generic {
            let mut g = Generic::default();
            match op {
                $(
                    Operator::$op $({ $($arg),* })? => {
                        g.visit = stringify!($visit);
                        g.known = true;
                        $($( Field::add($arg, &mut g); )*)?
                    }
                )*
                #[allow(unreachable_patterns)]
                _ => {
                    g.visit = "visit_unknown";
                }
            }
            g
        }
    };
}

wasmparser::for_each_operator!(define_generic);

#[cfg(test)]
mod tests {
    use super::*;

    fn name(op: &Operator<'_>) -> String {
        let mut s = String::new();
        generic(op).intrinsic_name(&mut s);
        s
    }

    #[test]
    fn names_and_immediates() {
        assert_eq!(name(&Operator::I32x4Add), "wasm.i32x4.add");
        assert_eq!(name(&Operator::MemoryGrow { mem: 0 }), "wasm.memory.grow");
        assert_eq!(name(&Operator::Nop), "wasm.nop");
        let g = generic(&Operator::I8x16ExtractLaneS { lane: 3 });
        assert_eq!(g.imms.as_slice(), &[Imm::int(Type::I32, 3)]);
        let g = generic(&Operator::Block { blockty: BlockType::Empty });
        assert_eq!(g.unsupported, Some(Immediate::BlockType));
        assert!(g.known);
        let memarg = MemArg { align: 2, max_align: 2, offset: 8, target: MemArgTarget::Memory(1), ordering: None };
        let g = generic(&Operator::I32AtomicLoad { memarg });
        assert_eq!(g.memarg.map(|m| m.offset), Some(8));
        assert_eq!(g.imms.as_slice(), &[Imm::int(Type::I32, 1)]);
    }
}
