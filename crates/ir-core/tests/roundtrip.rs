//! Printing is lossless and canonical on builder-made modules.
//!
//! Properties, on functions built from `ir_gen::plan` plans (every
//! instruction format, guards and fallbacks, phis, switches, calls,
//! intrinsics, scalar and tensor memory, arbitrary control flow):
//! - a valid module verifies, and `parse(print(m))` equals `m` structurally
//!   and prints to the same text;
//! - an ill-typed ("noisy") module still round-trips exactly (literals whose
//!   type the parser could not infer are printed typed), and the verifier
//!   reports errors without panicking.

mod common;

use common::equal::module_diff;
use ir_core::text::{parse, print_module};
use ir_core::{VerifyOptions, verify_module};
use ir_gen::plan::arb_plan;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_modules_verify_and_round_trip(p in arb_plan(12, false)) {
        let m = p.build();
        if let Err(e) = verify_module(&m, &VerifyOptions::default()) {
            let text = print_module(&m);
            prop_assert!(false, "generated module does not verify:\n{e}\n{text}");
        }
        let text = print_module(&m);
        let (m2, _) = parse(&text).map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        if let Some(diff) = module_diff(&m, &m2) {
            prop_assert!(false, "{diff}\n{text}");
        }
        prop_assert_eq!(print_module(&m2), text);
        prop_assert!(verify_module(&m2, &VerifyOptions::default()).is_ok());
    }

    #[test]
    fn noisy_modules_round_trip_exactly(p in arb_plan(10, true)) {
        let m = p.build();
        let _ = verify_module(&m, &VerifyOptions { ssa: true });
        let text = print_module(&m);
        let (m2, _) = parse(&text).map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        if let Some(diff) = module_diff(&m, &m2) {
            prop_assert!(false, "{diff}\n{text}");
        }
        prop_assert_eq!(print_module(&m2), text);
        // Same module, same verdict.
        prop_assert_eq!(
            verify_module(&m, &VerifyOptions::default()).err().map(|e| e.0.len()),
            verify_module(&m2, &VerifyOptions::default()).err().map(|e| e.0.len())
        );
    }
}
