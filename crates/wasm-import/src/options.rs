//! What an import is asked: memory sizes, the name section, data
//! segments, limits, verification, one function only ([`ImportOptions`]).
//!
//! Invariant: plain data with defaults; the translation reads it, nothing
//! here depends on the rest of the crate.

/// How large to make linear memories.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum MemorySize {
    /// The initial size (what the module starts with; `memory.grow` is an
    /// intrinsic and does not change the object).
    #[default]
    Initial,
    /// The declared maximum, or the initial size when there is none.
    Maximum,
}

/// What the import does where there is a choice.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Use the name section (functions, locals, globals, memories, data).
    pub use_names: bool,
    /// Which size of each linear memory its object gets.
    pub memory_size: MemorySize,
    /// Largest memory object, in bytes (capped at `ir_core::MAX_MEM_LEN`).
    /// Note that the reference interpreter stores 8 bytes per element.
    pub max_memory_bytes: u64,
    /// Initialise memories from active data segments with constant offsets.
    pub data_segments: bool,
    /// Largest initialised prefix of a memory, in bytes: segments ending
    /// beyond it are left out (and noted). The IR holds initial values as
    /// a list of `i8` immediates (16 bytes each in memory, about 3 in text),
    /// so this bounds what a small input can make the import allocate.
    pub max_init_bytes: u64,
    /// Verify every imported function; one that fails (an importer bug)
    /// is reported as failed and imported as an `extern` instead.
    pub verify: bool,
    /// Import only the defined function with this wasm index (`keel import
    /// --func N`): every other defined function is still validated but
    /// declared as an `extern`, and reported as not selected
    /// ([`FuncErrorKind::NotSelected`](crate::FuncErrorKind::NotSelected)), so the module
    /// prints, parses back and verifies with just that body.
    pub only: Option<u32>,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            use_names: true,
            memory_size: MemorySize::Initial,
            max_memory_bytes: ir_core::MAX_MEM_LEN,
            data_segments: true,
            max_init_bytes: 4 << 20,
            verify: true,
            only: None,
        }
    }
}
