//! Keel's IR: the data model every Keel crate reads and rewrites, its text
//! format, a builder, and a verifier.
//!
//! - **Data model** ([`Module`], [`Function`]): `u32` entity ids in dense
//!   arenas (through `cranelift-entity`), data separate from [`Layout`], so
//!   passes insert, remove and move blocks and instructions in O(1).
//!   Functions carry an [`Epoch`] that every edit changes, so analyses can
//!   tell when their results are stale.
//! - **Vars are not SSA by default**: a [`Var`] is a typed storage location
//!   any number of instructions may define. SSA form is a property the
//!   verifier can check ([`VerifyOptions::ssa`]); an SSA version is a var
//!   that records its original when it is created ([`VarData::origin`];
//!   `var %x.2: i32 of %x` in text), never inferred from its name.
//! - **Predication**: any non-phi, non-terminator instruction may carry a
//!   [`Guard`] (`@%p` / `@!%p`); when it fails the instruction does nothing,
//!   so it defines without killing.
//! - **Memory**: module-level tensors ([`MemObject`]) accessed by scalar
//!   `load`/`store` and by tensor instructions over descriptors
//!   `@A[offset, size]` ([`MemDesc`]), exact or inexact (digest §002).
//! - **Text format** ([`text`]): parser with `file:line:col` diagnostics and
//!   its exact inverse, the printer; grammar in `docs/ir.md`.
//! - **Reference interpreter** ([`interp`]): runs any function on concrete
//!   arguments and memory, with fuel, and counts what executed: the judge of
//!   every transform.
//!
//! - **For `cfg-dom`'s analyses** (and `ssa`, `defuse` above them): a
//!   function builds its CFG with [`Function::cfg`] and implements
//!   `cfg_dom::VarCode` (its code as defs and uses of vars) and
//!   `cfg_dom::Versioned` (its epochs as stamps); [`node`] and [`block`]
//!   convert between blocks and CFG nodes.
//!
//! # Bad input
//!
//! One rule, crate-wide. Text input is parsed into a module or a list of
//! diagnostics ([`text::parse`]: `file:line:col`, the source line, a caret),
//! never a panic. The builder does not check what it is given (Cranelift's
//! choice: building stays cheap); [`verify_module`] does, collecting every
//! error, each naming its function, block, instruction or var, and never
//! panics whatever the builder produced. The interpreter answers a
//! malformed or misbehaving program with a [`interp::Trap`] and stops at
//! its fuel. Accessors take ids this function created: [`Function::opcode`]
//! panics on any other instruction (`# Panics`; [`Function::inst`] is the
//! checked form); option accessors ([`Function::imm`], [`Function::arg`],
//! [`Function::var_data`], [`Function::var_type`], ...) answer `None`; list
//! accessors answer an empty list, so that code walking a malformed
//! function (the verifier, the printer) never panics. Analyses of a
//! function that names vars or blocks it does not have return
//! `cfg_dom::InputError`.
//!
//! Choices where the issue was silent: block numbers are preserved by the
//! text format (Cranelift's choice, so diagnostics and dumps agree); var
//! names are unique per function and the builder makes them so; literals
//! take their type from their instruction and are written typed (`i32 5`)
//! only where that is ambiguous; the entry block must have no predecessors
//! (so it needs no phis and dominates every reachable block).
//!
//! # Example
//!
//! Build `x = a + c` under a predicate, print it, parse it back, verify it:
//!
//! ```
//! use ir_core::{Arg, FunctionBuilder, IntCC, Module, Opcode, Signature, Type, VerifyOptions};
//!
//! let mut module = Module::new();
//! let f = module
//!     .add_function("f", Signature::new([Type::I32, Type::I32], [Type::I32]), &["a", "c"])
//!     .unwrap();
//! let func = module.function_mut(f).unwrap();
//! let mut b = FunctionBuilder::new(func);
//! let (a, c) = (b.param(0).unwrap(), b.param(1).unwrap());
//! let x = b.var("x", Type::I32);
//! let p = b.var("p", Type::I1);
//! let entry = b.create_block();
//! b.switch_to_block(entry);
//! b.ins().copy(x, 0i32);
//! b.ins().setp(IntCC::Slt, p, a, c);
//! b.ins().when(p).binary(Opcode::Add, x, a, c);
//! b.ins().ret(&[Arg::Var(x)]);
//!
//! let text = ir_core::text::print_module(&module);
//! assert!(text.contains("@%p %x = add %a, %c"));
//! let (reparsed, _) = ir_core::text::parse(&text).unwrap();
//! assert_eq!(ir_core::text::print_module(&reparsed), text);
//! ir_core::verify_module(&reparsed, &VerifyOptions::default()).unwrap();
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod access;
mod builder;
mod code;
mod entities;
mod function;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod imm;
mod instructions;
mod insts;
pub mod interp;
mod layout;
mod module;
mod opcode;
mod stamp;
pub mod text;
mod types;
mod verify;

pub use access::MemAccess;
pub use builder::{Desc, FunctionBuilder, InstBuilder, TensorArg};
pub use code::{block, node};
pub use entities::{Block, Const, ExtFuncId, FuncId, Inst, IntrinsicName, JumpTable, Mem, Var};
pub use function::{Function, NameError, Signature, VarData};
pub use imm::{Imm, LiteralError, parse_float, parse_int, parse_literal};
pub use instructions::{Access, Arg, Callee, Guard, InstData, JumpTableData, MemDesc, Operand, Slot, UseSite};
pub use insts::Successors;
pub use layout::{Blocks, Insts, Layout, LayoutError};
pub use module::{ExtFunc, Global, MAX_MEM_LEN, MemObject, Module};
pub use opcode::{FloatCC, Format, IntCC, Opcode, SlotRule, TypeClass};
pub use stamp::Epoch;
pub use types::{MemSpace, Type};
pub use verify::{ErrorKind, Location, VerifierError, VerifierErrors, VerifyOptions, verify_function, verify_module};

/// Re-exported so clients can name `EntityRef`, `SecondaryMap` and friends
/// for side tables keyed by Keel entities.
pub use cranelift_entity as entity;
