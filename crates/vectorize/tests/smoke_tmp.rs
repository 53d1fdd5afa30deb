use vectorize::eval::{EvalConfig, eval};
use vectorize::text::{parse, print_graph};
use vectorize::{Value, verify};

const P: &str = "func @p(%a: f32, %b: f32, %c: f32) -> f32 {
    %t: f32 = fmul %b, %c
    %r: f32 = fadd %a, %t
    ret %r
}

func @mean(%arr: array<f32>) -> f32 {
    %s: f32 = sum %arr
    %n: i64 = length %arr
    %len: f32 = sitofp %n
    %m: f32 = fdiv %s, %len
    ret %m
}

func @nested(%xs: array<array<f32>>, %k: f32) -> array<f32> {
    %l = lambda (%row: array<f32>, %k: f32) -> f32 {
        %s: f32 = sum %row
        %r: f32 = fmul %s, %k
        ret %r
    }
    %ys: array<f32> = map %l, %xs, *%k
    %c: array<array<i32>> = array [[1, 2], [], [3]]
    ret %ys
}
";

#[test]
fn smoke() {
    let (g, _) = parse(P).unwrap_or_else(|e| panic!("{:?}", e));
    verify(&g).unwrap_or_else(|e| panic!("{:?}", e));
    let printed = print_graph(&g);
    assert_eq!(printed, P);
    let p = g.function("p").unwrap();
    let r = eval(&g, p, &[Value::f32(1.0), Value::f32(2.0), Value::f32(3.0)], EvalConfig::default()).unwrap();
    assert_eq!(r, vec![Value::f32(7.0)]);
    let m = g.function("mean").unwrap();
    let r = eval(&g, m, &[Value::f32s(&[1.0, 2.0, 6.0])], EvalConfig::default()).unwrap();
    assert_eq!(r, vec![Value::f32(3.0)]);
    let n = g.function("nested").unwrap();
    let xs = Value::array_of(vectorize::ValTy::array(ir_core::Type::F32, 1), &[Value::f32s(&[1.0, 2.0]), Value::f32s(&[]), Value::f32s(&[5.0])]).unwrap();
    let r = eval(&g, n, &[xs.clone(), Value::f32(2.0)], EvalConfig::default()).unwrap();
    assert_eq!(r, vec![Value::f32s(&[6.0, 0.0, 10.0])]);
    assert_eq!(xs.to_string(), "[[1.0, 2.0], [], [5.0]]");
}

#[test]
fn vmap_smoke() {
    let (g, _) = parse(P).unwrap();
    let p = g.function("p").unwrap();
    let v = vectorize::vectorize(&g, p, &[true, true, true]).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", print_graph(&v.graph));
    let m = g.function("mean").unwrap();
    let v = vectorize::vectorize(&g, m, &[true]).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", print_graph(&v.graph));
    let xs = Value::array_of(vectorize::ValTy::array(ir_core::Type::F32, 1), &[Value::f32s(&[1.0, 2.0]), Value::f32s(&[]), Value::f32s(&[5.0])]).unwrap();
    let r = eval(&v.graph, v.func, &[xs], EvalConfig::default()).unwrap();
    println!("{}", r[0]);
    let n = g.function("nested").unwrap();
    let v = vectorize::vectorize(&g, n, &[true, false]).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", print_graph(&v.graph));
    vectorize::verify(&v.graph).unwrap_or_else(|e| panic!("{:?}", e));
    let xs = Value::array_of(vectorize::ValTy::array(ir_core::Type::F32, 2), &[
        Value::array_of(vectorize::ValTy::array(ir_core::Type::F32, 1), &[Value::f32s(&[1.0, 2.0]), Value::f32s(&[]), Value::f32s(&[5.0])]).unwrap(),
        Value::array_of(vectorize::ValTy::array(ir_core::Type::F32, 1), &[Value::f32s(&[3.0])]).unwrap(),
    ]).unwrap();
    let r = eval(&v.graph, v.func, &[xs, Value::f32(2.0)], EvalConfig::default()).unwrap();
    println!("{}", r[0]);
}
