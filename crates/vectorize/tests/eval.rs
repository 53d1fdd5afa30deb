//! The reference evaluator's semantics: reductions in the scalar order,
//! masks applied from the outside, traps naming their node, fuel and size
//! limits, ragged nesting, and agreement of the flat fast paths with the
//! per-lane path.

use vectorize::eval::{EvalConfig, EvalErrorKind, TrapKind, eval};
use vectorize::text::parse;
use vectorize::{BinaryOp, Prim, ScalarError, ScalarTy, ValTy, Value};

fn run(text: &str, args: &[Value]) -> Result<Vec<Value>, vectorize::eval::EvalError> {
    let (g, _) = parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    let f = *g.functions().last().unwrap();
    eval(&g, f, args, EvalConfig::default())
}

fn rows(rs: &[&[f32]]) -> Value {
    Value::array_of(ValTy::array(ScalarTy::F32, 1), &rs.iter().map(|r| Value::f32s(r)).collect::<Vec<_>>()).unwrap()
}

#[test]
fn sums_fold_left_from_the_first_element_like_tsum() {
    let r = run(
        "func @f(%x: array<f32>) -> f32 {\n    %s: f32 = sum %x\n    ret %s\n}\n",
        &[Value::f32s(&[1e8, 1.0, -1e8, 1.0])],
    )
    .unwrap();
    assert_eq!(r, vec![Value::f32(1.0)], "((1e8 + 1) - 1e8) + 1 in f32");
    let r = run(
        "func @f(%x: array<array<f32>>) -> array<f32> {\n    %s: array<f32> = sum.1 %x\n    ret %s\n}\n",
        &[rows(&[&[1e8, 1.0, -1e8], &[], &[2.5]])],
    )
    .unwrap();
    assert_eq!(r[0].to_string(), "[0.0, 0.0, 2.5]");
    let r = run(
        "func @f(%x: array<array<f32>>) -> array<f32> {\n    %s: array<f32> = max.1 %x\n    ret %s\n}\n",
        &[rows(&[&[1.0, f32::NAN, 3.0], &[], &[-0.0, 0.0]])],
    )
    .unwrap();
    assert_eq!(r[0].to_string(), "[nan, -inf, 0.0]");
}

#[test]
fn traps_name_their_node_and_kind() {
    let e = run(
        "func @f(%a: i32, %b: i32) -> i32 {\n    %q: i32 = sdiv %a, %b\n    ret %q\n}\n",
        &[Value::Scalar(vectorize::Imm::int(ScalarTy::I32, 1)), Value::Scalar(vectorize::Imm::int(ScalarTy::I32, 0))],
    )
    .unwrap_err();
    assert_eq!(e.trap(), TrapKind::DivisionByZero);
    assert_eq!(e.kind, EvalErrorKind::Scalar(ScalarError::DivisionByZero(BinaryOp::Sdiv)));
    assert_eq!(e.prim, Some((Prim::Binary(BinaryOp::Sdiv), 0)));
    assert!(e.sym.is_some(), "{e}");
    assert_eq!(e.to_string(), format!("division by zero at {}: `sdiv`: `sdiv` by zero", e.sym.unwrap()));
    let e = run(
        "func @f(%x: array<f32>, %i: i64) -> f32 {\n    %r: f32 = index %x, %i\n    ret %r\n}\n",
        &[Value::f32s(&[1.0]), Value::i64(1)],
    )
    .unwrap_err();
    assert_eq!(e.trap(), TrapKind::OutOfBounds);
    assert_eq!(e.kind, EvalErrorKind::IndexOutOfBounds { index: 1, len: 1 });
    let e = run(
        "func @f(%a: array<f32>, %b: array<f32>) -> array<f32> {\n    %r: array<f32> = fadd.1 %a, %b\n    ret %r\n}\n",
        &[Value::f32s(&[1.0]), Value::f32s(&[1.0, 2.0])],
    )
    .unwrap_err();
    assert_eq!(e.trap(), TrapKind::ShapeMismatch);
    assert_eq!(e.kind, EvalErrorKind::LaneShapes { levels: 1, first: 1, other: 2 });
    assert_eq!(e.prim, Some((Prim::Binary(BinaryOp::Fadd), 1)));
    assert!(
        e.to_string().ends_with(": `fadd.1`: mapped arguments differ in their outer 1 levels (1 and 2 elements)"),
        "{e}"
    );
    let e = run(
        "func @f(%c: i1) -> i1 {\n    %r: i1 = assert %c\n    ret %r\n}\n",
        &[Value::Scalar(vectorize::Imm::bool(false))],
    )
    .unwrap_err();
    assert_eq!(e.trap(), TrapKind::AssertionFailed);
    let e = run(
        "func @f(%x: f32, %n: i64) -> array<f32> {\n    %r: array<f32> = broadcast %x, %n\n    ret %r\n}\n",
        &[Value::f32(1.0), Value::i64(-1)],
    )
    .unwrap_err();
    assert_eq!(e.kind, EvalErrorKind::NegativeCount(-1));
    assert_eq!(e.trap(), TrapKind::OutOfBounds);
    let e = run(
        "func @f(%x: f32, %n: i64) -> array<f32> {\n    %r: array<f32> = broadcast %x, %n\n    ret %r\n}\n",
        &[Value::f32(1.0), Value::i64(1 << 40)],
    )
    .unwrap_err();
    assert_eq!(e.trap(), TrapKind::MemoryLimit);
    assert!(
        matches!(e.kind, EvalErrorKind::TooLarge { limit, .. } if limit == EvalConfig::default().max_elements),
        "{e}"
    );
}

#[test]
fn masks_skip_inactive_lanes_and_leave_zeros() {
    let text = "func @f(%a: array<i32>, %b: array<i32>, %m: array<i1>) -> array<i32> {\n    @%m %q: array<i32> = sdiv.1 %a, %b\n    ret %q\n}\n";
    let ints = |v: &[i64]| Value::ints(ScalarTy::I32, v);
    let bools = |v: &[i64]| Value::ints(ScalarTy::I1, v);
    let r = run(text, &[ints(&[6, 7, 8]), ints(&[3, 0, 2]), bools(&[1, 0, 1])]).unwrap();
    assert_eq!(r, vec![ints(&[2, 0, 4])], "no division by zero in the masked-off lane");
    // A mask with no true bit examines nothing, even mismatched shapes.
    let r = run(text, &[ints(&[6, 7]), ints(&[3]), bools(&[0, 0, 0])]).unwrap();
    assert_eq!(r, vec![ints(&[0, 0, 0])], "shaped like the mask");
    // A scalar mask: false gives the zero of the whole result.
    let text = "func @f(%a: array<i32>, %m: i1) -> array<i32> {\n    @%m %q: array<i32> = neg.1 %a\n    ret %q\n}\n";
    assert_eq!(run(text, &[ints(&[1, 2]), bools(&[0]).elements()[0].clone()]).unwrap(), vec![ints(&[])]);
    // Masks applied from the outside: a lane whose sub-mask is all false is
    // not compared with the arguments.
    let text = "func @f(%a: array<array<i32>>, %b: array<array<i32>>, %m: array<array<i1>>) -> array<array<i32>> {\n    @%m %q: array<array<i32>> = add.2 %a, %b\n    ret %q\n}\n";
    let nested = |rs: &[&[i64]], t: ScalarTy| {
        Value::array_of(ValTy::array(t, 1), &rs.iter().map(|r| Value::ints(t, r)).collect::<Vec<_>>()).unwrap()
    };
    let r = run(
        text,
        &[
            nested(&[&[1, 2], &[3]], ScalarTy::I32),
            nested(&[&[10, 20], &[]], ScalarTy::I32),
            nested(&[&[1, 0], &[0]], ScalarTy::I1),
        ],
    )
    .unwrap();
    assert_eq!(r[0].to_string(), "[[11, 0], [0]]");
}

#[test]
fn higher_order_operations_and_tuples() {
    let text = "func @f(%xss: array<array<f64>>, %k: f64) -> array<f64>, f64 {
    %l = lambda (%row: array<f64>, %s: f64) -> f64 {
        %t: f64 = sum %row
        %u: f64 = fmul %t, %s
        ret %u
    }
    %ys: array<f64> = map %l, %xss, *%k
    %zero: i64 = const 0
    %n: i64 = length %xss
    %c = lambda (%i: i64, %m: i64, %acc: f64) -> i1 {
        %more: i1 = setp.slt %i, %m
        ret %more
    }
    %b = lambda (%i: i64, %m: i64, %acc: f64) -> i64, i64, f64 {
        %one: i64 = const 1
        %j: i64 = add %i, %one
        %a2: f64 = fadd %acc, %acc
        ret %j, %m, %a2
    }
    %one: f64 = const 1.0
    %w: (i64, i64, f64) = while %c, %b, %zero, %n, %one
    %p: f64 = get.2 %w
    ret %ys, %p
}
";
    let xss = Value::array_of(ValTy::array(ScalarTy::F64, 1), &[]).unwrap();
    let r = run(text, &[xss, Value::Scalar(vectorize::Imm::f64(2.0))]).unwrap();
    assert_eq!(r[0].to_string(), "[]");
    assert_eq!(r[1].to_string(), "1.0");
    let row = |v: &[f64]| {
        Value::array_of(
            ValTy::scalar(ScalarTy::F64),
            &v.iter().map(|&x| Value::Scalar(vectorize::Imm::f64(x))).collect::<Vec<_>>(),
        )
        .unwrap()
    };
    let xss = Value::array_of(ValTy::array(ScalarTy::F64, 1), &[row(&[1.0, 2.0]), row(&[]), row(&[4.0])]).unwrap();
    let r = run(text, &[xss, Value::Scalar(vectorize::Imm::f64(2.0))]).unwrap();
    assert_eq!(r[0].to_string(), "[6.0, 0.0, 8.0]");
    assert_eq!(r[1].to_string(), "8.0");
}

#[test]
fn fuel_and_bad_arguments() {
    let text = "func @f(%n: i64) -> i64 {
    %c = lambda (%i: i64) -> i1 {
        %t: i1 = const 1
        ret %t
    }
    %b = lambda (%i: i64) -> i64 {
        ret %i
    }
    %w: i64 = while %c, %b, %n
    ret %w
}
";
    let (g, _) = parse(text).unwrap();
    let f = g.function("f").unwrap();
    let e = eval(&g, f, &[Value::i64(0)], EvalConfig { fuel: 10_000, ..EvalConfig::default() }).unwrap_err();
    assert_eq!((e.trap(), &e.kind), (TrapKind::FuelExhausted, &EvalErrorKind::OutOfFuel));
    let e = eval(&g, f, &[Value::f32(0.0)], EvalConfig::default()).unwrap_err();
    assert_eq!(e.trap(), TrapKind::BadArguments);
    assert_eq!(
        e.kind,
        EvalErrorKind::ArgumentTypes {
            want: vec![ValTy::scalar(ScalarTy::I64)],
            got: vec![Some(ValTy::scalar(ScalarTy::F32))]
        }
    );
    assert!(e.to_string().ends_with(": expected (i64), got (f32)"), "{e}");
}

#[test]
fn fast_paths_agree_with_the_per_lane_path() {
    // The same lifted operation on scalars (fast path) and, through a
    // one-element wrapper level, on the generic path.
    let mut rng = vectorize::generate::SplitMix64::new(5);
    for _ in 0..200 {
        let x = vectorize::generate::random_value(ValTy::array(ScalarTy::I32, 2), &mut rng);
        let text = "func @f(%x: array<array<i32>>) -> array<i32>, array<i64>, array<i32> {\n    %s: array<i32> = sum.1 %x\n    %n: array<i64> = length.1 %x\n    %m: array<i32> = max.1 %x\n    ret %s, %n, %m\n}\n";
        let fast = run(text, std::slice::from_ref(&x)).unwrap();
        // Per row through `map` (the scalar path).
        let text2 = "func @f(%x: array<array<i32>>) -> array<i32>, array<i64>, array<i32> {\n    %l = lambda (%r: array<i32>) -> i32 {\n        %s: i32 = sum %r\n        ret %s\n    }\n    %k = lambda (%r: array<i32>) -> i64 {\n        %n: i64 = length %r\n        ret %n\n    }\n    %q = lambda (%r: array<i32>) -> i32 {\n        %m: i32 = max %r\n        ret %m\n    }\n    %s: array<i32> = map %l, %x\n    %n: array<i64> = map %k, %x\n    %m: array<i32> = map %q, %x\n    ret %s, %n, %m\n}\n";
        assert_eq!(fast, run(text2, &[x]).unwrap());
    }
}
