//! `keel vectorize` (and `keel dot` on graph-IR files) end to end: graph
//! and Keel inputs, `--emit graph|kir`, `--rules`, `--same`, the lowered
//! function run by `keel run`, and exit codes with rendered diagnostics.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/vectorize_examples.kir")
}

fn scratch(ext: &str, contents: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = std::env::temp_dir().join(format!(
        "keel-vec-{}-{}.{ext}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&p, contents).expect("write a scratch file");
    p
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run keel")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const P: &str = "func @p(%a: f32, %b: f32, %c: f32) -> f32 {\n    %t: f32 = fmul %b, %c\n    %r: f32 = fadd %a, %t\n    ret %r\n}\n";

#[test]
fn a_graph_file_prints_its_vectorized_graph() {
    let f = scratch("vg", P);
    let o = run(keel().arg("vectorize").arg(&f));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        out(&o),
        "func @p(%a: array<f32>, %b: array<f32>, %c: array<f32>) -> array<f32> {\n    %t: array<f32> = fmul.1 %b, %c\n    %r: array<f32> = fadd.1 %a, %t\n    ret %r\n}\n"
    );
    // A parameter the same in every lane.
    let o = run(keel().arg("vectorize").arg(&f).args(["--same", "c"]));
    assert!(out(&o).contains("fmul.1 %b, *%c"), "{}", out(&o));
    // The output is itself a graph file: vectorize it again (nested vmap).
    let once = scratch("vg", &out(&run(keel().arg("vectorize").arg(&f))));
    let o = run(keel().arg("vectorize").arg(&once));
    assert!(out(&o).contains("fadd.2 %a, %t"), "{}", out(&o));
}

#[test]
fn a_keel_function_is_imported_vectorized_and_lowered() {
    let o = run(keel().arg("vectorize").arg(examples()).args(["--func", "mean"]));
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("%s: array<f32> = sum.1 %arr") && out(&o).contains("length.1 %arr"), "{}", out(&o));
    let o = run(keel().arg("vectorize").arg(examples()).args(["--func", "p", "--emit", "kir", "--lanes", "4"]));
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("tmul @t[0, 4], @b[0, 4], @c[0, 4]") && out(&o).contains("tadd @r[0, 4], @a[0, 4], @t[0, 4]"),
        "{}",
        out(&o)
    );
    // The lowered function runs in `keel run` to p per element.
    let kir = scratch("kir", &out(&o));
    let a = scratch("txt", "1.0, 2.0, 3.0, 4.0\n");
    let b = scratch("txt", "0.5, 0.5, 2.0, -1.0\n");
    let c = scratch("txt", "2.0, 4.0, 0.25, 3.0\n");
    let o = run(keel()
        .arg("run")
        .arg(&kir)
        .arg(format!("--mem=a={}", a.display()))
        .arg(format!("--mem=b={}", b.display()))
        .arg(format!("--mem=c={}", c.display()))
        .args(["--show-mem", "r"]));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "@r = [2.0, 4.0, 3.5, 1.0]\n");
    // Dynamic lanes: a `%lanes` parameter and inexact descriptors.
    let o = run(keel().arg("vectorize").arg(examples()).args(["--func", "p", "--emit", "kir", "--capacity", "16"]));
    assert!(out(&o).contains("func @p(%lanes: i64)") && out(&o).contains("@a[0, %lanes]"), "{}", out(&o));
    let o = run(keel().arg("vectorize").arg(examples()).args(["--func", "mean", "--stats"]));
    assert!(err(&o).contains("nodes in") && err(&o).contains("rules applied"), "{}", err(&o));
}

#[test]
fn a_user_rule_set_replaces_the_default() {
    let f = scratch("vg", P);
    // A rule set where fadd lowers a + b as b + a, and one with a mistake.
    let rules =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectorize/src/rules/default.rules"))
            .unwrap();
    let swapped = scratch("rules", &rules.replace("rule fadd(a, b) => fadd^(a, b)", "rule fadd(a, b) => fadd^(b, a)"));
    let o = run(keel().arg("vectorize").arg(&f).arg("--rules").arg(&swapped));
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("fadd.1 %t, %a"), "{}", out(&o));
    let bad = scratch("rules", "rule fadd(a, b) => fadd^(a, c)\n");
    let o = run(keel().arg("vectorize").arg(&f).arg("--rules").arg(&bad));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("`c` is not a variable of this rule") && err(&o).contains(":1:29") && err(&o).contains('^'),
        "{}",
        err(&o)
    );
    // A rule set without fmul: no fallback.
    let missing = scratch("rules", &rules.replace("rule fmul(a, b) => fmul^(a, b)\n", ""));
    let o = run(keel().arg("vectorize").arg(&f).arg("--rules").arg(&missing));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no rule for `fmul`: there is no fallback") && err(&o).contains(":2:5"), "{}", err(&o));
}

#[test]
fn bad_input_and_usage() {
    let bad = scratch("vg", "func @p(%a: f32) -> f32 {\n    %r: f32 = fadd %a, %zz\n    ret %r\n}\n");
    let o = run(keel().arg("vectorize").arg(&bad));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("`%zz` is not defined in this lambda") && err(&o).contains(":2:24"), "{}", err(&o));
    let ill = scratch("vg", "func @p(%a: f32, %b: i32) -> f32 {\n    %r: f32 = fadd %a, %b\n    ret %r\n}\n");
    let o = run(keel().arg("vectorize").arg(&ill));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("`fadd` of f32 and i32") && err(&o).contains(":2:5"), "{}", err(&o));
    let o = run(keel().arg("vectorize").arg(scratch("vg", P)).args(["--same", "nope"]));
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let looped = scratch(
        "kir",
        "func @l(%n: i32) -> i32 {\n    var %i: i32\n    var %c: i1\nbb0:\n    %i = copy 0\n    jump bb1\nbb1:\n    %c = setp.slt %i, %n\n    br %c, bb2, bb3\nbb2:\n    %i = add %i, 1\n    jump bb1\nbb3:\n    ret %i\n}\n",
    );
    let o = run(keel().arg("vectorize").arg(&looped));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("loops are not imported") && err(&o).contains(":12:5"), "the back edge: {}", err(&o));
    // Not lowerable: a gather over an unbatched array.
    let gather =
        scratch("vg", "func @g(%xs: array<f32>, %i: i64) -> f32 {\n    %r: f32 = index %xs, %i\n    ret %r\n}\n");
    let o = run(keel().arg("vectorize").arg(&gather).args(["--same", "xs", "--emit", "kir"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("cannot lower"), "{}", err(&o));
    // Bytes that are not UTF-8 are refused where they start, not cut off.
    let mut bytes = P.as_bytes().to_vec();
    bytes.extend(b"\xff\xfe func @q() {\n");
    let binary = scratch("vg", "");
    std::fs::write(&binary, &bytes).expect("write");
    let o = run(keel().arg("vectorize").arg(&binary));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("a graph-IR file is UTF-8 text") && err(&o).contains(":6:1"), "{}", err(&o));
    let o = run(keel().arg("vectorize").arg(scratch("vg", P)).arg("--rules").arg(&binary));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("a rule file is UTF-8 text"), "{}", err(&o));
    // Several functions and no --func: the names are listed.
    let two = scratch("vg", &format!("{P}\n{}", P.replace("@p", "@q")));
    let o = run(keel().arg("vectorize").arg(&two));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("choose one with --func (@p, @q)"), "{}", err(&o));
    let o = run(keel().arg("vectorize").arg(&two).args(["--func", "@q"]));
    assert!(o.status.success() && out(&o).starts_with("func @q("), "{}", err(&o));
    let o = run(keel().arg("vectorize").arg(&two).args(["--func", "r"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no function @r"), "{}", err(&o));
    // Garbage never panics.
    for text in ["", "func", "func @f(", "\u{0}\u{1}", "func @f() {\n}\n", "func @f(%a: array<", "}}}}"] {
        let o = run(keel().arg("vectorize").arg(scratch("vg", text)));
        assert!(!err(&o).contains("panicked") && !err(&o).contains("internal error"), "{text:?}: {}", err(&o));
        assert_ne!(o.status.code(), Some(0), "{text:?}");
    }
}

#[test]
fn dot_draws_graph_files() {
    let f = scratch(
        "vg",
        "func @f(%xs: array<f32>, %s: f32) -> array<f32> {\n    %l = lambda (%x: f32, %k: f32) -> f32 {\n        %y: f32 = fmul %x, %k\n        ret %y\n    }\n    %r: array<f32> = map %l, %xs, *%s\n    ret %r\n}\n",
    );
    let o = run(keel().arg("dot").arg(&f));
    assert!(o.status.success(), "{}", err(&o));
    let d = out(&o);
    assert!(d.starts_with("digraph graph_ir {"), "{d}");
    assert!(d.contains("label=\"@f\"") && d.contains("label=\"%l = lambda\""), "{d}");
    assert!(d.contains("%y: f32\\nfmul") && d.contains("[style=dashed]"), "{d}");
}
