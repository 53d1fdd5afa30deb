//! Imports WebAssembly modules into Keel's IR.
//!
//! [`import`] validates a core wasm module with wasmparser (an invalid module
//! is a [`ModuleError::Invalid`] with the byte offset and wasmparser's message;
//! a component, a nested module or a function whose type is not a function
//! type is another [`ModuleError`] variant naming the offset or the function;
//! [`ModuleError::render`] shows it through Keel's one renderer, the
//! `diagnostics` crate (via `ir_core::text::render_file_error`), like every
//! other Keel error), then
//! turns each defined function into an `ir-core` function. A function that
//! still cannot be imported is reported in its [`FuncReport`] with its index
//! and a [`FuncError`] (the offset and a [`FuncErrorKind`] naming the
//! operator or feature it cannot express), and becomes an `extern` of the same name and signature so
//! that its callers import anyway.
//!
//! # Bad input
//!
//! The rule: the import never panics, whatever the bytes. A module that
//! does not validate, or is not a core module, is a [`ModuleError`] (so is
//! an [`ImportOptions::only`] naming no defined function); a function that validates but
//! cannot be translated is reported per function and imported as an
//! `extern`; every function the import produces passes
//! `ir_core::verify_function` (the `wasm` fuzz target and its smoke test
//! check all three on random and mutated modules).
//!
//! # The mapping
//!
//! (The full design, with the reasons, is `docs/design/wasm-import.md`.)
//!
//! - **Types.** `i32`, `i64`, `f32`, `f64` are themselves. A reference
//!   (`funcref`, `externref`) is an opaque `i64` handle: null is `0` and
//!   `ref.func f` is `f + 1`. A `v128` is two `i64` parts, low half first,
//!   everywhere (params, results, locals, stack, globals).
//! - **Locals and params** are vars, named from the name section or `%lN`
//!   (`%lN.lo`/`%lN.hi` for a `v128`). Every local that is ever read is
//!   zero-initialised at the top of the entry block, as wasm says.
//! - **The operand stack** becomes vars named by depth and type (`%s3.i32`),
//!   defined by the instruction that produces the value; constants and
//!   `local.get` stay operands until they must be materialised, and a
//!   comparison stays an `i1` (`%c3`) until something needs its `i32`. So
//!   `local.get 0; i32.const 1; i32.add; local.set 0` is `%l0 = add %l0, 1`.
//! - **Control.** `block`/`loop`/`if` become blocks; `br`, `br_if`,
//!   `br_table` become `jump`, `br` and `switch` (cases on the `i32` index);
//!   `return` is `ret`; `unreachable` is `trap`. Block results (and loop
//!   parameters) are the slot vars at the block's height, assigned on every
//!   incoming edge (in an edge block when a conditional branch needs copies).
//! - **Linear memory** `N` is a byte object `mem @memory: i8[LEN] dram`
//!   (initial size; [`ImportOptions`]) initialised from the active data
//!   segments with constant offsets. Loads and stores are scalar `load`/
//!   `store` with the value's own type, using the IR's wide accesses to `i8`
//!   objects (docs/ir.md §6.6); narrow ones add `sext`/`zext`/`trunc`. The
//!   index is the `i32` address itself when there is no offset (a negative
//!   index traps exactly where the unsigned address is out of bounds), else
//!   the effective address in `i64` (`zext`, `add`; a 64-bit address is
//!   clamped with `umin` first so that it cannot wrap). An access that is
//!   out of bounds for every address becomes `trap`. `memory.copy` and
//!   `memory.init` (passive segments, which get objects of their own) are
//!   `dma`; `memory.fill` is `tfill`.
//! - **Globals**: immutable ones with constant initial values fold into
//!   immediates; the others are one-element memory objects read and written
//!   at index 0 (`v128`: two `i64` elements).
//! - **Calls**: `call` is `call`; imported functions are `extern`s;
//!   `call_indirect` is `intrinsic "wasm.call_indirect"(i32 TABLE, i32 TYPE,
//!   index, args...)`; `return_call*` is the call followed by `ret`.
//! - **Numeric operators** map to `ir-core` opcodes (all of the integer and
//!   float MVP, sign extension, saturating conversions: their semantics
//!   agree, see the design note). Everything else (SIMD other than
//!   `v128.const`/`load`/`store`, atomics, tables, `memory.size`/`grow`,
//!   `data.drop`, `throw`, ...) becomes `intrinsic "wasm.NAME"(IMMEDIATES...,
//!   OPERANDS...)` with wasmparser's operator name (`wasm.i32x4.add`,
//!   `wasm.memory.grow`); a memory immediate becomes the memory index and the
//!   address operand the effective address. `try`/`try_table` (exception
//!   handling) fail their function.
//!
//! # What the interpreter can run
//!
//! `ir_core::interp` runs everything the mapping emits except intrinsics,
//! which trap as unsupported. So a function imports into runnable IR when it
//! avoids `call_indirect`, `memory.size`/`memory.grow`, table and SIMD
//! operators (other than `v128.const`/`load`/`store` and `select`),
//! atomics, `data.drop` and exceptions; calls to imports run through an
//! `ir_core::interp::ExternHandler`. Results agree with wasm's on every
//! input, traps included, except that NaN bits of arithmetic results are
//! unspecified on both sides.
//!
//! # Example
//!
//! ```
//! let wasm = [
//!     0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
//!     0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f, // type 0: (i32) -> i32
//!     0x03, 0x02, 0x01, 0x00, // function 0 has type 0
//!     0x07, 0x07, 0x01, 0x03, b'i', b'n', b'c', 0x00, 0x00, // export "inc"
//!     0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x0b, // local.get 0; i32.const 1; i32.add
//! ];
//! let imported = wasm_import::import(&wasm, &wasm_import::ImportOptions::default()).unwrap();
//! assert_eq!(imported.counts.imported, 1);
//! let text = ir_core::text::print_module(&imported.module);
//! assert!(text.contains("func @inc(%l0: i32) -> i32 {"));
//! assert!(text.contains("%s0.i32 = add %l0, 1"));
//! let f = imported.module.function_by_name("inc").unwrap();
//! let out = ir_core::interp::run(&imported.module, f, &[41i32.into()], Default::default()).unwrap();
//! assert_eq!(out.results, vec![42i32.into()]);
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod error;
mod generic;
mod module;
mod names;
mod options;
mod report;
mod translate;

#[cfg(feature = "fuzzing")]
pub mod fuzzing;

pub use error::{FuncError, FuncErrorKind, Immediate, Inconsistency, ModuleError, StackUse, TypeInfo};
pub use options::{ImportOptions, MemorySize};
pub use report::{Counts, FuncReport, Import};

use ir_core::{FuncId, VerifyOptions};
use rustc_hash::FxHashMap;

/// Imports a core WebAssembly module (binary format).
pub fn import(bytes: &[u8], options: &ImportOptions) -> Result<Import, ModuleError> {
    let parsed = module::parse(bytes)?;
    let mut forced = FxHashMap::default();
    if let Some(n) = options.only {
        let first = parsed.func_imports.len();
        let defined = first..first + parsed.bodies.len();
        if !defined.contains(&(n as usize)) {
            return Err(ModuleError::NoSuchFunction { index: n, functions: defined.end, imported: first });
        }
        for k in (0..parsed.bodies.len()).filter(|&k| first + k != n as usize) {
            forced.insert(k, FuncErrorKind::NotSelected);
        }
    }
    let imported = module::build(&parsed, options, &forced)?;
    if !options.verify {
        return Ok(imported);
    }
    let ordinal = |id: FuncId| imported.functions.iter().position(|f| f.result == Ok(id));
    for (id, _) in imported.module.functions() {
        if let Err(errors) = ir_core::verify_function(&imported.module, id, &VerifyOptions::default())
            && let Some(k) = ordinal(id)
            && let Some(first) = errors.0.into_iter().next()
        {
            forced.insert(k, FuncErrorKind::DoesNotVerify(first));
        }
    }
    if forced.is_empty() {
        return Ok(imported);
    }
    module::build(&parsed, options, &forced)
}
