//! The graph IR's scalar layer, its own and nothing of Keel IR's: the
//! scalar types ([`ScalarTy`], [`TypeClass`]), scalar values and their
//! literals ([`Imm`], [`LiteralError`]), the scalar operations
//! ([`UnaryOp`], [`BinaryOp`], [`ConvertOp`]) and compare conditions
//! ([`IntCC`], [`FloatCC`]) that the element-wise primitives
//! ([`crate::Op`]) carry, and what each computes (`semantics.rs`, used by
//! the reference evaluator, whose traps are [`ScalarError`]s).
//!
//! The vocabulary and the semantics are Keel IR's (the same names, widths,
//! encodings and bits), so that import from and lowering to Keel IR (the
//! `keel` feature) are one-to-one renamings, done in one place
//! (`bridge.rs`). Without that feature nothing here depends on Keel.
//!
//! Invariants: the modules form a chain without cycles (`ty` imports
//! nothing; `imm` and `ops` import `ty`; `literal` imports `imm` and `ty`;
//! `semantics` imports the three and `crate::trap`, and nothing imports
//! it here); every function here is total (no panics on any value).

mod imm;
mod literal;
mod ops;
pub(crate) mod semantics;
mod ty;

pub use imm::Imm;
pub use literal::LiteralError;
pub use ops::{BinaryOp, ConvertOp, FloatCC, IntCC, UnaryOp};
pub use semantics::ScalarError;
pub use ty::{ScalarTy, TypeClass};
