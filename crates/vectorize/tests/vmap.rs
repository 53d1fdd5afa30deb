//! The vectorizer's output, asserted: the digest's examples, unmapped
//! arguments, gathers, batched `if` (select vs masks) and `while`, nested
//! vmap, sizes, optimisation rules and their limits, and bugs planted to
//! prove the oracle catches them.

use vectorize::eval::{EvalConfig, eval};
use vectorize::fuzzing::{Bug, batch_inputs, check_vmap, configs, with_bug};
use vectorize::generate::{SplitMix64, generate};
use vectorize::text::{parse, print_graph};
use vectorize::{Bits, RuleSet, ScalarTy, Schedule, Uniformity, ValTy, Value, VectorizeConfig, Vectorizer, verify};

fn graph(text: &str) -> (vectorize::Graph, vectorize::Sym) {
    let (g, _) = parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    verify(&g).unwrap();
    let f = *g.functions().last().unwrap();
    (g, f)
}

fn vmap(text: &str, axes: &[bool]) -> (vectorize::Graph, vectorize::Sym, String) {
    let (g, f) = graph(text);
    let v = Vectorizer::default().vectorize(&g, f, axes).unwrap();
    verify(&v.graph).unwrap();
    let printed = print_graph(&v.graph);
    (v.graph, v.func, printed)
}

const P: &str = "func @p(%a: f32, %b: f32, %c: f32) -> f32 {
    %t: f32 = fmul %b, %c
    %r: f32 = fadd %a, %t
    ret %r
}
";

#[test]
fn a_plus_b_times_c_is_one_vector_multiply_and_one_vector_add() {
    let (vg, vf, text) = vmap(P, &[true, true, true]);
    assert_eq!(
        text,
        "func @p(%a: array<f32>, %b: array<f32>, %c: array<f32>) -> array<f32> {
    %t: array<f32> = fmul.1 %b, %c
    %r: array<f32> = fadd.1 %a, %t
    ret %r
}
"
    );
    // No per-element node: the graph has exactly those two operations.
    assert_eq!(vg.len(), 6, "the function, 3 params, 2 operations and nothing else:\n{text}");
    let r = eval(
        &vg,
        vf,
        &[Value::f32s(&[1.0, 2.0]), Value::f32s(&[3.0, 4.0]), Value::f32s(&[5.0, 6.0])],
        EvalConfig::default(),
    )
    .unwrap();
    assert_eq!(r, vec![Value::f32s(&[16.0, 26.0])]);
}

const MEAN: &str = "func @mean(%arr: array<f32>) -> f32 {
    %s: f32 = sum %arr
    %n: i64 = length %arr
    %len: f32 = sitofp %n
    %m: f32 = fdiv %s, %len
    ret %m
}
";

#[test]
fn mean_over_an_array_of_arrays_is_per_row_sums_and_lengths() {
    let (vg, vf, text) = vmap(MEAN, &[true]);
    assert_eq!(
        text,
        "func @mean(%arr: array<array<f32>>) -> array<f32> {
    %s: array<f32> = sum.1 %arr
    %n: array<i64> = length.1 %arr
    %len: array<f32> = sitofp.1 %n
    %m: array<f32> = fdiv.1 %s, %len
    ret %m
}
"
    );
    let rows = [vec![1.0f32, 2.0, 6.0], vec![], vec![0.5], vec![1e8, 1.0, -1e8]];
    let batch =
        Value::array_of(ValTy::array(ScalarTy::F32, 1), &rows.iter().map(|r| Value::f32s(r)).collect::<Vec<_>>())
            .unwrap();
    let got = eval(&vg, vf, &[batch], EvalConfig::default()).unwrap();
    // The scalar order: ((1e8 + 1) + -1e8) in f32 is 0, not 1.
    let want: Vec<f32> = rows.iter().map(|r| r.iter().fold(0.0f32, |a, &x| a + x) / r.len() as f32).collect();
    let got: Vec<u32> = got[0].array().unwrap().scalars().map(|x| x.as_f32().to_bits()).collect();
    assert_eq!(got, want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

#[test]
fn a_scalar_the_same_in_every_lane_stays_a_scalar() {
    let text = "func @f(%x: f32, %s: f32) -> f32 {\n    %k: f32 = const 2.0\n    %t: f32 = fmul %s, %k\n    %r: f32 = fmul %x, %t\n    ret %r\n}\n";
    let (_, _, out) = vmap(text, &[true, false]);
    // %t is computed once, unbatched; %r takes it whole.
    assert!(out.contains("%t: f32 = fmul %s, %k"), "{out}");
    assert!(out.contains("%r: array<f32> = fmul.1 %x, *%t"), "{out}");
    assert!(!out.contains("broadcast"), "{out}");
}

#[test]
fn data_dependent_indexing_is_a_gather() {
    let text = "func @f(%xs: array<f32>, %i: i64) -> f32 {\n    %r: f32 = index %xs, %i\n    ret %r\n}\n";
    let (vg, vf, out) = vmap(text, &[false, true]);
    assert!(out.contains("%r: array<f32> = index.1 *%xs, %i"), "{out}");
    let r = eval(
        &vg,
        vf,
        &[Value::f32s(&[10.0, 20.0, 30.0]), Value::ints(ScalarTy::I64, &[2, 0, 1, 2])],
        EvalConfig::default(),
    )
    .unwrap();
    assert_eq!(r, vec![Value::f32s(&[30.0, 10.0, 20.0, 30.0])], "every lane reads its own index");
}

const PURE_IF: &str = "func @f(%c: i1, %a: f32, %b: f32) -> f32 {
    %t = lambda (%x: f32, %y: f32) -> f32 {
        %z: f32 = fadd %x, %y
        ret %z
    }
    %e = lambda (%x: f32, %y: f32) -> f32 {
        %z: f32 = fmul %x, %y
        ret %z
    }
    %r: f32 = if %c, %t, %e, %a, %b
    ret %r
}
";

#[test]
fn a_batched_if_with_pure_branches_is_a_select() {
    let (_, _, out) = vmap(PURE_IF, &[true, true, true]);
    assert!(out.contains("select.1 %c"), "{out}");
    assert!(!out.contains(" if "), "no `if` is left:\n{out}");
    assert!(!out.contains('@') || out.matches('@').count() == 1, "no masks:\n{out}");
    // With the condition the same in every lane, the `if` stays.
    let (_, _, out) = vmap(PURE_IF, &[false, true, true]);
    assert!(out.contains("= if %c"), "{out}");
    assert!(!out.contains("select.1"), "{out}");
}

const TRAPPING_IF: &str = "func @f(%a: i32, %b: i32) -> i32 {
    %z: i32 = const 0
    %c: i1 = setp.ne %b, %z
    %t = lambda (%x: i32, %y: i32) -> i32 {
        %q: i32 = sdiv %x, %y
        ret %q
    }
    %e = lambda (%x: i32, %y: i32) -> i32 {
        ret %x
    }
    %r: i32 = if %c, %t, %e, %a, %b
    ret %r
}
";

#[test]
fn a_batched_if_with_a_branch_that_may_trap_runs_masked() {
    let (vg, vf, out) = vmap(TRAPPING_IF, &[true, true]);
    // The branch takes the lanes' mask and divides only where it is set.
    assert!(out.contains("(%x: array<i32>, %y: array<i32>, %1: array<i1>) -> array<i32>"), "{out}");
    assert!(out.contains("@%1 %q: array<i32> = sdiv.1 %x, %y"), "{out}");
    assert!(out.contains("%r: array<i32> = select.1 %c, %5, %6"), "{out}");
    // Division by zero in the lanes that take the other branch does not trap.
    let r = eval(
        &vg,
        vf,
        &[Value::ints(ScalarTy::I32, &[7, 8, 9]), Value::ints(ScalarTy::I32, &[2, 0, -3])],
        EvalConfig::default(),
    )
    .unwrap();
    assert_eq!(r, vec![Value::ints(ScalarTy::I32, &[3, 8, -3])]);
    // The always-masking strategy masks even pure branches.
    let rules = vectorize::DEFAULT_RULES.replace(
        "rule if(c, t, e, xs..) => branch(c, t, e, xs..)",
        "rule if(c, t, e, xs..) => masked_branch(c, t, e, xs..)",
    );
    let (g, f) = graph(PURE_IF);
    let v = Vectorizer::new(RuleSet::parse(&rules).unwrap()).vectorize(&g, f, &[true, true, true]).unwrap();
    assert!(print_graph(&v.graph).contains("array<i1>) -> array<f32>"), "{}", print_graph(&v.graph));
}

const LOOP: &str = "func @f(%n: i64, %x: f32) -> f32 {
    %seven: i64 = const 7
    %bound: i64 = and %n, %seven
    %zero: i64 = const 0
    %c = lambda (%i: i64, %k: i64, %acc: f32) -> i1 {
        %more: i1 = setp.slt %i, %k
        ret %more
    }
    %b = lambda (%i: i64, %k: i64, %acc: f32) -> i64, i64, f32 {
        %one: i64 = const 1
        %j: i64 = add %i, %one
        %a2: f32 = fadd %acc, %acc
        ret %j, %k, %a2
    }
    %w: (i64, i64, f32) = while %c, %b, %zero, %bound, %x
    %r: f32 = get.2 %w
    ret %r
}
";

#[test]
fn a_loop_with_a_batched_condition_runs_while_any_lane_runs() {
    let (vg, vf, out) = vmap(LOOP, &[true, true]);
    assert!(out.contains("= any %"), "the loop runs while any lane is active:\n{out}");
    assert!(out.contains("select.1"), "finished lanes keep their state:\n{out}");
    let r = eval(
        &vg,
        vf,
        &[Value::ints(ScalarTy::I64, &[0, 3, 1, 7, 9]), Value::f32s(&[1.0, 1.0, 3.0, 1.0, 2.0])],
        EvalConfig::default(),
    )
    .unwrap();
    assert_eq!(r, vec![Value::f32s(&[1.0, 8.0, 6.0, 128.0, 4.0])]);
}

#[test]
fn a_loop_with_the_same_trip_count_everywhere_keeps_its_counter_unbatched() {
    let (_, _, out) = vmap(LOOP, &[false, true]);
    assert!(!out.contains("= any %"), "a uniform condition needs no mask:\n{out}");
    // The counter and the bound stay scalars; only the accumulator is batched.
    assert!(out.contains("(%i: i64, %k: i64, %acc: array<f32>"), "{out}");
    // The analysis says so too.
    let (g, f) = graph(LOOP);
    let sched = Schedule::new(&g).unwrap();
    let mut uni = Uniformity::new(&g, &sched).unwrap();
    // A schedule of another graph, or of this one before a change, is refused.
    let (other, _) = graph(PURE_IF);
    assert!(Uniformity::new(&other, &sched).is_err());
    assert!(vectorize::Purity::new(&other, &sched).is_err());
    assert_eq!(uni.summary(f, &Bits::from_flags([false, true])).results, Bits::from_flags([true]));
    let w = g.syms().find(|&s| g.op(s) == Some(vectorize::Op::While)).unwrap();
    let (state, cond) = uni.while_pattern(w, &Bits::from_flags([false, false, true]));
    assert_eq!((state, cond), (Bits::from_flags([false, false, true]), false));
    let (state, cond) = uni.while_pattern(w, &Bits::from_flags([false, true, false]));
    // A batched bound: lanes stop at different times; the bound passes through.
    assert_eq!((state, cond), (Bits::from_flags([true, true, true]), true));
}

#[test]
fn nested_vmap_on_ragged_batches() {
    let (g, f) = graph(MEAN);
    let v1 = Vectorizer::default().vectorize(&g, f, &[true]).unwrap();
    let v2 = Vectorizer::default().vectorize(&v1.graph, v1.func, &[true]).unwrap();
    let text = print_graph(&v2.graph);
    assert!(text.contains("sum.2 %arr") && text.contains("length.2 %arr"), "{text}");
    let row = |v: &[f32]| Value::f32s(v);
    let inner = |rows: &[&[f32]]| {
        Value::array_of(ValTy::array(ScalarTy::F32, 1), &rows.iter().map(|r| row(r)).collect::<Vec<_>>()).unwrap()
    };
    let outer = [inner(&[&[1.0, 3.0], &[5.0]]), inner(&[]), inner(&[&[2.0, 2.0, 2.0]])];
    let batch = Value::array_of(ValTy::array(ScalarTy::F32, 2), &outer).unwrap();
    let got = eval(&v2.graph, v2.func, &[batch], EvalConfig::default()).unwrap();
    assert_eq!(got[0].to_string(), "[[2.0, 5.0], [], [2.0]]");
}

#[test]
fn the_vectorized_graph_does_not_depend_on_the_batch_and_stays_linear() {
    let mut worst = 0.0f64;
    for seed in 0..400u64 {
        let mut s = SplitMix64::new(seed);
        let gn = generate(&configs()[(seed % 4) as usize], &mut s);
        let v = Vectorizer::default().vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
        let ratio = v.graph.len() as f64 / gn.graph.len() as f64;
        worst = worst.max(ratio);
        // Built once, it serves every batch size.
        for b in [0, 1, 7, 64] {
            let (lanes, shared) = batch_inputs(&gn.graph, gn.func, &gn.in_axes, b, &mut s);
            check_vmap(&gn.graph, gn.func, &v.graph, v.func, &gn.in_axes, &lanes, &shared).unwrap();
        }
        let vv =
            Vectorizer::default().vectorize(&v.graph, v.func, &vec![true; v.graph.param_types(v.func).len()]).unwrap();
        worst = worst.max(vv.graph.len() as f64 / gn.graph.len() as f64 / 6.0);
    }
    assert!(worst < 6.0, "the vectorized graph grew {worst:.1} times its input");
}

#[test]
fn without_optimisation_rules_the_result_is_the_same_and_larger_or_equal() {
    let empty = RuleSet::default_without_opts();
    assert_eq!(empty.num_opts(), 0);
    let (mut smaller, mut total) = (0, 0);
    for seed in 0..300u64 {
        let mut s = SplitMix64::new(seed);
        let gn = generate(&configs()[(seed % 4) as usize], &mut s);
        let a = Vectorizer::default().vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
        let b = Vectorizer::new(empty.clone()).vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
        assert!(a.graph.len() <= b.graph.len());
        smaller += usize::from(a.graph.len() < b.graph.len());
        total += a.stats.rewrites;
        let (lanes, shared) = batch_inputs(&gn.graph, gn.func, &gn.in_axes, 7, &mut s);
        let ra = check_vmap(&gn.graph, gn.func, &a.graph, a.func, &gn.in_axes, &lanes, &shared);
        let rb = check_vmap(&gn.graph, gn.func, &b.graph, b.func, &gn.in_axes, &lanes, &shared);
        assert_eq!(ra.is_ok(), rb.is_ok());
    }
    assert!(smaller > 10 && total > 10, "the rules fire ({total} rewrites, {smaller} graphs smaller)");
}

#[test]
fn a_looping_rule_set_stops_at_its_limit() {
    // Commutes forever: the rewrite limit stops it; the graph is still right.
    let rules = format!("{}\nopt fadd(a, b) => fadd(b, a)\n", vectorize::DEFAULT_RULES);
    let rules = RuleSet::parse(&rules).unwrap();
    let (g, f) = graph(P);
    let v = Vectorizer::with_config(rules, VectorizeConfig { max_rewrites: 100, ..Default::default() })
        .vectorize(&g, f, &[true, true, true])
        .unwrap();
    assert!(v.stats.rewrite_limit_hit);
    let mut s = SplitMix64::new(1);
    let (lanes, shared) = batch_inputs(&g, f, &[true, true, true], 7, &mut s);
    check_vmap(&g, f, &v.graph, v.func, &[true, true, true], &lanes, &shared).unwrap();
}

/// Graphs on which a planted bug is caught, of `n` generated.
fn caught(rules: RuleSet, n: u64) -> usize {
    let vz = Vectorizer::new(rules);
    (0..n)
        .filter(|&seed| {
            let mut s = SplitMix64::new(seed);
            let gn = generate(&configs()[(seed % 4) as usize], &mut s);
            let v = vz.vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
            let (lanes, shared) = batch_inputs(&gn.graph, gn.func, &gn.in_axes, 7, &mut s);
            check_vmap(&gn.graph, gn.func, &v.graph, v.func, &gn.in_axes, &lanes, &shared).is_err()
        })
        .count()
}

#[test]
fn planted_bugs_are_caught_by_the_oracle() {
    assert_eq!(caught(RuleSet::default(), 300), 0, "nothing is flagged without a bug");
    for bug in [Bug::LoopRunsFinishedLanes, Bug::SelectSwapsBranches] {
        assert!(with_bug(bug, || caught(RuleSet::default(), 300)) > 0, "{bug:?} went unnoticed");
    }
    // A wrong user rule is caught the same way.
    let wrong = vectorize::DEFAULT_RULES
        .replace("rule select(c, a, b) => select^(c, a, b)", "rule select(c, a, b) => select^(c, b, a)");
    assert!(caught(RuleSet::parse(&wrong).unwrap(), 300) > 0);
}
