//! The classic cases, each asserting the transformed IR and the dynamic
//! counts (computations executed, by the reference interpreter), and the
//! planted bugs the oracles must catch.

use ir_core::interp::{Config, run};
use ir_core::{Imm, Module, Type, text};
use svfg_pre::Method;
use svfg_pre::fuzzing::{Bug, check_module, computations, to_ssa, transform, with_bug};

fn ssa_module(src: &str) -> Module {
    let (m, _) = text::parse(src).unwrap_or_else(|d| panic!("{d:?}"));
    to_ssa(&m).unwrap()
}

/// The body of `@f` after `method` (`None`: LCM), and the computations
/// executed by one run before, after PRE and after LCM.
fn apply(m: &Module, method: Option<Method>) -> (Module, String) {
    let t = transform(m, method).unwrap();
    let s = text::print_module(&t);
    let body = s[s.find("bb0:").unwrap()..].to_string();
    (t, body)
}

fn count(m: &Module, args: &[Imm]) -> u64 {
    let f = m.function_by_name("f").unwrap();
    let o = run(m, f, args, Config::default()).unwrap();
    computations(m, &o.stats).iter().sum()
}

fn i32s(v: &[i64]) -> Vec<Imm> {
    v.iter().map(|&x| Imm::int(Type::I32, x)).collect()
}

const JOIN: &str = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %p: i1
bb0:
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    %x = add %a, %b
    jump bb3
bb2:
    jump bb3
bb3:
    %y = add %a, %b
    ret %y
}
";

#[test]
fn partially_redundant_add_at_a_join() {
    let m = ssa_module(JOIN);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert_eq!(
        body,
        "bb0:\n    %p.1 = setp.slt %c, 0\n    br %p.1, bb1, bb2\nbb1:\n    %x.1 = add %a, %b\n    jump bb3\nbb2:\n    %pre5.i = add %a, %b\n    jump bb3\nbb3:\n    %pre5 = phi(bb1: %x.1, bb2: %pre5.i)\n    %y.1 = copy %pre5\n    ret %y.1\n}\n"
    );
    let (lcm, _) = apply(&m, None);
    // Through bb1: 2 computations before, 1 after (PRE and LCM alike);
    // through bb2: 1 before and after.
    assert_eq!(
        (count(&m, &i32s(&[1, 2, -1])), count(&pre, &i32s(&[1, 2, -1])), count(&lcm, &i32s(&[1, 2, -1]))),
        (3, 2, 2)
    );
    assert_eq!(
        (count(&m, &i32s(&[1, 2, 1])), count(&pre, &i32s(&[1, 2, 1])), count(&lcm, &i32s(&[1, 2, 1]))),
        (2, 2, 2)
    );
}

const LOOP: &str = "func @f(%a: i32, %b: i32, %n: i32) -> i32 {
    var %s: i32
    var %x: i32
    var %more: i1
bb0:
    %s = const 0
    jump bb1
bb1:
    %x = add %a, %b
    %s = add %s, %x
    %n = sub %n, 1
    %more = setp.sgt %n, 0
    br %more, bb1, bb2
bb2:
    ret %s
}
";

#[test]
fn loop_invariant_add_leaves_the_loop() {
    let m = ssa_module(LOOP);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert!(body.contains("bb0:\n    %s.1 = const 0\n    %pre6.i = add %a, %b\n    jump bb1\n"), "{body}");
    assert!(body.contains("%pre6 = phi(bb0: %pre6.i, bb1: %x.1)"), "{body}");
    assert!(body.contains("%x.1 = copy %pre6"), "{body}");
    let (lcm, _) = apply(&m, None);
    // Ten trips: 10 x (add a b, add s x, sub, setp) = 40 before; the
    // invariant add runs once after PRE and LCM: 31.
    let args = i32s(&[3, 4, 10]);
    assert_eq!((count(&m, &args), count(&pre, &args), count(&lcm, &args)), (40, 31, 31));
}

const SEMANTIC: &str = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %z: i32
    var %p: i1
bb0:
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    %x = add %a, %b
    jump bb3
bb2:
    jump bb3
bb3:
    %y = copy %a
    %z = add %y, %b
    ret %z
}
";

#[test]
fn semantic_case_beats_lcm() {
    let m = ssa_module(SEMANTIC);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert!(body.contains("bb2:\n    %pre5.i = add %a, %b\n"), "{body}");
    assert!(body.contains("%pre5 = phi(bb1: %x.1, bb2: %pre5.i)"), "{body}");
    assert!(body.contains("%z.1 = copy %pre5"), "{body}");
    let (lcm, lcm_body) = apply(&m, None);
    assert!(lcm_body.contains("%z.1 = add %y.1, %b") || lcm_body.contains("add %y.1, %b"), "{lcm_body}");
    let args = i32s(&[1, 2, -1]);
    assert_eq!((count(&m, &args), count(&pre, &args), count(&lcm, &args)), (3, 2, 3));
}

const DIVISION: &str = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %p: i1
bb0:
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    %x = sdiv %a, %b
    jump bb3
bb2:
    jump bb3
bb3:
    %y = sdiv %a, %b
    ret %y
}
";

#[test]
fn a_division_on_one_path_is_never_inserted() {
    let m = ssa_module(DIVISION);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert_eq!(body.matches("sdiv").count(), 2, "{body}");
    assert!(!body.contains("pre"), "{body}");
    // With b = 0 and c >= 0 the original traps at bb3 only; so does PRE's.
    let f = pre.function_by_name("f").unwrap();
    assert!(run(&pre, f, &i32s(&[1, 0, 1]), Config::default()).is_err());
    let args = i32s(&[7, 2, -1]);
    assert_eq!((count(&m, &args), count(&pre, &args)), (3, 3));
}

const GUARDED: &str = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %p: i1
bb0:
    %x = const 0
    %p = setp.slt %c, 0
    @%p %x = add %a, %b
    %y = add %a, %b
    %y = add %y, %x
    ret %y
}
";

#[test]
fn a_guarded_computation_makes_nothing_available() {
    let m = ssa_module(GUARDED);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert!(body.contains("@%p.1 %x.2 = add %a, %b else %x.1"), "{body}");
    assert!(body.contains("%y.1 = add %a, %b"), "{body}");
    let args = i32s(&[1, 2, -1]);
    // The guarded add is not a candidate computation (it is not counted).
    assert_eq!((count(&m, &args), count(&pre, &args)), (3, 3));
    let f = pre.function_by_name("f").unwrap();
    let r = run(&pre, f, &args, Config::default()).unwrap().results;
    assert_eq!(r, i32s(&[6]));
}

#[test]
fn planted_insertion_on_a_non_down_safe_edge_is_caught() {
    // A while loop: the invariant add is not down-safe at the header (the
    // loop may run zero times). The planted bug inserts it anyway.
    let src = "func @f(%a: i32, %b: i32, %n: i32) -> i32 {
    var %s: i32
    var %x: i32
    var %more: i1
bb0:
    %s = const 0
    jump bb1
bb1:
    %more = setp.sgt %n, 0
    br %more, bb2, bb3
bb2:
    %x = add %a, %b
    %s = add %s, %x
    %n = sub %n, 1
    jump bb1
bb3:
    ret %s
}
";
    let (m, _) = text::parse(src).unwrap();
    let f = m.function_by_name("f").unwrap();
    let args = i32s(&[1, 2, 0]);
    check_module(&m, f, &args, 10_000).unwrap();
    let e = with_bug(Bug::IgnoreDownSafety, || check_module(&m, f, &args, 10_000)).unwrap_err();
    // Caught by the per-value-number count: the inserted add runs on a
    // path that computed its value zero times before.
    assert!(e.contains("computes value v") && e.contains("1 times, 0 before"), "{e}");
}

#[test]
fn planted_merge_of_unequal_values_is_caught() {
    let src = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
bb0:
    %x = sub %a, %b
    %y = sub %b, %a
    %y = add %y, %x
    %y = add %y, %y
    ret %x
}
";
    let src = src.replace("ret %x", "ret %y");
    let (m, _) = text::parse(&src).unwrap();
    let f = m.function_by_name("f").unwrap();
    let args = i32s(&[5, 2, 0]);
    check_module(&m, f, &args, 10_000).unwrap();
    let e = with_bug(Bug::SubCommutes, || check_module(&m, f, &args, 10_000)).unwrap_err();
    assert!(e.contains("changes the outcome"), "{e}");
}

#[test]
fn not_ssa_and_empty_functions_are_refused() {
    let (mut m, _) = text::parse(LOOP).unwrap();
    let f = m.function_by_name("f").unwrap();
    let before = text::print_module(&m);
    let func2 = m.function_mut(f).unwrap();
    let e = svfg_pre::svfg_pre(func2).unwrap_err();
    assert!(e.to_string().contains("not in SSA form"), "{e}");
    // The error names the var defined again and the instruction doing it.
    let svfg_pre::PreError::NotSsa { var, name, inst } = &e else { panic!("{e:?}") };
    assert_eq!(func2.var_name(*var), name);
    assert!(e.to_string().contains(&format!("%{name} ")), "{e}");
    assert!(inst.is_some_and(|i| func2.results(i).contains(var)), "{e:?}");
    assert_eq!(text::print_module(&m), before);
    let mut empty = ir_core::Function::new("e", ir_core::Signature::new([], []), &[]);
    assert_eq!(svfg_pre::svfg_pre(&mut empty).unwrap_err(), svfg_pre::PreError::NoBlocks);
}

/// Loads across blocks: `%y` reads what `%x` read (a store to another
/// object lies between, which memdep knows is disjoint), so it becomes a
/// copy; `%w` may read what the store on one path wrote, so it stays.
const LOADS: &str = "mem @a: i32[8] dram = [1, 2, 3, 4, 5, 6, 7, 8]
mem @b: i32[8] dram

func @f(%i: i64, %c: i32, %v: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %w: i32
    var %s: i32
    var %p: i1
bb0:
    %x = load @a[%i]
    store @b[%i], %x
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    store @a[%i], %v
    jump bb3
bb2:
    %y = load @a[%i]
    jump bb3
bb3:
    %w = load @a[%i]
    %s = add %x, %w
    ret %s
}
";

#[test]
fn loads_share_a_number_only_where_memdep_sees_no_write_between() {
    let m = ssa_module(LOADS);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert!(body.contains("%y.1 = copy %x.1"), "{body}");
    assert!(body.contains("%w.1 = load @a[%i]"), "{body}");
    for args in [[3, -1, 40], [3, 1, 40], [0, -5, 9]] {
        let a = vec![Imm::int(Type::I64, args[0]), Imm::int(Type::I32, args[1]), Imm::int(Type::I32, args[2])];
        let f = m.function_by_name("f").unwrap();
        let before = run(&m, f, &a, Config::default()).unwrap();
        let after = run(&pre, pre.function_by_name("f").unwrap(), &a, Config::default()).unwrap();
        assert_eq!((before.results, before.memory), (after.results, after.memory), "{args:?}");
    }
    // Without memory dependences no two loads share a number.
    let mut plain = m.clone();
    let id = plain.function_by_name("f").unwrap();
    let s = svfg_pre::svfg_pre(plain.function_mut(id).unwrap()).unwrap();
    assert_eq!(s.removed, 0);
}

#[test]
fn planted_merge_of_loads_across_a_write_is_caught() {
    let (m, _) = text::parse(LOADS).unwrap();
    let f = m.function_by_name("f").unwrap();
    let args = vec![Imm::int(Type::I64, 3), Imm::int(Type::I32, -1), Imm::int(Type::I32, 40)];
    check_module(&m, f, &args, 10_000).unwrap();
    let e = with_bug(Bug::LoadsIgnoreWrites, || check_module(&m, f, &args, 10_000)).unwrap_err();
    assert!(e.contains("changes the outcome"), "{e}");
}

/// The document's extension (t ∈ B): `%w + %b` after a join where `%w` is
/// `%a` on one side and `%d` on the other, with `%a + %b` computed on the
/// first side. `dn(w + b)` is the join itself, so no phi of the value sits
/// below it; the extension places one at the join whose operands carry the
/// translations `a + b` (computed: reused) and `d + b` (inserted).
const TRANSLATION: &str = "func @f(%a: i32, %b: i32, %c: i32, %d: i32) -> i32 {
    var %x: i32
    var %w: i32
    var %z: i32
    var %p: i1
bb0:
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    %x = add %a, %b
    %w = copy %a
    jump bb3
bb2:
    %w = copy %d
    jump bb3
bb3:
    %z = add %w, %b
    ret %z
}
";

#[test]
fn phi_translation_through_the_extension_step() {
    let m = ssa_module(TRANSLATION);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert!(body.contains("bb2:\n    %w.1 = copy %d\n    %pre8.i = add %b, %w.1\n    jump bb3\n"), "{body}");
    assert!(body.contains("%pre8 = phi(bb1: %x.1, bb2: %pre8.i)"), "{body}");
    assert!(body.contains("%z.1 = copy %pre8"), "{body}");
    let pre_with = |method: Method| {
        let mut s = m.clone();
        let f = s.function_by_name("f").unwrap();
        svfg_pre::run(s.function_mut(f).unwrap(), method).unwrap()
    };
    let stats = pre_with(Method::Svfg);
    assert_eq!((stats.removed, stats.inserted, stats.phis_created), (1, 1, 1), "{body}");
    // Without the extension, nothing changes on this function.
    let plain = pre_with(Method::SemiSvfg);
    assert_eq!((plain.removed, plain.inserted), (0, 0));
    let (lcm, _) = apply(&m, None);
    let left = i32s(&[1, 2, -1, 7]);
    let right = i32s(&[1, 2, 1, 7]);
    // Left path: the compare, a + b, w + b: 3 before, 2 after (w + b is
    // the a + b already computed). Right path: 2 before and after (d + b
    // is inserted where w + b was). LCM sees no lexical redundancy.
    assert_eq!((count(&m, &left), count(&pre, &left), count(&lcm, &left)), (3, 2, 3), "{body}");
    assert_eq!((count(&m, &right), count(&pre, &right), count(&lcm, &right)), (2, 2, 2), "{body}");
    for args in [&left, &right] {
        let fm = m.function_by_name("f").unwrap();
        let a = run(&m, fm, args, Config::default()).unwrap();
        let b = run(&pre, pre.function_by_name("f").unwrap(), args, Config::default()).unwrap();
        assert_eq!(a.results, b.results);
    }
}

/// Two levels of the extension: `w + b` at bb6 translates through bb5 to
/// `w.bb5 + b`, a value nothing computes whose `dn` (bb5) is itself a join;
/// its ζ reaches the edge into bb6, where the first extension phi consumes
/// it, so it is semi movable down-safe and extended in a second round:
/// `c + b` is reused from bb3 and only `d + b` is inserted, in bb4.
const TWO_LEVELS: &str = "func @f(%a: i32, %b: i32, %c: i32, %d: i32, %s: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %w: i32
    var %z: i32
    var %p: i1
bb0:
    %p = setp.slt %s, 0
    br %p, bb1, bb2
bb1:
    %x = add %a, %b
    %w = copy %a
    jump bb6
bb2:
    %p = setp.sgt %s, 5
    br %p, bb3, bb4
bb3:
    %y = add %c, %b
    %w = copy %c
    jump bb5
bb4:
    %w = copy %d
    jump bb5
bb5:
    jump bb6
bb6:
    %z = add %w, %b
    ret %z
}
";

#[test]
fn two_levels_of_translation_insert_only_where_nothing_is_computed() {
    let m = ssa_module(TWO_LEVELS);
    let (pre, body) = apply(&m, Some(Method::Svfg));
    assert_eq!(body.matches(" = add ").count(), 3, "{body}");
    assert!(body.contains("bb4:\n    %w.1 = copy %d\n    %pre"), "{body}");
    assert!(body.contains("%z.1 = copy %pre"), "{body}");
    let mut s = m.clone();
    let f = s.function_by_name("f").unwrap();
    let stats = svfg_pre::svfg_pre(s.function_mut(f).unwrap()).unwrap();
    assert_eq!((stats.removed, stats.inserted, stats.phis_created, stats.extended), (1, 1, 2, 2), "{body}");
    assert_eq!(stats.extension_rounds, 2);
    let (lcm, _) = apply(&m, None);
    // Paths: bb1 (the compare, a + b, w + b), bb3 (two compares, c + b,
    // w + b), bb4 (two compares, w + b).
    for (s, want) in [(-1, (3, 2, 3)), (9, (4, 3, 4)), (1, (3, 3, 3))] {
        let args = i32s(&[1, 2, 3, 4, s]);
        assert_eq!((count(&m, &args), count(&pre, &args), count(&lcm, &args)), want, "s = {s}: {body}");
    }
}

#[test]
fn planted_region_end_at_an_extension_use_is_caught_by_the_verifier() {
    let m = ssa_module(TWO_LEVELS);
    let f = m.function_by_name("f").unwrap();
    let func = m.function(f).unwrap();
    let (svfg, vns) = svfg_pre::build_svfg(func, None).unwrap();
    svfg_pre::verify_svfg(func, &vns, &svfg).unwrap();
    let (svfg, vns) = with_bug(Bug::ExtensionUsesEndRegions, || svfg_pre::build_svfg(func, None)).unwrap();
    let e = svfg_pre::verify_svfg(func, &vns, &svfg).expect_err("a planted bug must be caught").to_string();
    assert!(e.contains("was not extended"), "{e}");
}

/// A division whose divisor may be zero, partially redundant and once
/// unused: PRE neither inserts it on the path without it nor deletes the
/// unused one (the clean-up keeps what may trap), exactly; with the
/// clean-up planted to delete traps, the interpreter oracle sees the trap
/// vanish.
#[test]
fn a_division_that_may_trap_stays_put() {
    let src = "func @f(%a: i32, %b: i32, %c: i1) -> i32 {
    var %x: i32
    var %y: i32
    var %u: i32
bb0:
    %u = sdiv %b, %a
    br %c, bb1, bb2
bb1:
    %x = sdiv %a, %b
    jump bb2
bb2:
    %y = sdiv %a, %b
    ret %y
}
";
    let (mut m, _) = text::parse(src).unwrap();
    let f = m.function_by_name("f").unwrap();
    let func = m.function_mut(f).unwrap();
    ssa::construct(func, &ssa::Options::default()).unwrap();
    let stats = svfg_pre::svfg_pre(func).unwrap();
    assert_eq!((stats.inserted, stats.removed), (0, 0), "nothing may move a division");
    let cleaned = svfg_pre::cleanup_function(func).unwrap();
    assert_eq!(cleaned.computations_deleted, 0, "an unused division may still trap");
    let body: Vec<String> = text::print_module(&m).lines().filter(|l| l.contains("sdiv")).map(String::from).collect();
    assert_eq!(
        body,
        ["    %u.1 = sdiv %b, %a", "    %x.1 = sdiv %a, %b", "    %y.1 = sdiv %a, %b"],
        "every division stays where it was"
    );
    // `a = 0`: the unused `b / a` traps; deleting it would hide that.
    let (m, _) = text::parse(src).unwrap();
    let args = [Imm::int(Type::I32, 0), Imm::int(Type::I32, 3), Imm::int(Type::I1, 0)];
    check_module(&m, f, &args, 10_000).unwrap();
    let e = with_bug(Bug::CleanupDeletesTraps, || check_module(&m, f, &args, 10_000)).unwrap_err();
    assert!(e.contains("the clean-up changes the outcome"), "{e}");
}

/// PRE's memory answers on demand (`LazyMemory`), one case per outcome:
/// nothing writes `@a` between the loads (the walk says yes), a call does
/// (the walk says no, as memdep would), a store to `@a` at `%i + 1` (the
/// walk sees the same root and another element: yes), a store at `%i`
/// (the same element: no), a store at index 3 (another root: memdep
/// answers, and cannot tell). Each asserts how the question was answered
/// and whether the second load was removed; every program then runs the
/// same.
#[test]
fn memory_questions_are_answered_by_walk_or_by_memdep() {
    let case = |between: &str| {
        format!(
            "mem @a: i32[8] nram
mem @b: i32[8] nram
extern @opaque_write()

func @f(%i: i64, %p: i1) -> i32 {{
    var %x: i32
    var %y: i32
    var %s: i32
    var %j: i64
bb0:
    %x = load @a[%i]
    br %p, bb1, bb2
bb1:
    {between}
    jump bb2
bb2:
    %y = load @a[%i]
    %s = add %x, %y
    ret %s
}}
"
        )
    };
    // (between the loads, answered by: walk yes, walk no, memdep; removed)
    let cases = [
        ("store @b[%i], 7", (1, 0, 0), true),
        ("call @opaque_write()", (0, 1, 0), false),
        ("%j = add %i, 1\n    store @a[%j], 7", (1, 0, 0), true),
        ("store @a[%i], 7", (0, 1, 0), false),
        ("store @a[3], 7", (0, 0, 1), false),
    ];
    for (between, (yes, no, memdep), removed) in cases {
        let m = ssa_module(&case(between));
        let f = m.function_by_name("f").unwrap();
        // A copy has its own stamp: the plan is made on the copy it edits.
        let mut after = m.function(f).unwrap().clone();
        let (plan, counts) = svfg_pre::plan_in(&m, &after, Method::Svfg).unwrap();
        assert_eq!((counts.walked, counts.clobbered, counts.from_memdep), (yes, no, memdep), "{between}");
        assert_eq!(counts.memdep_time.is_zero(), memdep == 0, "{between}");
        let stats = svfg_pre::apply(&mut after, &plan).unwrap();
        assert_eq!(stats.removed > 0, removed, "{between}: {stats:?}");
        for args in [[Imm::int(Type::I64, 2), Imm::int(Type::I1, 1)], [Imm::int(Type::I64, 3), Imm::int(Type::I1, 0)]] {
            if between.starts_with("call") {
                continue; // the extern needs a handler: `check_module` covers calls
            }
            check_module(&m, f, &args, 10_000).unwrap_or_else(|e| panic!("{between}: {e}"));
        }
    }
}
