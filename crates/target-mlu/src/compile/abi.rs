//! The compiled kernel's calling convention: parameter `i` is read from
//! element `i` of [`ARGS_OBJECT`], result `i` written to element `i` of
//! [`RESULTS_OBJECT`] (both DRAM `i64` objects), each in the canonical
//! 64-bit register form of its type (`ir_core::Imm::bits`); [`Abi`]
//! describes one kernel's.
//!
//! Invariants: the object names are fixed (the lowering declares the
//! objects under them; the driver reports them in each kernel's [`Abi`],
//! where the differential oracle finds them) and start with `keel.`, a
//! prefix the lowering never gives one of the program's own objects. This
//! module depends on nothing else in the compiler.

use mlu_isa::Ty;

/// The name of the parameter object.
pub const ARGS_OBJECT: &str = "keel.args";
/// The name of the result object.
pub const RESULTS_OBJECT: &str = "keel.ret";

/// Where the kernel's parameters and results live.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Abi {
    /// The DRAM `i64` object parameter `i` is read from (element `i`).
    pub args_object: String,
    /// The DRAM `i64` object result `i` is written to (element `i`).
    pub results_object: String,
    /// Parameter types.
    pub params: Vec<Ty>,
    /// Result types.
    pub returns: Vec<Ty>,
}
