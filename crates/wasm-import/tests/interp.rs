//! The interpretable subset: small hand-written modules, imported and run
//! with `ir_core::interp`, against the values wasm defines (traps
//! included). Every module also passes `common::imp`'s checks: each
//! function verifies and the text round-trips.

mod common;

use common::{call, call1, i32s, i64s, imp};
use ir_core::Imm;
use ir_core::interp::TrapKind;

#[test]
fn factorial_with_a_loop() {
    let m = imp(r#"(module
      (func $fact (export "fact") (param $n i64) (result i64)
        (local $acc i64)
        (local.set $acc (i64.const 1))
        (block $done
          (loop $again
            (br_if $done (i64.le_s (local.get $n) (i64.const 1)))
            (local.set $acc (i64.mul (local.get $acc) (local.get $n)))
            (local.set $n (i64.sub (local.get $n) (i64.const 1)))
            (br $again)))
        (local.get $acc)))"#);
    for (n, want) in [(0i64, 1i64), (1, 1), (5, 120), (20, 2_432_902_008_176_640_000)] {
        assert_eq!(call1(&m, "fact", &[i64s(n)]), i64s(want));
    }
    // Locals stay vars; the multiply updates the local in place.
    let text = common::func_text(&m, "fact");
    assert!(text.contains("%acc = mul %acc, %n"), "{text}");
    assert!(text.contains("%n = sub %n, 1"), "{text}");
}

#[test]
fn recursive_fibonacci() {
    let m = imp(r#"(module
      (func $fib (export "fib") (param i32) (result i32)
        (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
          (then (local.get 0))
          (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                         (call $fib (i32.sub (local.get 0) (i32.const 2))))))))"#);
    let fibs = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55];
    for (n, &want) in fibs.iter().enumerate() {
        assert_eq!(call1(&m, "fib", &[i32s(n as i32)]), i32s(want));
    }
    assert_eq!(call1(&m, "fib", &[i32s(20)]), i32s(6765));
}

#[test]
fn br_table_is_a_switch() {
    let m = imp(r#"(module
      (func $classify (export "classify") (param $x i32) (result i32)
        (block $other
          (block $two
            (block $one
              (block $zero
                (br_table $zero $one $two $one $other (local.get $x)))
              (return (i32.const 100)))
            (return (i32.const 101)))
          (return (i32.const 102)))
        (i32.const -1)))"#);
    let text = common::func_text(&m, "classify");
    assert!(text.contains("switch %x, "), "{text}");
    for (x, want) in [(0, 100), (1, 101), (2, 102), (3, 101), (4, -1), (-1, -1), (1000, -1)] {
        assert_eq!(call1(&m, "classify", &[i32s(x)]), i32s(want), "x = {x}");
    }
}

#[test]
fn br_table_carrying_values_through_edge_blocks() {
    let m = imp(r#"(module
      (func (export "f") (param $x i32) (result i32)
        (block $b (result i32)
          (block $a (result i32)
            (i32.mul (local.get $x) (i32.const 10))
            (local.get $x)
            (br_table $a $b $a))
          (i32.add (i32.const 1))))
      (func (export "g") (param $x i32) (result i32)
        (i32.const 7)
        (br_table 0 0 (local.get $x))))"#);
    // x = 0 → $a with 0 → +1; x = 1 → $b with 10; x = 2 → default $a: 20 + 1.
    for (x, want) in [(0, 1), (1, 10), (2, 21), (9, 91)] {
        assert_eq!(call1(&m, "f", &[i32s(x)]), i32s(want), "x = {x}");
    }
    assert_eq!(call1(&m, "g", &[i32s(3)]), i32s(7));
}

#[test]
fn select_compare_and_eqz() {
    let m = imp(r#"(module
      (func (export "max") (param i32 i32) (result i32)
        (select (local.get 0) (local.get 1) (i32.gt_s (local.get 0) (local.get 1))))
      (func (export "is_zero") (param i64) (result i32) (i64.eqz (local.get 0)))
      (func (export "not_lt") (param i32 i32) (result i32) (i32.eqz (i32.lt_u (local.get 0) (local.get 1))))
      (func (export "sel_f64") (param f64 f64 i32) (result f64)
        (select (result f64) (local.get 0) (local.get 1) (local.get 2))))"#);
    assert_eq!(call1(&m, "max", &[i32s(-3), i32s(2)]), i32s(2));
    assert_eq!(call1(&m, "max", &[i32s(7), i32s(2)]), i32s(7));
    assert_eq!(call1(&m, "is_zero", &[i64s(0)]), i32s(1));
    assert_eq!(call1(&m, "is_zero", &[i64s(5)]), i32s(0));
    assert_eq!(call1(&m, "not_lt", &[i32s(-1), i32s(1)]), i32s(1));
    assert_eq!(call1(&m, "not_lt", &[i32s(0), i32s(1)]), i32s(0));
    assert_eq!(call1(&m, "sel_f64", &[Imm::f64(1.5), Imm::f64(2.5), i32s(0)]), Imm::f64(2.5));
    assert_eq!(call1(&m, "sel_f64", &[Imm::f64(1.5), Imm::f64(2.5), i32s(9)]), Imm::f64(1.5));
    // A comparison feeding `select` stays an `i1`.
    assert!(common::func_text(&m, "max").contains("= select %c"), "{}", common::func_text(&m, "max"));
}

#[test]
fn integer_arithmetic_matches_wasm() {
    let m = imp(r#"(module
      (func (export "div_s") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
      (func (export "rem_s") (param i32 i32) (result i32) (i32.rem_s (local.get 0) (local.get 1)))
      (func (export "div_u") (param i64 i64) (result i64) (i64.div_u (local.get 0) (local.get 1)))
      (func (export "rem_u") (param i64 i64) (result i64) (i64.rem_u (local.get 0) (local.get 1)))
      (func (export "shl") (param i32 i32) (result i32) (i32.shl (local.get 0) (local.get 1)))
      (func (export "shr_s") (param i64 i64) (result i64) (i64.shr_s (local.get 0) (local.get 1)))
      (func (export "shr_u") (param i32 i32) (result i32) (i32.shr_u (local.get 0) (local.get 1)))
      (func (export "rotl") (param i32 i32) (result i32) (i32.rotl (local.get 0) (local.get 1)))
      (func (export "rotr") (param i64 i64) (result i64) (i64.rotr (local.get 0) (local.get 1)))
      (func (export "clz") (param i32) (result i32) (i32.clz (local.get 0)))
      (func (export "ctz") (param i64) (result i64) (i64.ctz (local.get 0)))
      (func (export "popcnt") (param i64) (result i64) (i64.popcnt (local.get 0)))
      (func (export "wrap") (param i64) (result i32) (i32.wrap_i64 (local.get 0)))
      (func (export "ext_u") (param i32) (result i64) (i64.extend_i32_u (local.get 0)))
      (func (export "ext_s") (param i32) (result i64) (i64.extend_i32_s (local.get 0)))
      (func (export "mix") (param i32 i32) (result i32)
        (i32.xor (i32.and (local.get 0) (i32.const 0xff00)) (i32.or (local.get 1) (i32.const 1)))))"#);
    assert_eq!(call1(&m, "div_s", &[i32s(-7), i32s(2)]), i32s(-3));
    assert_eq!(call1(&m, "rem_s", &[i32s(-7), i32s(2)]), i32s(-1));
    assert_eq!(call1(&m, "rem_s", &[i32s(i32::MIN), i32s(-1)]), i32s(0));
    assert_eq!(call(&m, "div_s", &[i32s(i32::MIN), i32s(-1)]).unwrap_err().kind, TrapKind::IntegerOverflow);
    assert_eq!(call(&m, "div_s", &[i32s(1), i32s(0)]).unwrap_err().kind, TrapKind::DivisionByZero);
    assert_eq!(call(&m, "rem_u", &[i64s(1), i64s(0)]).unwrap_err().kind, TrapKind::DivisionByZero);
    assert_eq!(call1(&m, "div_u", &[i64s(-1), i64s(2)]), i64s(i64::MAX));
    assert_eq!(call1(&m, "rem_u", &[i64s(-1), i64s(10)]), i64s((u64::MAX % 10) as i64));
    assert_eq!(call1(&m, "shl", &[i32s(1), i32s(33)]), i32s(2));
    assert_eq!(call1(&m, "shr_s", &[i64s(-16), i64s(66)]), i64s(-4));
    assert_eq!(call1(&m, "shr_u", &[i32s(-16), i32s(28)]), i32s(15));
    assert_eq!(call1(&m, "rotl", &[i32s(0x8000_0001u32 as i32), i32s(1)]), i32s(3));
    assert_eq!(call1(&m, "rotr", &[i64s(1), i64s(1)]), i64s(i64::MIN));
    assert_eq!(call1(&m, "clz", &[i32s(0)]), i32s(32));
    assert_eq!(call1(&m, "clz", &[i32s(1)]), i32s(31));
    assert_eq!(call1(&m, "ctz", &[i64s(0)]), i64s(64));
    assert_eq!(call1(&m, "ctz", &[i64s(8)]), i64s(3));
    assert_eq!(call1(&m, "popcnt", &[i64s(-1)]), i64s(64));
    assert_eq!(call1(&m, "wrap", &[i64s(0x1_0000_0005)]), i32s(5));
    assert_eq!(call1(&m, "ext_u", &[i32s(-1)]), i64s(0xffff_ffff));
    assert_eq!(call1(&m, "ext_s", &[i32s(-1)]), i64s(-1));
    assert_eq!(call1(&m, "mix", &[i32s(0x1234), i32s(0x10)]), i32s(0x1200 ^ 0x11));
}

#[test]
fn sign_extension_operators() {
    let m = imp(r#"(module
      (func (export "e8") (param i32) (result i32) (i32.extend8_s (local.get 0)))
      (func (export "e16") (param i32) (result i32) (i32.extend16_s (local.get 0)))
      (func (export "e64_32") (param i64) (result i64) (i64.extend32_s (local.get 0)))
      (func (export "e64_8") (param i64) (result i64) (i64.extend8_s (local.get 0))))"#);
    assert_eq!(call1(&m, "e8", &[i32s(0x180)]), i32s(-128));
    assert_eq!(call1(&m, "e8", &[i32s(0x17f)]), i32s(127));
    assert_eq!(call1(&m, "e16", &[i32s(0x1_8000)]), i32s(-32768));
    assert_eq!(call1(&m, "e64_32", &[i64s(0x1_8000_0000)]), i64s(-0x8000_0000));
    assert_eq!(call1(&m, "e64_8", &[i64s(0xff)]), i64s(-1));
}

#[test]
fn float_operators_and_conversions() {
    let m = imp(r#"(module
      (func (export "min") (param f32 f32) (result f32) (f32.min (local.get 0) (local.get 1)))
      (func (export "max") (param f64 f64) (result f64) (f64.max (local.get 0) (local.get 1)))
      (func (export "nearest") (param f64) (result f64) (f64.nearest (local.get 0)))
      (func (export "copysign") (param f32 f32) (result f32) (f32.copysign (local.get 0) (local.get 1)))
      (func (export "hyp") (param f64 f64) (result f64)
        (f64.sqrt (f64.add (f64.mul (local.get 0) (local.get 0)) (f64.mul (local.get 1) (local.get 1)))))
      (func (export "lt") (param f64 f64) (result i32) (f64.lt (local.get 0) (local.get 1)))
      (func (export "ne") (param f32 f32) (result i32) (f32.ne (local.get 0) (local.get 1)))
      (func (export "trunc_s") (param f64) (result i32) (i32.trunc_f64_s (local.get 0)))
      (func (export "trunc_u") (param f32) (result i64) (i64.trunc_f32_u (local.get 0)))
      (func (export "sat_s") (param f64) (result i32) (i32.trunc_sat_f64_s (local.get 0)))
      (func (export "sat_u") (param f32) (result i32) (i32.trunc_sat_f32_u (local.get 0)))
      (func (export "conv_u") (param i32) (result f64) (f64.convert_i32_u (local.get 0)))
      (func (export "conv_s") (param i64) (result f32) (f32.convert_i64_s (local.get 0)))
      (func (export "demote") (param f64) (result f32) (f32.demote_f64 (local.get 0)))
      (func (export "bits") (param f32) (result i32) (i32.reinterpret_f32 (local.get 0)))
      (func (export "from_bits") (param i64) (result f64) (f64.reinterpret_i64 (local.get 0)))
      (func (export "neg_abs") (param f64) (result f64) (f64.neg (f64.abs (local.get 0))))
      (func (export "floor_ceil") (param f32) (result f32)
        (f32.sub (f32.ceil (local.get 0)) (f32.floor (local.get 0)))))"#);
    let nan32 = Imm::f32(f32::NAN);
    assert_eq!(call1(&m, "min", &[Imm::f32(0.0), Imm::f32(-0.0)]).bits(), Imm::f32(-0.0).bits());
    assert!(call1(&m, "min", &[Imm::f32(1.0), nan32]).as_f32().is_nan());
    assert_eq!(call1(&m, "max", &[Imm::f64(-0.0), Imm::f64(0.0)]).bits(), Imm::f64(0.0).bits());
    assert_eq!(call1(&m, "nearest", &[Imm::f64(2.5)]), Imm::f64(2.0));
    assert_eq!(call1(&m, "nearest", &[Imm::f64(-3.5)]), Imm::f64(-4.0));
    assert_eq!(call1(&m, "copysign", &[Imm::f32(3.0), Imm::f32(-0.0)]), Imm::f32(-3.0));
    assert_eq!(call1(&m, "hyp", &[Imm::f64(3.0), Imm::f64(4.0)]), Imm::f64(5.0));
    assert_eq!(call1(&m, "lt", &[Imm::f64(1.0), Imm::f64(f64::NAN)]), i32s(0));
    assert_eq!(call1(&m, "lt", &[Imm::f64(1.0), Imm::f64(2.0)]), i32s(1));
    assert_eq!(call1(&m, "ne", &[nan32, nan32]), i32s(1));
    assert_eq!(call1(&m, "trunc_s", &[Imm::f64(-2.9)]), i32s(-2));
    assert_eq!(call(&m, "trunc_s", &[Imm::f64(3e9)]).unwrap_err().kind, TrapKind::InvalidConversion);
    assert_eq!(call(&m, "trunc_s", &[Imm::f64(f64::NAN)]).unwrap_err().kind, TrapKind::InvalidConversion);
    assert_eq!(call1(&m, "trunc_u", &[Imm::f32(-0.75)]), i64s(0));
    assert_eq!(call1(&m, "trunc_u", &[Imm::f32(1e19)]), i64s(1e19f32 as u64 as i64));
    assert_eq!(call1(&m, "sat_s", &[Imm::f64(1e12)]), i32s(i32::MAX));
    assert_eq!(call1(&m, "sat_s", &[Imm::f64(f64::NAN)]), i32s(0));
    assert_eq!(call1(&m, "sat_u", &[Imm::f32(-5.0)]), i32s(0));
    assert_eq!(call1(&m, "sat_u", &[Imm::f32(5e9)]), i32s(-1));
    assert_eq!(call1(&m, "conv_u", &[i32s(-1)]), Imm::f64(4_294_967_295.0));
    assert_eq!(call1(&m, "conv_s", &[i64s(-(1 << 40))]), Imm::f32(-(2f32.powi(40))));
    assert_eq!(call1(&m, "demote", &[Imm::f64(0.1)]), Imm::f32(0.1));
    assert_eq!(call1(&m, "bits", &[Imm::f32(1.0)]), i32s(0x3f80_0000));
    assert_eq!(call1(&m, "from_bits", &[i64s(0x4000_0000_0000_0000)]), Imm::f64(2.0));
    assert_eq!(call1(&m, "neg_abs", &[Imm::f64(2.0)]), Imm::f64(-2.0));
    assert_eq!(call1(&m, "floor_ceil", &[Imm::f32(1.25)]), Imm::f32(1.0));
}

#[test]
fn loads_and_stores_with_offsets_and_narrow_widths() {
    let m = imp(r#"(module
      (memory 1)
      (data (i32.const 16) "\01\02\03\04\05\06\07\08\ff\fe")
      (func (export "ld32") (param i32) (result i32) (i32.load offset=16 (local.get 0)))
      (func (export "ld8s") (param i32) (result i32) (i32.load8_s offset=24 (local.get 0)))
      (func (export "ld8u") (param i32) (result i32) (i32.load8_u offset=24 (local.get 0)))
      (func (export "ld16s") (param i32) (result i64) (i64.load16_s (local.get 0)))
      (func (export "ld32u") (param i32) (result i64) (i64.load32_u (local.get 0)))
      (func (export "ld64") (param i32) (result i64) (i64.load (local.get 0)))
      (func (export "st_ld") (param $a i32) (param $v i64) (result i64)
        (i64.store offset=100 (local.get $a) (local.get $v))
        (i64.store8 offset=100 (local.get $a) (i64.const 0x1ff))
        (i64.load offset=100 (local.get $a)))
      (func (export "st16") (param $a i32) (param $v i32) (result i32)
        (i32.store16 (local.get $a) (local.get $v))
        (i32.load (local.get $a)))
      (func (export "f32_rt") (param $a i32) (param $v f32) (result f32)
        (f32.store offset=3 (local.get $a) (local.get $v))
        (f32.load offset=3 (local.get $a)))
      (func (export "f64_rt") (param $a i32) (param $v f64) (result f64)
        (f64.store (local.get $a) (local.get $v))
        (f64.load (local.get $a))))"#);
    assert_eq!(call1(&m, "ld32", &[i32s(0)]), i32s(0x0403_0201));
    assert_eq!(call1(&m, "ld32", &[i32s(1)]), i32s(0x0504_0302));
    assert_eq!(call1(&m, "ld8s", &[i32s(0)]), i32s(-1));
    assert_eq!(call1(&m, "ld8u", &[i32s(0)]), i32s(255));
    assert_eq!(call1(&m, "ld8s", &[i32s(1)]), i32s(-2));
    assert_eq!(call1(&m, "ld16s", &[i32s(24)]), i64s(0xfeff_u16 as i16 as i64));
    assert_eq!(call1(&m, "ld32u", &[i32s(22)]), i64s(0xfeff_0807));
    assert_eq!(call1(&m, "ld64", &[i32s(16)]), i64s(0x0807_0605_0403_0201));
    assert_eq!(call1(&m, "st_ld", &[i32s(8), i64s(0x1122_3344_5566_7788)]), i64s(0x1122_3344_5566_77ff));
    assert_eq!(call1(&m, "st16", &[i32s(200), i32s(0x7abcd)]), i32s(0xabcd));
    assert_eq!(call1(&m, "f32_rt", &[i32s(1), Imm::f32(-1.5)]), Imm::f32(-1.5));
    assert_eq!(call1(&m, "f64_rt", &[i32s(5), Imm::f64(6.25)]), Imm::f64(6.25));
    // Out of bounds traps, whatever way the address is out: past the end,
    // "negative" (a large unsigned address), or through the offset.
    assert_eq!(call(&m, "ld32", &[i32s(65536 - 16 - 3)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call(&m, "ld64", &[i32s(-1)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call(&m, "ld8u", &[i32s(-20)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call1(&m, "ld32", &[i32s(65536 - 16 - 4)]), i32s(0));
    // The memory is a byte object initialised from the data segment.
    let text = common::text(&m);
    assert!(text.contains("mem @memory: i8[65536] dram = [0, 0,"), "{}", &text[..200]);
}

#[test]
fn a_constant_address_out_of_bounds_traps() {
    let m = imp(r#"(module
      (memory 1)
      (func (export "f") (result i32) (i32.load (i32.const 65534)))
      (func (export "g") (param i32) (result i32) (i32.load offset=65533 (local.get 0))))"#);
    assert_eq!(call(&m, "f", &[]).unwrap_err().kind, TrapKind::Trap);
    assert_eq!(call(&m, "g", &[i32s(0)]).unwrap_err().kind, TrapKind::Trap);
}

#[test]
fn globals_are_objects_or_constants() {
    let m = imp(r#"(module
      (global $counter (mut i32) (i32.const 10))
      (global $k i64 (i64.const 77))
      (global $pi f64 (f64.const 3.25))
      (func $bump (export "bump") (result i32)
        (global.set $counter (i32.add (global.get $counter) (i32.const 1)))
        (global.get $counter))
      (func (export "twice") (result i32) (drop (call $bump)) (call $bump))
      (func (export "k") (result i64) (global.get $k))
      (func (export "pi") (result f64) (global.get $pi)))"#);
    assert_eq!(call1(&m, "bump", &[]), i32s(11));
    assert_eq!(call1(&m, "twice", &[]), i32s(12));
    assert_eq!(call1(&m, "k", &[]), i64s(77));
    assert_eq!(call1(&m, "pi", &[]), Imm::f64(3.25));
    let text = common::text(&m);
    assert!(text.contains("mem @counter: i32[1] dram = [10]"), "{text}");
    assert!(!text.contains("@k:"), "{text}");
    assert!(common::func_text(&m, "k").contains("ret 77"));
}

#[test]
fn block_results_multi_value_and_loop_parameters() {
    let m = imp(r#"(module
      (func (export "abs") (param i32) (result i32)
        (block $done (result i32)
          (br_if $done (local.get 0) (i32.ge_s (local.get 0) (i32.const 0)))
          (drop)
          (i32.sub (i32.const 0) (local.get 0))))
      (func $divmod (export "divmod") (param i32 i32) (result i32 i32)
        (i32.div_u (local.get 0) (local.get 1))
        (i32.rem_u (local.get 0) (local.get 1)))
      (func (export "use_divmod") (param i32 i32) (result i32)
        (call $divmod (local.get 0) (local.get 1))
        (i32.sub))
      (func (export "swap_sub") (param i32 i32) (result i32)
        (local.get 0) (local.get 1)
        (block (param i32 i32) (result i32 i32) (local.set 0) (local.set 1) (local.get 0) (local.get 1))
        (i32.sub))
      (func (export "sum_to") (param $n i32) (result i32)
        (i32.const 0) (local.get $n)
        (loop $l (param i32 i32) (result i32)
          (local.set $n)
          (i32.add (local.get $n))
          (local.get $n) (i32.const 1) (i32.sub)
          (local.tee $n)
          (br_if $l (i32.gt_s (local.get $n) (i32.const 0)))
          (drop)))
      (func (export "if_params") (param i32 i32) (result i32)
        (local.get 0)
        (if (param i32) (result i32) (local.get 1)
          (then (i32.const 100) (i32.add))
          (else (i32.const 7) (i32.mul)))))"#);
    assert_eq!(call1(&m, "abs", &[i32s(-5)]), i32s(5));
    assert_eq!(call1(&m, "abs", &[i32s(6)]), i32s(6));
    assert_eq!(call(&m, "divmod", &[i32s(17), i32s(5)]).unwrap(), vec![i32s(3), i32s(2)]);
    assert_eq!(call1(&m, "use_divmod", &[i32s(17), i32s(5)]), i32s(1));
    assert_eq!(call1(&m, "swap_sub", &[i32s(10), i32s(3)]), i32s(-7));
    assert_eq!(call1(&m, "sum_to", &[i32s(4)]), i32s(10));
    assert_eq!(call1(&m, "sum_to", &[i32s(1)]), i32s(1));
    assert_eq!(call1(&m, "if_params", &[i32s(5), i32s(1)]), i32s(105));
    assert_eq!(call1(&m, "if_params", &[i32s(5), i32s(0)]), i32s(35));
}

#[test]
fn if_else_and_dead_code() {
    let m = imp(r#"(module
      (func (export "sign") (param i32) (result i32)
        (if (result i32) (i32.lt_s (local.get 0) (i32.const 0))
          (then (i32.const -1))
          (else (if (result i32) (local.get 0) (then (i32.const 1)) (else (i32.const 0))))))
      (func (export "early") (param i32) (result i32)
        (block
          (br_if 0 (local.get 0))
          (return (i32.const 10))
          (i32.const 99) (drop)
          (block (loop (br 0)))
          (unreachable))
        (i32.const 20))
      (func (export "trap") (unreachable)))"#);
    assert_eq!(call1(&m, "sign", &[i32s(-9)]), i32s(-1));
    assert_eq!(call1(&m, "sign", &[i32s(9)]), i32s(1));
    assert_eq!(call1(&m, "sign", &[i32s(0)]), i32s(0));
    assert_eq!(call1(&m, "early", &[i32s(0)]), i32s(10));
    assert_eq!(call1(&m, "early", &[i32s(1)]), i32s(20));
    assert_eq!(call(&m, "trap", &[]).unwrap_err().kind, TrapKind::Trap);
    // Dead code emits nothing: one `ret 10`, no `ret 99`, no loop.
    let text = common::func_text(&m, "early");
    assert!(!text.contains("99"), "{text}");
}

#[test]
fn local_reads_are_taken_before_the_local_changes() {
    let m = imp(r#"(module
      (func (export "f") (param $x i32) (result i32)
        (local.get $x)
        (local.set $x (i32.const 5))
        (local.get $x)
        (i32.sub))
      (func (export "g") (param $x i32) (result i32)
        (local.get $x)
        (if (i32.const 1) (then (local.set $x (i32.const 100))))
        (local.get $x)
        (i32.sub))
      (func (export "tee") (param $x i32) (result i32)
        (i32.add (local.tee $x (i32.mul (local.get $x) (i32.const 3))) (local.get $x))))"#);
    assert_eq!(call1(&m, "f", &[i32s(12)]), i32s(7));
    assert_eq!(call1(&m, "g", &[i32s(12)]), i32s(-88));
    assert_eq!(call1(&m, "tee", &[i32s(4)]), i32s(24));
}

#[test]
fn locals_start_at_zero() {
    let m = imp(r#"(module
      (func (export "f") (param i32) (result i32)
        (local $a i32) (local $b i64) (local $c f32) (local $unused f64)
        (if (local.get 0) (then (local.set $a (i32.const 3))))
        (i32.add (local.get $a) (i32.add (i32.wrap_i64 (local.get $b)) (i32.trunc_f32_s (local.get $c))))))"#);
    assert_eq!(call1(&m, "f", &[i32s(0)]), i32s(0));
    assert_eq!(call1(&m, "f", &[i32s(1)]), i32s(3));
    let text = common::func_text(&m, "f");
    assert!(text.contains("%a = const 0\n"), "{text}");
    assert!(text.contains("%c = const 0.0\n"), "{text}");
    assert!(!text.contains("%unused"), "{text}");
}

#[test]
fn bulk_memory_operations() {
    let m = imp(r#"(module
      (memory 1)
      (data $d "hello")
      (data (i32.const 0) "\0a\0b\0c\0d")
      (func (export "copy") (param $d i32) (param $s i32) (param $n i32) (result i32)
        (memory.copy (local.get $d) (local.get $s) (local.get $n))
        (i32.load (local.get $d)))
      (func (export "fill") (param $d i32) (param $v i32) (param $n i32) (result i64)
        (memory.fill (local.get $d) (local.get $v) (local.get $n))
        (i64.load (local.get $d)))
      (func (export "init") (param $d i32) (result i32)
        (memory.init $d (local.get $d) (i32.const 1) (i32.const 4))
        (i32.load (local.get $d))))"#);
    // Overlapping copy is a memmove.
    assert_eq!(call1(&m, "copy", &[i32s(1), i32s(0), i32s(4)]), i32s(0x0d0c_0b0a));
    assert_eq!(call1(&m, "copy", &[i32s(100), i32s(0), i32s(0)]), i32s(0));
    assert_eq!(call(&m, "copy", &[i32s(65534), i32s(0), i32s(4)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call1(&m, "fill", &[i32s(8), i32s(0x1ab), i32s(3)]), i64s(0xab_abab));
    assert_eq!(call1(&m, "init", &[i32s(32)]), i32s(i32::from_le_bytes(*b"ello")));
    let text = common::text(&m);
    assert!(text.contains("dma @memory["), "{text}");
    assert!(text.contains("tfill @memory["), "{text}");
    assert!(text.contains("mem @d: i8[5] dram = [104, 101, 108, 108, 111]"), "{text}");
}

#[test]
fn v128_values_move_as_two_halves() {
    let m = imp(r#"(module
      (memory 1)
      (func (export "rt") (param $a i32) (result i64)
        (v128.store offset=4 (local.get $a) (v128.const i32x4 1 2 3 4))
        (i64.load offset=12 (local.get $a)))
      (func (export "sel") (param $c i32) (result i64)
        (local $v v128)
        (local.set $v (select (v128.const i64x2 5 6) (v128.const i64x2 7 8) (local.get $c)))
        (v128.store (i32.const 0) (local.get $v))
        (i64.load (i32.const 8))))"#);
    assert_eq!(call1(&m, "rt", &[i32s(0)]), i64s(4 << 32 | 3));
    assert_eq!(call1(&m, "sel", &[i32s(1)]), i64s(6));
    assert_eq!(call1(&m, "sel", &[i32s(0)]), i64s(8));
    assert!(common::func_text(&m, "sel").contains("%v.hi"), "{}", common::func_text(&m, "sel"));
}

#[test]
fn references_are_handles() {
    let m = imp(r#"(module
      (func $f)
      (elem declare func $f)
      (func (export "null") (result i32) (ref.is_null (ref.null func)))
      (func (export "nonnull") (result i32) (ref.is_null (ref.func $f)))
      (func (export "pass") (param externref) (result externref) (local.get 0)))"#);
    assert_eq!(call1(&m, "null", &[]), i32s(1));
    assert_eq!(call1(&m, "nonnull", &[]), i32s(0));
    assert_eq!(call1(&m, "pass", &[i64s(42)]), i64s(42));
}

#[test]
fn tail_calls_return_the_callee_results() {
    let m = imp(r#"(module
      (func $add (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
      (func (export "f") (param i32) (result i32) (return_call $add (local.get 0) (i32.const 1))))"#);
    assert_eq!(call1(&m, "f", &[i32s(41)]), i32s(42));
}

#[test]
fn memory64_and_multiple_memories() {
    let m = imp(r#"(module
      (memory $a i64 1)
      (memory $b 1)
      (data (memory $b) (i32.const 0) "\2a")
      (func (export "rt64") (param $p i64) (param $v i32) (result i32)
        (i32.store $a offset=4 (local.get $p) (local.get $v))
        (i32.load $a offset=4 (local.get $p)))
      (func (export "from_b") (param $p i32) (result i64)
        (memory.copy $a $b (i64.const 100) (local.get $p) (i32.const 1))
        (i64.load8_u $a (i64.const 100))))"#);
    assert_eq!(call1(&m, "rt64", &[i64s(65530 - 4), i32s(-5)]), i32s(-5));
    assert_eq!(call(&m, "rt64", &[i64s(65530), i32s(1)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call(&m, "rt64", &[i64s(-1), i32s(1)]).unwrap_err().kind, TrapKind::OutOfBounds);
    assert_eq!(call1(&m, "from_b", &[i32s(0)]), i64s(42));
    let text = common::text(&m);
    assert!(text.contains("mem @a: i8[65536] dram\nmem @b: i8[65536] dram = [42]"), "{text}");
}

#[test]
fn bulk_operations_that_always_trap_become_traps() {
    let m = imp(r#"(module
      (memory 1)
      (func (export "copy") (memory.copy (i32.const 65535) (i32.const 0) (i32.const 2)))
      (func (export "fill") (param i32) (memory.fill (local.get 0) (i32.const 0) (i32.const 65537)))
      (func (export "empty") (memory.fill (i32.const 65536) (i32.const 0) (i32.const 0))))"#);
    assert_eq!(call(&m, "copy", &[]).unwrap_err().kind, TrapKind::Trap);
    assert_eq!(call(&m, "fill", &[i32s(0)]).unwrap_err().kind, TrapKind::Trap);
    // A zero-length fill at the very end is in bounds.
    assert_eq!(call(&m, "empty", &[]).unwrap(), vec![]);
}

#[test]
fn v128_globals_and_params() {
    let m = imp(r#"(module
      (global $g (mut v128) (v128.const i64x2 1 2))
      (func $swap (param v128) (result v128)
        (global.set $g (local.get 0))
        (v128.const i64x2 3 4))
      (func (export "f") (result i64)
        (drop (call $swap (global.get $g)))
        (v128.store (i32.const 0) (global.get $g))
        (i64.load (i32.const 8)))
      (memory 1))"#);
    assert_eq!(call1(&m, "f", &[]), i64s(2));
    assert!(common::text(&m).contains("mem @g: i64[2] dram = [1, 2]"));
}
