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
            "; @main (svfg): edges_split 0, inserted 1, phis_created 1, phis_deleted 0, phis_placed 1, removed 1"
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
