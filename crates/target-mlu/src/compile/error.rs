//! The compile error every part of the compiler answers bad input with.
//!
//! Invariants: a [`CompileError`] names the offending instruction, object
//! or option in its message; the compiler builds one instead of
//! panicking. This module depends on nothing else in the compiler, so
//! every module may use it without an import circle.

/// A compile error: one message, naming the instruction or objects.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CompileError {
    /// What went wrong.
    pub message: String,
}

impl CompileError {
    pub(crate) fn new(message: impl Into<String>) -> CompileError {
        CompileError { message: message.into() }
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CompileError {}
