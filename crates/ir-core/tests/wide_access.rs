//! Wide scalar accesses (docs/ir.md §6.6): a `load`/`store` whose value
//! type is wider than an `i8` object's element covers `bytes(T)` elements,
//! little-endian. The verifier accepts exactly those pairs and bounds-checks
//! the whole width; the interpreter reads and writes the bytes and traps
//! when any of them is outside the object; `Function::accesses` reports the
//! descriptor `@M[i, bytes(T)]`.

use ir_core::interp::{Config, Interpreter, TrapKind, run};
use ir_core::text::{parse, print_module};
use ir_core::{Access, Arg, ErrorKind, Global, Imm, Module, VerifyOptions, verify_module};

fn module(src: &str) -> Module {
    let (m, _) = parse(src).unwrap_or_else(|d| panic!("{d:?}"));
    // Every module here prints back to the same text: no syntax was added.
    let (again, _) = parse(&print_module(&m)).unwrap();
    assert_eq!(print_module(&again), print_module(&m));
    m
}

fn errors(src: &str) -> Vec<(ErrorKind, String)> {
    match verify_module(&module(src), &VerifyOptions::default()) {
        Ok(()) => Vec::new(),
        Err(e) => e.0.into_iter().map(|e| (e.kind, e.message)).collect(),
    }
}

const HEADER: &str = "mem @b: i8[16] dram\nmem @w: i32[4] dram\n\n";

fn body(vars: &str, insts: &str) -> String {
    format!("{HEADER}func @f(%i: i64) {{\n{vars}bb0:\n{insts}    ret\n}}\n")
}

#[test]
fn the_verifier_accepts_every_wide_type_on_an_i8_object() {
    let vars = "    var %h: i16\n    var %x: i32\n    var %y: i64\n    var %s: f32\n    var %d: f64\n    var %c: i8\n";
    let insts = "    %h = load @b[14]\n    %x = load @b[12]\n    %y = load @b[8]\n    %s = load @b[%i]\n    \
                 %d = load @b[%i]\n    %c = load @b[15]\n    store @b[14], %h\n    store @b[12], %x\n    \
                 store @b[8], %y\n    store @b[0], %s\n    store @b[%i], %d\n    store @b[12], i32 7\n    \
                 store @b[0], f64 1.5\n    store @b[15], %c\n";
    assert_eq!(errors(&body(vars, insts)), Vec::new());
}

#[test]
fn the_verifier_rejects_other_pairs_and_bounds_checks_the_whole_width() {
    let cases: &[(&str, &str, ErrorKind, &str)] = &[
        // The width counts: 4 bytes from 13 end past 16.
        (
            "    var %x: i32\n",
            "    %x = load @b[13]\n",
            ErrorKind::DescriptorOutOfBounds,
            "an access of 4 bytes at index 13",
        ),
        (
            "    var %y: i64\n",
            "    %y = load @b[0]\n    store @b[9], %y\n",
            ErrorKind::DescriptorOutOfBounds,
            "an access of 8 bytes at index 9",
        ),
        ("", "    store @b[15], i16 1\n", ErrorKind::DescriptorOutOfBounds, "an access of 2 bytes at index 15"),
        ("    var %x: i32\n", "    %x = load @b[-1]\n", ErrorKind::DescriptorOutOfBounds, "index -1"),
        // Only `i8` objects take wide accesses, and `i1` is not one.
        ("    var %p: i1\n", "    %p = load @b[0]\n", ErrorKind::TypeMismatch, "holds i8"),
        ("    var %y: i64\n", "    %y = load @w[0]\n", ErrorKind::TypeMismatch, "result %y has type i64, expected i32"),
        (
            "    var %c: i8\n",
            "    %c = load @b[0]\n    store @w[0], %c\n",
            ErrorKind::TypeMismatch,
            "has type i8, expected i32",
        ),
    ];
    for (vars, insts, kind, text) in cases {
        let errs = errors(&body(vars, insts));
        assert_eq!(errs.len(), 1, "{insts}: {errs:?}");
        assert_eq!(errs[0].0, *kind, "{insts}: {errs:?}");
        assert!(errs[0].1.contains(*text), "{insts}: {errs:?}");
    }
}

#[test]
fn stores_and_loads_are_little_endian_and_mix_with_byte_access() {
    let src = format!(
        "{HEADER}func @f(%i: i64) -> i8, i8, i16, i32, f64, i64, f32 {{
    var %b0: i8
    var %b3: i8
    var %h: i16
    var %x: i32
    var %d: f64
    var %y: i64
    var %s: f32
bb0:
    store @b[%i], i32 0x11223344
    %b0 = load @b[%i]
    %b3 = load @b[4]
    %h = load @b[2]
    store @b[0], i8 -1
    %x = load @b[0]
    store @b[8], f64 -2.5
    %d = load @b[8]
    %y = load @b[8]
    store @b[12], f32 1.0
    %s = load @b[12]
    ret %b0, %b3, %h, %x, %d, %y, %s
}}
"
    );
    let m = module(&src);
    verify_module(&m, &VerifyOptions::default()).unwrap();
    let f = m.function_by_name("f").unwrap();
    let out = run(&m, f, &[Imm::from(1i64)], Config::default()).unwrap();
    assert_eq!(
        out.results,
        vec![
            Imm::from(0x44i8),
            Imm::from(0x11i8),
            Imm::from(0x2233i16),
            // Bytes 0..4 are ff 44 33 22.
            Imm::from(0x223344ffi32),
            Imm::f64(-2.5),
            Imm::from((-2.5f64).to_bits() as i64),
            Imm::f32(1.0),
        ]
    );
    // Memory holds the bytes as `i8` elements.
    let Some(Global::Mem(b)) = m.lookup("b") else { panic!() };
    let bytes: Vec<i64> = out.memory.elements(b).iter().map(|v| v.as_i64()).collect();
    assert_eq!(&bytes[..5], &[-1, 0x44, 0x33, 0x22, 0x11]);
    assert_eq!(&bytes[12..16], &[0, 0, -0x80, 0x3f]);
}

#[test]
fn a_wide_access_traps_when_any_byte_is_outside() {
    let src = format!(
        "{HEADER}func @f(%i: i64) -> i32 {{
    var %x: i32
bb0:
    %x = load @b[%i]
    store @b[%i], %x
    ret %x
}}
"
    );
    let m = module(&src);
    verify_module(&m, &VerifyOptions::default()).unwrap();
    let f = m.function_by_name("f").unwrap();
    assert!(run(&m, f, &[Imm::from(12i64)], Config::default()).is_ok());
    for i in [13i64, 16, -1, i64::MAX] {
        let t = run(&m, f, &[Imm::from(i)], Config::default()).unwrap_err();
        assert_eq!(t.kind, TrapKind::OutOfBounds, "{i}");
    }
    // The store traps as well, before writing anything.
    let mut interp = Interpreter::new(&m, Config::default()).unwrap();
    assert!(interp.call(f, &[Imm::from(14i64)]).is_err());
    assert!(interp.memory().elements(ir_core::Mem::from_u32(0)).iter().all(|v| v.as_i64() == 0));
}

#[test]
fn accesses_report_the_byte_width() {
    let src = format!(
        "{HEADER}func @f(%i: i64) {{
    var %x: i32
    var %c: i8
    var %y: i64
    var %e: i32
bb0:
    %x = load @b[3]
    %c = load @b[%i]
    store @b[%i], %y
    store @b[0], f32 2.0
    %e = load @w[1]
    store @w[%i], %e
    ret
}}
"
    );
    let m = module(&src);
    let f = m.function(m.function_by_name("f").unwrap()).unwrap();
    let entry = f.entry_block().unwrap();
    let got: Vec<(Access, Option<i64>, i64)> = f
        .block_insts(entry)
        .flat_map(|inst| f.accesses(inst, &m))
        .map(|a| {
            let off = match a.offset {
                Arg::Imm(i) => Some(i.as_i64()),
                Arg::Var(_) => None,
            };
            let Arg::Imm(size) = a.size else { panic!("the size is exact") };
            (a.access, off, size.as_i64())
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Access::Read, Some(3), 4),
            (Access::Read, None, 1),
            (Access::Write, None, 8),
            (Access::Write, Some(0), 4),
            (Access::Read, Some(1), 1),
            (Access::Write, None, 1),
        ]
    );
}
