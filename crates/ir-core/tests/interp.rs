//! The reference interpreter: every bundled example with asserted outputs
//! (the DU-chain program under both predicate values), each trap class as an
//! error naming its instruction, and the semantic corners of `docs/ir.md`
//! (parallel phis, guards that keep values, undefined values through copies,
//! tensor overlap, fuel, deep IR recursion on a small Rust stack).

mod common;

use ir_core::interp::{Config, ExternError, ExternHandler, Interpreter, Memory, Trap, TrapKind, WriteError, run};
use ir_core::text::parse;
use ir_core::{Global, Imm, Module, Opcode};

fn module(src: &str) -> Module {
    parse(src).unwrap_or_else(|d| panic!("{d:?}")).0
}

fn example(name: &str) -> Module {
    let (_, text) = common::examples()
        .into_iter()
        .find(|(p, _)| p.file_name().is_some_and(|f| f == name))
        .unwrap_or_else(|| panic!("no example {name}"));
    module(&text)
}

fn call(m: &Module, func: &str, args: &[Imm]) -> Result<Vec<Imm>, Trap> {
    let f = m.function_by_name(func).expect("function");
    run(m, f, args, Config::default()).map(|o| o.results)
}

fn mem(m: &Module, name: &str) -> ir_core::Mem {
    match m.lookup(name) {
        Some(Global::Mem(x)) => x,
        _ => panic!("no mem @{name}"),
    }
}

fn i32s(v: &[i32]) -> Vec<Imm> {
    v.iter().map(|&x| Imm::from(x)).collect()
}

#[test]
fn du_example_under_both_predicate_values() {
    let m = example("du_chains.kir");
    // p false (q = 0): both guarded definitions do nothing; s4's x = a + c = 8 reaches s10.
    assert_eq!(call(&m, "du_example", &[3.into(), 0.into(), true.into()]).unwrap(), i32s(&[8]));
    // p true: s9 (x = a - b = -1) runs last on every path.
    assert_eq!(call(&m, "du_example", &[3.into(), 1.into(), true.into()]).unwrap(), i32s(&[-1]));
    assert_eq!(call(&m, "du_example", &[1.into(), 7.into(), false.into()]).unwrap(), i32s(&[-1]));
    // The loop runs once even for n <= 0 (the test is at the bottom).
    let f = m.function_by_name("du_example").unwrap();
    let o = run(&m, f, &[0.into(), 0.into(), true.into()], Config::default()).unwrap();
    assert_eq!(o.results, i32s(&[8]));
    // Guards that fail are counted as skipped, not executed.
    assert_eq!(o.stats.guard_skipped, 2);
    assert_eq!(o.stats.opcode_count(Opcode::Add), 1);
}

#[test]
fn memdep_vector1_sums() {
    let m = example("memdep_vector1.kir");
    let v = |x: i8| Imm::from(x);
    // 32 ones; then 16 twos + 16 ones; then 16 twos + 16 threes + 33 zeros.
    assert_eq!(call(&m, "vector1", &[]).unwrap(), vec![v(32), v(48), v(80)]);
}

/// `@opaque_write` fills `@a` with 7s; `@opaque_read` sums `@a[0..4]`.
struct Opaque {
    a: ir_core::Mem,
}

impl ExternHandler for Opaque {
    fn call(&mut self, name: &str, args: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError> {
        assert!(args.is_empty());
        match name {
            "opaque_write" => {
                memory.write(self.a, &vec![Imm::from(7i32); 64])?;
                Ok(vec![])
            }
            "opaque_read" => {
                Ok(vec![Imm::from((0..4).map(|i| memory.get(self.a, i).unwrap().as_i64() as i32).sum::<i32>())])
            }
            _ => Err(ExternError::Unknown),
        }
    }
}

#[test]
fn memdep_vector2_with_external_functions() {
    let m = example("memdep_vector2.kir");
    let f = m.function_by_name("vector2").unwrap();
    let a = mem(&m, "a");
    for (q, want_read) in [(false, 28), (true, 20)] {
        let mut interp = Interpreter::new(&m, Config::default()).unwrap();
        interp.set_extern_handler(Box::new(Opaque { a }));
        // x = 9: md2 = @a[0, 10]; ir3 sums ten 2s.
        let r = interp.call(f, &[Imm::from(9i64), q.into()]).unwrap();
        // ir6 sees ir4's 7s, or ir5's 5s when the predicate holds.
        assert_eq!(r, i32s(&[20, want_read]));
    }
    // Without a handler, the call is a trap that names the instruction.
    let t = call(&m, "vector2", &[Imm::from(9i64), false.into()]).unwrap_err();
    assert_eq!(t.kind, TrapKind::ExternCall);
    assert!(t.describe(&m).contains("`call @opaque_write()`"), "{}", t.describe(&m));
}

/// A handler whose memory write fails, or that lacks the function.
struct Failing;

impl ExternHandler for Failing {
    fn call(&mut self, name: &str, _: &[Imm], memory: &mut Memory) -> Result<Vec<Imm>, ExternError> {
        match name {
            "opaque_write" => {
                // `@a` holds i32: an i64 is refused, as a typed error `?` keeps.
                memory.write(ir_core::Mem::from_u32(0), &[Imm::from(1i64)])?;
                Ok(vec![])
            }
            _ => Err(ExternError::Unknown),
        }
    }
}

#[test]
fn a_failing_extern_call_traps_with_its_reason() {
    let m = example("memdep_vector2.kir");
    let f = m.function_by_name("vector2").unwrap();
    let mut interp = Interpreter::new(&m, Config::default()).unwrap();
    interp.set_extern_handler(Box::new(Failing));
    let t = interp.call(f, &[Imm::from(9i64), false.into()]).unwrap_err();
    assert_eq!(t.kind, TrapKind::ExternCall);
    assert_eq!(t.message, "@opaque_write: the object holds i32, not i64");
    let e = ExternError::from(WriteError::NoSuchObject(ir_core::Mem::from_u32(7)));
    assert!(std::error::Error::source(&e).is_some());
    assert_eq!(e.to_string(), "@mem7 does not exist");
}

#[test]
fn a_refused_memory_write_names_the_object_and_writes_nothing() {
    let m = example("memdep_vector2.kir");
    let a = mem(&m, "a");
    let mut interp = Interpreter::new(&m, Config::default()).unwrap();
    let mem = interp.memory_mut();
    assert_eq!(
        mem.write(a, &vec![Imm::from(1i32); 65]),
        Err(WriteError::TooManyValues { mem: a, values: 65, len: 64 })
    );
    let e = mem.write(a, &[Imm::from(3i32), Imm::from(4i64)]).unwrap_err();
    assert_eq!(e, WriteError::WrongType { mem: a, index: 1, elem: ir_core::Type::I32, given: ir_core::Type::I64 });
    assert_eq!(e.to_string(), "the object holds i32, not i64");
    assert_eq!(mem.get(a, 0), Some(Imm::from(0i32)), "nothing is written");
    let nowhere = ir_core::Mem::from_u32(9);
    assert_eq!(mem.write(nowhere, &[]), Err(WriteError::NoSuchObject(nowhere)));
    mem.write(a, &[Imm::from(3i32)]).unwrap();
    assert_eq!(mem.get(a, 0), Some(Imm::from(3i32)));
}

#[test]
fn pebble_block() {
    let m = example("pebble_block.kir");
    // q = y * z, v = (x + y) - y = x.
    assert_eq!(call(&m, "pebble", &i32s(&[5, 6, 7])).unwrap(), i32s(&[42, 5]));
    assert_eq!(call(&m, "pebble", &i32s(&[i32::MAX, 1, 2])).unwrap(), i32s(&[2, i32::MAX]));
}

#[test]
fn vectorize_examples() {
    let m = example("vectorize_examples.kir");
    let r = call(&m, "p", &[Imm::f32(1.5), Imm::f32(2.0), Imm::f32(-4.0)]).unwrap();
    assert_eq!(r, vec![Imm::f32(-6.5)]);
    let f = m.function_by_name("mean").unwrap();
    let mut interp = Interpreter::new(&m, Config::default()).unwrap();
    let arr = mem(&m, "arr");
    interp.memory_mut().write(arr, &[1.0f32, 2.0, 4.5, 8.5].map(Imm::f32)).unwrap();
    assert_eq!(interp.call(f, &[Imm::from(4i64)]).unwrap(), vec![Imm::f32(4.0)]);
    // mean of nothing is 0/0.
    assert!(interp.call(f, &[Imm::from(0i64)]).unwrap()[0].as_f32().is_nan());
}

#[test]
fn predicated_max() {
    let m = example("predicated_max.kir");
    let max = |n: i64| call(&m, "max", &[Imm::from(n)]).unwrap();
    assert_eq!(max(1), i32s(&[5]));
    assert_eq!(max(2), i32s(&[5]));
    assert_eq!(max(3), i32s(&[17]));
    assert_eq!(max(256), i32s(&[17]));
    let t = call(&m, "max", &[Imm::from(257i64)]).unwrap_err();
    assert_eq!(t.kind, TrapKind::OutOfBounds);
}

#[test]
fn saxpy_over_tiles() {
    let m = example("saxpy.kir");
    let (x, y) = (mem(&m, "x"), mem(&m, "y"));
    let f = m.function_by_name("saxpy").unwrap();
    let mut interp = Interpreter::new(&m, Config::default()).unwrap();
    let xs: Vec<Imm> = (0..256).map(|i| Imm::f32(i as f32)).collect();
    let ys: Vec<Imm> = (0..256).map(|i| Imm::f32(1.0 - i as f32)).collect();
    interp.memory_mut().write(x, &xs).unwrap();
    interp.memory_mut().write(y, &ys).unwrap();
    interp.call(f, &[Imm::f32(2.0), Imm::from(3i64)]).unwrap();
    let out = interp.memory().elements(y);
    for (i, got) in out.iter().enumerate().take(192) {
        assert_eq!(*got, Imm::f32(2.0 * i as f32 + 1.0 - i as f32), "y[{i}]");
    }
    // Tiles past the third are untouched.
    assert_eq!(out[200], Imm::f32(1.0 - 200.0));
    // Three tiles of 64: three tfma over 64 elements, four dma each per tile.
    assert_eq!(interp.stats().opcode_count(Opcode::Tfma), 3);
    assert_eq!(interp.stats().opcode_count(Opcode::Dma), 9);
    assert_eq!(interp.stats().elements, 3 * 4 * 64);
}

#[test]
fn dense_layer() {
    let m = example("matmul.kir");
    let f = m.function_by_name("dense").unwrap();
    let o = run(&m, f, &[], Config::default()).unwrap();
    // relu(in[2x4] · W[4x3]) computed by hand.
    let want = [0.0f32, 4.5, 5.0, 0.0, 1.875, 0.0].map(Imm::f32);
    assert_eq!(o.memory.elements(mem(&m, "output")), want);
    assert_eq!(o.results, vec![Imm::f32(11.375)]);
}

// ---- traps ----------------------------------------------------------------------------

fn trap(src: &str, func: &str, args: &[Imm]) -> (Module, Trap) {
    let m = module(src);
    let t = call(&m, func, args).expect_err("expected a trap");
    (m, t)
}

#[test]
fn every_trap_names_its_instruction() {
    let cases: &[(&str, TrapKind, &str)] = &[
        ("%r = sdiv %a, 0", TrapKind::DivisionByZero, "`%r = sdiv %a, 0`"),
        ("%r = urem %a, 0", TrapKind::DivisionByZero, "`%r = urem %a, 0`"),
        ("%r = sdiv -2147483648, -1", TrapKind::IntegerOverflow, "`%r = sdiv -2147483648, -1`"),
        ("%r = fptosi f64 1e10", TrapKind::InvalidConversion, "`%r = fptosi f64 10000000000.0`"),
        ("%r = load @m[4]", TrapKind::OutOfBounds, "`%r = load @m[4]`"),
        ("store @m[%n], 1", TrapKind::OutOfBounds, "`store @m[%n], 1`"),
        ("tfill @m[2, %b], 0", TrapKind::OutOfBounds, "`tfill @m[2, %b], 0`"),
        ("tadd @m[0, 2], @m[0, %b], 1", TrapKind::ShapeMismatch, "`tadd @m[0, 2], @m[0, %b], 1`"),
        ("%r = add %u, 1", TrapKind::UndefinedValue, "`%r = add %u, 1`"),
        ("%r = intrinsic \"cpuid\"()", TrapKind::Unsupported, "`%r = intrinsic \"cpuid\"()`"),
        ("trap", TrapKind::Trap, "`trap`"),
    ];
    for &(line, kind, shown) in cases {
        let src = format!(
            "mem @m: i32[4] nram\nfunc @f(%a: i32, %n: i64, %b: i64) -> i32 {{\n    var %r: i32, %u: i32\nbb0:\n    %r = const 0\n    {line}\n    ret %r\n}}\n"
        );
        let (m, t) = trap(&src, "f", &[Imm::from(7i32), Imm::from(-1i64), Imm::from(3i64)]);
        assert_eq!(t.kind, kind, "{line}: {t}");
        let d = t.describe(&m);
        assert!(d.contains(shown) && d.contains("in @f at bb0"), "{line}: {d}");
    }
}

#[test]
fn fuel_and_call_depth_are_limits_not_hangs() {
    let m = module("func @spin() {\nbb0:\n    jump bb1\nbb1:\n    jump bb1\n}\n");
    let f = m.function_by_name("spin").unwrap();
    let t = run(&m, f, &[], Config { fuel: 1000, ..Config::default() }).unwrap_err();
    assert_eq!(t.kind, TrapKind::FuelExhausted);
    let src = "func @down(%n: i64) -> i64 {\n    var %m: i64, %r: i64, %z: i1\nbb0:\n    %z = setp.eq %n, 0\n    br %z, bb1, bb2\nbb1:\n    ret 0\nbb2:\n    %m = sub %n, 1\n    %r = call @down(%m)\n    %r = add %r, 1\n    ret %r\n}\n";
    let m = module(src);
    let f = m.function_by_name("down").unwrap();
    let t = run(&m, f, &[Imm::from(5000i64)], Config::default()).unwrap_err();
    assert_eq!(t.kind, TrapKind::CallDepthExceeded);
    assert!(t.describe(&m).contains("`%r = call @down(%m)`"));
    // Deep IR recursion does not recurse in Rust: 10^5 frames on a 256 KiB stack.
    let deep = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let config = Config { max_call_depth: 200_000, ..Config::default() };
            run(&m, f, &[Imm::from(100_000i64)], config).map(|o| o.results)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(deep.unwrap(), vec![Imm::from(100_000i64)]);
}

#[test]
fn bad_arguments_and_memory_limit() {
    let m = module("mem @big: i8[1099511627776] dram\nfunc @f(%a: i32) {\nbb0:\n    ret\n}\n");
    let f = m.function_by_name("f").unwrap();
    assert_eq!(run(&m, f, &[], Config::default()).unwrap_err().kind, TrapKind::MemoryLimit);
    let m = module("func @f(%a: i32) {\nbb0:\n    ret\n}\n");
    let f = m.function_by_name("f").unwrap();
    let t = run(&m, f, &[Imm::from(1i64)], Config::default()).unwrap_err();
    assert_eq!(t.kind, TrapKind::BadArguments);
    assert_eq!(t.message, "expected (i32), got (i64)");
}

// ---- semantics --------------------------------------------------------------------------

#[test]
fn phis_read_in_parallel() {
    // A swap through phis: each phi reads the other's value from before the block.
    let src = "func @swap(%n: i32) -> i32, i32 {\n    var %a: i32, %b: i32, %a.1: i32, %b.1: i32, %i: i32, %i.1: i32, %i.2: i32, %go: i1\nbb0:\n    %a = const 1\n    %b = const 2\n    %i = const 0\n    jump bb1\nbb1:\n    %a.1 = phi(bb0: %a, bb1: %b.1)\n    %b.1 = phi(bb0: %b, bb1: %a.1)\n    %i.1 = phi(bb0: %i, bb1: %i.2)\n    %i.2 = add %i.1, 1\n    %go = setp.slt %i.2, %n\n    br %go, bb1, bb2\nbb2:\n    ret %a.1, %b.1\n}\n";
    let m = module(src);
    assert_eq!(call(&m, "swap", &[1.into()]).unwrap(), i32s(&[1, 2]));
    assert_eq!(call(&m, "swap", &[2.into()]).unwrap(), i32s(&[2, 1]));
    assert_eq!(call(&m, "swap", &[3.into()]).unwrap(), i32s(&[1, 2]));
}

#[test]
fn failed_guards_keep_values_and_copies_pass_undefined() {
    let src = "func @f(%p: i1) -> i32 {\n    var %x: i32, %y: i32, %z: i32\nbb0:\n    %x = const 5\n    @%p %x = const 9\n    @!%p %y = const 1\n    %z = copy %y\n    ret %x\n}\n";
    let m = module(src);
    assert_eq!(call(&m, "f", &[false.into()]).unwrap(), i32s(&[5]));
    // With p true, y stays undefined; copying it is fine, returning it would not be.
    assert_eq!(call(&m, "f", &[true.into()]).unwrap(), i32s(&[9]));
    let m = module(&src.replace("ret %x", "ret %z"));
    assert_eq!(call(&m, "f", &[true.into()]).unwrap_err().kind, TrapKind::UndefinedValue);
    assert_eq!(call(&m, "f", &[false.into()]).unwrap(), i32s(&[1]));
}

#[test]
fn tensor_sources_are_read_before_the_destination_is_written() {
    // Shift right by one through an overlapping dma, and a running sum.
    let src = "mem @v: i32[6] nram = [1, 2, 3, 4, 5, 6]\nfunc @f() -> i32, i32 {\n    var %s: i32, %m: i32\nbb0:\n    dma @v[1, 5], @v[0, 5]\n    tadd @v[0, 3], @v[3, 3], @v[0, 3]\n    %s = tsum @v[0, 6]\n    %m = tredmax @v[0, 0]\n    ret %s, %m\n}\n";
    let m = module(src);
    let f = m.function_by_name("f").unwrap();
    let o = run(&m, f, &[], Config::default()).unwrap();
    // After dma: 1 1 2 3 4 5; after tadd: 4 5 7 3 4 5.
    assert_eq!(o.memory.elements(mem(&m, "v")), i32s(&[4, 5, 7, 3, 4, 5]));
    assert_eq!(o.results, vec![Imm::from(28i32), Imm::from(i32::MIN)]);
}

#[test]
fn stats_count_per_opcode_and_per_instruction() {
    let m = example("predicated_max.kir");
    let f = m.function_by_name("max").unwrap();
    let o = run(&m, f, &[Imm::from(8i64)], Config::default()).unwrap();
    // The body runs 7 times; the max improves at 17 only (from 5).
    assert_eq!(o.stats.opcode_count(Opcode::Load), 8);
    assert_eq!(o.stats.guard_skipped, 6);
    let func = m.function(f).unwrap();
    let guarded = func.blocks().flat_map(|b| func.block_insts(b)).find(|&i| func.guard(i).is_some()).unwrap();
    assert_eq!(o.stats.inst_count(f, guarded), 1);
    assert_eq!(o.stats.executed + o.stats.guard_skipped, o.stats.fuel_used);
}

/// Records what an observer sees, as `(instruction, access, write, object
/// name, start, len)` and block entries.
#[derive(Default)]
struct Seen {
    events: Vec<(u32, u32, bool, String, u64, u64, usize)>,
    blocks: Vec<(u32, u32)>,
}

struct Recorder<'m>(std::rc::Rc<std::cell::RefCell<Seen>>, &'m Module);

impl ir_core::interp::Observer for Recorder<'_> {
    fn memory(&mut self, e: &ir_core::interp::MemEvent<'_>) {
        let top = e.stack.last().unwrap();
        let name = self.1.mem(e.mem).unwrap().name.to_string();
        self.0.borrow_mut().events.push((top.inst.as_u32(), e.access, e.write, name, e.start, e.len, e.stack.len()));
    }
    fn block(&mut self, _: u64, _: ir_core::FuncId, from: ir_core::Block, to: ir_core::Block) {
        self.0.borrow_mut().blocks.push((from.as_u32(), to.as_u32()));
    }
}

#[test]
fn an_observer_sees_each_access_reads_first_and_block_entries() {
    let m = example("matmul.kir");
    let f = m.function_by_name("dense").unwrap();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Seen::default()));
    let mut it = Interpreter::new(&m, Config::default()).unwrap();
    it.set_observer(Box::new(Recorder(seen.clone(), &m)));
    it.call(f, &[]).unwrap();
    let ranges: Vec<(u64, u64)> = seen.borrow().events.iter().map(|e| (e.4, e.5)).collect();
    let names: Vec<(u32, bool, String)> = seen.borrow().events.iter().map(|e| (e.1, e.2, e.3.clone())).collect();
    let expect = [
        (1, false, "input"),
        (0, true, "in_n"),
        (1, false, "in_n"),
        (2, false, "weights"),
        (0, true, "out_n"),
        (1, false, "out_n"),
        (0, true, "out_n"),
        (1, false, "out_n"),
        (0, true, "output"),
        (0, false, "out_n"),
    ];
    assert_eq!(names, expect.iter().map(|&(a, w, n)| (a, w, n.to_string())).collect::<Vec<_>>());
    assert_eq!(ranges[2], (0, 8));
    assert_eq!(ranges[4], (0, 6));
    assert!(seen.borrow().events.iter().all(|e| e.6 == 1));

    // Scalar accesses, a guard that fails (no event), wide stores, calls
    // (the callee's accesses come with the caller's call on the stack)
    // and loops (block entries).
    let src = "mem @a: i8[16] nram\n\nfunc @g() {\nbb0:\n    store @a[3], i16 7\n    ret\n}\n\nfunc @f(%p: i1) -> i8 {\n    var %x: i8\n    var %i: i64\n    var %c: i1\nbb0:\n    %i = const 2\n    jump bb1\nbb1:\n    @%p store @a[0], 1\n    %x = load @a[1]\n    call @g()\n    %i = sub %i, 1\n    %c = setp.sgt %i, 0\n    br %c, bb1, bb2\nbb2:\n    ret %x\n}\n";
    let m = module(src);
    let f = m.function_by_name("f").unwrap();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Seen::default()));
    let mut it = Interpreter::new(&m, Config::default()).unwrap();
    it.set_observer(Box::new(Recorder(seen.clone(), &m)));
    it.call(f, &[Imm::bool(false)]).unwrap();
    let s = seen.borrow();
    let brief: Vec<(bool, u64, u64, usize)> = s.events.iter().map(|e| (e.2, e.4, e.5, e.6)).collect();
    assert_eq!(brief, [(false, 1, 1, 1), (true, 3, 2, 2), (false, 1, 1, 1), (true, 3, 2, 2)]);
    assert_eq!(s.blocks, [(0, 1), (1, 1), (1, 2)]);
    assert!(it.take_observer().is_some());
}
