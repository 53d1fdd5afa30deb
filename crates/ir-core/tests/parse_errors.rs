//! Parser diagnostics: one test per error class of the text format (the
//! parser's own errors, the lexer's, and the literal errors of `imm.rs`),
//! each checking the message and its `line:column`, a few checking the whole
//! rendered diagnostic; error recovery (many errors in one run, one per
//! line, the `max_errors` cap); and robustness: the parser never panics and
//! always terminates, on every byte prefix of the documented examples, on
//! random bytes, on deeply nested brackets and on megabyte-long lines.

mod common;

use common::{examples, location};

use ir_core::text::{self, Diagnostic, ParseLimits, Span, line_col};

// ---- helpers ------------------------------------------------------------------------

/// The diagnostics of `src`, which must not parse.
#[track_caller]
fn diags(src: &str) -> Vec<Diagnostic> {
    match text::parse(src) {
        Ok(_) => panic!("expected a parse error for:\n{src}"),
        Err(d) => {
            assert!(!d.is_empty(), "an error result must carry diagnostics");
            d
        }
    }
}

/// `(message, line, column)` of a diagnostic.
fn at(src: &str, d: &Diagnostic) -> (String, usize, usize) {
    let lc = line_col(src, d.span.start);
    (d.message.clone(), lc.line, lc.col)
}

/// Asserts that `src` gives exactly one diagnostic, with this exact message,
/// at `line:col`.
#[track_caller]
fn assert_error(src: &str, message: &str, line: usize, col: usize) {
    let d = diags(src);
    let all: Vec<_> = d.iter().map(|d| at(src, d)).collect();
    assert_eq!(all, vec![(message.to_string(), line, col)], "for:\n{src}");
}

/// Asserts that the first diagnostic of `src` contains `part` and is at
/// `line:col`; returns its message.
#[track_caller]
fn assert_error_contains(src: &str, part: &str, line: usize, col: usize) -> String {
    let d = diags(src);
    let (msg, l, c) = at(src, &d[0]);
    assert!(msg.contains(part), "message {msg:?} should contain {part:?}");
    assert_eq!((l, c), (line, col), "position of {msg:?} in:\n{src}");
    msg
}

/// A function `@f(%a: i32, %b: i64, %c: i1, %x: f32)` whose body is `body`
/// (lines after the header; the body starts on line 2).
fn func(body: &str) -> String {
    format!("func @f(%a: i32, %b: i64, %c: i1, %x: f32) {{\n{body}}}\n")
}

/// Parses bytes and checks the result is well-formed: either a module, or a
/// nonempty list of diagnostics whose spans lie in the input and which
/// render without panicking.
#[track_caller]
fn parse_checked(bytes: &[u8]) -> Result<(), Vec<Diagnostic>> {
    match text::parse_bytes(bytes) {
        Ok(_) => Ok(()),
        Err(d) => {
            assert!(!d.is_empty(), "an error result must carry diagnostics");
            let shown = String::from_utf8_lossy(bytes);
            for diag in &d {
                assert!(diag.span.start <= diag.span.end, "{diag:?}");
                assert!(diag.span.end as usize <= bytes.len() + 1, "{diag:?} beyond {} bytes", bytes.len());
                assert!(!diag.message.is_empty());
                assert!(!diag.message.contains('\n'), "messages are one line: {:?}", diag.message);
                let r = diag.render("t.kir", &shown);
                assert!(r.starts_with("error: "), "{r}");
                let lc = line_col(&shown, diag.span.start);
                assert_eq!(location(&r), ("t.kir".to_string(), lc.line, lc.col), "{r}");
                assert!(r.lines().last().is_some_and(|l| l.contains('^')), "no caret:\n{r}");
            }
            assert!(d.len() <= ParseLimits::default().max_errors);
            Err(d)
        }
    }
}

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// ---- rendering ----------------------------------------------------------------------

#[test]
fn renders_unknown_opcode_with_source_line_and_caret() {
    let src = "func @f() {\nbb0:\n    frobnicate\n    ret\n}\n";
    let d = diags(src);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].render("t.kir", src),
        "error: unknown opcode `frobnicate`\n --> t.kir:3:5\n  |\n3 |     frobnicate\n  |     ^^^^^^^^^^\n"
    );
}

#[test]
fn renders_a_two_digit_line_number_with_a_wider_gutter() {
    let mut src = String::from("func @f(%a: i32) {\n");
    for _ in 0..8 {
        src.push_str("    ; filler\n");
    }
    src.push_str("bb0:\n    %a = add %a, %zz\n    ret\n}\n");
    let d = diags(&src);
    assert_eq!(
        d[0].render("dir/t.kir", &src),
        "error: undeclared var `%zz`\n  --> dir/t.kir:11:18\n   |\n11 |     %a = add %a, %zz\n   |                  ^^^\n"
    );
}

#[test]
fn renders_tabs_as_spaces_and_counts_columns_in_characters() {
    // A tab is shown as four spaces, and the caret lines up with them; the
    // column counts the tab as one character.
    let src = "func @f() {\nbb0:\n\tnope\n}\n";
    let d = diags(src);
    assert_eq!(
        d[0].render("t.kir", src),
        "error: unknown opcode `nope`\n --> t.kir:3:2\n  |\n3 |     nope\n  |     ^^^^\n"
    );
    // Columns count characters, not bytes: `ü` is two bytes.
    let src = "mem @\"ü\": i33[1] dram\n";
    let d = diags(src);
    assert_eq!(d[0].span.start, 11);
    assert_eq!(at(src, &d[0]), ("unknown type `i33`".to_string(), 1, 11));
    assert_eq!(
        d[0].render("t.kir", src),
        "error: unknown type `i33`\n --> t.kir:1:11\n  |\n1 | mem @\"ü\": i33[1] dram\n  |           ^^^\n"
    );
}

#[test]
fn renders_an_error_at_the_end_of_the_input() {
    let src = "func";
    let d = diags(src);
    assert_eq!(
        d[0].render("t.kir", src),
        "error: expected a global name (`@name`), found end of file\n --> t.kir:1:5\n  |\n1 | func\n  |     ^\n"
    );
}

#[test]
fn renders_crlf_lines_without_the_carriage_return() {
    let src = "func @f() {\r\nbb0:\r\n    bogus\r\n}\r\n";
    let d = diags(src);
    assert_eq!(
        d[0].render("t.kir", src),
        "error: unknown opcode `bogus`\n --> t.kir:3:5\n  |\n3 |     bogus\n  |     ^^^^^\n"
    );
}

#[test]
fn renders_a_span_past_the_end_an_empty_file_and_control_bytes() {
    // A span past the end of the source marks the end of its last line.
    let d = Diagnostic { message: "late".to_string(), span: Span::new(40, 99) };
    assert_eq!(d.render("t.kir", "func\n"), "error: late\n --> t.kir:2:1\n  |\n2 |\n  | ^\n");
    assert_eq!(d.render("t.kir", "func"), "error: late\n --> t.kir:1:5\n  |\n1 | func\n  |     ^\n");
    // An empty file: line 1, column 1, an empty source line.
    let d = Diagnostic { message: "empty".to_string(), span: Span::new(0, 0) };
    assert_eq!(d.render("t.kir", ""), "error: empty\n --> t.kir:1:1\n  |\n1 |\n  | ^\n");
    assert_eq!(text::render_error("t.kir", "", Span::new(3, 7), "m"), "error: m\n --> t.kir:1:1\n  |\n1 |\n  | ^\n");
    // Control bytes (NUL, ESC, DEL, a lone CR) are shown as their Unicode
    // pictures, never written raw to a terminal; each is one column.
    let src = "func @f() {\nbb0:\n    \u{1b}[31m\0\r\u{7f} ret\n}\n";
    let d = diags(src);
    let r = d[0].render("t.kir", src);
    assert!(!r.contains(['\u{1b}', '\0', '\r', '\u{7f}']), "{r:?}");
    let (_, line, col) = at(src, &d[0]);
    assert_eq!(location(&r), ("t.kir".to_string(), line, col), "{r}");
    assert_eq!((line, col), (3, 5), "{r}");
    assert_eq!(r, format!("error: {}\n --> t.kir:3:5\n  |\n3 |     ␛[31m␀␍␡ ret\n  |     ^\n", d[0].message), "{r}");
}

// ---- names and declarations ---------------------------------------------------------

#[test]
fn unknown_opcode() {
    assert_error(&func("bb0:\n    %a = addd %a, 1\n    ret\n"), "unknown opcode `addd`", 3, 10);
    // The suffix is not part of the reported name.
    assert_error(&func("bb0:\n    %a = bogus.slt %a, 1\n    ret\n"), "unknown opcode `bogus`", 3, 10);
}

#[test]
fn undeclared_var() {
    assert_error(&func("bb0:\n    %a = add %a, %nope\n    ret\n"), "undeclared var `%nope`", 3, 18);
    // As a result, as a guard, and quoted.
    assert_error(&func("bb0:\n    %r = copy %a\n    ret\n"), "undeclared var `%r`", 3, 5);
    assert_error(&func("bb0:\n    @%p %a = copy %a\n    ret\n"), "undeclared var `%p`", 3, 6);
    assert_error(&func("bb0:\n    %a = copy %\"my var\"\n    ret\n"), "undeclared var `%my var`", 3, 15);
}

#[test]
fn unknown_type() {
    assert_error(&func("    var %v: i33\nbb0:\n    ret\n"), "unknown type `i33`", 2, 13);
    assert_error("func @f(%a: int) {\nbb0:\n    ret\n}\n", "unknown type `int`", 1, 13);
    assert_error("func @f() -> i32, u8 {\nbb0:\n    ret\n}\n", "unknown type `u8`", 1, 19);
    assert_error("extern @e(f16)\n", "unknown type `f16`", 1, 11);
    assert_error("mem @m: bool[4] dram\n", "unknown type `bool`", 1, 9);
    // A typed literal with an unknown type is not a type at all.
    assert_error(
        &func("bb0:\n    %a = add %a, u32 5\n    ret\n"),
        "expected an operand (a var or a literal), found `u32`",
        3,
        18,
    );
}

#[test]
fn unknown_memory_space() {
    assert_error("mem @m: i32[4] hbm\n", "unknown memory space `hbm`", 1, 16);
    assert_error("mem @m: i32[4]\n", "expected a memory space (dram, sram, nram, wram), found end of line", 1, 15);
}

#[test]
fn unknown_block() {
    assert_error(&func("bb0:\n    jump bb7\n"), "unknown block `bb7`", 3, 10);
    assert_error(&func("bb0:\n    br %c, bb0, bb3\n"), "unknown block `bb3`", 3, 17);
    assert_error(&func("bb0:\n    switch %a, bb0, [1: bb0, 2: bb5]\n"), "unknown block `bb5`", 3, 33);
    assert_error(&func("bb0:\n    jump bb1\nbb1:\n    %a = phi(bb9: 1)\n    ret\n"), "unknown block `bb9`", 5, 14);
    // Labels of another function do not count.
    let src = "func @g() {\nbb0:\n    ret\nbb1:\n    ret\n}\nfunc @h() {\nbb0:\n    jump bb1\n}\n";
    assert_error(src, "unknown block `bb1`", 9, 10);
}

#[test]
fn duplicate_block_label() {
    assert_error(&func("bb0:\n    ret\nbb1:\n    ret\nbb0:\n    ret\n"), "block `bb0` is defined twice", 6, 1);
}

#[test]
fn duplicate_global() {
    assert_error("mem @a: i32[4] dram\nmem @a: i32[4] dram\n", "`@a` is already defined", 2, 5);
    assert_error("extern @f()\nfunc @f() {\nbb0:\n    ret\n}\n", "`@f` is already defined", 2, 6);
    assert_error("func @f() {\nbb0:\n    ret\n}\nextern @f()\n", "`@f` is already defined", 5, 8);
    // The shown name is quoted like the text format quotes it.
    assert_error("mem @\"a b\": i8[1] dram\nmem @\"a b\": i8[1] dram\n", "`@\"a b\"` is already defined", 2, 5);
}

#[test]
fn duplicate_var() {
    assert_error(&func("    var %v: i32, %v: i64\nbb0:\n    ret\n"), "`%v` is already declared", 2, 18);
    assert_error(&func("    var %v: i32\n    var %v: i32\nbb0:\n    ret\n"), "`%v` is already declared", 3, 9);
    // A param is a var too.
    assert_error(&func("    var %a: i32\nbb0:\n    ret\n"), "`%a` is already declared", 2, 9);
}

#[test]
fn duplicate_param() {
    assert_error("func @f(%a: i32, %a: i64) {\nbb0:\n    ret\n}\n", "duplicate parameter `%a`", 1, 18);
}

#[test]
fn var_declaration_after_a_label() {
    assert_error(&func("bb0:\n    var %v: i32\n    ret\n"), "var declarations must come before the first block", 3, 5);
}

#[test]
fn instruction_before_the_first_label() {
    assert_error(&func("    ret\n"), "instruction before the first block label", 2, 5);
    assert_error(&func("    @%c %a = copy %a\nbb0:\n    ret\n"), "instruction before the first block label", 2, 5);
}

#[test]
fn invalid_block_label() {
    for (label, col) in [("bx0", 1), ("bb01", 1), ("bb", 1), ("bb1a", 1), ("entry", 1)] {
        let src = func(&format!("{label}:\n    ret\n"));
        assert_error(&src, &format!("expected a block label `bbN`, found `{label}`"), 2, col);
    }
    // A well-formed number too large for a block id is "too large", not "invalid".
    assert_error_contains(&func("bb4294967295:\n    ret\n"), "block number `bb4294967295` is too large", 2, 1);
    // As a branch target.
    assert_error(&func("bb0:\n    jump b0\n"), "expected a block label `bbN`, found `b0`", 3, 10);
    assert_error(&func("bb0:\n    jump %a\n"), "expected a block label, found `%a`", 3, 10);
}

#[test]
fn instructions_after_a_rejected_label_are_skipped_silently() {
    // One error for the label; the instructions under it have no block.
    assert_error(&func("bx0:\n    ret\n    ret\n"), "expected a block label `bbN`, found `bx0`", 2, 1);
    assert_error(&func("bb0:\n    ret\nbb0:\n    ret\n    ret\n"), "block `bb0` is defined twice", 4, 1);
}

#[test]
fn block_number_too_large_for_the_budget() {
    // Small inputs get the default budget of 65536 blocks.
    let msg = assert_error_contains(&func("bb70000:\n    ret\n"), "block number `bb70000` is too large", 2, 1);
    assert!(msg.contains("at most 65536 more"), "{msg}");
    // As a target too.
    assert_error_contains(&func("bb0:\n    jump bb4000000000\n"), "block number `bb4000000000` is too large", 3, 10);
    // The budget is module-wide: two functions each using bb0..bb5 need 12.
    let src = "func @f() {\nbb5:\n    ret\n}\nfunc @g() {\nbb5:\n    ret\n}\n";
    let limits = ParseLimits { block_budget: Some(10), ..ParseLimits::default() };
    let d = text::parse_with(src, &limits).unwrap_err();
    assert_eq!(d.len(), 1, "{d:?}");
    let (msg, line, col) = at(src, &d[0]);
    assert_eq!((line, col), (6, 1));
    assert_eq!(
        msg,
        "block number `bb5` is too large: block numbers are kept as written, and this input may use at most 4 more \
         (renumber the blocks densely)"
    );
    let limits = ParseLimits { block_budget: Some(12), ..ParseLimits::default() };
    assert!(text::parse_with(src, &limits).is_ok());
}

#[test]
fn unclosed_function_body() {
    assert_error("func @f() {\nbb0:\n    ret\n", "unclosed function body: expected `}`", 1, 11);
    assert_error("func @f() {", "unclosed function body: expected `}`", 1, 11);
    // Earlier complete declarations are fine; only the open one is reported.
    assert_error(
        "mem @m: i8[1] dram\nfunc @g() {\nbb0:\n    ret\n}\nfunc @f() {\nbb0:\n",
        "unclosed function body: expected `}`",
        6,
        11,
    );
}

// ---- unexpected tokens ----------------------------------------------------------------

#[test]
fn expected_x_found_y() {
    let cases: &[(&str, &str, usize, usize)] = &[
        ("bb0:\n", "expected `func`, `extern` or `mem`, found `bb0`", 1, 1),
        ("}\n", "expected `func`, `extern` or `mem`, found `}`", 1, 1),
        ("func f() {\n}\n", "expected a global name (`@name`), found `f`", 1, 6),
        ("func @f {\n}\n", "expected `(`, found `{`", 1, 9),
        ("func @f(a: i32) {\n}\n", "expected a var (`%name`), found `a`", 1, 9),
        ("func @f(%a i32) {\n}\n", "expected `:` and a type, found `i32`", 1, 12),
        ("func @f(%a: i32 {\n}\n", "expected `)`, found `{`", 1, 17),
        ("func @f() -> {\n}\n", "expected a type, found `{`", 1, 14),
        ("func @f()\n", "expected `{` to open the function body, found end of line", 1, 10),
        ("func @f() {\nbb0:\n    ret\n} x\n", "expected end of line, found `x`", 4, 3),
        ("extern @e(i32 -> i32\n", "expected `)`, found `->`", 1, 15),
        ("extern @e() i32\n", "expected end of line, found `i32`", 1, 13),
        ("mem @m i32[4] dram\n", "expected `:`, found `i32`", 1, 8),
        ("mem @m: i32(4) dram\n", "expected `[`, found `(`", 1, 12),
        ("mem @m: i32[] dram\n", "expected a memory length, found `]`", 1, 13),
        ("mem @m: i32[1e3] dram\n", "expected a memory length, found `1e3`", 1, 13),
        ("mem @m: i32[4 dram\n", "expected `]`, found `dram`", 1, 15),
        ("mem @m: i32[4] dram = 1\n", "expected `[`, found `1`", 1, 23),
        ("mem @m: i32[4] dram = [1, ]\n", "expected a literal, found `]`", 1, 27),
        ("mem @m: i32[4] dram = [%a]\n", "expected a literal, found `%a`", 1, 24),
        ("mem @m: i32[4] dram = [u32 1]\n", "unknown type `u32`", 1, 24),
        ("mem @m: i32[4] dram = [i32]\n", "expected a literal, found `]`", 1, 27),
        ("mem @m: i32[4] dram = [1 2]\n", "expected `]`, found `2`", 1, 26),
    ];
    for &(src, msg, line, col) in cases {
        assert_error(src, msg, line, col);
    }
    let body_cases: &[(&str, &str, usize, usize)] = &[
        ("bb0:\n    %a add %a, 1\n    ret\n", "expected `=`, found `add`", 3, 8),
        ("bb0:\n    %a = \n    ret\n", "expected an opcode, found end of line", 3, 10),
        ("bb0:\n    ret %a,\n", "expected an operand (a var or a literal), found end of line", 3, 12),
        ("bb0:\n    ret %a %a\n", "expected end of line, found `%a`", 3, 12),
        ("bb0:\n    var\n    ret\n", "var declarations must come before the first block", 3, 5),
        ("    var a: i32\nbb0:\n    ret\n", "expected a var (`%name`), found `a`", 2, 9),
        ("    var %v i32\nbb0:\n    ret\n", "expected `:` and a type, found `i32`", 2, 12),
        ("    var %v: i32 %w: i32\nbb0:\n    ret\n", "expected end of line, found `%w`", 2, 17),
        ("bb0:\n    call f()\n    ret\n", "expected a global name (`@name`), found `f`", 3, 10),
        ("bb0:\n    call @f\n    ret\n", "expected `(`, found end of line", 3, 12),
        ("bb0:\n    call @f(%a\n    ret\n", "expected `)`, found end of line", 3, 15),
        (
            "bb0:\n    %a = intrinsic foo(%a)\n    ret\n",
            "expected the intrinsic's name as a string, found `foo`",
            3,
            20,
        ),
        ("bb0:\n    %a = phi bb0: 1\n    ret\n", "expected `(`, found `bb0`", 3, 14),
        (
            "bb0:\n    jump bb1\nbb1:\n    %a = phi(bb0 1)\n    ret\n",
            "expected `:` and the incoming value, found `1`",
            5,
            18,
        ),
        ("bb0:\n    br %c bb0, bb0\n", "expected `,` and the `then` block, found `bb0`", 3, 11),
        ("bb0:\n    br %c, bb0 bb0\n", "expected `,` and the `else` block, found `bb0`", 3, 16),
        ("bb0:\n    switch %a bb0\n", "expected `,` and the default block, found `bb0`", 3, 15),
        ("bb0:\n    switch %a, bb0\n", "expected `,` and the cases `[value: bbN, ...]`, found end of line", 3, 19),
        ("bb0:\n    switch %a, bb0, 1\n", "expected `[`, found `1`", 3, 21),
        ("bb0:\n    switch %a, bb0, [x: bb0]\n", "expected a case value, found `x`", 3, 22),
        ("bb0:\n    switch %a, bb0, [1 bb0]\n", "expected `:` and a block, found `bb0`", 3, 24),
        ("bb0:\n    switch %a, bb0, [1: bb0\n", "expected `]`, found end of line", 3, 28),
        ("bb0:\n    @ %a = copy %a\n    ret\n", "expected a global name after `@`", 3, 5),
        ("bb0:\n    @!a %a = copy %a\n    ret\n", "expected a var (`%name`), found `a`", 3, 7),
    ];
    for &(body, msg, line, col) in body_cases {
        assert_error(&func(body), msg, line, col);
    }
    // The closing brace goes on a line of its own.
}

#[test]
fn memory_operand_syntax_errors() {
    let src = |inst: &str| format!("mem @m: i32[64] dram\n{}", func(&format!("bb0:\n    {inst}\n    ret\n")));
    assert_error(&src("%a = load @m 0"), "expected `[`, found `0`", 4, 18);
    assert_error(&src("%a = load @m[0"), "expected `]`, found end of line", 4, 19);
    assert_error(&src("store @m[0] %a"), "expected `,` and the stored value, found `%a`", 4, 17);
    assert_error(&src("tfill @m[0 4], 1"), "expected `,` and a size, found `4`", 4, 16);
    assert_error(&src("tfill @m[0, 4, 1"), "expected `]`, found `,`", 4, 18);
    assert_error(&src("%a = load m[0]"), "expected a global name (`@name`), found `m`", 4, 15);
}

// ---- opcodes and condition codes ----------------------------------------------------

#[test]
fn missing_condition_code() {
    assert_error(&func("bb0:\n    %c = setp %a, 0\n    ret\n"), "`setp` needs a condition, as in `setp.slt`", 3, 10);
    assert_error(
        &func("bb0:\n    %c = fsetp %x, 0.0\n    ret\n"),
        "`fsetp` needs a condition, as in `fsetp.lt`",
        3,
        10,
    );
}

#[test]
fn unknown_condition_code() {
    assert_error(&func("bb0:\n    %c = setp.lt %a, 0\n    ret\n"), "unknown integer condition `lt`", 3, 10);
    assert_error(&func("bb0:\n    %c = fsetp.slt %x, 0.0\n    ret\n"), "unknown float condition `slt`", 3, 10);
    assert_error(&func("bb0:\n    %c = setp.eq.ne %a, 0\n    ret\n"), "unknown integer condition `eq.ne`", 3, 10);
    assert_error(&func("bb0:\n    %c = setp. %a, 0\n    ret\n"), "unknown integer condition ``", 3, 10);
}

#[test]
fn suffix_on_an_opcode_that_takes_none() {
    assert_error(&func("bb0:\n    %a = add.nsw %a, 1\n    ret\n"), "`add` takes no `.nsw` suffix", 3, 10);
    assert_error(&func("bb0:\n    ret.void\n"), "`ret` takes no `.void` suffix", 3, 5);
}

// ---- literals -----------------------------------------------------------------------

#[test]
fn literal_does_not_fit_its_type() {
    let p = "func @f(%a: i8, %c: i1, %w: i64, %x: f32) {\n";
    let f = |body: &str| format!("{p}bb0:\n    {body}\n    ret\n}}\n");
    assert_error(&f("%a = add %a, 256"), "integer literal `256` does not fit in i8", 3, 18);
    assert_error(&f("%a = add %a, -129"), "integer literal `-129` does not fit in i8", 3, 18);
    assert_error(&f("%c = and %c, 2"), "integer literal `2` does not fit in i1", 3, 18);
    assert_error(&f("%c = and %c, -1"), "integer literal `-1` does not fit in i1", 3, 18);
    assert_error(
        &f("%w = add %w, 18446744073709551616"),
        "integer literal `18446744073709551616` does not fit in i64",
        3,
        18,
    );
    assert_error(
        &f("%w = add %w, 0x10000000000000000"),
        "integer literal `0x10000000000000000` does not fit in i64",
        3,
        18,
    );
    // Typed literals are checked against their written type.
    assert_error(&f("%w = add %w, i8 300"), "integer literal `300` does not fit in i8", 3, 18);
    // A branch condition is an i1.
    assert_error(&format!("{p}bb0:\n    br 2, bb0, bb0\n}}\n"), "integer literal `2` does not fit in i1", 3, 8);
    // Switch cases take the value's type.
    assert_error(
        &format!("{p}bb0:\n    switch %a, bb1, [300: bb1]\nbb1:\n    ret\n}}\n"),
        "integer literal `300` does not fit in i8",
        3,
        22,
    );
    // Memory initial values take the element type.
    assert_error("mem @m: i8[2] dram = [1, 128000]\n", "integer literal `128000` does not fit in i8", 1, 26);
    // NaN payloads must fit the mantissa.
    assert_error(
        &f("%x = fadd %x, nan:0x800000"),
        "NaN payload in `nan:0x800000` must be nonzero and fit in 23 bits",
        3,
        19,
    );
    assert_error(&f("%x = fadd %x, -nan:0x0"), "NaN payload in `-nan:0x0` must be nonzero and fit in 23 bits", 3, 19);
}

#[test]
fn float_literal_where_an_integer_is_needed() {
    assert_error(&func("bb0:\n    %a = add %a, 1.5\n    ret\n"), "`1.5` is not an integer literal", 3, 18);
    assert_error(&func("bb0:\n    %a = add %a, inf\n    ret\n"), "`inf` is not an integer literal", 3, 18);
    assert_error(&func("bb0:\n    %a = add %a, 1e3\n    ret\n"), "`1e3` is not an integer literal", 3, 18);
    assert_error("mem @m: i32[2] dram = [1, 2.5]\n", "`2.5` is not an integer literal", 1, 27);
    assert_error(
        "mem @m: i32[64] dram\nfunc @f() {\nbb0:\n    tfill @m[0.5, 4], 1\n    ret\n}\n",
        "`0.5` is not an integer literal",
        4,
        14,
    );
}

#[test]
fn malformed_float_literal() {
    // `0x` lexes as an integer with no digits; no type takes it.
    assert_error(&func("bb0:\n    %x = fadd %x, 0x\n    ret\n"), "`0x` is not a float literal", 3, 19);
    assert_error(&func("bb0:\n    %a = add %a, 0x\n    ret\n"), "`0x` is not an integer literal", 3, 18);
}

#[test]
fn float_literal_out_of_range() {
    // Overflow is an error (underflow rounds to zero).
    let f = |lit: &str| func(&format!("bb0:\n    %x = fadd %x, {lit}\n    ret\n"));
    assert_error_contains(&f("1e39"), "float literal `1e39` is out of range for f32", 3, 19);
    assert_error_contains(&f("-3.5e38"), "float literal `-3.5e38` is out of range for f32", 3, 19);
    assert_error_contains("mem @m: f64[1] dram = [1e309]\n", "float literal `1e309` is out of range for f64", 1, 24);
    assert!(text::parse(&f("1e-50")).is_ok());
    assert!(text::parse(&f("-inf")).is_ok());
}

#[test]
fn uninferable_literal_type() {
    let msg =
        |lit: &str| format!("cannot infer the type of literal `{lit}` here; write it with its type, as in `i32 {lit}`");
    assert_error(&func("bb0:\n    %b = sext 1\n    ret\n"), &msg("1"), 3, 15);
    assert_error(&func("bb0:\n    %c = setp.eq 1, 2\n    ret\n"), &msg("1"), 3, 18);
    assert_error(&func("bb0:\n    %a = intrinsic \"x\"(7)\n    ret\n"), &msg("7"), 3, 24);
    assert_error(&func("bb0:\n    switch -3, bb0, []\n"), &msg("-3"), 3, 12);
    // `ret` beyond the signature's return values has nothing to go by.
    assert_error(&func("bb0:\n    ret 5\n"), &msg("5"), 3, 9);
    // Writing the type fixes it.
    assert!(text::parse(&func("bb0:\n    %b = sext i32 1\n    ret\n")).is_ok());
}

// ---- globals in the wrong role ------------------------------------------------------

#[test]
fn non_memory_global_used_as_a_descriptor() {
    let src = "extern @e()\nfunc @f() {\nbb0:\n    tfill @f[0, 4], 1\n    ret\n}\n";
    assert_error(src, "`@f` is not a memory object", 4, 11);
    let src = "extern @e()\nfunc @f(%a: i32) {\nbb0:\n    %a = load @e[0]\n    ret\n}\n";
    assert_error(src, "`@e` is not a memory object", 4, 15);
    assert_error(&func("bb0:\n    tfill @q[0, 4], 1\n    ret\n"), "unknown memory object `@q`", 3, 11);
    assert_error(&func("bb0:\n    store @q[0], %a\n    ret\n"), "unknown memory object `@q`", 3, 11);
}

#[test]
fn memory_object_used_as_callee() {
    let src = "mem @m: i32[4] dram\nfunc @f() {\nbb0:\n    call @m()\n    ret\n}\n";
    assert_error(src, "`@m` is a memory object, not a function", 4, 10);
}

#[test]
fn unknown_function() {
    assert_error(&func("bb0:\n    call @g()\n    ret\n"), "unknown function `@g`", 3, 10);
    // Functions defined later are known (pass 1 collects every header).
    let src = "func @f() {\nbb0:\n    call @g()\n    ret\n}\nfunc @g() {\nbb0:\n    ret\n}\n";
    assert!(text::parse(src).is_ok());
}

#[test]
fn too_many_tensor_operands() {
    let src = "mem @m: i32[64] dram\nfunc @f() {\nbb0:\n    tadd @m[0, 1], 1, 2, 3, 4, 5, 6, 7, 8\n    ret\n}\n";
    assert_error_contains(src, "a tensor instruction takes at most 8", 4, 41);
    assert_eq!(diags(src).len(), 1);
    // Matmul keeps operands after its three slots as dimensions.
    let src =
        "mem @m: i32[64] dram\nfunc @f() {\nbb0:\n    matmul @m[0, 1], @m[0, 1], @m[0, 1], 1, 1, 1, 1\n    ret\n}\n";
    assert!(text::parse(src).is_ok());
}

#[test]
fn bad_memory_length() {
    let msg = |t: &str| format!("memory length must be between 0 and 2^40, not `{t}`");
    assert_error("mem @m: i32[2000000000000] dram\n", &msg("2000000000000"), 1, 13);
    assert_error("mem @m: i32[1099511627777] dram\n", &msg("1099511627777"), 1, 13);
    assert_error("mem @m: i32[-1] dram\n", &msg("-1"), 1, 13);
    assert_error("mem @m: i32[99999999999999999999999] dram\n", &msg("99999999999999999999999"), 1, 13);
    // The limits themselves are fine.
    assert!(text::parse("mem @m: i8[1099511627776] dram\nmem @n: i8[0] dram\nmem @h: i8[0x10] dram\n").is_ok());
}

#[test]
fn memory_length_accepts_uppercase_hex_prefix() {
    // `0X10` is 16 for every other integer literal (`parse_int` strips `0X`).
    assert!(text::parse(&func("bb0:\n    %a = add %a, 0X10\n    ret\n")).is_ok());
    let (m, _) = text::parse("mem @m: i8[0X10] dram\n").expect("`0X10` is a valid length");
    assert_eq!(m.mems().next().unwrap().1.len, 16);
}

#[test]
fn too_many_initial_values() {
    assert_error("mem @m: i32[2] dram = [1, 2, 3]\n", "more initial values than the 2 elements", 1, 30);
    assert_error("mem @m: f32[0] dram = [1.0]\n", "more initial values than the 0 elements", 1, 24);
    assert!(text::parse("mem @m: i32[2] dram = [1, 2]\nmem @n: i32[0] dram = []\n").is_ok());
}

// ---- lexical errors -----------------------------------------------------------------

#[test]
fn unterminated_string() {
    assert_error("func @\"abc() {\n", "unterminated string", 1, 6);
    assert_error(&func("bb0:\n    %a = intrinsic \"ab\n    ret\n"), "unterminated string", 3, 20);
    assert_error("extern @\"e", "unterminated string", 1, 8);
}

#[test]
fn invalid_escape() {
    assert_error(
        &func("bb0:\n    %a = intrinsic \"a\\qb\"(%a)\n    ret\n"),
        "invalid escape; use \\\", \\\\, \\n, \\t or \\u{HEX}",
        3,
        22,
    );
    assert_error(&func("bb0:\n    %a = intrinsic \"a\\u{zz}\"(%a)\n    ret\n"), "invalid `\\u{...}` escape", 3, 22);
    assert_error(&func("bb0:\n    %a = intrinsic \"\\u{110000}\"(%a)\n    ret\n"), "invalid `\\u{...}` escape", 3, 21);
    assert_error(&func("bb0:\n    %a = intrinsic \"\\u{d800}\"(%a)\n    ret\n"), "invalid `\\u{...}` escape", 3, 21);
    assert_error(
        &func("bb0:\n    %a = intrinsic \"\\u41\"(%a)\n    ret\n"),
        "invalid escape; use \\\", \\\\, \\n, \\t or \\u{HEX}",
        3,
        21,
    );
    // A backslash at the very end of the input: the string never ends.
    assert_error("extern @\"\\", "unterminated string", 1, 8);
}

#[test]
fn unexpected_character() {
    assert_error(&func("bb0:\n    $\n"), "unexpected character '$'", 3, 5);
    assert_error("func @f() {\nbb0:\n    ret #\n}\n", "unexpected character '#'", 3, 9);
    // A non-ASCII character is reported whole; the column counts characters.
    assert_error("é\n", "unexpected character 'é'", 1, 1);
    assert_error(&func("bb0:\n    %a = add %a, 1 → 2\n    ret\n"), "unexpected character '→'", 3, 20);
    // A control character is shown escaped.
    assert_error("\u{1}\n", "unexpected character '\\u{1}'", 1, 1);
}

#[test]
fn invalid_number() {
    assert_error(&func("bb0:\n    %a = add %a, 12abc\n    ret\n"), "invalid number `12abc`", 3, 18);
    assert_error(&func("bb0:\n    %a = add %a, 0x1g\n    ret\n"), "invalid number `0x1g`", 3, 18);
    assert_error(&func("bb0:\n    %x = fadd %x, 1.5e\n    ret\n"), "invalid number `1.5e`", 3, 19);
    assert_error(&func("bb0:\n    %x = fadd %x, 1.2.3\n    ret\n"), "invalid number `1.2.3`", 3, 19);
    assert_error(&func("bb0:\n    %a = add %a, -x\n    ret\n"), "expected a number after `-`", 3, 18);
    assert_error(&func("bb0:\n    %a = add %a, -\n    ret\n"), "expected a number after `-`", 3, 18);
}

#[test]
fn malformed_names() {
    assert_error(&func("bb0:\n    %a = add %, 1\n    ret\n"), "expected a var name after `%`", 3, 14);
    assert_error(&func("bb0:\n    %a = add %\"\", 1\n    ret\n"), "empty var name", 3, 14);
    assert_error("mem @: i8[1] dram\n", "expected a global name after `@`", 1, 5);
    assert_error("mem @\"\": i8[1] dram\n", "empty global name", 1, 5);
}

#[test]
fn non_utf8_input() {
    let bytes = b"func @f() {\nbb0:\n    ret \xff\n}\n";
    let d = text::parse_bytes(bytes).unwrap_err();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "the input is not UTF-8 text (invalid byte 0xff)");
    assert_eq!((d[0].span.start, d[0].span.end), (25, 26));
    // Rendered against the valid prefix, as `keel` does.
    let prefix = std::str::from_utf8(&bytes[..25]).unwrap();
    assert_eq!(line_col(prefix, d[0].span.start), ir_core::text::LineCol { line: 3, col: 9 });
    assert_eq!(
        d[0].render("t.kir", prefix),
        "error: the input is not UTF-8 text (invalid byte 0xff)\n --> t.kir:3:9\n  |\n3 |     ret \n  |         ^\n"
    );
    // A truncated multi-byte character and a lone continuation byte.
    let d = text::parse_bytes("; é".as_bytes().split_last().unwrap().1).unwrap_err();
    assert_eq!(d[0].message, "the input is not UTF-8 text (invalid byte 0xc3)");
    assert_eq!(d[0].span.start, 2);
    let d = text::parse_bytes(b"\x80").unwrap_err();
    assert_eq!(d[0].message, "the input is not UTF-8 text (invalid byte 0x80)");
    assert_eq!(d[0].span.start, 0);
    // Valid UTF-8 bytes parse as text does.
    assert!(text::parse_bytes("; é\n".as_bytes()).is_ok());
}

// ---- recovery -----------------------------------------------------------------------

#[test]
fn errors_on_different_lines_are_all_reported() {
    let src = "\
mem @a: i33[4] dram
extern @e(i32) -> q32
func @f(%x: i32) -> i32 {
    var %y: i32
bb0:
    %y = foo %x
    %y = add %x, %z
    ret %y
}
func @g() {
bb0:
    %q = copy 1
    ret
}
mem @b: i32[4] hbm
";
    let d = diags(src);
    let mut got: Vec<_> = d.iter().map(|d| at(src, d)).collect();
    // (The parser reports declarations before bodies; the order is not the
    // point here.)
    got.sort_by_key(|&(_, line, col)| (line, col));
    let want = vec![
        ("unknown type `i33`".to_string(), 1, 9),
        ("unknown type `q32`".to_string(), 2, 19),
        ("unknown opcode `foo`".to_string(), 6, 10),
        ("undeclared var `%z`".to_string(), 7, 18),
        ("undeclared var `%q`".to_string(), 12, 5),
        ("unknown memory space `hbm`".to_string(), 15, 16),
    ];
    assert_eq!(got, want);
}

#[test]
fn a_bad_header_does_not_lose_its_body() {
    // The header fails, the body is skipped, and the next function is parsed.
    let src = "func @f(%a: i33) {\nbb0:\n    ret\n}\nfunc @g() {\nbb0:\n    nope\n}\n";
    let d = diags(src);
    let got: Vec<_> = d.iter().map(|d| at(src, d)).collect();
    assert_eq!(got, vec![("unknown type `i33`".to_string(), 1, 13), ("unknown opcode `nope`".to_string(), 7, 5)]);
}

#[test]
fn a_lexical_error_in_a_header_does_not_lose_its_body() {
    // Other header errors skip to the `{` and the body; a lexical error
    // skips the whole line, `{` included, and every body line is then
    // reported as "expected `func`, `extern` or `mem`".
    assert_error(
        "func @\"a\\qb\"() {\nbb0:\n    ret\n}\n",
        "invalid escape; use \\\", \\\\, \\n, \\t or \\u{HEX}",
        1,
        9,
    );
    assert_error("func @f(%a: i32$) {\nbb0:\n    ret\n}\n", "unexpected character '$'", 1, 16);
    assert_error("func @() {\n}\n", "expected a global name after `@`", 1, 6);
}

#[test]
fn only_the_first_error_of_a_line_is_kept() {
    // Two undeclared vars: only the first.
    assert_error(&func("bb0:\n    %a = add %y, %z\n    ret\n"), "undeclared var `%y`", 3, 14);
    // An unknown result var and an unknown opcode: only the var.
    assert_error(&func("bb0:\n    %q = foo %z\n    ret\n"), "undeclared var `%q`", 3, 5);
    // A lexical error then a syntax error.
    assert_error(&func("bb0:\n    %a = add $, %z %z\n    ret\n"), "unexpected character '$'", 3, 14);
    // A literal error then trailing garbage.
    assert_error(&func("bb0:\n    %a = add %a, 1.5 garbage\n    ret\n"), "`1.5` is not an integer literal", 3, 18);
    // In declarations too.
    assert_error("mem @m: i33[4] hbm = [1, 2, 3, 4, 5]\n", "unknown type `i33`", 1, 9);
    // And the next line is parsed normally.
    let src = func("bb0:\n    %a = add %y, %z\n    %a = add %w, %v\n    ret\n");
    let got: Vec<_> = diags(&src).iter().map(|d| at(&src, d)).collect();
    assert_eq!(got, vec![("undeclared var `%y`".to_string(), 3, 14), ("undeclared var `%w`".to_string(), 4, 14)]);
}

#[test]
fn unknown_block_errors_respect_the_one_error_per_line_rule() {
    // The line already failed at `%a`, but the earlier reference to `bb8` is
    // still reported when the body ends.
    assert_error(&func("bb0:\n    br %c, bb8, %a\n"), "expected a block label, found `%a`", 3, 17);
}

#[test]
fn max_errors_caps_the_diagnostics() {
    let mut body = String::from("bb0:\n");
    for i in 0..30 {
        body.push_str(&format!("    %a = add %a, %undeclared{i}\n"));
    }
    body.push_str("    ret\n");
    let src = func(&body);
    // The default is 20.
    let d = diags(&src);
    assert_eq!(d.len(), 20);
    assert_eq!(at(&src, &d[19]), ("undeclared var `%undeclared19`".to_string(), 22, 18));
    // An explicit cap keeps the first errors, in order.
    let d = text::parse_with(&src, &ParseLimits { max_errors: 3, block_budget: None }).unwrap_err();
    let got: Vec<_> = d.iter().map(|d| at(&src, d)).collect();
    assert_eq!(
        got,
        vec![
            ("undeclared var `%undeclared0`".to_string(), 3, 18),
            ("undeclared var `%undeclared1`".to_string(), 4, 18),
            ("undeclared var `%undeclared2`".to_string(), 5, 18),
        ]
    );
    // Zero means one: a failed parse always has a diagnostic.
    let d = text::parse_with(&src, &ParseLimits { max_errors: 0, block_budget: None }).unwrap_err();
    assert_eq!(d.len(), 1);
    // The cap also applies across declarations and bodies.
    let mut src = String::new();
    for i in 0..25 {
        src.push_str(&format!("mem @m{i}: i33[1] dram\n"));
    }
    assert_eq!(diags(&src).len(), 20);
}

// ---- robustness ---------------------------------------------------------------------

#[test]
fn examples_parse() {
    for (path, src) in examples() {
        if let Err(d) = text::parse(&src) {
            let shown: Vec<String> = d.iter().map(|d| d.render(&path.display().to_string(), &src)).collect();
            panic!("{} does not parse:\n{}", path.display(), shown.concat());
        }
    }
}

#[test]
fn every_byte_prefix_of_every_example_parses_or_fails_cleanly() {
    for (path, src) in examples() {
        let bytes = src.as_bytes();
        let mut errors = 0;
        for n in 0..=bytes.len() {
            let r = std::panic::catch_unwind(|| parse_checked(&bytes[..n]));
            match r {
                Ok(Ok(())) => {}
                Ok(Err(_)) => errors += 1,
                Err(_) => panic!("{}: parsing the first {n} bytes panicked", path.display()),
            }
        }
        // The full file parses; cutting inside a body leaves it unclosed.
        assert!(parse_checked(bytes).is_ok(), "{}", path.display());
        assert!(errors > 0, "{}: some prefix must fail", path.display());
    }
}

#[test]
fn every_byte_prefix_inside_a_body_is_an_error() {
    // Between `{` and `}` a prefix leaves the body unclosed, whatever else.
    let src = "func @f(%a: i32) -> i32 {\n    var %t: i32\nbb0:\n    %t = add %a, 1 ; é\n    ret %t\n}\n";
    let open = src.find('{').unwrap();
    let close = src.rfind('}').unwrap();
    for n in open + 1..=close {
        let d = parse_checked(&src.as_bytes()[..n]).expect_err("an unclosed body is an error");
        let last = d.last().unwrap();
        assert!(
            last.message == "unclosed function body: expected `}`"
                || last.message.starts_with("the input is not UTF-8"),
            "prefix of {n} bytes: {d:?}"
        );
    }
}

#[test]
fn random_bytes_give_errors() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let len = 32 + rng.below(300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert!(parse_checked(&bytes).is_err(), "random bytes parsed: {bytes:?}");
    }
}

#[test]
fn random_ascii_gives_errors() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..3000 {
        let len = 8 + rng.below(300);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(10) {
                0 => b'\n',
                _ => 0x20 + rng.below(0x5f) as u8,
            })
            .collect();
        let text = std::str::from_utf8(&bytes).unwrap();
        let blank = text.lines().all(|l| l.split(';').next().unwrap().trim().is_empty());
        let r = parse_checked(&bytes);
        if !blank {
            assert!(r.is_err(), "random text parsed: {text:?}");
        }
    }
}

#[test]
fn random_token_soup_never_panics() {
    const TOKENS: &[&str] = &[
        "func",
        "extern",
        "mem",
        "var",
        "@f",
        "@g",
        "@m",
        "%a",
        "%b",
        "%\"q q\"",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "=",
        "->",
        "@",
        "!",
        "@%a",
        "@!%b",
        "bb0",
        "bb1",
        "bb99999999",
        "i1",
        "i32",
        "i64",
        "f32",
        "dram",
        "nram",
        "add",
        "fadd",
        "copy",
        "const",
        "setp.slt",
        "fsetp.lt",
        "setp",
        "phi",
        "br",
        "jump",
        "switch",
        "ret",
        "trap",
        "call",
        "intrinsic",
        "load",
        "store",
        "tadd",
        "tfill",
        "tsum",
        "matmul",
        "dma",
        "sext",
        "0",
        "1",
        "-1",
        "255",
        "0x10",
        "1.5",
        "-inf",
        "nan:0x1",
        "\"s\"",
        "\"\\q\"",
        "\"open",
        "; c",
        " ",
        " ",
        " ",
        "\n",
        "\n",
        "\n",
        "\t",
        "$",
        "é",
        "1e400",
        "99999999999999999999999",
    ];
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for _ in 0..4000 {
        let n = 1 + rng.below(80);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(TOKENS[rng.below(TOKENS.len())]);
            if rng.below(3) == 0 {
                s.push(' ');
            }
        }
        let _ = parse_checked(s.as_bytes());
    }
}

#[test]
fn mutated_examples_never_panic() {
    const PUNCT: &[u8] = b"{}[]()%@:,=\n-.\"\\0x9;";
    let mut rng = Rng(0x0bad_5eed_0000_0001);
    let examples = examples();
    for _ in 0..3000 {
        let (_, src) = &examples[rng.below(examples.len())];
        let mut bytes = src.as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(bytes.len());
            let b = PUNCT[rng.below(PUNCT.len())];
            match rng.below(3) {
                0 => bytes[i] = b,
                1 => {
                    bytes.remove(i);
                }
                _ => bytes.insert(i, b),
            }
        }
        let _ = parse_checked(&bytes);
    }
}

fn nested(open: char) -> String {
    let mut s = String::from("func @f(%a: i32) {\nbb0:\n    ");
    s.extend(std::iter::repeat_n(open, 100_000));
    s.push_str("\n    ret\n}\n");
    s
}

#[test]
fn deeply_nested_brackets_give_an_error() {
    for open in ['[', '('] {
        let src = nested(open);
        let d = diags(&src);
        assert_eq!(d.len(), 1);
        assert_eq!(at(&src, &d[0]), (format!("expected an opcode, found `{open}`"), 3, 5));
    }
    // Where brackets are expected, too.
    let deep = |prefix: &str, open: char| {
        let mut s = String::from(prefix);
        s.extend(std::iter::repeat_n(open, 100_000));
        s.push('\n');
        s
    };
    let cases = [
        deep("mem @m: i32[64] dram\nfunc @f(%a: i32) {\nbb0:\n    tfill @m", '['),
        deep("func @f(%a: i32) {\nbb0:\n    call @f", '('),
        deep("func @f(%a: i32) {\nbb0:\n    %a = phi", '('),
        deep("func @f", '('),
        deep("mem @m: i32[4] dram = ", '['),
        deep("mem @m: i32", '['),
    ];
    for src in &cases {
        let d = diags(src);
        assert!(!d.is_empty() && d.len() <= 20, "{d:?}");
    }
    // Closing brackets and braces alone.
    for close in [']', ')', '}'] {
        let mut src = String::from("func @f(%a: i32) {\nbb0:\n    ret ");
        src.extend(std::iter::repeat_n(close, 100_000));
        src.push('\n');
        assert!(text::parse(&src).is_err());
    }
}

#[test]
fn a_megabyte_line_gives_an_error() {
    const MB: usize = 1 << 20;
    // One long word at top level.
    let src = "x".repeat(MB);
    let d = diags(&src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message.len(), "expected `func`, `extern` or `mem`, found ``".len() + MB);
    assert_eq!(line_col(&src, d[0].span.start), ir_core::text::LineCol { line: 1, col: 1 });
    // A whole module on one line, with an unclosed body.
    let mut src = String::from("func @f(%a: i32) { bb0: %a = add %a");
    while src.len() < MB {
        src.push_str(", %a");
    }
    assert_error(&src, "unclosed function body: expected `}`", 1, 18);
    // A megabyte operand list in a body, ending in an undeclared var.
    let mut src = String::from("func @f(%a: i32) {\nbb0:\n    ret %a");
    while src.len() < MB {
        src.push_str(", 1");
    }
    src.push_str(", %nope\n}\n");
    let d = diags(&src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "undeclared var `%nope`");
    assert_eq!(line_col(&src, d[0].span.start).line, 3);
    // A megabyte comment is fine, and so is a megabyte of blank lines.
    let src = format!(";{}\n", "c".repeat(MB));
    assert!(text::parse(&src).is_ok());
    assert!(text::parse(&"\n".repeat(MB)).is_ok());
    // A megabyte block number is too large.
    let src = format!("func @f() {{\nbb{}:\n    ret\n}}\n", "1".repeat(MB));
    let d = diags(&src);
    assert!(d[0].message.starts_with("block number `bb111"), "{}", &d[0].message[..60]);
    assert!(d[0].message.contains("is too large"), "{}", &d[0].message[d[0].message.len() - 120..]);
}

#[test]
fn a_file_of_only_func_gives_an_error() {
    assert_error("func", "expected a global name (`@name`), found end of file", 1, 5);
    assert_error("func\n", "expected a global name (`@name`), found end of line", 1, 5);
    assert_error("func @f", "expected `(`, found end of file", 1, 8);
    assert_error("func @f(", "expected a var (`%name`), found end of file", 1, 9);
    assert_error("func @f()", "expected `{` to open the function body, found end of file", 1, 10);
    assert_error("func @f() {", "unclosed function body: expected `}`", 1, 11);
    assert_error("func @f() {} x", "expected end of line, found `x`", 1, 14);
    // An empty body parses (the verifier rejects a function with no blocks).
    assert!(text::parse("func @f() {}").is_ok());
    // Many of them: one error per line.
    let src = "func\n".repeat(10);
    let d = diags(&src);
    assert_eq!(d.len(), 10);
    assert_eq!(at(&src, &d[9]).1, 10);
}

#[test]
fn empty_and_blank_inputs_are_empty_modules() {
    for src in ["", "\n", "   \t\r\n", "; only a comment", ";\n;\n"] {
        let (m, _) = text::parse(src).unwrap_or_else(|d| panic!("{src:?}: {d:?}"));
        assert_eq!(m.num_functions(), 0);
    }
}

#[test]
fn one_line_functions_parse() {
    // An instruction may end at the body's closing brace.
    assert!(text::parse("func @f() {\nbb0:\n    ret }\n").is_ok());
    assert!(text::parse("func @f() { bb0: ret }\n").is_ok());
    assert!(text::parse("func @f() -> i32 { bb0: ret 1 }\n").is_ok());
}
