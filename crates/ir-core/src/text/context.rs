//! The type an untyped literal takes from its instruction.
//!
//! Invariant: the parser and the printer call this one function with the
//! same information (types of *var* operands and results, never of other
//! literals), so the printer writes a bare literal exactly when the parser
//! would infer the literal's stored type, and a typed literal (`i32 5`)
//! otherwise. That is what makes printing canonical and lossless even for
//! ill-typed functions.

use crate::opcode::{Format, Opcode};
use crate::types::Type;

/// What the rule may look at.
pub(crate) struct Shape<'a> {
    pub(crate) opcode: Opcode,
    /// Types of the result vars (`None` for an unknown var).
    pub(crate) result_types: &'a [Option<Type>],
    /// Types of var operands; `None` for literals.
    pub(crate) operand_types: &'a [Option<Type>],
    /// Callee parameter types, for calls.
    pub(crate) call_params: Option<&'a [Type]>,
    /// The function's return types, for `ret`.
    pub(crate) returns: &'a [Type],
    /// Element type of the `load`/`store` object, or of a tensor map's
    /// destination (first slot).
    pub(crate) mem_elem: Option<Type>,
    /// Number of operands that belong to tensor slots, and which of those
    /// operands are broadcast scalars (the rest are offsets and sizes).
    pub(crate) slot_operands: usize,
    pub(crate) scalar_operands: u32,
}

/// The index type: offsets, sizes and matmul dimensions.
pub(crate) const INDEX_TYPE: Type = Type::I64;

/// The type an untyped literal at operand `index` takes, if any.
pub(crate) fn literal_type(s: &Shape<'_>, index: usize) -> Option<Type> {
    let res0 = s.result_types.first().copied().flatten();
    let other_var = |range: core::ops::Range<usize>| {
        range.filter(|&i| i != index).find_map(|i| s.operand_types.get(i).copied().flatten())
    };
    let n = s.operand_types.len();
    match s.opcode.format() {
        Format::Const | Format::Unary => res0,
        Format::Binary => res0.or_else(|| other_var(0..n)),
        Format::Select if index == 0 => Some(Type::I1),
        Format::Select => res0.or_else(|| other_var(1..n)),
        Format::Compare => other_var(0..n),
        Format::Convert | Format::Intrinsic | Format::Switch | Format::Jump | Format::Trap | Format::Undef => None,
        Format::Call => s.call_params.and_then(|p| p.get(index).copied()),
        Format::Load => Some(INDEX_TYPE),
        Format::Store if index == 0 => Some(INDEX_TYPE),
        Format::Store => s.mem_elem,
        Format::TensorMap | Format::TensorReduce | Format::Matmul => {
            if index < s.slot_operands && index < 32 && s.scalar_operands & (1 << index) != 0 {
                s.mem_elem
            } else {
                Some(INDEX_TYPE)
            }
        }
        Format::Phi => res0.or_else(|| other_var(0..n)),
        Format::Branch => Some(Type::I1),
        Format::Ret => s.returns.get(index).copied(),
    }
}
