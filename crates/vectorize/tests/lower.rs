//! Lowering to Keel: the examples `@p` and `@mean` of source document 003
//! ("constructing a vectorized version of a source program having a
//! graph-based intermediate representation", `docs/references.md`) as plain
//! tensor instructions
//! over exact descriptors, and generated programs (scalar arithmetic of
//! every class, `if`, `while`, `apply`, array parameters reduced whole as
//! `@mean` reduces its array) vectorized, lowered and interpreted by
//! `ir-core` to exactly what the graph gives per lane; planted lowering
//! bugs are caught the same way.

use ir_core::interp::Config;
use vectorize::eval::{EvalConfig, Evaluator};
use vectorize::fuzzing::{Bug, batch_inputs, stack, with_bug};
use vectorize::generate::{GenConfig, SplitMix64, generate};
use vectorize::lower::{Lanes, LowerErrorKind, LowerOptions, Lowered, lower};
use vectorize::text::{parse, print_graph};

mod nests;

fn lowered(text: &str, axes: &[bool], lanes: Lanes) -> (String, vectorize::lower::Lowered) {
    let (g, _) = parse(text).unwrap();
    let f = *g.functions().last().unwrap();
    let v = vectorize::vectorize(&g, f, axes).unwrap();
    let l =
        lower(&v.graph, v.func, LowerOptions { lanes, elements: 64, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP })
            .unwrap_or_else(|e| panic!("{e}\n{}", print_graph(&v.graph)));
    (ir_core::text::print_module(&l.module), l)
}

#[test]
fn a_plus_b_times_c_is_one_tmul_and_one_tadd_over_exact_descriptors() {
    let text = "func @p(%a: f32, %b: f32, %c: f32) -> f32 {\n    %t: f32 = fmul %b, %c\n    %r: f32 = fadd %a, %t\n    ret %r\n}\n";
    let (out, _) = lowered(text, &[true, true, true], Lanes::Fixed(64));
    assert_eq!(
        out,
        "mem @a: f32[64] dram\nmem @b: f32[64] dram\nmem @c: f32[64] dram\nmem @t: f32[64] nram\nmem @r: f32[64] nram\n\nfunc @p() {\nbb0:\n    tmul @t[0, 64], @b[0, 64], @c[0, 64]\n    tadd @r[0, 64], @a[0, 64], @t[0, 64]\n    ret\n}\n"
    );
    // The product first: one unfused tfma (the same rounding order).
    let text = "func @q(%a: f32, %b: f32, %c: f32) -> f32 {\n    %t: f32 = fmul %b, %c\n    %r: f32 = fadd %t, %a\n    ret %r\n}\n";
    let (out, _) = lowered(text, &[true, true, true], Lanes::Fixed(8));
    assert!(out.contains("tfma @r[0, 8], @b[0, 8], @c[0, 8], @a[0, 8]") && !out.contains("tmul"), "{out}");
    // A scalar the same in every lane is a scalar slot.
    let (out, _) = lowered(text, &[true, false, true], Lanes::Dynamic { capacity: 128 });
    assert!(
        out.contains("func @q(%lanes: i64, %b: f32)")
            && out.contains("tfma @r[0, %lanes], %b, @c[0, %lanes], @a[0, %lanes]"),
        "{out}"
    );
}

#[test]
fn mean_is_one_tsum_per_row() {
    let text = "func @mean(%arr: array<f32>) -> f32 {\n    %s: f32 = sum %arr\n    %n: i64 = length %arr\n    %len: f32 = sitofp %n\n    %m: f32 = fdiv %s, %len\n    ret %m\n}\n";
    let (out, _) = lowered(text, &[true], Lanes::Fixed(4));
    assert!(out.contains("= tsum @arr_data[%"), "{out}");
    assert!(out.contains("mem @s: f32[4] nram") && out.contains("mem @n: i64[4] nram"), "{out}");
    assert!(out.contains("tdiv @m[0, 4], @s[0, 4], @len[0, 4]"), "{out}");
}

#[test]
fn what_is_not_lowered_is_an_error_naming_the_node() {
    let text = "func @f(%xs: array<f32>, %i: i64) -> f32 {\n    %r: f32 = index %xs, %i\n    ret %r\n}\n";
    let (g, _) = parse(text).unwrap();
    let f = g.function("f").unwrap();
    let v = vectorize::vectorize(&g, f, &[false, true]).unwrap();
    let e = lower(
        &v.graph,
        v.func,
        LowerOptions { lanes: Lanes::Fixed(4), elements: 0, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
    )
    .unwrap_err();
    assert!(e.sym.is_some() && e.to_string().contains("not lowered"), "{e}");
    assert!(matches!(e.kind, LowerErrorKind::Unsupported { prim: vectorize::Prim::Index, depth: 1 }), "{e}");
}

/// What the comparison of lowered and graph results found.
#[derive(Default, Debug)]
struct Tally {
    same: usize,
    traps: usize,
    rows: usize,
    /// The first disagreement, if any, and how many there were.
    first: Option<String>,
    wrong: usize,
}

/// Vectorizes `graphs` generated programs, lowers each with `lowerer` (for
/// 7 fixed lanes, and 0 and 13 dynamic ones) and compares what `ir-core`'s
/// interpreter computes with the graph evaluated per lane.
fn compare_generated(
    graphs: u64,
    lowerer: impl Fn(&vectorize::Graph, vectorize::Sym, LowerOptions) -> Result<Lowered, vectorize::lower::LowerError>,
) -> Tally {
    let configs = [
        GenConfig { arrays: false, lifted: false, ..GenConfig::default() },
        GenConfig { arrays: false, lifted: false, trapping: false, nodes: 20, depth: 3, ..GenConfig::default() },
        // Array parameters reduced whole (`sum`, `max`, `any`, `length`), as `@mean`.
        GenConfig { arrays: false, lifted: false, rows: true, ..GenConfig::default() },
        GenConfig { arrays: false, lifted: false, rows: true, nodes: 20, params: 5, ..GenConfig::default() },
    ];
    let mut t = Tally::default();
    for seed in 0..graphs {
        let cfg = &configs[(seed % 4) as usize];
        let mut s = SplitMix64::new(seed);
        let gn = generate(cfg, &mut s);
        let v = vectorize::vectorize(&gn.graph, gn.func, &gn.in_axes).unwrap();
        let reduces_rows = gn.graph.syms().any(|x| {
            matches!(
                gn.graph.op(x),
                Some(vectorize::Op::Sum | vectorize::Op::Max | vectorize::Op::Any | vectorize::Op::Length)
            )
        });
        for (b, lanes) in
            [(7, Lanes::Fixed(7)), (0, Lanes::Dynamic { capacity: 16 }), (13, Lanes::Dynamic { capacity: 16 })]
        {
            let l = lowerer(
                &v.graph,
                v.func,
                LowerOptions { lanes, elements: 64, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP },
            )
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print_graph(&v.graph)));
            let (per_lane, shared) = batch_inputs(&gn.graph, gn.func, &gn.in_axes, b, &mut s);
            let mut ev = Evaluator::new(&gn.graph, EvalConfig::default()).unwrap();
            let want: Result<Vec<Vec<_>>, _> = per_lane.iter().map(|a| ev.call(gn.func, a)).collect();
            let got = l.run(&stack(&gn.graph.param_types(gn.func), &gn.in_axes, &per_lane, &shared), Config::default());
            let mismatch = match (want, got) {
                (Ok(w), Ok(g)) => {
                    let bad = g.iter().enumerate().find_map(|(r, gr)| {
                        w.iter().enumerate().find_map(|(i, wl)| {
                            let have = gr.array().map(|a| a.item(1, i));
                            (have.as_ref() != Some(&wl[r]))
                                .then(|| format!("result {r}, lane {i}: {have:?}, not {}", wl[r]))
                        })
                    });
                    if bad.is_none() {
                        t.same += 1;
                        t.rows += usize::from(reduces_rows);
                    }
                    bad
                }
                (Err(_), Err(_)) => {
                    t.traps += 1;
                    None
                }
                (w, g) => Some(format!("graph {:?}, lowered {:?}", w.map(|_| ()), g.map(|_| ()))),
            };
            if let Some(m) = mismatch {
                t.wrong += 1;
                t.first.get_or_insert_with(|| {
                    format!("seed {seed}, {b} lanes: {m}\n{}", ir_core::text::print_module(&l.module))
                });
            }
        }
    }
    t
}

#[test]
fn generated_programs_lower_to_the_graphs_results() {
    let t = compare_generated(1200, lower);
    assert!(t.first.is_none(), "{} disagreements; the first: {}", t.wrong, t.first.unwrap_or_default());
    println!("{} runs agreed ({} of them reducing rows), {} trapped in both", t.same, t.rows, t.traps);
    assert!(t.same > 2800 && t.traps > 0 && t.rows > 400, "{t:?}");
}

#[test]
fn planted_lowering_bugs_are_caught() {
    for bug in [Bug::LaneLoopSkipsLastLane, Bug::TsubSwapsOperands] {
        let t = with_bug(bug, || compare_generated(200, lower));
        assert!(t.wrong > 0, "{bug:?} went unnoticed: {t:?}");
    }
}

#[test]
fn objects_longer_than_keel_ir_allows_are_refused() {
    // Issue 30: `--lanes 2^40` made `@arr_offsets` 2^40 + 1 long, which
    // Keel's parser rejects; the lowering now refuses it, naming the object.
    let limit = ir_core::MAX_MEM_LEN;
    let mean = "func @mean(%arr: array<f32>) -> f32 {\n    %s: f32 = sum %arr\n    ret %s\n}\n";
    let (g, _) = parse(mean).unwrap();
    let f = g.function("mean").unwrap();
    let v = vectorize::vectorize(&g, f, &[true]).unwrap();
    let opts = |lanes, elements| LowerOptions { lanes, elements, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP };
    for lanes in [Lanes::Fixed(limit), Lanes::Dynamic { capacity: limit }] {
        let e = lower(&v.graph, v.func, opts(lanes, 64)).unwrap_err();
        assert_eq!(
            e.kind,
            LowerErrorKind::MemTooLong { name: "arr_offsets".into(), len: u128::from(limit) + 1, limit },
            "{lanes:?}"
        );
        assert_eq!(
            e.to_string(),
            "memory object @arr_offsets would hold 1099511627777 elements, more than Keel IR's limit of 1099511627776"
        );
    }
    // One lane fewer fits, and prints what Keel's parser reads back.
    let l = lower(&v.graph, v.func, opts(Lanes::Fixed(limit - 1), limit)).unwrap();
    let text = ir_core::text::print_module(&l.module);
    assert!(text.contains("mem @arr_offsets: i64[1099511627776] dram"), "{text}");
    assert!(ir_core::text::parse(&text).is_ok(), "{text}");
    // The data object past the limit.
    let e = lower(&v.graph, v.func, opts(Lanes::Fixed(4), limit + 1)).unwrap_err();
    assert_eq!(e.kind, LowerErrorKind::MemTooLong { name: "arr_data".into(), len: u128::from(limit) + 1, limit });
    // Lanes past the limit (and past i64: no wrapped lane count) even when
    // no object would be made from them.
    let scalar = "func @k(%a: i32) -> i32 {\n    ret %a\n}\n";
    let (g, _) = parse(scalar).unwrap();
    let f = g.function("k").unwrap();
    for n in [limit + 1, u64::MAX] {
        for lanes in [Lanes::Fixed(n), Lanes::Dynamic { capacity: n }] {
            let e = lower(&g, f, opts(lanes, 1)).unwrap_err();
            assert_eq!(e.kind, LowerErrorKind::LanesOverLimit { lanes: n, limit }, "{lanes:?}");
            assert!(e.to_string().contains(&format!("{n} lanes do not fit")), "{e}");
        }
    }
    let e = lower(&v.graph, v.func, opts(Lanes::Dynamic { capacity: u64::MAX }, 1)).unwrap_err();
    assert!(matches!(e.kind, LowerErrorKind::LanesOverLimit { .. }), "{e}");
}

#[test]
fn deep_nests_lower_without_recursion() {
    // Issue 30's shapes, vectorized and lowered on a 256 KiB stack, then
    // run by Keel's interpreter: the lowering inlines bodies from an
    // explicit stack of frames, whatever the nesting.
    use vectorize::{ScalarTy, Value};
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let ints = |v: &[i64]| Value::ints(ScalarTy::I64, v);
            let cases = [
                (nests::nested(20_000), vec![ints(&[4, -2])], ints(&[-4, 2])),
                (nests::nested_ifs(20_000), vec![Value::ints(ScalarTy::I1, &[1, 0]), ints(&[3, 3])], ints(&[6, -3])),
                (nests::nested_whiles(2_000), vec![ints(&[0, 5])], ints(&[2_001, 6])),
            ];
            for (text, args, want) in cases {
                let (g, _) = parse(&text).unwrap_or_else(|e| panic!("{:?}", &e[..1]));
                let f = g.function("f").unwrap();
                let v = vectorize::vectorize(&g, f, &vec![true; args.len()]).unwrap();
                for lanes in [Lanes::Fixed(2), Lanes::Dynamic { capacity: 8 }] {
                    let opts = LowerOptions { lanes, elements: 1, on_chip_bytes: vectorize::lower::DEFAULT_ON_CHIP };
                    let l = lower(&v.graph, v.func, opts).unwrap_or_else(|e| panic!("{e}"));
                    let r = l.run(&args, Config::default()).unwrap_or_else(|t| panic!("{t:?}"));
                    assert_eq!(r, vec![want.clone()], "{lanes:?}");
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
