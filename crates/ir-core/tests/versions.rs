//! SSA versions are recorded, not inferred from names: `add_version` and
//! `var %x.2: i32 of %x` make versions; a var named like one is a plain var;
//! the relation survives printing and parsing; a bad `of` is a parse error
//! at the declaration.

use ir_core::text::{line_col, parse, print_module};
use ir_core::{Module, Signature, Type};

const SRC: &str = "func @f(%x: i32) -> i32 {
    var %x.1: i32 of %x
    var %x.2: i32 of %x.1
    var %x.7: i32
bb0:
    %x.1 = add %x, 1
    %x.2 = add %x.1, 1
    %x.7 = add %x.2, 1
    ret %x.7
}
";

#[test]
fn versions_print_and_parse_back() {
    let (m, _) = parse(SRC).unwrap_or_else(|d| panic!("{d:?}"));
    let f = m.function(m.function_by_name("f").unwrap()).unwrap();
    let var = |n: &str| f.var_by_name(n).unwrap();
    let origin = |n: &str| f.var_data(var(n)).unwrap().origin();
    assert_eq!(origin("x.1"), Some(var("x")));
    // A version of a version is a version of the original.
    assert_eq!(origin("x.2"), Some(var("x")));
    // Named like a version, declared as a plain var: a plain var.
    assert_eq!(origin("x.7"), None);
    assert_eq!(origin("x"), None);
    let text = print_module(&m);
    assert_eq!(text, SRC.replace("of %x.1", "of %x"), "printed with the recorded original");
    let (again, _) = parse(&text).unwrap();
    assert_eq!(print_module(&again), text);
}

#[test]
fn the_builder_records_versions_and_the_printer_writes_them() {
    let mut m = Module::new();
    let id = m.add_function("g", Signature::new([Type::I64], []), &["v"]).unwrap();
    let f = m.function_mut(id).unwrap();
    let v = f.params()[0];
    let v1 = f.add_version(v).unwrap();
    let plain = f.add_var("v.2", Type::I64);
    assert_eq!(f.var_data(v1).unwrap().origin(), Some(v));
    assert_eq!(f.var_data(plain).unwrap().origin(), None);
    let text = print_module(&m);
    assert!(text.contains("    var %v.1: i64 of %v\n"), "{text}");
    assert!(text.contains("    var %v.2: i64\n"), "{text}");
}

/// The message and `line:col` of the first parse error of `src`.
fn first_error(src: &str) -> (String, usize, usize) {
    let Err(d) = parse(src) else { panic!("expected a parse error") };
    let at = line_col(src, d[0].span.start);
    (d[0].message.clone(), at.line, at.col)
}

#[test]
fn a_bad_of_is_an_error_at_the_declaration() {
    let undeclared = "func @f() {\n    var %y.1: i32 of %y\nbb0:\n    ret\n}\n";
    let (msg, line, col) = first_error(undeclared);
    assert!(msg.contains("`%y` is not declared before this version of it"), "{msg}");
    assert_eq!((line, col), (2, 22));
    let wrong_type = "func @f(%x: i32) {\n    var %x.1: i64 of %x\nbb0:\n    ret\n}\n";
    let (msg, line, col) = first_error(wrong_type);
    assert!(msg.contains("a version of `%x` must have its type i32"), "{msg}");
    assert_eq!((line, col), (2, 15));
}
