//! Verifier errors: one test per [`ErrorKind`], base level and SSA level.
//! Errors reachable from text are built by parsing and checked for kind,
//! message, [`Location`] and rendered source position; those only the
//! builder can make (unknown entities, malformed instructions, unknown
//! targets, bad memory initialisers) are checked for kind, message and
//! `describe`. Also: the verifier collects every error in one run, accepts
//! the documented examples, and never panics on builder-made garbage.

mod common;

use common::{caret_column, examples, location};

use ir_core::text::{self, SourceMap};
use ir_core::{
    Arg, Block, Callee, Const, Desc, ErrorKind, ExtFuncId, FloatCC, FuncId, FunctionBuilder, Imm, Inst, IntCC,
    Location, Mem, MemSpace, Module, Opcode, Operand, Signature, TensorArg, Type, Var, VerifierError, VerifyOptions,
    verify_function, verify_module,
};

const BASE: VerifyOptions = VerifyOptions { ssa: false };
const SSA: VerifyOptions = VerifyOptions { ssa: true };

// ---- helpers ------------------------------------------------------------------------

#[track_caller]
fn parsed(src: &str) -> (Module, SourceMap) {
    text::parse(src).unwrap_or_else(|d| {
        let shown: Vec<String> = d.iter().map(|d| d.render("t.kir", src)).collect();
        panic!("test input does not parse:\n{}", shown.concat())
    })
}

fn errors(m: &Module, opts: VerifyOptions) -> Vec<VerifierError> {
    match verify_module(m, &opts) {
        Ok(()) => Vec::new(),
        Err(e) => e.0,
    }
}

/// Parses `src`, verifies it, and returns its only error (which must be of
/// `kind`).
#[track_caller]
fn single(src: &str, opts: VerifyOptions, kind: ErrorKind) -> (Module, SourceMap, VerifierError) {
    let (m, smap) = parsed(src);
    let errs = errors(&m, opts);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}\nfor:\n{src}");
    let e = errs.into_iter().next().unwrap();
    assert_eq!(e.kind, kind, "{e:?}");
    (m, smap, e)
}

/// For each `(line, message part, var)`: `header`, the line, then `tail` and
/// the closing brace must give exactly one error of `kind` (others may
/// occur), located at that instruction (and var, if named), rendered at the
/// line's first column.
#[track_caller]
fn assert_cases(header: &str, tail: &str, kind: ErrorKind, cases: &[(&str, &str, Option<&str>)]) {
    let line_no = header.lines().count() + 1;
    for &(line, part, v) in cases {
        let src = format!("{header}    {line}\n    {tail}\n}}\n");
        let (m, smap) = parsed(&src);
        let errs = errors(&m, BASE);
        let hits: Vec<&VerifierError> = errs.iter().filter(|e| e.kind == kind).collect();
        assert_eq!(hits.len(), 1, "{line}: {errs:#?}");
        let mut want = at_inst(&m, 0, 0);
        want.var = v.map(|v| var(&m, "f", v));
        assert_eq!(hits[0].location, want, "{line}");
        assert_rendered(hits[0], &m, &src, &smap, part, line_no, 5);
    }
}

/// [`assert_cases`] for cases that name no var.
#[track_caller]
fn assert_cases_no_var(header: &str, kind: ErrorKind, cases: &[(&str, &str)]) {
    let cases: Vec<(&str, &str, Option<&str>)> = cases.iter().map(|&(l, p)| (l, p, None)).collect();
    assert_cases(header, "ret", kind, &cases);
}

fn fid(m: &Module, name: &str) -> FuncId {
    m.function_by_name(name).unwrap_or_else(|| panic!("no function @{name}"))
}

fn bb(n: u32) -> Block {
    Block::from_u32(n)
}

/// The `k`-th instruction of block `bbN` of function `f`.
fn inst(m: &Module, f: &str, n: u32, k: usize) -> Inst {
    let func = m.function(fid(m, f)).unwrap();
    func.block_insts(bb(n)).nth(k).unwrap_or_else(|| panic!("no instruction {k} in bb{n}"))
}

fn var(m: &Module, f: &str, name: &str) -> Var {
    m.function(fid(m, f)).unwrap().var_by_name(name).unwrap_or_else(|| panic!("no var %{name}"))
}

/// The location of instruction `k` of `bbN` in `@f`.
fn at_inst(m: &Module, n: u32, k: usize) -> Location {
    Location { func: Some(fid(m, "f")), block: Some(bb(n)), inst: Some(inst(m, "f", n, k)), var: None, mem: None }
}

/// Asserts the message contains `part`, and the rendered error is titled
/// with it, located at `t.kir:line:col` and has its caret at `col`; returns
/// the rendering.
#[track_caller]
fn assert_rendered(
    e: &VerifierError,
    m: &Module,
    src: &str,
    smap: &SourceMap,
    part: &str,
    line: usize,
    col: usize,
) -> String {
    assert!(e.message.contains(part), "message {:?} should contain {part:?}", e.message);
    let r = e.render(m, "t.kir", src, smap);
    let title = format!("error: {}", e.message);
    assert!(r.starts_with(&title), "rendered as\n{r}\nexpected title {title:?}");
    assert_eq!(location(&r), ("t.kir".to_string(), line, col), "rendered as\n{r}");
    assert_eq!(caret_column(&r), col, "rendered as\n{r}");
    r
}

/// A module with one function `@f` of the given signature, params named
/// `a`, `b`, `c`, ... and a builder-friendly shape.
fn module_with(params: &[Type], returns: &[Type]) -> (Module, FuncId) {
    let mut m = Module::new();
    let names = ["a", "b", "c", "d", "e", "g", "h"];
    let f = m.add_function("f", Signature::new(params.to_vec(), returns.to_vec()), &names[..params.len()]).unwrap();
    (m, f)
}

/// Verifies at both levels, and renders and describes every error: none of
/// it may panic. Returns the base-level errors.
fn verify_everything(m: &Module) -> Vec<VerifierError> {
    let base = errors(m, BASE);
    let ssa = errors(m, SSA);
    assert!(ssa.len() >= base.len(), "the SSA level only adds errors");
    let smap = SourceMap::default();
    for e in base.iter().chain(&ssa) {
        assert!(!e.message.is_empty());
        let _ = e.describe(m);
        let _ = e.render(m, "t.kir", "", &smap);
        let _ = e.to_string();
    }
    for f in m.function_ids() {
        let _ = verify_function(m, f, &BASE);
        let _ = verify_function(m, f, &SSA);
    }
    // The printer must cope with whatever the verifier rejects.
    let _ = text::print_module(m);
    base
}

// ---- one test per error kind, from text -----------------------------------------------

#[test]
fn no_blocks() {
    let src = "func @f() {\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::NoBlocks);
    assert_eq!(e.message, "function has no blocks");
    assert_eq!(e.location, Location { func: Some(fid(&m, "f")), ..Location::default() });
    // The whole header is underlined.
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: function has no blocks (in @f)\n --> t.kir:1:1\n  |\n1 | func @f() {\n  | ^^^^^^^^^^^\n"
    );
    assert_eq!(e.describe(&m), "@f: function has no blocks");
    // A header with params and returns.
    let src = "func @g() {\nbb0:\n    ret\n}\n\nfunc @f(%a: i32) -> i32 {}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::NoBlocks);
    assert_rendered(&e, &m, src, &smap, "function has no blocks", 6, 1);
}

#[test]
fn missing_terminator() {
    let src = "func @f(%a: i32) {\n    var %x: i32\nbb0:\n    %x = copy %a\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MissingTerminator);
    assert_eq!(e.message, "block does not end in a terminator");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: block does not end in a terminator (in @f)\n --> t.kir:4:5\n  |\n4 |     %x = copy %a\n  |     ^^^^^^^^^^^^\n"
    );
    assert_eq!(e.describe(&m), "@f: bb0: `%x = copy %a`: block does not end in a terminator");
    // An empty block is located at its label.
    let src = "func @f() {\nbb0:\n    jump bb1\nbb1:\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MissingTerminator);
    assert_eq!(e.message, "block is empty; it needs a terminator");
    assert_eq!(e.location, Location { func: Some(fid(&m, "f")), block: Some(bb(1)), ..Location::default() });
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: block is empty; it needs a terminator (in @f)\n --> t.kir:4:1\n  |\n4 | bb1:\n  | ^^^\n"
    );
    assert_eq!(e.describe(&m), "@f: bb1: block is empty; it needs a terminator");
}

#[test]
fn misplaced_terminator() {
    let src = "func @f() {\nbb0:\n    ret\n    trap\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MisplacedTerminator);
    assert_eq!(e.message, "`ret` must be the last instruction of its block");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_rendered(&e, &m, src, &smap, "must be the last", 3, 5);
    // A terminator in the middle of a block, the block still ending in one.
    let src = "func @f(%a: i32) {\nbb0:\n    jump bb1\nbb1:\n    %a = add %a, 1\n    jump bb2\n    %a = add %a, 2\n    ret\nbb2:\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MisplacedTerminator);
    assert_eq!(e.location, at_inst(&m, 1, 1));
    assert_rendered(&e, &m, src, &smap, "`jump` must be the last instruction of its block", 6, 5);
    // An instruction on its label's line is located there.
    let src = "func @f() {\nbb0: ret\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MisplacedTerminator);
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: `ret` must be the last instruction of its block (in @f)\n --> t.kir:2:6\n  |\n2 | bb0: ret\n  |      ^^^\n"
    );
}

#[test]
fn misplaced_phi() {
    let src = "func @f(%a: i32) {\n    var %x: i32\nbb0:\n    jump bb1\nbb1:\n    %x = copy %a\n    %x = phi(bb0: %a)\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MisplacedPhi);
    assert_eq!(e.message, "phi after a non-phi instruction; phis must start their block");
    assert_eq!(e.location, at_inst(&m, 1, 1));
    assert_rendered(&e, &m, src, &smap, "phis must start their block", 7, 5);
}

#[test]
fn phi_predecessors() {
    let src = "\
func @f(%a: i32, %c: i1) {
    var %x: i32
bb0:
    br %c, bb1, bb2
bb1:
    jump bb2
bb2:
    %x = phi(bb0: %a, bb3: %a, bb0: 1)
    ret
bb3:
    ret
}
";
    let (m, smap) = parsed(src);
    let errs = errors(&m, BASE);
    let msgs: Vec<&str> = errs.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "phi names bb3, which is not a predecessor of bb2",
            "phi names bb0 twice",
            "phi has no incoming value for predecessor bb1",
        ]
    );
    for e in &errs {
        assert_eq!(e.kind, ErrorKind::PhiPredecessors);
        assert_eq!(e.location, at_inst(&m, 2, 0));
        assert_rendered(e, &m, src, &smap, "phi", 8, 5);
    }
    assert_eq!(
        errs[2].describe(&m),
        "@f: bb2: `%x = phi(bb0: %a, bb3: %a, bb0: 1)`: phi has no incoming value for predecessor bb1"
    );
}

#[test]
fn entry_block() {
    // Predecessors: located at the entry label.
    let src = "func @f(%c: i1) {\nbb0:\n    br %c, bb1, bb2\nbb1:\n    jump bb0\nbb2:\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::EntryBlock);
    assert_eq!(e.message, "the entry block has predecessors (bb1)");
    assert_eq!(e.location, Location { func: Some(fid(&m, "f")), block: Some(bb(0)), ..Location::default() });
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: the entry block has predecessors (bb1) (in @f)\n --> t.kir:2:1\n  |\n2 | bb0:\n  | ^^^\n"
    );
    // The entry block is the first in the layout, whatever its number.
    let src = "func @f() {\nbb3:\n    jump bb1\nbb1:\n    jump bb3\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::EntryBlock);
    assert_eq!(e.message, "the entry block has predecessors (bb1)");
    assert_rendered(&e, &m, src, &smap, "predecessors", 2, 1);
    // A phi in the entry block (with no predecessors, so the phi's list is right).
    let src = "func @f(%a: i32) {\n    var %x: i32\nbb0:\n    %x = phi()\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::EntryBlock);
    assert_eq!(e.message, "phi in the entry block");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_rendered(&e, &m, src, &smap, "phi in the entry block", 4, 5);
}

#[test]
fn arity() {
    let cases: &[(&str, &str)] = &[
        ("%x = add %a", "`add` takes 2 operands, found 1"),
        ("%x = neg %a, %a", "`neg` takes 1 operand, found 2"),
        ("%x = select %c, %a", "`select` takes 3 operands, found 2"),
        ("%x, %y = add %a, %a", "`add` defines 1 result, found 2"),
        ("add %a, %a", "`add` defines 1 result, found 0"),
        ("%x = const 1, 2", "`const` takes 1 operand, found 2"),
        ("%x = ret", "`ret` defines 0 results, found 1"),
        ("ret %a, %a", "`ret` returns 2 values, the signature says 0"),
        ("%x = trap", "`trap` defines 0 results, found 1"),
        ("%x, %x = call @two()", "defines %x twice"),
        ("%x = store @m[0], %a", "`store` defines 0 results, found 1"),
        ("%x = tfill @m[0, 4], %a", "`tfill` defines 0 results, found 1"),
        ("tfill @m[0, 4], @m[0, 4]", "tensor operand 1 of `tfill` must be a scalar"),
        ("tadd %a, @m[0, 4], @m[0, 4]", "the destination of `tadd` must be a memory descriptor"),
        ("dma @m[0, 4], %a", "tensor operand 1 of `dma` must be a memory descriptor"),
        ("tadd @m[0, 4], @m[0, 4]", "`tadd` takes 3 tensor operands, found 2"),
        ("%x = tsum @m[0, 4], @m[0, 4]", "`tsum` takes 1 tensor operand, found 2"),
        ("%x = tsum %a", "tensor operand 0 of `tsum` must be a memory descriptor"),
        (
            "matmul @m[0, 1], @m[0, 1], @m[0, 1], 1, 1",
            "`matmul` takes 3 dimensions (m, k, n) after its tensor operands, found 2",
        ),
    ];
    for &(line, part) in cases {
        let src = format!(
            "mem @m: i32[64] dram\nextern @two() -> i32, i32\nfunc @f(%a: i32, %c: i1) {{\n    var %x: i32, %y: i32\nbb0:\n    {line}\n    ret\n}}\n"
        );
        let (m, smap) = parsed(&src);
        let errs = errors(&m, BASE);
        let hits: Vec<&VerifierError> = errs.iter().filter(|e| e.kind == ErrorKind::Arity).collect();
        assert_eq!(hits.len(), 1, "{line}: {errs:#?}");
        let e = hits[0];
        let mut want = at_inst(&m, 0, 0);
        if part.starts_with("defines %x") {
            want.var = Some(var(&m, "f", "x"));
        }
        assert_eq!(e.location, want, "{line}");
        assert_rendered(e, &m, &src, &smap, part, 6, 5);
    }
    // A jump with results is an arity error at the terminator.
    let src = "func @f() {\n    var %x: i32\nbb0:\n    %x = jump bb1\nbb1:\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::Arity);
    assert_rendered(&e, &m, src, &smap, "`jump` defines 0 results, found 1", 4, 5);
}

#[test]
fn arity_message_for_extra_matmul_dimensions_names_the_problem() {
    let src =
        "mem @m: i32[64] dram\nfunc @f() {\nbb0:\n    matmul @m[0, 1], @m[0, 1], @m[0, 1], 1, 1, 1, 1\n    ret\n}\n";
    let (_, _, e) = single(src, BASE, ErrorKind::Arity);
    assert_eq!(e.message, "`matmul` takes 3 dimensions (m, k, n) after its tensor operands, found 4");
}

#[test]
fn type_mismatch() {
    let header = "mem @m: i32[64] dram\nmem @n: f32[64] dram\nfunc @f(%a: i32, %b: i64, %c: i1, %x: f32) -> i32 {\n    var %r: i32, %p: i1, %q: f64\nbb0:\n";
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("%r = add %a, %b", "operand 1 (%b) has type i64, expected i32", None),
        ("%r = copy %x", "operand 0 (%x) has type f32, expected i32", None),
        ("%x = add %x, %x", "`add` does not operate on f32", None),
        ("%r = fadd %a, %a", "`fadd` does not operate on i32", None),
        ("%r = const i64 5", "result %r has type i32, expected i64", Some("r")),
        ("%r = select %a, %a, %a", "the condition (%a) has type i32, expected i1", None),
        ("%r = select %c, %a, %b", "operand 2 (%b) has type i64, expected i32", None),
        ("%r = setp.eq %a, %a", "result %r has type i32, expected i1", Some("r")),
        ("%p = setp.eq %a, %b", "operand 1 (%b) has type i64, expected i32", None),
        ("%p = setp.eq %x, %x", "`setp` does not operate on f32", None),
        ("%p = fsetp.lt %a, %a", "`fsetp` does not operate on i32", None),
        ("%r = load @m[%x]", "the index (%x) has type f32, expected an integer", None),
        ("%x = load @m[0]", "result %x has type f32, expected i32", Some("x")),
        ("store @m[0], %x", "the stored value (%x) has type f32, expected i32", None),
        ("tadd @m[0, 4], @n[0, 4], @m[0, 4]", "@n holds f32, but `tadd`'s first operand holds i32", None),
        ("texp @m[0, 4], @m[0, 4]", "`texp` does not operate on i32", None),
        ("tfill @m[0, 4], %x", "the scalar operand (%x) has type f32, expected i32", None),
        ("tfill @m[%x, 4], 1", "a descriptor offset (%x) has type f32, expected an integer", None),
        ("%x = tsum @m[0, 4]", "result %x has type f32, expected i32", Some("x")),
        ("matmul @n[0, 1], @n[0, 1], @n[0, 1], %x, 1, 1", "dimension m (%x) has type f32, expected an integer", None),
        ("br %a, bb0, bb0", "the condition (%a) has type i32, expected i1", None),
        ("switch %x, bb0, []", "the switch value has type f32, expected an integer", None),
        ("ret %b", "return value 0 (%b) has type i64, expected i32", None),
    ];
    assert_cases(header, "ret %a", ErrorKind::TypeMismatch, cases);
    // An incoming phi value of the wrong type.
    let src =
        "func @f(%a: i32, %b: i64) {\n    var %r: i32\nbb0:\n    jump bb1\nbb1:\n    %r = phi(bb0: %b)\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::TypeMismatch);
    assert_eq!(e.location, at_inst(&m, 1, 0));
    assert_rendered(&e, &m, src, &smap, "incoming value 0 (%b) has type i64, expected i32", 6, 5);
}

#[test]
fn undefined_var() {
    let src = "func @f(%a: i32) -> i32 {\n    var %x: i32, %y: i32\nbb0:\n    %x = add %a, %y\n    %x = add %x, %y\n    ret %x\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::UndefinedVar);
    assert_eq!(e.message, "%y is used but never defined");
    // Reported once, at the first use.
    assert_eq!(e.location, Location { var: Some(var(&m, "f", "y")), ..at_inst(&m, 0, 0) });
    assert_rendered(&e, &m, src, &smap, "%y is used but never defined", 4, 5);
    // A guard is a use; a quoted name is shown quoted.
    let src = "func @f(%a: i32) {\n    var %\"my p\": i1\nbb0:\n    @%\"my p\" %a = copy %a\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::UndefinedVar);
    assert_eq!(e.message, "%\"my p\" is used but never defined");
    assert_rendered(&e, &m, src, &smap, "never defined", 4, 5);
    // Defined only in an unreachable block still counts as defined.
    let src = "func @f(%a: i32) -> i32 {\n    var %x: i32\nbb0:\n    ret %x\nbb1:\n    %x = copy %a\n    ret %x\n}\n";
    assert!(errors(&parsed(src).0, BASE).is_empty());
}

#[test]
fn bad_guard() {
    let src = "func @f(%a: i32) {\nbb0:\n    @%a %a = add %a, 1\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::BadGuard);
    assert_eq!(e.message, "the guard %a has type i32, expected i1");
    assert_eq!(e.location, Location { var: Some(var(&m, "f", "a")), ..at_inst(&m, 0, 0) });
    assert_rendered(&e, &m, src, &smap, "the guard %a", 3, 5);
    // Terminators and phis cannot be guarded.
    let src = "func @f(%p: i1) {\nbb0:\n    @!%p ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::BadGuard);
    assert_eq!(e.message, "`ret` cannot be guarded");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: `ret` cannot be guarded (in @f)\n --> t.kir:3:5\n  |\n3 |     @!%p ret\n  |     ^^^^^^^^\n"
    );
    let src = "func @f(%p: i1, %a: i32) {\nbb0:\n    jump bb1\nbb1:\n    @%p %a = phi(bb0: %a)\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::BadGuard);
    assert_eq!(e.message, "`phi` cannot be guarded");
    assert_rendered(&e, &m, src, &smap, "`phi` cannot be guarded", 5, 5);
}

#[test]
fn descriptor_out_of_bounds() {
    let header = "mem @m: i32[64] dram\nfunc @f(%n: i64) {\n    var %r: i32\nbb0:\n";
    let cases: &[(&str, &str)] = &[
        ("tfill @m[0, 65], 1", "descriptor @m[0, 65] is out of bounds: @m has 64 elements"),
        ("tfill @m[60, 5], 1", "descriptor @m[60, 5] is out of bounds: @m has 64 elements"),
        ("tfill @m[-1, 1], 1", "descriptor @m[-1, 1] is out of bounds: @m has 64 elements"),
        ("tfill @m[0, -1], 1", "descriptor @m[0, -1] is out of bounds: @m has 64 elements"),
        ("tfill @m[65, %n], 1", "descriptor @m[65, %n] is out of bounds: @m has 64 elements"),
        ("tfill @m[%n, 65], 1", "descriptor @m[%n, 65] is out of bounds: @m has 64 elements"),
        ("tfill @m[0x7fffffffffffffff, 2], 1", "is out of bounds"),
        ("%r = tsum @m[0, 100]", "descriptor @m[0, 100] is out of bounds: @m has 64 elements"),
        ("dma @m[0, 4], @m[62, 4]", "descriptor @m[62, 4] is out of bounds: @m has 64 elements"),
        ("%r = load @m[64]", "index 64 is outside @m, which has 64 elements"),
        ("%r = load @m[-1]", "index -1 is outside @m, which has 64 elements"),
        ("store @m[100], 1", "index 100 is outside @m, which has 64 elements"),
    ];
    assert_cases_no_var(header, ErrorKind::DescriptorOutOfBounds, cases);
    // Edges that are in bounds.
    let src = format!(
        "{header}    tfill @m[0, 64], 1\n    tfill @m[64, 0], 1\n    tfill @m[64, %n], 1\n    %r = load @m[63]\n    ret\n}}\n"
    );
    assert!(errors(&parsed(&src).0, BASE).is_empty());
}

#[test]
fn tensor_shape() {
    let header = "mem @m: f32[64] dram\nfunc @f() {\nbb0:\n";
    let cases: &[(&str, &str)] = &[
        ("tadd @m[0, 8], @m[8, 4], 1.0", "`tadd` operands have different sizes (8, 4)"),
        ("tfma @m[0, 8], @m[8, 8], @m[16, 8], @m[24, 7]", "`tfma` operands have different sizes (8, 8, 8, 7)"),
        ("dma @m[0, 8], @m[8, 9]", "`dma` operands have different sizes (8, 9)"),
        ("matmul @m[0, 6], @m[8, 8], @m[16, 10], 2, 4, 3", "matmul B has 10 elements, expected 12 for m=2, k=4, n=3"),
        ("matmul @m[0, 5], @m[8, 8], @m[16, 12], 2, 4, 3", "matmul C has 5 elements, expected 6 for m=2, k=4, n=3"),
        ("matmul @m[0, 6], @m[8, 9], @m[16, 12], 2, 4, 3", "matmul A has 9 elements, expected 8 for m=2, k=4, n=3"),
    ];
    assert_cases_no_var(header, ErrorKind::TensorShape, cases);
    // Inexact sizes are not compared.
    let src = "mem @m: f32[64] dram\nfunc @f(%n: i64) {\nbb0:\n    tadd @m[0, 8], @m[8, %n], 1.0\n    ret\n}\n";
    assert!(errors(&parsed(src).0, BASE).is_empty());
}

#[test]
fn tensor_shape_rejects_negative_matmul_dimensions() {
    let src =
        "mem @m: f32[64] dram\nfunc @f() {\nbb0:\n    matmul @m[0, 6], @m[8, 4], @m[16, 24], -1, -4, -6\n    ret\n}\n";
    let (m, _) = parsed(src);
    let errs = errors(&m, BASE);
    let msgs: Vec<&str> =
        errs.iter().filter(|e| e.kind == ErrorKind::TensorShape).map(|e| e.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "matmul dimension m = -1 is negative",
            "matmul dimension k = -4 is negative",
            "matmul dimension n = -6 is negative"
        ]
    );
}

#[test]
fn tensor_shape_rejects_overflowing_matmul_dimensions() {
    // m*k and m*n overflow, so only B (k*n = 12) is compared; A and C pass.
    let src = "mem @m: f32[64] dram\nfunc @f() {\nbb0:\n    matmul @m[0, 6], @m[8, 8], @m[16, 12], 4611686018427387904, 4, 3\n    ret\n}\n";
    let (m, _) = parsed(src);
    let errs = errors(&m, BASE);
    assert!(errs.iter().any(|e| e.kind == ErrorKind::TensorShape && e.message.ends_with("overflow")), "{errs:#?}");
}

#[test]
fn call_signature() {
    let header = "extern @g(i32, i64) -> i32\nfunc @f(%a: i32, %b: i64) {\n    var %r: i32, %s: i64\nbb0:\n";
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("%r = call @g(%a)", "@g takes 2 arguments, found 1", None),
        ("%r = call @g(%b, %b)", "argument 0 (%b) of @g has type i64, expected i32", None),
        ("call @g(%a, %b)", "@g returns 1 value, found 0 results", None),
        ("%r, %s = call @g(%a, %b)", "@g returns 1 value, found 2 results", None),
        ("%s = call @g(%a, %b)", "result %s has type i64, but @g returns i32", Some("s")),
        ("call @f(%a)", "@f takes 2 arguments, found 1", None),
    ];
    assert_cases(header, "ret", ErrorKind::CallSignature, cases);
}

#[test]
fn bad_conversion() {
    let header = "func @f(%a: i32, %b: i64, %x: f32, %y: f64, %c: i1) {\n    var %r: i32, %s: i64, %t: f32, %u: f64, %v: i1\nbb0:\n";
    let cases: &[(&str, &str)] = &[
        ("%r = sext %b", "`sext` cannot convert i64 to i32"),
        ("%r = zext %a", "`zext` cannot convert i32 to i32"),
        ("%s = trunc %a", "`trunc` cannot convert i32 to i64"),
        ("%u = fpext %u", "`fpext` cannot convert f64 to f64"),
        ("%u = fptrunc %x", "`fptrunc` cannot convert f32 to f64"),
        ("%v = fptosi %x", "`fptosi` cannot convert f32 to i1"),
        ("%r = fptoui_sat %a", "`fptoui_sat` cannot convert i32 to i32"),
        ("%t = sitofp %x", "`sitofp` cannot convert f32 to f32"),
        ("%s = bitcast %x", "`bitcast` cannot convert f32 to i64"),
    ];
    assert_cases_no_var(header, ErrorKind::BadConversion, cases);
    // The good ones.
    let good = "%s = sext %a\n    %r = trunc %b\n    %u = fpext %x\n    %t = fptrunc %y\n    %r = fptosi_sat %y\n    %u = uitofp %c\n    %r = bitcast %x\n    %t = bitcast %a\n";
    assert!(errors(&parsed(&format!("{header}    {good}    ret\n}}\n")).0, BASE).is_empty());
}

#[test]
fn bad_switch_case_from_text() {
    // 255 and -1 are the same i8.
    let src = "func @f(%a: i8) {\nbb0:\n    switch %a, bb1, [255: bb1, -1: bb2]\nbb1:\n    ret\nbb2:\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::BadSwitchCase);
    assert_eq!(e.message, "case value -1 appears more than once");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_rendered(&e, &m, src, &smap, "appears more than once", 3, 5);
}

#[test]
fn bad_switch_case_from_the_builder() {
    // A case canonical for i32 stops being so when the value's type changes.
    let (mut m, f) = module_with(&[Type::I32], &[]);
    let func = m.function_mut(f).unwrap();
    let mut b = FunctionBuilder::new(func);
    let a = b.param(0).unwrap();
    let (b0, b1) = (b.create_block(), b.create_block());
    b.switch_to_block(b0);
    b.ins().switch(a, b1, &[(200, b1), (7, b1)]);
    b.switch_to_block(b1);
    b.ins().ret(&[]);
    assert!(b.func().set_var_type(a, Type::I8));
    let errs = errors(&m, BASE);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].kind, ErrorKind::BadSwitchCase);
    assert_eq!(errs[0].message, "case value 200 is not a canonical i8 (values are sign-extended)");
    assert_eq!(
        errs[0].describe(&m),
        "@f: bb0: `switch %a, bb1, [200: bb1, 7: bb1]`: case value 200 is not a canonical i8 (values are sign-extended)"
    );
}

#[test]
fn bad_const() {
    let src = "func @f(%a: i32) {\n    var %x: i32\nbb0:\n    %x = const %a\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::BadConst);
    assert_eq!(e.message, "`const` needs an immediate; use `copy` for a var");
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: `const` needs an immediate; use `copy` for a var (in @f)\n --> t.kir:4:5\n  |\n4 |     %x = const %a\n  |     ^^^^^^^^^^^^^\n"
    );
}

#[test]
fn mem_init_from_the_builder() {
    let mut m = Module::new();
    let mem = m.add_mem("m", Type::I32, 2, MemSpace::Dram).unwrap();
    let other = m.add_mem("w", Type::F32, 4, MemSpace::Wram).unwrap();
    assert!(m.set_mem_init(mem, vec![Imm::from(1i32), Imm::from(2i32), Imm::from(3i32)]));
    assert!(m.set_mem_init(other, vec![Imm::from(1.0f32), Imm::from(1.5f64)]));
    assert!(!m.set_mem_init(Mem::from_u32(7), vec![]));
    let errs = errors(&m, BASE);
    let got: Vec<(ErrorKind, &str)> = errs.iter().map(|e| (e.kind, e.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (ErrorKind::MemInit, "@m has 2 elements but 3 initial values"),
            (ErrorKind::MemInit, "@w holds f32 but an initial value is f64 1.5"),
        ]
    );
    for e in &errs {
        // Module-level: no function, block, instruction or var; the object.
        assert_eq!(e.location, Location { mem: e.location.mem, ..Location::default() });
        assert!(e.location.mem.is_some());
        assert_eq!(e.describe(&m), e.message);
        assert_eq!(e.render(&m, "t.kir", "", &SourceMap::default()), format!("error: {}\n--> t.kir\n", e.message));
    }
    // Both problems in one object.
    let mut m = Module::new();
    let mem = m.add_mem("\"q\"", Type::I8, 1, MemSpace::Nram).unwrap();
    m.set_mem_init(mem, vec![Imm::from(1i32), Imm::from(2i32)]);
    let errs = errors(&m, BASE);
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(errs.iter().all(|e| e.kind == ErrorKind::MemInit));
    assert_eq!(errs[0].message, "@\"\\\"q\\\"\" has 1 elements but 2 initial values");
}

#[test]
fn mem_init_from_text() {
    // Untyped initial values take the element type and their count is
    // checked by the parser, so they are always valid.
    let (m, _) = parsed("mem @m: f64[3] dram = [1, 2.5, -inf]\nmem @n: i8[2] dram = [255, -128]\n");
    assert!(errors(&m, BASE).is_empty());
    // A typed one of another type parses (so it round-trips) and is
    // rejected by the verifier.
    let src = "mem @m: i32[2] dram = [1, f32 1.5]\nfunc @f() {\nbb0:\n    ret\n}\n";
    let (m, smap, e) = single(src, BASE, ErrorKind::MemInit);
    assert_eq!(e.message, "@m holds i32 but an initial value is f32 1.5");
    assert_eq!(
        e.location,
        Location {
            mem: m.lookup("m").and_then(|g| match g {
                ir_core::Global::Mem(mem) => Some(mem),
                _ => None,
            }),
            ..Location::default()
        }
    );
    assert_eq!(e.describe(&m), e.message);
    // Rendered at the object's name in its declaration.
    let r = e.render(&m, "t.kir", src, &smap);
    assert!(r.starts_with("error: @m holds i32 but an initial value is f32 1.5\n"), "{r}");
    assert_eq!(location(&r), ("t.kir".to_string(), 1, 5), "{r}");
    assert_eq!(caret_column(&r), 5, "{r}");
}

// ---- SSA level ----------------------------------------------------------------------

#[test]
fn multiple_definitions() {
    let src = "func @f(%a: i32) {\n    var %x: i32\nbb0:\n    %x = copy %a\n    %x = add %x, 1\n    ret\n}\n";
    // Fine at the base level.
    assert!(errors(&parsed(src).0, BASE).is_empty());
    let (m, smap, e) = single(src, SSA, ErrorKind::MultipleDefinitions);
    assert_eq!(e.message, "%x is defined 2 times; SSA allows one");
    let x = var(&m, "f", "x");
    assert_eq!(e.location, Location { func: Some(fid(&m, "f")), var: Some(x), ..Location::default() });
    // Located at the var's declaration.
    assert_eq!(
        e.render(&m, "t.kir", src, &smap),
        "error: %x is defined 2 times; SSA allows one (in @f)\n --> t.kir:2:9\n  |\n2 |     var %x: i32\n  |         ^^\n"
    );
    assert_eq!(e.describe(&m), "@f: %x is defined 2 times; SSA allows one");
    // A param counts as a definition; it is located in the header.
    let src = "func @f(%a: i32, %b: i32) {\nbb0:\n    jump bb1\nbb1:\n    %b = copy %a\n    jump bb2\nbb2:\n    %b = copy %a\n    ret\n}\n";
    let (m, smap, e) = single(src, SSA, ErrorKind::MultipleDefinitions);
    assert_eq!(e.message, "%b is defined 3 times; SSA allows one");
    assert_eq!(e.location.var, Some(m.function(fid(&m, "f")).unwrap().params()[1]));
    assert_rendered(&e, &m, src, &smap, "defined 3 times", 1, 18);
}

#[test]
fn use_not_dominated() {
    // A use before the definition in the same block.
    let src = "func @f(%a: i32) {\n    var %x: i32, %y: i32\nbb0:\n    %y = copy %x\n    %x = copy %a\n    ret\n}\n";
    assert!(errors(&parsed(src).0, BASE).is_empty());
    let (m, smap, e) = single(src, SSA, ErrorKind::UseNotDominated);
    assert_eq!(e.message, "the definition of %x does not dominate this use");
    assert_eq!(e.location, Location { var: Some(var(&m, "f", "x")), ..at_inst(&m, 0, 0) });
    assert_rendered(&e, &m, src, &smap, "does not dominate this use", 4, 5);
    // A definition on one side of a diamond, used at the join.
    let src = "\
func @f(%a: i32, %c: i1) {
    var %x: i32, %y: i32
bb0:
    br %c, bb1, bb2
bb1:
    %x = copy %a
    jump bb2
bb2:
    %y = copy %x
    ret
}
";
    let (m, smap, e) = single(src, SSA, ErrorKind::UseNotDominated);
    assert_eq!(e.location, Location { var: Some(var(&m, "f", "x")), ..at_inst(&m, 2, 0) });
    assert_rendered(&e, &m, src, &smap, "the definition of %x does not dominate this use", 9, 5);
    // A guard is a use too (the fallback keeps the guarded definition valid SSA).
    let src = "func @f(%a: i32) {\n    var %p: i1, %x: i32\nbb0:\n    @%p %x = copy %a else %a\n    %p = setp.eq %a, 0\n    ret\n}\n";
    let (m, smap, e) = single(src, SSA, ErrorKind::UseNotDominated);
    assert_eq!(e.location.var, Some(var(&m, "f", "p")));
    assert_rendered(&e, &m, src, &smap, "the definition of %p does not dominate this use", 4, 5);
    // A phi's incoming value must be available at the end of its predecessor.
    let src = "\
func @f(%a: i32, %c: i1) {
    var %x: i32, %y: i32
bb0:
    br %c, bb1, bb2
bb1:
    %x = copy %a
    jump bb3
bb2:
    jump bb3
bb3:
    %y = phi(bb1: %x, bb2: %x)
    ret
}
";
    let (m, smap, e) = single(src, SSA, ErrorKind::UseNotDominated);
    assert_eq!(e.message, "the definition of %x does not dominate the end of bb2");
    assert_eq!(e.location, Location { var: Some(var(&m, "f", "x")), ..at_inst(&m, 3, 0) });
    assert_rendered(&e, &m, src, &smap, "does not dominate the end of bb2", 11, 5);
}

#[test]
fn ssa_exemptions() {
    // Uses in unreachable blocks are exempt; a loop phi may take a value
    // defined in the loop; a multiply-defined var is reported once, not
    // also at each use.
    let src = "\
func @f(%a: i32, %n: i32) -> i32 {
    var %i: i32, %j: i32, %more: i1, %z: i32, %w: i32
bb0:
    jump bb1
bb1:
    %i = phi(bb0: %a, bb1: %j)
    %j = add %i, 1
    %more = setp.slt %j, %n
    br %more, bb1, bb2
bb2:
    ret %j
bb3:
    %z = copy %w
    %w = copy %a
    ret %z
}
";
    let (m, _) = parsed(src);
    assert_eq!(errors(&m, SSA), []);
    let src = "func @f(%a: i32) {\n    var %x: i32, %y: i32\nbb0:\n    %y = copy %x\n    %x = copy %a\n    %x = copy %a\n    ret\n}\n";
    let (_, _, e) = single(src, SSA, ErrorKind::MultipleDefinitions);
    assert!(e.message.starts_with("%x is defined 2 times"));
}

// ---- builder-only errors -----------------------------------------------------------

/// `@f(%a: i32, %c: i1)` with vars `%x: i32`, a memory object `@m: i32[8]`
/// and one block `bb0`; `build` appends instructions, then a `ret` is added.
fn built(build: impl FnOnce(&mut FunctionBuilder<'_>, Var, Var, Var, Mem)) -> Module {
    let mut m = Module::new();
    let mem = m.add_mem("m", Type::I32, 8, MemSpace::Nram).unwrap();
    let f = m.add_function("f", Signature::new([Type::I32, Type::I1], []), &["a", "c"]).unwrap();
    let func = m.function_mut(f).unwrap();
    let mut b = FunctionBuilder::new(func);
    let (a, c) = (b.param(0).unwrap(), b.param(1).unwrap());
    let x = b.var("x", Type::I32);
    let b0 = b.create_block();
    b.switch_to_block(b0);
    build(&mut b, a, c, x, mem);
    b.switch_to_block(b0);
    b.ins().ret(&[]);
    m
}

/// Asserts the module's only error has this kind, message and description.
#[track_caller]
fn assert_only(m: &Module, kind: ErrorKind, message: &str, describe: &str) {
    let errs = verify_everything(m);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].kind, kind, "{:?}", errs[0]);
    assert_eq!(errs[0].message, message);
    assert_eq!(errs[0].describe(m), describe);
}

#[test]
fn unknown_entity() {
    let ghost = Var::from_u32(99);
    let m = built(|b, _, _, x, _| {
        b.ins().copy(x, ghost);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "operand 0 (%99) does not exist in this function",
        "@f: bb0: `%x = copy %\"?\"`: operand 0 (%99) does not exist in this function",
    );
    let m = built(|b, a, _, _, _| {
        b.ins().copy(ghost, a);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "result 0 is %99, which is not a var of this function",
        "@f: bb0: `%\"?\" = copy %a`: result 0 is %99, which is not a var of this function",
    );
    let m = built(|b, a, _, x, _| {
        b.ins().when(ghost).copy(x, a);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "the guard %99 is not a var of this function",
        "@f: bb0: `@%\"?\" %x = copy %a`: the guard %99 is not a var of this function",
    );
    let m = built(|b, _, _, x, _| {
        b.ins().load(x, Mem::from_u32(5), 0i64);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "@mem5 is not a memory object of this module",
        "@f: bb0: `%x = load @?[0]`: @mem5 is not a memory object of this module",
    );
    let m = built(|b, _, _, _, mem| {
        b.ins().tensor(
            Opcode::Tadd,
            Desc::new(mem, 0i64, 4i64),
            &[Desc::new(Mem::from_u32(5), 0i64, 4i64).into(), TensorArg::Scalar(Arg::Imm(Imm::from(1i32)))],
        );
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "@mem5 is not a memory object of this module",
        "@f: bb0: `tadd @m[0, 4], @?[0, 4], 1`: @mem5 is not a memory object of this module",
    );
    let m = built(|b, _, _, _, _| {
        b.ins().call(Callee::Func(FuncId::from_u32(9)), &[], &[]);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "the callee Func(@fn9) does not exist in this module",
        "@f: bb0: `call @\"?\"()`: the callee Func(@fn9) does not exist in this module",
    );
    let m = built(|b, _, _, _, _| {
        b.ins().call(Callee::Ext(ExtFuncId::from_u32(0)), &[], &[]);
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "the callee Ext(@ext0) does not exist in this module",
        "@f: bb0: `call @\"?\"()`: the callee Ext(@ext0) does not exist in this module",
    );
    // A constant operand that is not in the pool.
    let m = built(|b, _, _, x, _| {
        let i = b.ins().copy(x, 1i32);
        assert!(b.func().set_operand(i, 0, Operand::constant(Const::from_u32(40))));
    });
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "operand 0 (const40) does not exist in this function",
        "@f: bb0: `%x = copy <unknown constant const40>`: operand 0 (const40) does not exist in this function",
    );
    // A branch to a block that was never created.
    let mut m = built(|_, _, _, _, _| {});
    let f = fid(&m, "f");
    let func = m.function_mut(f).unwrap();
    let ret = func.block_insts(bb(0)).next().unwrap();
    func.remove_inst(ret).unwrap();
    let mut b = FunctionBuilder::new(func);
    b.switch_to_block(bb(0));
    b.ins().jump(bb(42));
    assert_only(
        &m,
        ErrorKind::UnknownEntity,
        "branch to bb42, which does not exist",
        "@f: bb0: `jump bb42`: branch to bb42, which does not exist",
    );
}

#[test]
fn unknown_target() {
    // A block created but never put in the layout.
    let (mut m, f) = module_with(&[Type::I1], &[]);
    let func = m.function_mut(f).unwrap();
    let mut b = FunctionBuilder::new(func);
    let c = b.param(0).unwrap();
    let b0 = b.create_block();
    let b1 = b.create_block();
    let detached = b.func().create_block();
    b.switch_to_block(b0);
    b.ins().br(c, b1, detached);
    b.switch_to_block(b1);
    b.ins().ret(&[]);
    assert_only(
        &m,
        ErrorKind::UnknownTarget,
        "branch to bb2, which is not in the layout",
        "@f: bb0: `br %a, bb1, bb2`: branch to bb2, which is not in the layout",
    );
    // A block removed from the layout.
    let func = m.function_mut(f).unwrap();
    func.append_block(detached).unwrap();
    func.remove_block(b1).unwrap();
    let errs = verify_everything(&m);
    let got: Vec<(ErrorKind, &str)> = errs.iter().map(|e| (e.kind, e.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (ErrorKind::UnknownTarget, "branch to bb1, which is not in the layout"),
            (ErrorKind::MissingTerminator, "block is empty; it needs a terminator"),
        ]
    );
    // A switch's case target.
    let (mut m, f) = module_with(&[Type::I32], &[]);
    let mut b = FunctionBuilder::new(m.function_mut(f).unwrap());
    let a = b.param(0).unwrap();
    let b0 = b.create_block();
    let detached = b.func().create_block();
    b.switch_to_block(b0);
    b.ins().switch(a, b0, &[(1, detached)]);
    let errs = verify_everything(&m);
    assert!(
        errs.iter()
            .any(|e| e.kind == ErrorKind::UnknownTarget && e.message == "branch to bb1, which is not in the layout"),
        "{errs:#?}"
    );
}

#[test]
fn malformed_instructions() {
    // Each built with a constructor of another format.
    type Build = fn(&mut FunctionBuilder<'_>, Var, Var, Var, Mem);
    let cases: &[(Build, &str, &str)] = &[
        (
            |b, a, _, x, _| {
                b.ins().binary(Opcode::Br, x, a, a);
            },
            "br",
            "%x = br %a",
        ),
        (
            |b, _, _, _, _| {
                b.ins().simple(Opcode::Jump, &[], &[]);
            },
            "jump",
            "jump bb?",
        ),
        (
            |b, a, _, x, _| {
                b.ins().unary(Opcode::Load, x, a);
            },
            "load",
            "%x = load @?[%a]",
        ),
        (
            |b, a, _, x, _| {
                b.ins().binary(Opcode::Setp, x, a, a);
            },
            "setp",
            "%x = setp %a, %a",
        ),
        (
            |b, a, _, x, _| {
                b.ins().simple(Opcode::Call, &[x], &[Arg::Var(a)]);
            },
            "call",
            "%x = call @?(%a)",
        ),
        (
            |b, _, _, _, m| {
                let d = Desc::new(m, 0i64, 4i64);
                b.ins().tensor(Opcode::Add, d, &[TensorArg::Desc(d)]);
            },
            "add",
            "add i64 0, i64 4, i64 0, i64 4",
        ),
        (
            |b, a, _, x, _| {
                b.ins().simple(Opcode::Phi, &[x], &[Arg::Var(a)]);
            },
            "phi",
            "%x = phi()",
        ),
        (
            |b, a, _, x, _| {
                b.ins().simple(Opcode::Tsum, &[x], &[Arg::Var(a)]);
            },
            "tsum",
            "%x = tsum %a",
        ),
        (
            |b, a, _, _, _| {
                b.ins().simple(Opcode::Switch, &[], &[Arg::Var(a)]);
            },
            "switch",
            "switch %a, bb?, []",
        ),
        (
            |b, a, _, x, _| {
                b.ins().simple(Opcode::Intrinsic, &[x], &[Arg::Var(a)]);
            },
            "intrinsic",
            "%x = intrinsic \"?\"(%a)",
        ),
        (
            |b, a, _, x, _| {
                b.ins().unary(Opcode::Store, x, a);
            },
            "store",
            "%x = store @?[%a], ?",
        ),
    ];
    for (i, &(build, op, shown)) in cases.iter().enumerate() {
        let m = built(build);
        let errs = verify_everything(&m);
        let malformed: Vec<&VerifierError> = errs.iter().filter(|e| e.message.starts_with("malformed")).collect();
        assert_eq!(malformed.len(), 1, "case {i}: {errs:#?}");
        let e = malformed[0];
        assert_eq!(e.kind, ErrorKind::Arity);
        assert_eq!(e.message, format!("malformed `{op}`: it was built with another format's constructor"));
        assert_eq!(e.describe(&m), format!("@f: bb0: `{shown}`: {}", e.message), "case {i}");
    }
}

#[test]
fn wrong_counts_from_the_builder() {
    let cases: &[(Opcode, &[bool], usize, &str)] = &[
        (Opcode::Add, &[true], 1, "`add` takes 2 operands, found 1"),
        (Opcode::Add, &[true, true], 0, "`add` defines 1 result, found 0"),
        (Opcode::Trap, &[true], 0, "`trap` takes 0 operands, found 1"),
        (Opcode::Const, &[], 1, "`const` takes 1 operand, found 0"),
        (Opcode::Select, &[false, true, true, true], 1, "`select` takes 3 operands, found 4"),
        (Opcode::Sext, &[true, true], 1, "`sext` takes 1 operand, found 2"),
    ];
    for &(op, operands, nresults, message) in cases {
        let m = built(|b, a, c, x, _| {
            let args: Vec<Arg> = operands.iter().map(|&int| Arg::Var(if int { a } else { c })).collect();
            let results = if nresults == 1 { vec![x] } else { vec![] };
            b.ins().simple(op, &results, &args);
        });
        let errs = verify_everything(&m);
        let arity: Vec<&VerifierError> = errs.iter().filter(|e| e.kind == ErrorKind::Arity).collect();
        assert_eq!(arity.len(), 1, "{op}: {errs:#?}");
        assert_eq!(arity[0].message, message);
        assert!(arity[0].describe(&m).starts_with("@f: bb0: `"), "{}", arity[0].describe(&m));
    }
    // A phi with more blocks than values.
    let m = built(|b, a, _, x, _| {
        let i = b.ins().phi(x, &[(bb(0), Arg::Var(a))]);
        assert!(b.func().phi_remove_incoming(i, 0));
        assert!(b.func().phi_add_incoming(i, bb(0), Operand::var(a)));
    });
    let _ = verify_everything(&m);
}

// ---- several errors, valid modules, garbage ------------------------------------------

#[test]
fn collects_every_error_in_one_run() {
    let src = "\
mem @m: i32[8] dram
func @f(%a: i32, %b: i64) -> i32 {
    var %x: i32, %y: i32
bb0:
    %x = add %a, %b
    %x = sext %b
    tfill @m[0, 9], 1
    jump bb1
bb1:
    %x = copy %y
    ret
}
func @g() {
}
func @h(%c: i1) {
bb0:
    @%c ret
}
";
    let (m, smap) = parsed(src);
    let errs = errors(&m, BASE);
    let mut got: Vec<(usize, ErrorKind, String)> = errs
        .iter()
        .map(|e| {
            let r = e.render(&m, "t.kir", src, &smap);
            let (file, line, col) = location(&r);
            assert_eq!((file.as_str(), caret_column(&r)), ("t.kir", col), "{r}");
            (line, e.kind, e.message.clone())
        })
        .collect();
    // Some classes are found in a later sweep; the order is not the point.
    got.sort_by_key(|g| g.0);
    let want = vec![
        (5, ErrorKind::TypeMismatch, "operand 1 (%b) has type i64, expected i32".to_string()),
        (6, ErrorKind::BadConversion, "`sext` cannot convert i64 to i32".to_string()),
        (7, ErrorKind::DescriptorOutOfBounds, "descriptor @m[0, 9] is out of bounds: @m has 8 elements".to_string()),
        (10, ErrorKind::UndefinedVar, "%y is used but never defined".to_string()),
        (11, ErrorKind::Arity, "`ret` returns 0 values, the signature says 1".to_string()),
        (13, ErrorKind::NoBlocks, "function has no blocks".to_string()),
        (17, ErrorKind::BadGuard, "`ret` cannot be guarded".to_string()),
    ];
    assert_eq!(got, want);
    // The SSA level adds its own errors to the same list.
    let ssa = errors(&m, SSA);
    assert_eq!(ssa.len(), errs.len() + 1, "{ssa:#?}");
    let multi: Vec<&VerifierError> = ssa.iter().filter(|e| e.kind == ErrorKind::MultipleDefinitions).collect();
    assert_eq!(multi.len(), 1);
    assert_eq!(multi[0].message, "%x is defined 3 times; SSA allows one");
    // verify_function checks one function only.
    let only_g = verify_function(&m, fid(&m, "g"), &BASE).unwrap_err();
    assert_eq!(only_g.0.len(), 1);
    assert_eq!(only_g.0[0].kind, ErrorKind::NoBlocks);
    // Display lists every error, one per line.
    let shown = verify_module(&m, &BASE).unwrap_err().to_string();
    assert_eq!(shown.lines().count(), errs.len());
    assert!(shown.lines().next().unwrap().starts_with("@fn0: bb0: inst"), "{shown}");
}

#[test]
fn examples_verify_at_the_base_level() {
    for (path, src) in examples() {
        let (m, smap) = text::parse(&src).unwrap_or_else(|d| panic!("{}: {d:?}", path.display()));
        if let Err(e) = verify_module(&m, &BASE) {
            let shown: Vec<String> =
                e.0.iter().map(|e| e.render(&m, &path.display().to_string(), &src, &smap)).collect();
            panic!("{} does not verify:\n{}", path.display(), shown.concat());
        }
        // The SSA level may reject them (they are mostly not SSA), but must
        // only report SSA errors.
        for e in errors(&m, SSA) {
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::MultipleDefinitions | ErrorKind::UseNotDominated | ErrorKind::MissingFallback
                ),
                "{e:?}"
            );
        }
    }
}

#[test]
fn an_ssa_module_verifies_at_both_levels() {
    let src = "\
mem @data: i32[16] dram
func @sum(%n: i64) -> i32 {
    var %i.1: i64, %i.2: i64, %s.1: i32, %s.2: i32, %v: i32, %more: i1, %p: i1, %t: i32
bb0:
    jump bb1
bb1:
    %i.1 = phi(bb0: 0, bb2: %i.2)
    %s.1 = phi(bb0: 0, bb2: %s.2)
    %more = setp.slt %i.1, %n
    br %more, bb2, bb3
bb2:
    %v = load @data[%i.1]
    %p = setp.sgt %v, 0
    %t = select %p, %v, 0
    %s.2 = add %s.1, %t
    %i.2 = add %i.1, 1
    jump bb1
bb3:
    ret %s.1
}
";
    let (m, _) = parsed(src);
    assert_eq!(errors(&m, BASE), []);
    assert_eq!(errors(&m, SSA), []);
}

#[test]
fn never_panics_on_garbage() {
    let mut m = Module::new();
    let mem = m.add_mem("m", Type::F32, 4, MemSpace::Sram).unwrap();
    let ext = m.add_extern("e", Signature::new([Type::I32], [Type::I32])).unwrap();
    let f = m.add_function("f", Signature::new([Type::I32, Type::I1], [Type::I32]), &["a", "c"]).unwrap();
    let callee = m.add_function("g", Signature::new([], []), &[]).unwrap();
    let ghost_var = Var::from_u32(1000);
    let ghost_block = Block::from_u32(1000);
    let ghost_mem = Mem::from_u32(1000);
    let func = m.function_mut(f).unwrap();
    let mut b = FunctionBuilder::new(func);
    let (a, c) = (b.param(0).unwrap(), b.param(1).unwrap());
    let x = b.var("x", Type::F64);
    let b0 = b.create_block();
    let b1 = b.create_block();
    let b2 = b.create_block();
    let _empty = b.create_block();
    let detached = b.func().create_block();
    b.switch_to_block(b0);
    // Phis in the entry block, out of place, naming nothing sensible.
    b.ins().phi(x, &[(ghost_block, Arg::Var(ghost_var)), (detached, Arg::Var(a)), (b0, Arg::Imm(Imm::from(1i8)))]);
    b.ins().copy(ghost_var, ghost_var);
    b.ins().phi(ghost_var, &[]);
    b.ins().when(ghost_var).load(x, ghost_mem, ghost_var);
    b.ins().unless(a).store(mem, 100i64, x);
    b.ins().tensor(Opcode::Tfma, Desc::new(ghost_mem, -1i64, i64::MAX), &[TensorArg::Scalar(Arg::Var(ghost_var))]);
    b.ins().tensor(Opcode::Tfill, Desc::new(mem, 0i64, 4i64), &[TensorArg::Scalar(Arg::Imm(Imm::from(1.0f32))); 12]);
    b.ins().tensor(Opcode::Trelu, Desc::new(mem, ghost_var, x), &[]);
    b.ins().reduce(Opcode::Tsum, ghost_var, Desc::new(ghost_mem, 0i64, 1i64));
    b.ins().reduce(Opcode::Dma, x, Desc::new(mem, 0i64, 1i64));
    b.ins().matmul(
        Desc::new(mem, 0i64, 4i64),
        Desc::new(ghost_mem, 0i64, 4i64),
        Desc::new(mem, i64::MIN, i64::MAX),
        [Arg::Imm(Imm::from(i64::MAX)), Arg::Imm(Imm::from(i64::MAX)), Arg::Var(ghost_var)],
    );
    b.ins().matmul(
        Desc::new(mem, 0i64, 0i64),
        Desc::new(mem, 0i64, 0i64),
        Desc::new(mem, 0i64, 0i64),
        [Arg::Var(x); 3],
    );
    b.ins().call(Callee::Ext(ext), &[ghost_var, x, x], &[Arg::Var(ghost_var)]);
    b.ins().call(Callee::Func(callee), &[], &[Arg::Var(a)]);
    b.ins().call(Callee::Func(FuncId::from_u32(77)), &[x], &[]);
    b.ins().intrinsic("", &[ghost_var], &[Arg::Var(ghost_var)]);
    b.ins().constant(x, Imm::from(f32::NAN));
    b.ins().convert(Opcode::Bitcast, ghost_var, x);
    b.ins().convert(Opcode::Add, x, a);
    b.ins().setp(IntCC::Ult, ghost_var, ghost_var, x);
    b.ins().fsetp(FloatCC::Uno, c, x, a);
    b.ins().select(x, ghost_var, a, x);
    b.ins().switch(x, ghost_block, &[(1, detached), (1, ghost_block), (i64::MIN, b1)]);
    b.ins().switch(a, b1, &[(1, b1), (1, b1)]);
    b.ins().jump(b1);
    b.ins().br(ghost_var, b2, ghost_block);
    b.switch_to_block(b1);
    b.ins().phi(a, &[(b0, Arg::Var(ghost_var)), (b0, Arg::Var(a)), (b2, Arg::Var(a))]);
    b.ins().when(c).jump(b0);
    b.switch_to_block(b2);
    b.ins().phi(a, &[(ghost_block, Arg::Var(a))]);
    b.ins().simple(Opcode::Ret, &[a, a], &[Arg::Var(ghost_var), Arg::Var(x)]);
    b.switch_to_block(ghost_block);
    b.ins().trap();
    b.switch_to_block(detached);
    b.ins().ret(&[]);
    // An instruction inserted nowhere, and one replaced with garbage.
    b.position_before(Inst::from_u32(9999));
    b.ins().trap();
    b.replace(Inst::from_u32(3)).binary(Opcode::Jump, x, ghost_var, a);
    b.replace(Inst::from_u32(99_999)).phi(x, &[(detached, Arg::Var(x))]);
    let errs = verify_everything(&m);
    assert!(errs.len() > 20, "{}", errs.len());
    let kinds: std::collections::HashSet<ErrorKind> = errs.iter().map(|e| e.kind).collect();
    for k in [
        ErrorKind::UnknownEntity,
        ErrorKind::UnknownTarget,
        ErrorKind::MissingTerminator,
        ErrorKind::MisplacedTerminator,
        ErrorKind::MisplacedPhi,
        ErrorKind::PhiPredecessors,
        ErrorKind::EntryBlock,
        ErrorKind::Arity,
        ErrorKind::TypeMismatch,
        ErrorKind::BadGuard,
        ErrorKind::BadSwitchCase,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing from {errs:#?}");
    }
}

#[test]
fn never_panics_on_any_opcode_with_any_constructor() {
    for &op in Opcode::ALL {
        for ctor in 0..12 {
            let m = built(|b, a, c, x, mem| {
                let d = Desc::new(mem, 0i64, 4i64);
                match ctor {
                    0 => {
                        b.ins().simple(op, &[x], &[Arg::Var(a), Arg::Var(a)]);
                    }
                    1 => {
                        b.ins().unary(op, x, a);
                    }
                    2 => {
                        b.ins().binary(op, c, a, Var::from_u32(55));
                    }
                    3 => {
                        b.ins().convert(op, x, c);
                    }
                    4 => {
                        b.ins().tensor(op, d, &[TensorArg::Desc(d), TensorArg::Scalar(Arg::Var(a))]);
                    }
                    5 => {
                        b.ins().simple(op, &[], &[]);
                    }
                    6 => {
                        b.ins().when(c).simple(op, &[x, x, x], &[Arg::Var(x); 9]);
                    }
                    7 => {
                        b.ins().simple(op, &[Var::from_u32(77)], &[Arg::Imm(Imm::from(f64::NAN))]);
                    }
                    8 => {
                        b.ins().unless(x).unary(op, a, Imm::from(true));
                    }
                    9 => {
                        b.ins().tensor(op, Desc::new(Mem::from_u32(3), a, x), &[]);
                    }
                    10 => {
                        b.ins().reduce(op, x, d);
                    }
                    _ => {
                        b.ins().matmul(d, d, d, [Arg::Var(a), Arg::Var(c), Arg::Var(x)]);
                    }
                }
            });
            let _ = verify_everything(&m);
        }
    }
}

#[test]
fn never_panics_on_structural_garbage() {
    // No blocks at all, only detached blocks, an empty entry block, a
    // function whose only block was removed, and an instruction replaced by
    // a terminator in the middle of a block.
    let (mut m, f) = module_with(&[Type::I32], &[Type::I32]);
    assert_eq!(verify_everything(&m).len(), 1);
    let func = m.function_mut(f).unwrap();
    let blk = func.create_block();
    assert_eq!(verify_everything(&m)[0].kind, ErrorKind::NoBlocks);
    let func = m.function_mut(f).unwrap();
    func.append_block(blk).unwrap();
    assert_eq!(verify_everything(&m)[0].kind, ErrorKind::MissingTerminator);
    let func = m.function_mut(f).unwrap();
    let mut b = FunctionBuilder::new(func);
    b.switch_to_block(blk);
    let a = b.param(0).unwrap();
    let first = b.ins().copy(a, a);
    b.ins().copy(a, a);
    b.ins().ret(&[Arg::Var(a)]);
    assert_eq!(verify_everything(&m), []);
    let mut b = FunctionBuilder::new(m.function_mut(f).unwrap());
    b.replace(first).jump(blk);
    // Only the block's last instruction makes CFG edges, so this is not a
    // back edge to the entry block.
    let kinds: Vec<ErrorKind> = verify_everything(&m).iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [ErrorKind::MisplacedTerminator]);
    m.function_mut(f).unwrap().remove_block(blk).unwrap();
    assert_eq!(verify_everything(&m)[0].kind, ErrorKind::NoBlocks);
    // A nonexistent function id.
    let _ = verify_function(&m, FuncId::from_u32(12), &SSA);
    // A long chain of blocks (the CFG walk is iterative).
    let (mut m, f) = module_with(&[], &[]);
    let mut b = FunctionBuilder::new(m.function_mut(f).unwrap());
    let blocks: Vec<Block> = (0..100_000).map(|_| b.create_block()).collect();
    for w in blocks.windows(2) {
        b.switch_to_block(w[0]);
        b.ins().jump(w[1]);
    }
    b.switch_to_block(*blocks.last().unwrap());
    b.ins().jump(blocks[1]);
    assert_eq!(errors(&m, SSA), []);
}

#[test]
fn missing_fallback() {
    // In SSA form a guarded definition must say what its result keeps.
    let src = "func @f(%a: i32, %p: i1) -> i32 {\n    var %x: i32\nbb0:\n    @%p %x = copy %a\n    ret %x\n}\n";
    let (m, smap, e) = single(src, SSA, ErrorKind::MissingFallback);
    assert_eq!(e.location, at_inst(&m, 0, 0));
    assert_rendered(&e, &m, src, &smap, "must name what its results keep when the guard fails", 4, 5);
    // With it, the function is valid SSA; at the base level either way.
    assert!(errors(&m, BASE).is_empty());
    let fixed = src.replace("copy %a\n", "copy %a else 0\n");
    assert!(errors(&parsed(&fixed).0, SSA).is_empty());
    // Fallbacks need a guard, one per result, of the result's type.
    for (line, kind, part) in [
        ("%x = copy %a else 0", ErrorKind::BadGuard, "fallbacks (`else ...`) need a guard"),
        ("@%p %x = copy %a else 0, i32 1", ErrorKind::Arity, "`copy` has 1 result but 2 fallbacks"),
        ("@%p %x = copy %a else %p", ErrorKind::TypeMismatch, "fallback 0 (%p) has type i1, expected i32"),
    ] {
        let src = format!("func @f(%a: i32, %p: i1) -> i32 {{\n    var %x: i32\nbb0:\n    {line}\n    ret %x\n}}\n");
        let (m, smap, e) = single(&src, BASE, kind);
        assert_rendered(&e, &m, &src, &smap, part, 4, 5);
    }
}
