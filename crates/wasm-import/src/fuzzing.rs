//! The importer's fuzz property, shared by a fuzz target and `cargo test`
//! smoke runs (the habit of `ir_core::fuzzing`).
//!
//! [`check`] panics when the property fails; that is how a fuzzer notices.
//! It must never panic for any other reason.

use crate::{ImportOptions, import};
use ir_core::text::{parse, print_module};
use ir_core::{VerifyOptions, verify_function};

/// Importing arbitrary bytes never panics; for a valid module, every
/// imported function passes the verifier (the importer's own safety net
/// is off here, so a translation bug shows as a failure rather than as a
/// failed function), the module prints, parses back and prints to the
/// same text, and the counts add up.
pub fn check(bytes: &[u8]) {
    // Small memories and initial values: the fuzzer should spend its time on
    // code, not on allocating images.
    let options =
        ImportOptions { max_memory_bytes: 1 << 20, max_init_bytes: 1 << 16, verify: false, ..Default::default() };
    let Ok(imported) = import(bytes, &options) else { return };
    for (id, func) in imported.module.functions() {
        if let Err(e) = verify_function(&imported.module, id, &VerifyOptions::default()) {
            let text = ir_core::text::print_function(&imported.module, id);
            panic!("imported function @{} does not verify:\n{e}\n{text}", func.name());
        }
    }
    let printed = print_module(&imported.module);
    let (again, _) = match parse(&printed) {
        Ok(parsed) => parsed,
        Err(diags) => panic!("the imported module does not parse back: {diags:?}"),
    };
    assert_eq!(print_module(&again), printed, "the imported module's text does not round-trip");
    let c = &imported.counts;
    assert_eq!(c.imported + c.failed + c.skipped, c.functions);
    assert_eq!(imported.module.num_functions(), c.imported);
    assert_eq!(imported.callees.len(), c.functions + c.externs);
}
