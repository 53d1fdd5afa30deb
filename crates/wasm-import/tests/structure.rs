//! The shape of imported IR and the module-level contract: invalid modules
//! are errors with offsets, unsupported functions fail alone (and become
//! externs their callers still call), opaque operators are intrinsics,
//! names come from the name section and are unique, deep nesting does not
//! recurse, and the output is deterministic.

mod common;

use common::{call1, i32s, imp, imp_partial};
use ir_core::interp::{Config, ExternError, ExternHandler, Interpreter, Memory};
use ir_core::{Callee, Imm, Opcode};
use wasm_import::{FuncErrorKind, ImportOptions, ModuleError, import};

#[test]
fn an_invalid_module_is_an_error_with_its_offset() {
    let not_wasm = import(b"hello", &ImportOptions::default()).unwrap_err();
    assert!(matches!(&not_wasm, ModuleError::Invalid { message, .. } if message.contains("magic")), "{not_wasm}");
    // Well-formed but ill-typed: i32.add on an i64.
    let bytes = wat::parse_str("(module (func (result i32) (i32.add (i64.const 1) (i32.const 2))))").unwrap();
    let e = import(&bytes, &ImportOptions::default()).unwrap_err();
    let ModuleError::Invalid { offset, message } = &e else { panic!("{e:?}") };
    assert!(message.contains("type mismatch"), "{e}");
    assert!(*offset > 8 && *offset < bytes.len(), "{e}");
    assert_eq!(e.offset(), Some(*offset));
    assert!(e.to_string().starts_with("invalid WebAssembly module at offset 0x"), "{e}");
    // Rendered like every Keel diagnostic: the message, then the file (a
    // binary has no source line, so no caret).
    assert_eq!(e.render("m.wasm"), format!("error: {e}\n--> m.wasm\n"));
    assert_eq!(e.render("m.wasm"), ir_core::text::render_file_error("m.wasm", &e.to_string()));
    // Truncated input: an error inside a section (a cut between sections
    // leaves a valid, smaller module), never a panic.
    let good = wat::parse_str("(module (func (export \"f\") (result i32) (i32.const 1)))").unwrap();
    for cut in 0..good.len() {
        let r = import(&good[..cut], &ImportOptions::default());
        if cut < 8 || cut > good.len() - 4 {
            assert!(r.is_err(), "cut at {cut}");
        }
    }
    assert!(import(&good, &ImportOptions::default()).is_ok());
}

#[test]
fn only_names_a_defined_function_and_leaves_the_rest_out() {
    let bytes = wat::parse_str(
        r#"(module
      (import "env" "f" (func))
      (func (export "a") (result i32) (i32.const 1))
      (func (export "b") (result i32) (i32.const 2)))"#,
    )
    .unwrap();
    for missing in [0, 3] {
        let e = import(&bytes, &ImportOptions { only: Some(missing), ..Default::default() }).unwrap_err();
        assert_eq!(e, ModuleError::NoSuchFunction { index: missing, functions: 3, imported: 1 });
        assert_eq!(e.offset(), None);
        assert_eq!(
            e.to_string(),
            format!(
                "no function {missing} to import: the module has 3 function(s) (1 imported); its defined functions are 1..=2"
            )
        );
    }
    let m = import(&bytes, &ImportOptions { only: Some(2), ..Default::default() }).unwrap();
    let a = &m.functions[0];
    assert!(!a.selected);
    assert_eq!(a.result.as_ref().map_err(|e| &e.kind), Err(&FuncErrorKind::NotSelected));
    assert!(m.functions[1].selected && m.functions[1].result.is_ok());
    let none = wat::parse_str(r#"(module (import "env" "f" (func)))"#).unwrap();
    let e = import(&none, &ImportOptions { only: Some(0), ..Default::default() }).unwrap_err();
    assert!(e.to_string().ends_with("(1 imported); it defines none"), "{e}");
}

#[test]
fn a_function_that_cannot_be_imported_fails_alone() {
    let m = imp_partial(
        r#"(module
      (tag $e (param i32))
      (func $catches (export "catches") (param i32) (result i32)
        (block $h (result i32)
          (try_table (catch $e $h) (throw $e (local.get 0)))
          (i32.const 0)))
      (func (export "caller") (param i32) (result i32) (i32.add (call $catches (local.get 0)) (i32.const 1)))
      (func (export "thrower") (param i32) (throw $e (local.get 0))))"#,
    );
    assert_eq!(m.counts.functions, 3);
    assert_eq!(m.counts.imported, 2);
    assert_eq!(m.counts.failed, 1);
    let failed = &m.functions[0];
    assert_eq!((failed.index, failed.name.as_str()), (0, "catches"));
    let err = failed.result.as_ref().unwrap_err();
    assert_eq!(err.kind, FuncErrorKind::ExceptionHandling);
    assert!(err.to_string().contains("try"), "{err}");
    assert!(err.offset > 0);
    // The failed function is an extern, and its caller calls it.
    let text = common::text(&m);
    assert!(text.contains("extern @catches(i32) -> i32"), "{text}");
    assert!(matches!(m.callees[0], Callee::Ext(_)));
    assert!(common::func_text(&m, "caller").contains("call @catches(%l0)"));
    // `throw` is an opaque effect, then a trap.
    let thrower = common::func_text(&m, "thrower");
    assert!(thrower.contains("intrinsic \"wasm.throw\"(i32 0, %l0)\n    trap"), "{thrower}");
}

#[test]
fn opaque_operators_are_intrinsics() {
    let m = imp(r#"(module
      (memory 1 4)
      (table 4 funcref)
      (type $t (func (param i32) (result i32)))
      (func (export "ind") (param i32 i32) (result i32) (call_indirect (type $t) (local.get 0) (local.get 1)))
      (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
      (func (export "size") (result i32) (memory.size))
      (func (export "simd") (param $a i32) (result i32)
        (i32x4.extract_lane 2
          (i32x4.add (v128.load offset=16 (local.get $a)) (i32x4.splat (i32.const 3)))))
      (func (export "atomic") (param $a i32) (result i32) (i32.atomic.rmw.add offset=8 (local.get $a) (i32.const 1))))"#);
    let ind = common::func_text(&m, "ind");
    assert!(ind.contains("%s0.i32 = intrinsic \"wasm.call_indirect\"(i32 0, i32 0, %l1, %l0)"), "{ind}");
    assert!(common::func_text(&m, "grow").contains("intrinsic \"wasm.memory.grow\"(i32 0, %l0)"));
    assert!(common::func_text(&m, "size").contains("intrinsic \"wasm.memory.size\"(i32 0)"));
    let simd = common::func_text(&m, "simd");
    assert!(simd.contains("intrinsic \"wasm.i32x4.add\"("), "{simd}");
    assert!(simd.contains("intrinsic \"wasm.i32x4.splat\"(i32 3)"), "{simd}");
    assert!(simd.contains("intrinsic \"wasm.i32x4.extract_lane\"(i32 2, "), "{simd}");
    let atomic = common::func_text(&m, "atomic");
    assert!(atomic.contains("%a0 = add %a0, 8"), "{atomic}");
    assert!(atomic.contains("intrinsic \"wasm.i32.atomic_rmw_add\"(i32 0, %a0, i32 1)"), "{atomic}");
    assert_eq!(m.intrinsics.get("wasm.call_indirect"), Some(&1));
    assert_eq!(m.counts.intrinsics, m.intrinsics.values().sum::<usize>());
    // The interpreter does not run intrinsics.
    let f = m.module.function_by_name("size").unwrap();
    let t = ir_core::interp::run(&m.module, f, &[], Config::default()).unwrap_err();
    assert_eq!(t.kind, ir_core::interp::TrapKind::Unsupported);
}

struct Host;

impl ExternHandler for Host {
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError> {
        match name {
            "env.mul3" => Ok(vec![Imm::from(args[0].as_i64() as i32 * 3)]),
            "log" => {
                // Write the argument into memory, as a host would.
                let bytes = (args[0].as_i64() as i32).to_le_bytes().map(|b| Imm::from(b as i8));
                memory.write(ir_core::Mem::from_u32(0), &bytes)?;
                Ok(vec![])
            }
            _ => Err(ExternError::Unknown),
        }
    }
}

#[test]
fn imported_functions_are_externs() {
    let m = imp(r#"(module
      (import "env" "mul3" (func (param i32) (result i32)))
      (import "env" "print" (func $log (param i32)))
      (memory 1)
      (func (export "f") (param i32) (result i32)
        (call $log (i32.add (call 0 (local.get 0)) (i32.const 1)))
        (i32.load (i32.const 0))))"#);
    let text = common::text(&m);
    assert!(text.contains("extern @env.mul3(i32) -> i32\nextern @log(i32)\n"), "{text}");
    assert_eq!(m.counts.externs, 2);
    let f = m.module.function_by_name("f").unwrap();
    let mut interp = Interpreter::new(&m.module, Config::default()).unwrap();
    interp.set_extern_handler(Box::new(Host));
    assert_eq!(interp.call(f, &[i32s(4)]).unwrap(), vec![i32s(13)]);
}

#[test]
fn names_come_from_the_name_section_and_are_unique() {
    let m = imp(r#"(module
      (memory $memory 1)
      (global $memory (mut i32) (i32.const 0))
      (func $a.b (export "x") (param $p.q i32) (result i32) (local $the.local i32)
        (local.set $the.local (local.get $p.q)) (local.get $the.local))
      (func $dup (result i32) (i32.const 1))
      (func (export "dup") (result i32) (call $dup))
      (func $"with space" (result i32) (global.get $memory))
      (func (export "f4") (result i32) (i32.const 2)))"#);
    let text = common::text(&m);
    assert!(text.contains("mem @memory_1: i32[1] dram"), "{text}");
    assert!(text.contains("func @a.b(%p_q: i32) -> i32 {"), "{text}");
    assert!(text.contains("%the_local = copy %p_q"), "{text}");
    assert!(text.contains("func @dup() -> i32 {"), "{text}");
    assert!(text.contains("func @dup_1() -> i32 {"), "{text}");
    assert!(text.contains("func @\"with space\"() -> i32 {"), "{text}");
    assert!(text.contains("func @f4() -> i32 {"), "{text}");
    assert_eq!(call1(&m, "dup_1", &[]), i32s(1));
    // Without the name section: exports, then `funcN`.
    let bytes = wat::parse_str(r#"(module (func $hidden (result i32) (i32.const 1)) (func (export "e")))"#).unwrap();
    let plain = import(&bytes, &ImportOptions { use_names: false, ..ImportOptions::default() }).unwrap();
    let text = ir_core::text::print_module(&plain.module);
    assert!(text.contains("func @func0() -> i32 {") && text.contains("func @e() {"), "{text}");
}

#[test]
fn deep_nesting_does_not_recurse() {
    let depth = 20_000;
    let mut wat = String::from("(module (func (export \"deep\") (param i32) (result i32)\n");
    for _ in 0..depth {
        wat.push_str("(block ");
    }
    wat.push_str("(br_if 0 (local.get 0))");
    for _ in 0..depth {
        wat.push(')');
    }
    wat.push_str("\n(i32.const 5)))");
    let bytes = wat::parse_str(&wat).unwrap();
    let m = import(&bytes, &ImportOptions::default()).unwrap();
    assert_eq!(m.counts.imported, 1);
    let f = m.module.function_by_name("deep").unwrap();
    let out = ir_core::interp::run(&m.module, f, &[i32s(1)], Config::default()).unwrap();
    assert_eq!(out.results, vec![i32s(5)]);
    // A deep operand stack too.
    let mut wat = String::from("(module (func (export \"wide\") (result i32)\n");
    for i in 0..5_000 {
        wat.push_str(&format!("(i32.const {i})"));
    }
    for _ in 1..5_000 {
        wat.push_str("(i32.add)");
    }
    wat.push_str("))");
    let m = import(&wat::parse_str(&wat).unwrap(), &ImportOptions::default()).unwrap();
    let f = m.module.function_by_name("wide").unwrap();
    let out = ir_core::interp::run(&m.module, f, &[], Config::default()).unwrap();
    assert_eq!(out.results, vec![i32s(4999 * 5000 / 2)]);
}

#[test]
fn the_output_is_deterministic_and_round_trips() {
    let wat = r#"(module
      (memory 1)
      (data (i32.const 3) "abc")
      (global $g (mut i64) (i64.const -1))
      (func $f (export "f") (param i32 f64) (result f64)
        (local i64 v128)
        (loop $l
          (br_if $l (i32.eqz (i32.load8_u (local.get 0)))))
        (f64.add (local.get 1) (f64.convert_i64_s (global.get $g)))))"#;
    let bytes = wat::parse_str(wat).unwrap();
    let a = import(&bytes, &ImportOptions::default()).unwrap();
    let b = import(&bytes, &ImportOptions::default()).unwrap();
    assert_eq!(ir_core::text::print_module(&a.module), ir_core::text::print_module(&b.module));
    wasm_import::fuzzing::check(&bytes);
}

#[test]
fn wide_accesses_are_what_memory_analyses_see() {
    let m = imp(r#"(module (memory 1)
      (func (export "f") (param i32) (i64.store offset=8 (local.get 0) (i64.const 1)) (drop (i32.load16_u (i32.const 4)))))"#);
    let id = m.module.function_by_name("f").unwrap();
    let func = m.module.function(id).unwrap();
    let mut sizes = Vec::new();
    for block in func.blocks() {
        for inst in func.block_insts(block) {
            if matches!(func.opcode(inst), Opcode::Load | Opcode::Store) {
                for a in func.accesses(inst, &m.module) {
                    match a.size {
                        ir_core::Arg::Imm(size) => sizes.push(size.as_i64()),
                        ir_core::Arg::Var(v) => panic!("a scalar access has an exact size, not {v}"),
                    }
                }
            }
        }
    }
    assert_eq!(sizes, vec![8, 2]);
}
