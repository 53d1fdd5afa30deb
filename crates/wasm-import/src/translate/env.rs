//! What a function body may refer to, resolved to IR entities, and the
//! mapping of wasm value types onto IR parts.
//!
//! Invariants: a `v128` is two `i64` parts, low half first, everywhere
//! (params, results, locals, stack, globals), and a reference is one opaque
//! `i64` handle; [`parts`] is the one place that says so. Part names follow
//! the same order (`.lo`, then `.hi`).

use ir_core::{Callee, Imm, Mem, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use wasmparser::{FuncType, ValType};

/// The IR parts of a wasm value type: one scalar, except `v128`, which is
/// two `i64` halves (low first). References are opaque `i64` handles.
pub(crate) fn parts(t: ValType) -> &'static [Type] {
    match t {
        ValType::I32 => &[Type::I32],
        ValType::I64 => &[Type::I64],
        ValType::F32 => &[Type::F32],
        ValType::F64 => &[Type::F64],
        ValType::V128 => &[Type::I64, Type::I64],
        ValType::Ref(_) => &[Type::I64],
    }
}

/// The IR parts of a list of wasm value types.
pub(crate) fn flatten(types: &[ValType]) -> SmallVec<[Type; 4]> {
    types.iter().flat_map(|&t| parts(t).iter().copied()).collect()
}

/// What a function body may refer to, resolved to IR entities.
#[derive(Debug)]
pub(crate) struct ModuleEnv {
    /// Function types by type index (`None` for non-function types).
    pub(crate) types: Vec<Option<FuncType>>,
    /// The type index of every function, imports first.
    pub(crate) func_types: Vec<u32>,
    /// The callee of every function index (see `lib.rs` for how failed
    /// functions are remapped).
    pub(crate) callees: Vec<Callee>,
    /// Linear memories.
    pub(crate) memories: Vec<MemEnv>,
    /// Globals.
    pub(crate) globals: Vec<GlobalEnv>,
    /// The memory object and length of each data segment that has one
    /// (the passive ones).
    pub(crate) data: Vec<Option<(Mem, u64)>>,
}

/// A linear memory as the IR sees it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct MemEnv {
    /// The `i8` object.
    pub(crate) mem: Mem,
    /// Addresses are `i64`.
    pub(crate) memory64: bool,
    /// The object's length in bytes.
    pub(crate) len: u64,
}

/// A global as the IR sees it.
#[derive(Clone, Debug)]
pub(crate) enum GlobalEnv {
    /// Immutable with a constant initial value: reads fold to immediates.
    Const(SmallVec<[Imm; 2]>),
    /// A memory object of one element per part, read and written at index 0 (1).
    Mem(Mem, SmallVec<[Type; 2]>),
}

/// The names of a function's params: `%lN` or the name section's local
/// name, and `.lo`/`.hi` for the halves of a `v128`.
pub(crate) fn param_names(params: &[ValType], names: Option<&FxHashMap<u32, &str>>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, &t) in params.iter().enumerate() {
        let base = local_base_name(i as u32, names);
        push_part_names(&mut out, &base, t);
    }
    out
}

pub(super) fn local_base_name(index: u32, names: Option<&FxHashMap<u32, &str>>) -> String {
    names.and_then(|m| m.get(&index)).and_then(|n| crate::names::local_name(n)).unwrap_or_else(|| format!("l{index}"))
}

pub(super) fn push_part_names(out: &mut Vec<String>, base: &str, t: ValType) {
    if t == ValType::V128 {
        out.push(format!("{base}.lo"));
        out.push(format!("{base}.hi"));
    } else {
        out.push(base.to_string());
    }
}
