//! `keel pre` and `keel dot --what svfg` end to end: the semantic example
//! transformed by each method (PRE removes the recomputation, LCM cannot),
//! the output verifies and runs to the same result, statistics in text and
//! JSON, the SVFG drawing, and the exit codes of bad input and bad usage.

use std::path::PathBuf;
use std::process::{Command, Output};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples").join(name).to_str().unwrap().to_string()
}

fn run(args: &[&str]) -> Output {
    keel().args(args).output().expect("run keel")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn semantic_example_by_each_method() {
    let f = example("pre_semantic.kir");
    let o = run(&["pre", &f, "--stats"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.contains("%pre5.i = add %a, %b"), "{t}");
    assert!(t.contains("%z.1 = copy %pre5"), "{t}");
    assert!(
        t.contains(
            "; @main (svfg): edges_split 0, extended 0, extension_rounds 0, inserted 1, phis_created 1, phis_deleted 0, phis_placed 1, removed 1"
        ),
        "{t}"
    );
    let o = run(&["pre", &f, "--method", "lcm", "--stats"]);
    let t = stdout(&o);
    assert!(t.contains("%z.1 = add %y.1, %b") && t.contains("inserted 0, removed 0"), "{t}");
    let o = run(&["pre", &f, "--method", "gvn", "--stats"]);
    let t = stdout(&o);
    assert!(t.contains("removed 0") && t.contains("inserted 0"), "{t}");
}

#[test]
fn output_verifies_and_computes_the_same() {
    let f = example("pre_semantic.kir");
    let out = std::env::temp_dir().join(format!("keel-pre-{}.kir", std::process::id()));
    let o = run(&["pre", &f]);
    std::fs::write(&out, &o.stdout).unwrap();
    let out = out.to_str().unwrap();
    let c = run(&["check", "--ssa", out]);
    assert!(c.status.success(), "{c:?}");
    for args in [["1", "2", "-1"], ["1", "2", "5"]] {
        let a = run(&["run", &f, "--arg", args[0], "--arg", args[1], "--arg", args[2]]);
        let b = run(&["run", out, "--arg", args[0], "--arg", args[1], "--arg", args[2]]);
        assert!(a.status.success(), "{a:?}");
        assert_eq!(stdout(&a), stdout(&b));
    }
}

#[test]
fn json_statistics() {
    let o = run(&["pre", &example("pre_semantic.kir"), "--format", "json", "--stats"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["functions"][0]["removed"], 1);
    assert_eq!(v["functions"][0]["inserted"], 1);
    assert!(v["ir"].as_str().unwrap().contains("%pre5 = phi(bb1: %x.3, bb2: %pre5.i)"));
}

#[test]
fn dot_draws_the_svfg() {
    let o = run(&["dot", &example("pre_semantic.kir"), "--what", "svfg"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.contains("phi0 [shape=ellipse, color=blue, label=\"φ v5 = add v0, v1\\nat bb3 ds cba used\"]"), "{t}");
    assert!(t.contains("bb1 -> phi0 [color=blue, label=\"0: %x.3\"]"), "{t}");
    assert!(t.contains("zeta0_1 -> phi0"), "{t}");
}

#[test]
fn destructed_output_has_no_phis_and_runs_the_same() {
    let f = example("pre_semantic.kir");
    for method in ["svfg", "gvn", "lcm"] {
        let o = run(&["pre", &f, "--method", method, "--destruct"]);
        assert!(o.status.success(), "{o:?}");
        let t = stdout(&o);
        assert!(!t.contains("phi("), "{method}: {t}");
        let out = std::env::temp_dir().join(format!("keel-pre-destruct-{method}-{}.kir", std::process::id()));
        std::fs::write(&out, &t).unwrap();
        let path = out.to_str().unwrap();
        assert!(run(&["check", path]).status.success(), "{method}: {t}");
        for c in ["-1", "1"] {
            let before = run(&["run", &f, "--arg", "3", "--arg", "4", "--arg", c]);
            let after = run(&["run", path, "--arg", "3", "--arg", "4", "--arg", c]);
            assert_eq!(stdout(&before), stdout(&after), "{method}, c = {c}");
        }
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn the_svfg_drawing_shows_epsilon() {
    // `i + b` below the loop header: its dn is the header, whose frontier
    // (the header itself, through the back edge) holds an ε.
    let src = "func @f(%b: i32, %c: i32) -> i32 {
    var %i: i32
    var %z: i32
    var %w: i32
    var %p: i1
bb0:
    %i = const 0
    jump bb1
bb1:
    %i = add %i, 1
    %p = setp.slt %i, %c
    br %p, bb2, bb3
bb2:
    %z = add %i, %b
    jump bb3
bb3:
    %w = add %i, %b
    br %p, bb1, bb4
bb4:
    ret %w
}
";
    let path = std::env::temp_dir().join(format!("keel-pre-eps-{}.kir", std::process::id()));
    std::fs::write(&path, src).unwrap();
    let o = run(&["dot", path.to_str().unwrap(), "--what", "svfg"]);
    let _ = std::fs::remove_file(&path);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.contains("label=\"ε v") && t.contains("-> bb1 [style=dotted, color=red]"), "{t}");
}

#[test]
fn bad_input_and_usage() {
    let bad = std::env::temp_dir().join(format!("keel-pre-bad-{}.kir", std::process::id()));
    std::fs::write(&bad, "func @f( {\n").unwrap();
    let o = run(&["pre", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1:10"), "{o:?}");
    let o = run(&["pre", &example("pre_semantic.kir"), "--func", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["pre", &example("pre_semantic.kir"), "--method", "nope"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn translation_example_extends_two_joins() {
    let f = example("pre_translate.kir");
    let o = run(&["pre", &f, "--stats"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.contains("bb4:\n    %w.1 = copy %d\n    %pre14.i = add %b, %w.1\n"), "{t}");
    assert!(t.contains("%pre14 = phi(bb3: %y.1, bb4: %pre14.i)"), "{t}");
    assert!(t.contains("%pre13 = phi(bb1: %x.1, bb5: %pre14)"), "{t}");
    assert!(t.contains("%z.1 = copy %pre13"), "{t}");
    assert!(t.contains("extended 2, extension_rounds 2, inserted 1"), "{t}");
    let o = run(&["dot", &f, "--what", "svfg"]);
    let t = stdout(&o);
    assert!(t.contains("style=bold") && t.contains("ext v11, v14"), "{t}");
    // On the semi-SVFG alone, no translation: nothing to do here.
    let o = run(&["pre", &f, "--method", "semi", "--stats"]);
    let t = stdout(&o);
    assert!(t.contains("; @main (semi): edges_split 0, extended 0, extension_rounds 0, inserted 0"), "{t}");
    assert!(t.contains("removed 0") && t.contains("%z.1 = add %w.4, %b"), "{t}");
}
