//! The import's error type, [`ImportError`]: a Keel construct the import
//! does not support (loops, stores, calls, ...), or a function that is not
//! well-formed enough to import.
//!
//! A leaf of the `import` tree: the entry point (`import/mod.rs`) and the
//! per-instruction converter (`convert.rs`) both return it, and it depends
//! on nothing of theirs (only on Keel's [`Inst`]), so the tree's imports
//! run one way. `import` re-exports it, so its public path stays
//! `vectorize::import::ImportError`.
//!
//! Invariant: `inst`, when set, is an instruction of the function being
//! imported (the one at fault); `Display` prefixes the message with it.

use ir_core::Inst;

/// Why a function cannot be imported.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportError {
    /// The instruction at fault, if any.
    pub inst: Option<Inst>,
    /// What is not supported or not well-formed.
    pub message: String,
}

impl core::fmt::Display for ImportError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ImportError {}
