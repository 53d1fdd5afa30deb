//! The text format: exact round trips, diagnostics with line, column and
//! caret (rendered by the `diagnostics` crate, Keel's one renderer), and no
//! panic on any input.

use vectorize::fuzzing::configs;
use vectorize::generate::{SplitMix64, generate};
use vectorize::text::{parse, print_graph};
use vectorize::{Graph, verify};

const SAMPLE: &str = "func @f(%xs: array<array<f32>>, %s: f32, %c: i1) -> array<f32>, i64 {
    %l = lambda (%row: array<f32>, %k: f32) -> f32 {
        %t: f32 = sum %row
        %u: f32 = fmul %t, %k
        ret %u
    }
    %ys: array<f32> = map %l, %xs, *%s
    %n: i64 = length %xs
    %lens: array<i64> = length.1 %xs
    %z: i64 = const 0
    %m: array<i1> = setp.sgt.1 %lens, *%z
    @%m %q: array<i64> = sdiv.1 %lens, %lens
    %a: array<array<i32>> = array [[1, -2], [], [3]]
    %t = lambda (%x: i64) -> i64, i64 {
        ret %x, %x
    }
    %e = lambda (%x: i64) -> i64, i64 {
        %y: i64 = neg %x
        ret %y, %x
    }
    %w: (i64, i64) = if %c, %t, %e, %n
    %r: i64 = get.0 %w
    ret %ys, %r
}

func @g(%a: f64) -> f64 {
    %h: f64 = const nan:0x1234
    %i: f64 = const -inf
    %0: f64 = fadd %a, %h
    %1: f64 = fmin %0, %i
    ret %1
}
";

#[test]
fn canonical_text_round_trips_exactly() {
    let (g, _) = parse(SAMPLE).unwrap_or_else(|e| panic!("{e:?}"));
    verify(&g).unwrap();
    assert_eq!(print_graph(&g), SAMPLE);
}

#[test]
fn generated_graphs_round_trip() {
    for seed in 0..500u64 {
        let mut s = SplitMix64::new(seed);
        let gn = generate(&configs()[(seed % 4) as usize], &mut s);
        let text = print_graph(&gn.graph);
        let (back, _) = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        assert_eq!(print_graph(&back), text);
        verify(&back).unwrap();
        // Structure: the same number of symbols and lambdas.
        assert_eq!(back.len(), gn.graph.len());
        assert_eq!(back.lambdas().len(), gn.graph.lambdas().len());
        let v = vectorize::vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
        let vt = print_graph(&v.graph);
        let (vb, _) = parse(&vt).unwrap_or_else(|e| panic!("{e:?}\n{vt}"));
        assert_eq!(print_graph(&vb), vt);
    }
}

#[test]
fn bodies_may_use_symbols_defined_below_them() {
    let text = "func @f(%a: i32) -> i32 {\n    %c: i32 = add %b, %a\n    %b: i32 = neg %a\n    ret %c\n}\n";
    let (g, _) = parse(text).unwrap();
    verify(&g).unwrap();
    // Printed in dependence order.
    assert_eq!(
        print_graph(&g),
        "func @f(%a: i32) -> i32 {\n    %b: i32 = neg %a\n    %c: i32 = add %b, %a\n    ret %c\n}\n"
    );
}

fn first_error(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => e.iter().map(|d| d.render("t.vg", text)).collect(),
    }
}

#[test]
fn parse_errors_point_at_line_and_column() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = frobnicate %a\n    ret %r\n}\n",
            "unknown operation `frobnicate`",
            "t.vg:2:15",
        ),
        ("func @f(%a: i32) -> i32 {\n    %r: i33 = add %a, %a\n    ret %r\n}\n", "unknown type `i33`", "t.vg:2:9"),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %zz\n    ret %r\n}\n",
            "`%zz` is not defined in this lambda",
            "t.vg:2:23",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %a\n    %r: i32 = add %a, %a\n    ret %r\n}\n",
            "`%r` is defined twice",
            "t.vg:3:5",
        ),
        ("func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %a\n}\n", "this body has no `ret`", "t.vg:1:1"),
        ("func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %a\n    ret %r\n", "never closed", "t.vg:1:1"),
        ("func @f(%a: i32) -> f32 {\n    ret %a\n}\n", "`ret` returns (i32) but the header declares (f32)", "t.vg:2:5"),
        ("func @f(%a: i32) -> i32 {\n    %r: i32 = const 1.5\n    ret %r\n}\n", "", "t.vg:2:21"),
        (
            "func @f(%a: i32) -> i32 {\n    %r: array<i32> = array [[1]]\n    ret %a\n}\n",
            "expected a literal",
            "t.vg:2:29",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = setp.zz %a, %a\n    ret %r\n}\n",
            "unknown integer condition `zz`",
            "t.vg:2:15",
        ),
        ("func @f(%a: i32) -> i32 {\n    %r: i32 = get %a\n    ret %r\n}\n", "`get` needs an index", "t.vg:2:15"),
        ("func @f(%a: i32) -> i32 {\n    ret %a $\n}\n", "unexpected character `$`", "t.vg:2:12"),
        ("%r: i32 = add %a, %a\n", "expected `func`", "t.vg:1:1"),
        (
            "func @f(%a: i32) -> i32 {\n    %l = lambda (%x: i32) -> i32 {\n        ret %a\n    }\n    ret %a\n}\n",
            "`%a` is not defined in this lambda",
            "t.vg:3:13",
        ),
        ("func @f() -> i32 {\n    ret\n}\nfunc @f() {\n    ret\n}\n", "a function `@f` already exists", "t.vg:4:6"),
    ];
    for (text, message, location) in cases {
        let r = first_error(text);
        assert!(r.contains(message), "wanted `{message}`, got:\n{r}");
        assert!(r.contains(location), "wanted {location}, got:\n{r}");
        assert!(r.contains('^'), "a caret:\n{r}");
    }
}

#[test]
fn errors_are_collected_and_recovery_goes_on() {
    let text = "func @f(%a: i32) -> i32 {\n    %r: i32 = nope %a\n    %s: i32 = nada %a\n    %l = lambda (%x: bogus) -> i32 {\n        %q: i32 = zip %x\n        ret %x\n    }\n    ret %a\n}\n";
    let e = parse(text).unwrap_err();
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e.iter().all(|d| d.span.start < d.span.end || d.span.start as usize <= text.len()));
}

#[test]
fn verifier_errors_render_against_the_source() {
    let text = "func @f(%a: i32, %b: f32) -> i32 {\n    %r: i32 = add %a, %b\n    ret %r\n}\n";
    let (g, map) = parse(text).unwrap();
    let e = verify(&g).unwrap_err();
    let r = e[0].render("t.vg", text, &map);
    assert!(r.contains("t.vg:2:5") && r.contains("`add` of i32 and f32") && r.contains('^'), "{r}");
}

#[test]
fn no_panic_on_any_input() {
    let mut rng = SplitMix64::new(7);
    let words = [
        "func", "@f", "(", ")", "{", "}", "%a", ":", "i32", "array", "<", ">", "=", "lambda", "ret", "map", "add.1",
        "*", ",", "\n", "[", "]", "1", "-", "@%m", "->", "get.0", ";x",
    ];
    for _ in 0..20_000 {
        let n = (rng.next_u64() % 40) as usize;
        let text: String =
            (0..n).map(|_| words[(rng.next_u64() % words.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
        if let Ok((g, _)) = parse(&text) {
            let _ = verify(&g);
            let _ = print_graph(&g);
        }
    }
    // Mutations of a valid program.
    let bytes = SAMPLE.as_bytes();
    for _ in 0..5_000 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + rng.next_u64() % 4 {
            let i = (rng.next_u64() % b.len() as u64) as usize;
            match rng.next_u64() % 3 {
                0 => b[i] = (rng.next_u64() % 128) as u8,
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b"%*,()\n{}[]"[(rng.next_u64() % 10) as usize]),
            }
        }
        if let Ok(text) = String::from_utf8(b)
            && let Ok((g, _)) = parse(&text)
            && verify(&g).is_ok()
        {
            assert_eq!(print_graph(&parse(&print_graph(&g)).unwrap().0), print_graph(&g));
        }
    }
}

/// `depth` nested lambdas, each applying the next.
fn nested(depth: usize) -> String {
    let mut text = String::from("func @f(%a: i64) -> i64 {\n");
    for i in 0..depth {
        text.push_str(&format!("%l{i} = lambda (%x{i}: i64) -> i64 {{\n"));
    }
    text.push_str(&format!("%y: i64 = neg %x{}\nret %y\n}}\n", depth - 1));
    for i in (0..depth).rev() {
        let x = if i == 0 { "%a".to_string() } else { format!("%x{}", i - 1) };
        text.push_str(&format!("%r{i}: i64 = apply %l{i}, {x}\n"));
        text.push_str(&format!("ret %r{i}\n}}\n"));
    }
    text
}

#[test]
fn deep_nesting_neither_recurses_nor_overflows() {
    // 20,000 nested lambdas, each applying the next, and a type nested 500
    // deep: parse, verify, print, evaluate and vectorize on a 256 KiB stack.
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let depth = 20_000;
            let text = nested(depth);
            let (g, _) = parse(&text).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
            verify(&g).unwrap();
            let f = g.function("f").unwrap();
            let r = vectorize::eval::eval(&g, f, &[vectorize::Value::i64(5)], Default::default()).unwrap();
            assert_eq!(r, vec![vectorize::Value::i64(-5)]);
            let v = vectorize::vectorize(&g, f, &[true]).unwrap();
            let xs = vectorize::Value::ints(vectorize::ScalarTy::I64, &[1, 2]);
            let r = vectorize::eval::eval(&v.graph, v.func, &[xs], Default::default()).unwrap();
            assert_eq!(r, vec![vectorize::Value::ints(vectorize::ScalarTy::I64, &[-1, -2])]);
            // Printing indents each level, so its output grows with the
            // square of the nesting; a tenth of the depth is enough here.
            let (small, _) = parse(&nested(depth / 10)).unwrap();
            let printed = print_graph(&small);
            assert_eq!(print_graph(&parse(&printed).unwrap().0), printed);
            let deep = format!(
                "func @g(%a: {}i32{}) -> i64 {{\n    %n: i64 = length %a\n    ret %n\n}}\n",
                "array<".repeat(500),
                ">".repeat(500)
            );
            let (g2, _) = parse(&deep).unwrap();
            verify(&g2).unwrap();
            let _ = print_graph(&g2);
            let _: &Graph = &g2;
        })
        .unwrap()
        .join()
        .unwrap();
}
