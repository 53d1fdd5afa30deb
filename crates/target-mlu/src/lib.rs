//! `target-mlu`: Keel's compiler from Keel IR to the MLU-style accelerator
//! ISA of the `mlu-isa` crate ([`compile`]), and, with the `sim` feature,
//! its differential oracle (module `differential`: compile, run on `mlu-sim`,
//! compare with Keel's interpreter).
//!
//! The ISA itself (instructions, configurations, assembly text, verifier,
//! semantics, cost model) is the `mlu-isa` crate, which depends on no Keel
//! crate; this crate's public API names its types (`mlu_isa::Program`,
//! `mlu_isa::MachineConfig`, ...), so a user depends on both and imports
//! the ISA's types from `mlu_isa` directly (this crate does not re-export
//! it: one path to each type). `mlu-sim` depends on the ISA alone, so the
//! compiler may depend on the simulator (feature `sim`) without a cycle;
//! no crate exists only to break one.
//!
//! The compiler: scalar code and control flow lowered one to one, calls
//! inlined, tensor operations tiled through NRAM staging buffers, registers
//! from `regalloc-pebble`, syncs and barriers from `memdep`'s dependences,
//! double buffering, fused map runs and a multi-core split; module
//! [`compile`] documents each part and its invariants.
//!
//! # Bad input
//!
//! [`compile::compile`] verifies the Keel module first and answers every
//! problem (an unverified module, a construct the ISA cannot express, a
//! capacity overflow) with a [`compile::CompileError`], never a panic: an
//! enum with one variant per failure, holding the instruction
//! ([`compile::Site`]), the objects, the opcode or the sizes as data, with
//! `Display` for the message. The differential oracle answers a module
//! that does not compile, or a program the simulator refuses, with its
//! `DiffError`, which keeps the `CompileError` or `mlu_sim::LoadError`
//! typed.
//!
//! # Planted bugs
//!
//! Tests prove the oracles can fail by planting compiler bugs with Keel's
//! one mechanism (`test-hooks`): `fuzzing::Bug` and `fuzzing::with_bug`,
//! behind the non-default `fuzzing` feature. A default build has no
//! planted-bug type, option or field in its public API, and tests no flag
//! on its hot paths.
//!
//! # Example
//!
//! ```
//! use mlu_isa::{MachineConfig, text, verify};
//! use target_mlu::compile::{CompileOptions, compile};
//!
//! let src = "func @f(%a: i64) -> i64 {\nbb0:\n    %a = mul %a, 3\n    ret %a\n}\n";
//! let (module, _) = ir_core::text::parse(src).unwrap();
//! let f = module.function_by_name("f").unwrap();
//! let config = MachineConfig::mlu370();
//! let compiled = compile(&module, f, &config, &CompileOptions::default()).unwrap();
//! verify(&compiled.program, &config).unwrap();
//! assert!(text::print_program(&compiled.program).contains("mul.i64"));
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod compile;
#[cfg(feature = "sim")]
pub mod differential;
mod planted;

#[cfg(feature = "fuzzing")]
pub mod fuzzing;
