//! Property checks shared by the fuzz targets (`fuzz/`) and by `cargo test`
//! smoke runs (regalloc2's habit), so a fuzz property is also a unit test.
//!
//! Each check panics when its property fails; that is how a fuzzer notices.
//! They must never panic for any other reason.

use crate::text::{parse, parse_bytes, print_module};
use crate::verify::{VerifyOptions, verify_module};

/// Parsing arbitrary bytes never panics or hangs; whatever parses verifies
/// without panicking, prints, re-parses, and prints to the same text.
pub fn check_parse(data: &[u8]) {
    let Ok((module, _)) = parse_bytes(data) else { return };
    let _ = verify_module(&module, &VerifyOptions { ssa: true });
    let printed = print_module(&module);
    let (again, _) = match parse(&printed) {
        Ok(parsed) => parsed,
        Err(diags) => panic!("the printed module does not parse: {diags:?}\n{printed}"),
    };
    assert_eq!(print_module(&again), printed, "printing is not canonical");
}
