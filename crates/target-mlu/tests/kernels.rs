//! Hand-written kernels for the lowering's corner cases, each compared with
//! the interpreter on several arguments: wide accesses, `switch`, guarded
//! definitions with `else` fallbacks, nested calls, a float `tsum` longer
//! than one tile (the scalar path), a map whose source overlaps its
//! destination at another offset across tiles, `dma` with no direct route
//! (DRAM→DRAM, SRAM→SRAM), `matmul` with B from SRAM, integer `tdiv` with
//! padded tiles, and small staging buffers.

use ir_core::{Imm, Type};
use target_mlu::compile::CompileOptions;
use target_mlu::differential::{DiffOptions, Verdict, run};

fn check(src: &str, argsets: &[&[Imm]], tile_bytes: Option<u64>) -> usize {
    let (module, _) = ir_core::text::parse(src).unwrap_or_else(|d| panic!("{d:?}"));
    let f = module.function_ids().next().unwrap();
    let mut equal = 0;
    for args in argsets {
        let options = DiffOptions {
            compile: CompileOptions { tile_bytes, check: true, ..CompileOptions::default() },
            ..DiffOptions::default()
        };
        let r = run(&module, f, args, &options).unwrap_or_else(|e| panic!("{e}\n{src}"));
        match r.verdict {
            Verdict::Equal if r.interpreted.is_ok() => equal += 1,
            Verdict::Equal => {}
            v => panic!("{args:?}: {v:?}\n{src}"),
        }
    }
    equal
}

fn i64s(v: &[i64]) -> Vec<Vec<Imm>> {
    v.iter().map(|&x| vec![Imm::int(Type::I64, x)]).collect()
}

fn refs(v: &[Vec<Imm>]) -> Vec<&[Imm]> {
    v.iter().map(|x| x.as_slice()).collect()
}

#[test]
fn wide_accesses_and_switches() {
    let src = "\
mem @heap: i8[16] dram = [1, 2, 3, 4]

func @wide(%a: i64) -> i32, i32, f64, i16 {
    var %w: i32
    var %b: i8
    var %s: i32
    var %d: f64
    var %k: i16
bb0:
    %w = load @heap[0]
    store @heap[%a], i32 -2
    %b = load @heap[%a]
    %s = sext %b
    store @heap[%a], f64 -2.5
    %d = load @heap[%a]
    switch %a, bb1, [0: bb2, 3: bb3, -1: bb2]
bb1:
    %k = const 7
    jump bb4
bb2:
    %k = const 9
    jump bb4
bb3:
    %k = load @heap[%a]
    jump bb4
bb4:
    ret %w, %s, %d, %k
}
";
    let args = i64s(&[0, 3, 5, 8, 9, -1, 15]);
    assert_eq!(check(src, &refs(&args), None), 4);
}

#[test]
fn guarded_fallbacks_and_nested_calls() {
    let src = "\
func @main(%a: i32, %p: i1) -> i32 {
    var %x.1: i32
    var %x.2: i32
    var %y: i32
bb0:
    %x.1 = add %a, 1
    @%p %x.2 = mul %a, 3 else %x.1
    %y = call @g(%x.2, %a)
    ret %y
}

func @g(%u: i32, %v: i32) -> i32 {
    var %r: i32
    var %q: i1
bb0:
    %q = setp.slt %u, %v
    %r = call @h(%u)
    @!%q %r = sub %r, %v
    ret %r
}

func @h(%z: i32) -> i32 {
bb0:
    %z = mul %z, %z
    ret %z
}
";
    let mut sets = Vec::new();
    for a in [-7, 0, 5, 1000] {
        for p in [false, true] {
            sets.push(vec![Imm::int(Type::I32, a), Imm::bool(p)]);
        }
    }
    assert_eq!(check(src, &refs(&sets), None), 8);
}

#[test]
fn tensor_corner_cases_with_small_tiles() {
    // 512-byte buffers: 128 f32 or 64 f64 per tile, so 1000 elements take many tiles.
    let src = include_str!("../kernels/tensor_corners.kir");
    let mut sets = Vec::new();
    for (off, n) in [(0, 0), (1, 499), (7, 300), (200, 200), (0, 500), (499, 1)] {
        sets.push(vec![Imm::int(Type::I64, off), Imm::int(Type::I64, n), Imm::f32(0.75)]);
    }
    // Out of bounds: both trap.
    sets.push(vec![Imm::int(Type::I64, 600), Imm::int(Type::I64, 500), Imm::f32(1.0)]);
    assert_eq!(check(src, &refs(&sets), Some(512)), 6);
    assert_eq!(check(src, &refs(&sets), None), 6);
}
