//! `mlu-isa`: an open, documented ISA for an MLU-style deep-learning
//! accelerator, built only from public facts (`docs/mlu-isa.md` cites
//! them): machine configurations, instructions, the in-memory program form,
//! an assembly text format (parser with located diagnostics, exact
//! printer), a verifier, the numeric semantics and the cost model.
//!
//! The ISA stands alone: in a default build this crate depends on no other
//! Keel crate (only `rustc-hash`), so a simulator, an assembler or another
//! compiler can use it without Keel's IR or analyses. `mlu-sim` runs its
//! programs and depends on it alone; `target-mlu` compiles Keel IR to it.
//! Parser errors are plain data ([`text::Span`], [`text::Diagnostic`]);
//! drawing them (`file:line:col`, the line and a caret) is the optional
//! `render` feature, which hands them to Keel's one renderer, the
//! `diagnostics` crate, so an assembler error reads like every other Keel
//! diagnostic and no second renderer exists.
//!
//! The machine is the accelerator that source document 000 (*Program
//! compilation method, apparatus, device, medium and program product*,
//! listed in `docs/references.md`) describes, with the public facts of
//! `docs/mlu-isa.md` §10 (§1 there states it): clusters of four IPU
//! cores; per core NRAM, WRAM, GPRs, a vector unit, a matrix unit, an
//! IO-DMA and a Move-DMA engine; per cluster a shared SRAM; DRAM shared by
//! all. Every core runs the same program (SPMD) with its own special
//! registers (`%coreid`, `%clusterid`, ...). Instructions issue in program
//! order to four pipes (scalar, compute, IO-DMA, Move-DMA) that run
//! concurrently; copies are asynchronous until a `sync`; barriers order
//! the cores of a cluster (`barrier.sync.local`) or of the chip
//! (`barrier.sync.global`). The `mlu-sim` crate runs programs.
//!
//! Choices where the public facts are silent, all documented in
//! `docs/mlu-isa.md`: 64-bit GPRs (Keel IR has `i64`/`f64` scalars);
//! scalar and vector semantics are Keel IR's (`docs/ir.md` §6) operation
//! by operation, so code lowered from Keel IR computes what Keel's
//! interpreter computes (`mlu-sim`'s tests compare every instruction with
//! it); the copy direction is given by the operands' spaces; the memory
//! core is a DMA engine, not a programmable core, so barrier counts name
//! IPU cores only; unpublished rates and latencies are model choices in
//! [`MachineConfig`].
//!
//! # Bad input
//!
//! Text is parsed into a program or a list of located diagnostics
//! ([`text::parse`]), never a panic. [`verify`] checks a program against a
//! configuration and collects every error, each a [`VerifyError`]: its
//! subject (the instruction with its index and text, the memory object or
//! the label) and a typed [`VerifyProblem`] holding the values involved;
//! it never panics, whatever the program holds (ids out of range
//! included). Programs built through the API are not checked until
//! verified; the simulator checks at run time what it needs and traps.
//! Accessors taking ids answer `None` for ids the program does not have.
//!
//! Every error is a typed value with `Display` for the message:
//! [`MachineConfig::validate`] answers a [`ConfigError`] naming the key,
//! [`Program::add_mem`] and [`Program::add_label`] a [`DeclError`] naming
//! the object or label, [`text::parse_literal`] a [`text::LiteralError`]
//! holding the literal's text. [`MachineConfig::parse`] answers a bad
//! configuration file with a located [`text::Diagnostic`].
//!
//! # Example
//!
//! Parse a kernel, verify it for an MLU370-like machine, print it back:
//!
//! ```
//! use mlu_isa::{MachineConfig, text, verify};
//!
//! let src = "\
//! .mem @x: f32[64] dram = [1.0, 2.0]
//! .mem @buf: f32[64] nram
//!     dma nram[@buf], dram[@x], 256
//!     sync.io
//!     vmul.f32 nram[@buf], nram[@buf], 2.0, 64
//!     sync.compute
//!     dma dram[@x], nram[@buf], 256
//!     exit
//! ";
//! let (program, _spans) = text::parse(src).expect("it parses");
//! verify(&program, &MachineConfig::mlu370()).expect("it verifies");
//! let printed = text::print_program(&program);
//! assert!(printed.starts_with(".mem @x: f32[64] dram at 0 = [1.0, 2.0]\n"));
//! assert_eq!(text::parse(&printed).unwrap().0, program);
//! ```

#![deny(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod config;
pub mod cost;
mod inst;
mod ops;
mod program;
pub mod semantics;
pub mod text;
mod types;
mod verify;

#[cfg(feature = "fuzzing")]
pub mod fuzzing;

pub use config::{ConfigError, MAX_CONFIG_ALIGN, MAX_CONFIG_VALUE, MachineConfig};
pub use inst::{Addr, Inst, LabelId, MemId, Operand, Uses, VSrc};
pub use ops::{BinOp, Class, ConvOp, FloatCC, IntCC, RedOp, Route, Scope, SyncKind, UnOp, VBinOp, VUnOp};
pub use program::{DeclError, Label, MemDecl, Names, Program, default_align, is_plain_name};
pub use types::{Pipe, Reg, Space, Sreg, Ty};
pub use verify::{OperandRole, VerifyError, VerifyErrorKind, VerifyProblem, VerifySubject, verify};
