//! The text format: exact round trips, diagnostics with line, column and
//! caret (rendered by the `diagnostics` crate, Keel's one renderer), and no
//! panic on any input.

use vectorize::fuzzing::configs;
use vectorize::generate::{SplitMix64, generate};
use vectorize::text::{parse, print_graph};
use vectorize::{Graph, verify};

mod nests;
use nests::{nested, nested_ifs, nested_whiles};

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
            // Indentation stops at MAX_INDENT levels, so the text stays
            // linear in the depth and round-trips at full depth.
            let printed = print_graph(&g);
            let (back, _) = parse(&printed).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
            assert_eq!(print_graph(&back), printed);
            assert_eq!((back.len(), back.lambdas().len()), (g.len(), g.lambdas().len()));
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

#[test]
fn deep_text_keeps_a_bounded_indent_and_round_trips() {
    // Up to MAX_INDENT levels the indentation is the canonical one (and no
    // comment); past it, lines stop moving right and say their level.
    let cap = vectorize::text::MAX_INDENT;
    let (shallow, _) = parse(&nested(cap - 1)).unwrap();
    let text = print_graph(&shallow);
    assert!(!text.contains(';'), "{text}");
    let deepest = format!("{}%y: i64 = neg %x{}\n", "    ".repeat(cap), cap - 2);
    assert!(text.contains(&deepest), "{text}");
    let depth = 5_000;
    let (g, _) = parse(&nested(depth)).unwrap();
    let text = print_graph(&g);
    let widest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(widest < 4 * cap + 80, "a line of {widest} bytes");
    let pad = "    ".repeat(cap);
    // The innermost body is at level depth + 1; its lambda's header and
    // closing brace at level depth.
    assert!(text.contains(&format!("\n{pad}%y: i64 = neg %x{} ; nesting {}\n", depth - 1, depth + 1)), "no marker");
    assert!(text.contains(&format!("\n{pad}ret %y ; nesting {}\n{pad}}} ; nesting {depth}\n", depth + 1)));
    assert!(text.contains(&format!(
        "\n{pad}%l{} = lambda (%x{}: i64) -> i64 {{ ; nesting {depth}\n",
        depth - 1,
        depth - 1
    )));
    assert!(text.contains(&format!("\n{}%r{}: i64 = apply", "    ".repeat(cap), cap - 1)), "the last unmarked level");
    // The same graph back: same symbols, lambdas and names, same text.
    let (back, _) = parse(&text).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
    verify(&back).unwrap();
    assert_eq!((back.len(), back.lambdas().len()), (g.len(), g.lambdas().len()));
    assert!(g.syms().all(|s| back.name(s) == g.name(s) && back.data(s) == g.data(s)), "a node changed");
    assert_eq!(print_graph(&back), text);
    // The streaming writer writes exactly the same bytes.
    let mut streamed = Vec::new();
    vectorize::text::write_graph(&g, &mut streamed).unwrap();
    assert_eq!(streamed, text.as_bytes());
}

#[test]
fn the_streaming_printers_pass_write_errors_up() {
    // A writer that fails after `room` bytes: the printers stop and return
    // its error rather than panicking or going on.
    struct Full {
        room: usize,
    }
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (g, _) = parse(SAMPLE).unwrap();
    for room in [0, 10, 100] {
        let e = vectorize::text::write_graph(&g, &mut Full { room }).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        let e = vectorize::dot::write_graph(&g, &mut Full { room }).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    }
    vectorize::text::write_graph(&g, &mut Full { room: SAMPLE.len() }).unwrap();
    let mut drawn = Vec::new();
    vectorize::dot::write_graph(&g, &mut drawn).unwrap();
    assert_eq!(drawn, vectorize::dot::graph(&g).as_bytes());
}

#[test]
fn deep_drawings_keep_a_bounded_indent() {
    let cap = vectorize::dot::MAX_INDENT;
    let depth = 2_000;
    let (g, _) = parse(&nested(depth)).unwrap();
    let d = vectorize::dot::graph(&g);
    let widest = d.lines().map(str::len).max().unwrap_or(0);
    assert!(widest < 2 * cap + 80, "a line of {widest} bytes");
    // The function's cluster is at level 1, lambda l_i's members at i + 3.
    let pad = "  ".repeat(cap);
    assert!(d.contains(&format!("\n{pad}label=\"%l{} = lambda\"; // nesting {}\n", depth - 1, depth + 2)), "no marker");
    assert!(d.contains(&format!("\n{pad}}} // nesting {}\n", depth + 1)));
    assert_eq!(d.matches("subgraph cluster_").count(), depth + 1);
    assert_eq!(d.matches('{').count(), d.matches('}').count());
    // At ordinary depths, nothing changes: two spaces per level.
    let (shallow, _) = parse(&nested(3)).unwrap();
    let d = vectorize::dot::graph(&shallow);
    assert!(
        !d.contains("//") && d.contains("\n        subgraph cluster_3 {\n          label=\"%l2 = lambda\";\n"),
        "{d}"
    );
}

/// Parses `text`, which has exactly one error; its rendering.
fn only_error(text: &str) -> String {
    let e = parse(text).map(|_| ()).expect_err(text);
    let r: String = e.iter().map(|d| d.render("t.vg", text)).collect();
    assert_eq!(e.len(), 1, "{r}");
    r
}

#[test]
fn a_rejected_line_is_reported_once() {
    // Issue 30: a name whose defining line was rejected was reported again
    // at the `}` as "not defined in this lambda".
    let cases: &[(&str, &str, &str)] = &[
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = frobnicate %a\n    ret %r\n}\n",
            "unknown operation `frobnicate`",
            "t.vg:2:15",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, $\n    %s: i32 = neg %r\n    ret %s\n}\n",
            "unexpected character `$`",
            "t.vg:2:23",
        ),
        (
            "func @f(%a: i32, %m: i1) -> i32 {\n    @%m %q: i33 = add %a, %a\n    ret %q\n}\n",
            "unknown type `i33`",
            "t.vg:2:13",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %l = lambda (%x: bogus) -> i32 {\n        ret %x\n    }\n    %r: i32 = apply %l, %a\n    ret %r\n}\n",
            "unknown type `bogus`",
            "t.vg:2:22",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %a\n    ret %r $\n}\n",
            "unexpected character `$`",
            "t.vg:3:12",
        ),
        (
            "func @f(%a: i32) -> i32 {\n    %r: i32 = add %a, %a\n    %r: i32 = nope %a\n    ret %r\n}\n",
            "unknown operation `nope`",
            "t.vg:3:15",
        ),
    ];
    for (text, message, location) in cases {
        let r = only_error(text);
        assert!(r.contains(message) && r.contains(location) && r.contains('^'), "wanted {message} at {location}:\n{r}");
        assert!(!r.contains("is not defined") && !r.contains("has no `ret`"), "a follow-on error:\n{r}");
    }
    // A name that is undefined for another reason is still reported.
    let text = "func @f(%a: i32) -> i32 {\n    %r: i32 = nope %a\n    %s: i32 = add %r, %zz\n    ret %s\n}\n";
    let e = parse(text).map(|_| ()).unwrap_err();
    let r: String = e.iter().map(|d| d.render("t.vg", text)).collect();
    assert_eq!(e.len(), 2, "{r}");
    assert!(r.contains("unknown operation `nope`") && r.contains("`%zz` is not defined in this lambda"), "{r}");
    assert!(!r.contains("`%r` is not defined"), "{r}");
    // And a rejected name in an outer body does not hide it in a lambda,
    // which cannot see it anyway.
    let text = "func @f(%a: i32) -> i32 {\n    %r: i32 = nope %a\n    %l = lambda (%x: i32) -> i32 {\n        %y: i32 = add %x, %r\n        ret %y\n    }\n    ret %a\n}\n";
    let e = parse(text).map(|_| ()).unwrap_err();
    let r: String = e.iter().map(|d| d.render("t.vg", text)).collect();
    assert!(r.contains("`%r` is not defined in this lambda") && r.contains("t.vg:4:27"), "{r}");
}

#[test]
fn deep_ifs_and_whiles_run_through_every_pass() {
    // Issue 30's shapes (`if` and `while` nested deep) through the parser,
    // the verifier, the evaluator, the vectorizer and the printer on a
    // 256 KiB stack: nothing recurses with the depth.
    use vectorize::{ScalarTy, Value};
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let ints = |v: &[i64]| Value::ints(ScalarTy::I64, v);
            let bools = |v: &[i64]| Value::ints(ScalarTy::I1, v);
            for (text, args, batched, want) in [
                (
                    nested_ifs(20_000),
                    vec![Value::Scalar(vectorize::Imm::int(ScalarTy::I1, 1)), Value::i64(3)],
                    vec![bools(&[1, 0]), ints(&[3, 3])],
                    (Value::i64(6), ints(&[6, -3])),
                ),
                (
                    nested_whiles(5_000),
                    vec![Value::i64(0)],
                    vec![ints(&[0, 5])],
                    (Value::i64(5_001), ints(&[5_001, 6])),
                ),
            ] {
                let (g, _) = parse(&text).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
                verify(&g).unwrap();
                let f = g.function("f").unwrap();
                let r = vectorize::eval::eval(&g, f, &args, Default::default()).unwrap();
                assert_eq!(r, vec![want.0]);
                let v = vectorize::vectorize(&g, f, &vec![true; args.len()]).unwrap();
                let r = vectorize::eval::eval(&v.graph, v.func, &batched, Default::default()).unwrap();
                assert_eq!(r, vec![want.1]);
                for graph in [&g, &v.graph] {
                    let printed = print_graph(graph);
                    let (back, _) = parse(&printed).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
                    verify(&back).unwrap();
                    assert_eq!(print_graph(&back), printed);
                    assert!(printed.lines().all(|l| l.len() < 4 * vectorize::text::MAX_INDENT + 100));
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
