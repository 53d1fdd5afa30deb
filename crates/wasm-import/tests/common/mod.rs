//! Shared helpers: import a `wat` module, check the importer's invariants
//! on it (every function verifies, the text round-trips, the fuzz property
//! holds), and run functions with the reference interpreter.

#![allow(dead_code)]

use ir_core::interp::{Config, Trap, run};
use ir_core::text::{parse, print_module};
use ir_core::{Imm, VerifyOptions, verify_module};
use wasm_import::{Import, ImportOptions, import};

/// Imports `wat`, which must import completely, and checks the invariants.
pub fn imp(wat: &str) -> Import {
    let i = imp_partial(wat);
    let failed: Vec<_> = i.functions.iter().filter(|f| f.result.is_err()).collect();
    assert!(failed.is_empty(), "functions failed: {failed:?}");
    i
}

/// Imports `wat` (some functions may fail) and checks the invariants.
pub fn imp_partial(wat: &str) -> Import {
    let bytes = wat::parse_str(wat).unwrap_or_else(|e| panic!("bad test module: {e}"));
    wasm_import::fuzzing::check(&bytes);
    let i = import(&bytes, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&i.module, &VerifyOptions::default()).unwrap_or_else(|e| panic!("{e}\n{}", text(&i)));
    let printed = print_module(&i.module);
    let (again, _) = parse(&printed).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(print_module(&again), printed);
    i
}

/// The module's text.
pub fn text(i: &Import) -> String {
    print_module(&i.module)
}

/// One function's text.
pub fn func_text(i: &Import, name: &str) -> String {
    let f = i.module.function_by_name(name).unwrap_or_else(|| panic!("no function @{name}"));
    ir_core::text::print_function(&i.module, f)
}

/// Runs `name` on `args`.
pub fn call(i: &Import, name: &str, args: &[Imm]) -> Result<Vec<Imm>, Trap> {
    let f = i.module.function_by_name(name).unwrap_or_else(|| panic!("no function @{name}"));
    run(&i.module, f, args, Config::default()).map(|o| o.results)
}

/// Runs `name` on `args`, expecting one result.
pub fn call1(i: &Import, name: &str, args: &[Imm]) -> Imm {
    match call(i, name, args) {
        Ok(r) if r.len() == 1 => r[0],
        other => panic!("@{name}({args:?}): {other:?}\n{}", func_text(i, name)),
    }
}

pub fn i32s(v: i32) -> Imm {
    Imm::from(v)
}

pub fn i64s(v: i64) -> Imm {
    Imm::from(v)
}
