//! A module to analyse: IR text (parsed and verified; diagnostics on
//! stderr) or a WebAssembly binary (imported by `wasm-import`; a function
//! that cannot be imported is listed, not fatal). The input's first bytes
//! decide, not its name.

use crate::input::{Input, import_wasm};
use ir_core::Module;

/// A function the front end could not import (never fatal).
pub(crate) struct Failure {
    /// Its index in the source module.
    pub(crate) index: u32,
    /// Its name, or a description when it has none.
    pub(crate) name: String,
    /// Why.
    pub(crate) reason: String,
}

/// A loaded, verified module.
pub(crate) struct Loaded {
    pub(crate) module: Module,
    /// Functions imported from a binary module (`None` for IR text).
    pub(crate) imported: Option<usize>,
    /// Functions that could not be imported.
    pub(crate) failures: Vec<Failure>,
}

impl Loaded {
    /// Loads `input`; prints diagnostics and returns `None` when the module
    /// is unusable.
    pub(crate) fn load(input: &Input) -> Option<Loaded> {
        if input.is_wasm() {
            return Loaded::import(input);
        }
        let (module, _) = input.parse_verified("")?;
        Some(Loaded { module, imported: None, failures: Vec::new() })
    }

    fn import(input: &Input) -> Option<Loaded> {
        let imported = import_wasm(input, &wasm_import::ImportOptions::default())?;
        let failures = imported
            .functions
            .iter()
            .filter_map(|f| {
                f.result.as_ref().err().map(|e| Failure { index: f.index, name: f.name.clone(), reason: e.to_string() })
            })
            .collect();
        Some(Loaded { module: imported.module, imported: Some(imported.counts.imported), failures })
    }
}
