//! One case per parser error class: the message and its line:column; the
//! rendering (annotate-snippets, as ir-core draws its diagnostics);
//! recovery after errors; no panic on hostile input.

use mlu_isa::text::{self, MAX_ERRORS, line_col};

/// The first error of `src`: its message and 1-based line:column.
fn first_error(src: &str) -> (String, usize, usize) {
    let errs = text::parse(src).expect_err("the input should not parse");
    let d = &errs[0];
    let lc = line_col(src, d.span.start);
    (d.message.clone(), lc.line, lc.col)
}

#[test]
fn each_error_class_names_its_place() {
    let cases: &[(&str, &str, usize, usize)] = &[
        ("nop\n    $\n", "unexpected character `$`", 2, 5),
        ("    mov.i32 %r01, 1\n", "leading zero", 1, 13),
        ("    mov.i32 %r70000, 1\n", "too large", 1, 13),
        ("    mov.i32 %bogus, 1\n", "unknown register `%bogus`", 1, 13),
        ("    mov.i32 %r1, 12ab\n", "malformed number `12ab`", 1, 18),
        ("    frob %r1\n", "unknown instruction `frob`", 1, 5),
        ("    add %r1, %r2, %r3\n", "expected `add.T`", 1, 5),
        ("    add.i33 %r1, %r2, %r3\n", "unknown type `i33`", 1, 5),
        ("    setp.lt.i32 %r1, %r2, %r3\n", "unknown condition `lt`", 1, 5),
        ("    vcvt.frob.f32.i32 nram[0], nram[0], 64\n", "unknown conversion `frob`", 1, 5),
        ("    sync.cpu\n", "unknown sync `sync.cpu`", 1, 5),
        ("    barrier.sync.world 0, 1\n", "unknown barrier", 1, 5),
        ("    ld.i32 %r1, lram[0]\n", "unknown memory space `lram`", 1, 17),
        ("    jmp nowhere\n", "unknown label `nowhere`", 1, 9),
        ("    ld.i32 %r1, nram[@ghost]\n", "unknown memory object `@ghost`", 1, 22),
        ("a:\na:\n    exit\n", "label `a` is defined twice", 2, 1),
        (".mem @x: f32[4] nram\n.mem @x: f32[4] nram\n", "declared twice", 2, 6),
        ("    mov.i8 %r1, 256\n", "256 does not fit i8", 1, 17),
        ("    mov.i1 %r1, 2\n", "2 does not fit i1", 1, 17),
        ("    mov.f64 %r1, 1e400\n", "too large for f64", 1, 18),
        ("    mov.f32 %r1, nan:0x800000\n", "NaN payload", 1, 18),
        ("    add.i32 %r1, %r2 %r3\n", "expected `,`", 1, 22),
        ("    exit now\n", "unexpected `now` at the end of the line", 1, 10),
        (".mem @x: i8[2] nram = [1, 2, 3]\n", "3 initial values for 2 elements", 1, 6),
        (".mem @x: i8[0x20000000000] dram\n", "over 2^40", 1, 13),
        ("    ld.i32 %r1, nram[%r1 + %r2]\n", "at most one register", 1, 28),
        ("    ld.i32 %r1, nram[1 + 2]\n", "at most one constant offset", 1, 26),
        (".mem @x: i8[8] nram\n    ld.i32 %r1, nram[@x - @x]\n", "expected `@object`, a register or an offset", 2, 27),
        ("l: .mem @x: i8[2] nram\n", "cannot follow a label", 1, 4),
        ("    sreg %r1, %r2\n", "expected a special register", 1, 15),
        ("    dma nram[0], dram[0]\n", "expected `,`", 1, 25),
        ("    mov.f32 %r1, 1.\n", "expected a digit after `.`", 1, 18),
    ];
    for &(src, want, line, col) in cases {
        let (msg, l, c) = first_error(src);
        assert!(msg.contains(want), "{src:?}: got {msg:?}, want {want:?}");
        assert_eq!((l, c), (line, col), "{src:?}: {msg}");
    }
}

#[test]
fn rendering_shows_file_line_column_and_caret() {
    let src = ".mem @a: f32[64] nram\n    vadd.f32 nram[@a], nram[@b], 1.0, 64\n";
    let errs = text::parse(src).unwrap_err();
    assert_eq!(
        errs[0].render("k.mlu", src),
        "error: unknown memory object `@b`\n --> k.mlu:2:29\n  |\n2 |     vadd.f32 nram[@a], nram[@b], 1.0, 64\n  |                             ^^\n"
    );
}

#[test]
fn recovery_reports_one_error_per_line_up_to_the_cap() {
    let src = "    frob\n    nop\n    mov.i8 %r1, 999\n    exit\n    bad.inst\n";
    let errs = text::parse(src).unwrap_err();
    let lines: Vec<usize> = errs.iter().map(|d| line_col(src, d.span.start).line).collect();
    assert_eq!(lines, [1, 3, 5]);
    let many: String = (0..100).map(|i| format!("    bogus{i}\n")).collect();
    assert_eq!(text::parse(&many).unwrap_err().len(), MAX_ERRORS);
}

#[test]
fn hostile_input_never_panics() {
    let long_line = "    add.i32 %r1, %r2, 1".repeat(10_000);
    let deep = "[".repeat(100_000);
    let inputs: Vec<String> = vec![
        String::new(),
        "\n\n\n".into(),
        "\u{feff}nop".into(),
        "é:".into(),
        long_line,
        deep,
        "    ld.i32 %r1, nram[".into(),
        ".mem".into(),
        ".mem @".into(),
        "    mov.f32 %r1, -".into(),
        "    mov.f32 %r1, nan:0x".into(),
        "\r\n\r\n    exit\r\n".into(),
    ];
    for src in inputs {
        let _ = text::parse(&src);
    }
    assert!(text::parse("\r\n\r\n    exit\r\n").is_ok());
}
