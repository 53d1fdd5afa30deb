//! What an import gives back: the module, one report per defined function
//! (with its [`FuncError`] when it failed), and the totals ([`Import`],
//! [`FuncReport`], [`Counts`]).
//!
//! Invariant: the counts are derived from the reports and the module when
//! the import is assembled ([`Import::new`]), never kept by hand.

use crate::error::FuncError;
use ir_core::{Callee, FuncId, Module, Opcode};
use std::collections::BTreeMap;

/// The fate of one defined function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FuncReport {
    /// Its wasm function index (imported functions come first).
    pub index: u32,
    /// Its IR name (without `@`).
    pub name: String,
    /// False when [`ImportOptions::only`](crate::ImportOptions::only) left it out (it is then an
    /// `extern`, and `result` says so; it counts as skipped, not failed).
    pub selected: bool,
    /// The IR function, or why there is none (the module then declares an
    /// `extern` of this name instead).
    pub result: Result<FuncId, FuncError>,
}

/// Totals of one import.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Counts {
    /// Defined functions in the wasm module.
    pub functions: usize,
    /// Of which imported as IR functions.
    pub imported: usize,
    /// Of which failed (declared as externs).
    pub failed: usize,
    /// Of which left out by [`ImportOptions::only`](crate::ImportOptions::only) (declared as externs).
    pub skipped: usize,
    /// Imported wasm functions (externs).
    pub externs: usize,
    /// IR blocks in the imported functions.
    pub blocks: usize,
    /// IR instructions in the imported functions.
    pub instructions: usize,
    /// Of which `intrinsic`s.
    pub intrinsics: usize,
}

/// The result of importing a module.
#[derive(Debug)]
pub struct Import {
    /// The IR module.
    pub module: Module,
    /// One report per defined function, in index order.
    pub functions: Vec<FuncReport>,
    /// The callee every wasm function index became (imports and failed
    /// functions are externs).
    pub callees: Vec<Callee>,
    /// Totals.
    pub counts: Counts,
    /// How many `intrinsic` instructions of each name the functions hold.
    pub intrinsics: BTreeMap<String, usize>,
    /// Things the IR does not carry (imported memories and globals, data
    /// segments that could not be placed, capped memories), one per line.
    pub notes: Vec<String>,
    /// The start function's wasm index, if any (not called by the IR).
    pub start: Option<u32>,
}

impl Import {
    pub(crate) fn new(
        module: Module,
        functions: Vec<FuncReport>,
        callees: Vec<Callee>,
        notes: Vec<String>,
        start: Option<u32>,
    ) -> Import {
        let mut counts = Counts {
            functions: functions.len(),
            imported: functions.iter().filter(|f| f.result.is_ok()).count(),
            skipped: functions.iter().filter(|f| !f.selected).count(),
            externs: callees.len() - functions.len(),
            ..Counts::default()
        };
        counts.failed = counts.functions - counts.imported - counts.skipped;
        let mut intrinsics = BTreeMap::new();
        for (_, func) in module.functions() {
            for block in func.blocks() {
                counts.blocks += 1;
                for inst in func.block_insts(block) {
                    counts.instructions += 1;
                    if func.opcode(inst) == Opcode::Intrinsic {
                        counts.intrinsics += 1;
                        *intrinsics.entry(func.intrinsic_name(inst).unwrap_or("?").to_string()).or_insert(0) += 1;
                    }
                }
            }
        }
        Import { module, functions, callees, counts, intrinsics, notes, start }
    }

    /// The fraction of the selected defined functions imported (1 for a
    /// module with none).
    pub fn rate(&self) -> f64 {
        let selected = self.counts.functions - self.counts.skipped;
        if selected == 0 { 1.0 } else { self.counts.imported as f64 / selected as f64 }
    }
}
