//! vmap semantics for every primitive: a small program per primitive (and,
//! for lifted primitives, the same at depth 1 with a `*` argument and with
//! a mask), vectorized under every single-parameter `in_axes` and with all
//! parameters mapped, must give `eval(/p/, xs) == [eval(p, x) for x in xs]`
//! bit for bit (and trap exactly when a lane traps) on batches of 0, 1, 7
//! and 64 lanes. The test enumerates `Prim::all()` and fails if a
//! primitive has no rule or no program here.

use vectorize::fuzzing::{batch_inputs, check_vmap};
use vectorize::generate::SplitMix64;
use vectorize::text::parse;
use vectorize::{BinaryOp, Graph, Prim, PrimKind, RuleSet, ScalarTy, TypeClass, Vectorizer, verify};

const BATCHES: [usize; 4] = [0, 1, 7, 64];

/// A scalar type of an operation's class.
fn class_type(class: TypeClass) -> &'static str {
    match class {
        TypeClass::Int => "i32",
        TypeClass::Float => "f64",
        TypeClass::Any => "f32",
    }
}

/// Programs for the element-wise primitives: scalar, lifted with a `*`
/// argument, and lifted under a mask.
fn element_programs(p: Prim) -> Vec<String> {
    let (op, ty, arity, result) = match p {
        Prim::Unary(o) => {
            (o.name().to_string(), class_type(o.class()).to_string(), 1, class_type(o.class()).to_string())
        }
        Prim::Binary(o) => {
            (o.name().to_string(), class_type(o.class()).to_string(), 2, class_type(o.class()).to_string())
        }
        Prim::Setp(c) => (format!("setp.{c}"), "i64".into(), 2, "i1".into()),
        Prim::Fsetp(c) => (format!("fsetp.{c}"), "f32".into(), 2, "i1".into()),
        Prim::Convert(o) => {
            let all = ScalarTy::ALL;
            let (s, d) = all
                .iter()
                .flat_map(|&s| all.iter().map(move |&d| (s, d)))
                .filter(|&(s, d)| o.converts(s, d) && s != d)
                .max_by_key(|&(s, d)| (s.bits() + d.bits(), s.is_float()))
                .or_else(|| all.iter().map(|&t| (t, t)).find(|&(s, d)| o.converts(s, d)))
                .expect("a legal conversion");
            (o.name().to_string(), s.name().to_string(), 1, d.name().to_string())
        }
        _ => return Vec::new(),
    };
    let params: Vec<String> = (0..arity).map(|i| format!("%a{i}: {ty}")).collect();
    let args: Vec<String> = (0..arity).map(|i| format!("%a{i}")).collect();
    let scalar = format!(
        "func @f({}) -> {result} {{\n    %r: {result} = {op} {}\n    ret %r\n}}\n",
        params.join(", "),
        args.join(", ")
    );
    // Lifted: the first argument mapped, the others the same in every lane.
    let mut lparams = vec![format!("%a0: array<{ty}>")];
    lparams.extend((1..arity).map(|i| format!("%a{i}: {ty}")));
    let mut largs = vec!["%a0".to_string()];
    largs.extend((1..arity).map(|i| format!("*%a{i}")));
    let lifted = format!(
        "func @f({}) -> array<{result}> {{\n    %r: array<{result}> = {op}.1 {}\n    ret %r\n}}\n",
        lparams.join(", "),
        largs.join(", ")
    );
    let masked = format!(
        "func @f({}, %m: array<i1>) -> array<{result}> {{\n    %n: i64 = length %a0\n    %k: i64 = length %m\n    %same: i1 = setp.eq %n, %k\n    %ok: i1 = assert %same\n    @%m %r: array<{result}> = {op}.1 {}\n    ret %r\n}}\n",
        lparams.join(", "),
        largs.join(", ")
    );
    vec![scalar, lifted, masked]
}

/// Programs for everything else.
fn other_programs(p: Prim) -> Vec<&'static str> {
    match p {
        Prim::Select => vec![
            "func @f(%c: i1, %a: f32, %b: f32) -> f32 {\n    %r: f32 = select %c, %a, %b\n    ret %r\n}\n",
            "func @f(%c: i1, %a: array<i32>, %b: array<i32>) -> array<i32> {\n    %r: array<i32> = select %c, %a, %b\n    ret %r\n}\n",
            "func @f(%c: array<i1>, %a: array<f32>, %b: f32) -> array<f32> {\n    %n: i64 = length %a\n    %k: i64 = length %c\n    %e: i1 = setp.eq %n, %k\n    %ok: i1 = assert %e\n    %r: array<f32> = select.1 %c, %a, *%b\n    ret %r\n}\n",
        ],
        Prim::Length => vec![
            "func @f(%x: array<array<f32>>) -> i64 {\n    %r: i64 = length %x\n    ret %r\n}\n",
            "func @f(%x: array<array<f32>>) -> array<i64> {\n    %r: array<i64> = length.1 %x\n    ret %r\n}\n",
        ],
        Prim::Sum => vec![
            "func @f(%x: array<f64>) -> f64 {\n    %r: f64 = sum %x\n    ret %r\n}\n",
            "func @f(%x: array<array<i32>>) -> array<i32> {\n    %r: array<i32> = sum.1 %x\n    ret %r\n}\n",
        ],
        Prim::Max => vec![
            "func @f(%x: array<f32>) -> f32 {\n    %r: f32 = max %x\n    ret %r\n}\n",
            "func @f(%x: array<array<i64>>) -> array<i64> {\n    %r: array<i64> = max.1 %x\n    ret %r\n}\n",
        ],
        Prim::Any => vec![
            "func @f(%x: array<i1>) -> i1 {\n    %r: i1 = any %x\n    ret %r\n}\n",
            "func @f(%x: array<array<i1>>) -> array<i1> {\n    %r: array<i1> = any.1 %x\n    ret %r\n}\n",
        ],
        Prim::Index => vec![
            // In range unless the array is empty.
            "func @f(%x: array<array<i32>>, %i: i64) -> array<i32> {\n    %n: i64 = length %x\n    %z: i64 = const 0\n    %one: i64 = const 1\n    %pos: i1 = setp.sgt %n, %z\n    %safe: i64 = select %pos, %n, %one\n    %j: i64 = urem %i, %safe\n    %r: array<i32> = index %x, %j\n    ret %r\n}\n",
            // Raw: often out of bounds.
            "func @f(%x: array<f32>, %i: i64) -> f32 {\n    %r: f32 = index %x, %i\n    ret %r\n}\n",
            // A gather: one array, an index per lane.
            "func @f(%x: array<f32>, %is: array<i64>) -> array<f32> {\n    %n: i64 = length %x\n    %z: i64 = const 0\n    %one: i64 = const 1\n    %pos: i1 = setp.sgt %n, %z\n    %safe: i64 = select %pos, %n, %one\n    %j: array<i64> = urem.1 %is, *%safe\n    %r: array<f32> = index.1 *%x, %j\n    ret %r\n}\n",
        ],
        Prim::Broadcast => vec![
            "func @f(%x: f32, %n: i64) -> array<f32> {\n    %three: i64 = const 3\n    %k: i64 = and %n, %three\n    %r: array<f32> = broadcast %x, %k\n    ret %r\n}\n",
            "func @f(%x: array<i32>, %n: i64) -> array<array<i32>> {\n    %three: i64 = const 3\n    %k: i64 = and %n, %three\n    %r: array<array<i32>> = broadcast %x, %k\n    ret %r\n}\n",
            "func @f(%x: i32, %ns: array<i64>) -> array<array<i32>> {\n    %three: i64 = const 3\n    %k: array<i64> = and.1 %ns, *%three\n    %r: array<array<i32>> = broadcast.1 *%x, %k\n    ret %r\n}\n",
        ],
        Prim::Concat => vec![
            "func @f(%x: array<array<f32>>) -> array<f32> {\n    %r: array<f32> = concat %x\n    ret %r\n}\n",
            "func @f(%x: array<array<array<i32>>>) -> array<array<i32>> {\n    %r: array<array<i32>> = concat.1 %x\n    ret %r\n}\n",
        ],
        Prim::Partition => vec![
            "func @f(%x: array<array<f32>>) -> array<array<f32>> {\n    %lens: array<i64> = length.1 %x\n    %flat: array<f32> = concat %x\n    %r: array<array<f32>> = partition %flat, %lens\n    ret %r\n}\n",
            // Raw lengths: usually a mismatch.
            "func @f(%x: array<i32>, %lens: array<i64>) -> array<array<i32>> {\n    %r: array<array<i32>> = partition %x, %lens\n    ret %r\n}\n",
        ],
        Prim::Assert => vec![
            "func @f(%c: i1) -> i1 {\n    %r: i1 = assert %c\n    ret %r\n}\n",
            "func @f(%a: i32) -> i1 {\n    %z: i32 = const 0\n    %c: i1 = setp.ne %a, %z\n    %r: i1 = assert %c\n    ret %r\n}\n",
        ],
        Prim::Map => vec![
            "func @f(%xs: array<f32>, %s: f32) -> array<f32> {\n    %l = lambda (%x: f32, %k: f32) -> f32 {\n        %y: f32 = fmul %x, %k\n        ret %y\n    }\n    %r: array<f32> = map %l, %xs, *%s\n    ret %r\n}\n",
            "func @f(%xs: array<i32>, %ys: array<i32>) -> array<i32> {\n    %l = lambda (%x: i32, %y: i32) -> i32 {\n        %z: i32 = sdiv %x, %y\n        ret %z\n    }\n    %r: array<i32> = map %l, %xs, %ys\n    ret %r\n}\n",
            "func @f(%xss: array<array<f64>>) -> array<f64> {\n    %l = lambda (%row: array<f64>) -> f64 {\n        %s: f64 = sum %row\n        ret %s\n    }\n    %r: array<f64> = map %l, %xss\n    ret %r\n}\n",
        ],
        Prim::Apply => vec![
            "func @f(%a: f32, %b: f32) -> f32 {\n    %l = lambda (%x: f32, %y: f32) -> f32 {\n        %z: f32 = fsub %x, %y\n        ret %z\n    }\n    %r: f32 = apply %l, %a, %b\n    ret %r\n}\n",
        ],
        Prim::If => vec![
            // Pure branches: a select when the condition is batched.
            "func @f(%c: i1, %a: f32, %b: f32) -> f32 {\n    %t = lambda (%x: f32, %y: f32) -> f32 {\n        %z: f32 = fadd %x, %y\n        ret %z\n    }\n    %e = lambda (%x: f32, %y: f32) -> f32 {\n        %z: f32 = fmul %x, %y\n        ret %z\n    }\n    %r: f32 = if %c, %t, %e, %a, %b\n    ret %r\n}\n",
            // A branch that may trap: masks.
            "func @f(%a: i32, %b: i32) -> i32 {\n    %z: i32 = const 0\n    %c: i1 = setp.ne %b, %z\n    %t = lambda (%x: i32, %y: i32) -> i32 {\n        %q: i32 = udiv %x, %y\n        ret %q\n    }\n    %e = lambda (%x: i32, %y: i32) -> i32 {\n        ret %x\n    }\n    %r: i32 = if %c, %t, %e, %a, %b\n    ret %r\n}\n",
        ],
        Prim::While => vec![
            // Trip count per lane: a batched condition.
            "func @f(%n: i64, %x: f32) -> f32 {\n    %seven: i64 = const 7\n    %bound: i64 = and %n, %seven\n    %zero: i64 = const 0\n    %c = lambda (%i: i64, %k: i64, %acc: f32) -> i1 {\n        %more: i1 = setp.slt %i, %k\n        ret %more\n    }\n    %b = lambda (%i: i64, %k: i64, %acc: f32) -> i64, i64, f32 {\n        %one: i64 = const 1\n        %j: i64 = add %i, %one\n        %two: f32 = const 2.0\n        %a2: f32 = fmul %acc, %two\n        ret %j, %k, %a2\n    }\n    %w: (i64, i64, f32) = while %c, %b, %zero, %bound, %x\n    %r: f32 = get.2 %w\n    ret %r\n}\n",
        ],
        Prim::Get => vec![
            "func @f(%c: i1, %a: i64) -> i64 {\n    %t = lambda (%x: i64) -> i64, i64 {\n        %y: i64 = neg %x\n        ret %x, %y\n    }\n    %e = lambda (%x: i64) -> i64, i64 {\n        ret %x, %x\n    }\n    %r: (i64, i64) = if %c, %t, %e, %a\n    %r1: i64 = get.1 %r\n    ret %r1\n}\n",
        ],
        _ => Vec::new(),
    }
}

fn programs(p: Prim) -> Vec<String> {
    let mut v = element_programs(p);
    v.extend(other_programs(p).into_iter().map(str::to_string));
    v
}

/// Checks the vmap property for one program under several `in_axes`.
fn check_program(text: &str, seed: u64) -> (usize, usize) {
    let (g, _) = parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    verify(&g).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let f = g.function("f").expect("@f");
    let n = g.param_types(f).len();
    let mut patterns: Vec<Vec<bool>> = vec![vec![true; n]];
    patterns.extend((0..n).map(|i| (0..n).map(|j| j == i).collect()));
    let mut rng = SplitMix64::new(seed);
    let (mut lanes, mut traps) = (0, 0);
    for axes in patterns {
        let v = Vectorizer::default().vectorize(&g, f, &axes).unwrap_or_else(|e| panic!("{e}\n{text}"));
        verify(&v.graph).unwrap();
        for &b in &BATCHES {
            for _ in 0..3 {
                let (per_lane, shared) = batch_inputs(&g, f, &axes, b, &mut rng);
                let out = check_vmap(&g, f, &v.graph, v.func, &axes, &per_lane, &shared)
                    .unwrap_or_else(|e| panic!("{e}\nin_axes {axes:?}, batch {b}\n{text}"));
                lanes += out.lanes;
                traps += usize::from(out.trapped);
            }
        }
    }
    (lanes, traps)
}

fn uses(g: &Graph, p: Prim) -> bool {
    g.syms().any(|s| g.op(s).map(|o| o.prim()) == Some(p))
}

#[test]
fn every_primitive_has_a_rule_and_vectorizes_exactly() {
    let rules = RuleSet::default();
    assert!(rules.missing().is_empty(), "primitives without a rule: {:?}", rules.missing());
    let (mut lanes, mut traps, mut count) = (0, 0, 0);
    for (i, &p) in Prim::all().iter().enumerate() {
        match p.kind() {
            PrimKind::NonTerminal | PrimKind::Leaf => {
                assert!(rules.rule(p).is_none(), "`{p}` takes no rule");
                continue;
            }
            PrimKind::Ruled => assert!(rules.rule(p).is_some(), "no rule for `{p}`"),
        }
        let progs = programs(p);
        assert!(!progs.is_empty(), "no program exercises `{p}`");
        for (k, text) in progs.iter().enumerate() {
            let (g, _) = parse(text).unwrap();
            assert!(uses(&g, p), "the program for `{p}` does not use it:\n{text}");
            let (l, t) = check_program(text, (i * 16 + k) as u64);
            lanes += l;
            traps += t;
            count += 1;
        }
    }
    println!("{count} programs, {lanes} lanes compared, {traps} batches that trapped in both");
    assert!(lanes > 100_000 && traps > 0);
}

#[test]
fn a_missing_rule_is_an_error_not_a_fallback() {
    let text = "func @f(%a: f32, %b: f32) -> f32 {\n    %r: f32 = fadd %a, %b\n    ret %r\n}\n";
    let (g, _) = parse(text).unwrap();
    let f = g.function("f").unwrap();
    let without: String =
        vectorize::DEFAULT_RULES.lines().filter(|l| !l.starts_with("rule fadd(")).collect::<Vec<_>>().join("\n");
    let rules = RuleSet::parse(&without).unwrap();
    assert_eq!(rules.missing(), vec![Prim::Binary(BinaryOp::Fadd)]);
    let e = Vectorizer::new(rules.clone()).vectorize(&g, f, &[true, false]).unwrap_err();
    assert_eq!(e.kind, vectorize::VectorizeErrorKind::NoRule(Prim::Binary(BinaryOp::Fadd)));
    assert_eq!(e.kind.to_string(), "no rule for `fadd`: there is no fallback");
    // Nothing batched: no rule is needed (the node is the same in every lane).
    let text2 = "func @f(%a: f32, %b: f32, %x: f32) -> f32 {\n    %r: f32 = fadd %a, %b\n    %s: f32 = fmul %r, %x\n    ret %s\n}\n";
    let (g2, _) = parse(text2).unwrap();
    let f2 = g2.function("f").unwrap();
    Vectorizer::new(rules).vectorize(&g2, f2, &[false, false, true]).unwrap();
}
