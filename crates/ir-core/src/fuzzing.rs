//! Property checks shared by the fuzz targets (`fuzz/`) and by `cargo test`
//! smoke runs (regalloc2's habit), so a fuzz property is also a unit test.
//!
//! Each check panics when its property fails; that is how a fuzzer notices.
//! They must never panic for any other reason.

use crate::imm::Imm;
use crate::interp::{Config, run};
use crate::module::Module;
use crate::text::{parse, parse_bytes, print_module};
use crate::verify::{VerifyOptions, verify_module};

/// Parsing arbitrary bytes never panics or hangs; whatever parses verifies
/// without panicking, prints, re-parses, and prints to the same text, and
/// every function of it interprets (verified or not) to a result or a trap
/// without panicking.
pub fn check_parse(data: &[u8]) {
    let Ok((module, _)) = parse_bytes(data) else { return };
    let _ = verify_module(&module, &VerifyOptions { ssa: true });
    check_interpret_all(&module);
    let printed = print_module(&module);
    let (again, _) = match parse(&printed) {
        Ok(parsed) => parsed,
        Err(diags) => panic!("the printed module does not parse: {diags:?}\n{printed}"),
    };
    assert_eq!(print_module(&again), printed, "printing is not canonical");
}

/// Runs every function of `module` on zero arguments with a little fuel and
/// memory: traps are fine, panics are not.
pub fn check_interpret_all(module: &Module) {
    let config = Config { fuel: 10_000, max_call_depth: 64, max_memory_bytes: 1 << 20 };
    for (id, func) in module.functions() {
        let args: Vec<Imm> = func.signature().params.iter().map(|&t| Imm::from_bits(t, 0)).collect();
        let _ = run(module, id, &args, config);
    }
}
