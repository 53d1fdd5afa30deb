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

/// `keel pre` on the semantic example, exactly: PRE inserts `a + b` on
/// the path without it, and the clean-up forwards the copies (the
/// program's `%y.1 = copy %a` and PRE's `%z.1 = copy %pre5`) and deletes
/// them: no unused phi or copy is left (issue 33).
const SEMANTIC_PRE: &str = "func @main(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %z: i32
    var %p: i1
    var %x.1: i32 of %x
    var %p.1: i1 of %p
    var %x.2: i32 of %x
    var %y.1: i32 of %y
    var %z.1: i32 of %z
    var %z.2: i32 of %z
    var %x.3: i32 of %x
    var %pre5: i32
    var %pre5.i: i32
bb0:
    %x.1 = const 0
    %p.1 = setp.slt %c, 0
    br %p.1, bb1, bb2
bb1:
    %x.3 = add %a, %b
    jump bb3
bb2:
    %pre5.i = add %a, %b
    jump bb3
bb3:
    %pre5 = phi(bb1: %x.3, bb2: %pre5.i)
    %x.2 = phi(bb1: %x.3, bb2: %x.1)
    %z.2 = add %pre5, %x.2
    ret %z.2
}
";

/// The same for the translation example: the program's `%w` phis and
/// copies are gone (nothing reads them once `w + b` is a phi of the three
/// sums), `d + b` reads `%d` directly, and `ret` reads the phi.
const TRANSLATE_PRE: &str = "func @main(%a: i32, %b: i32, %c: i32, %d: i32, %s: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %w: i32
    var %z: i32
    var %p: i1
    var %p.1: i1 of %p
    var %p.2: i1 of %p
    var %w.1: i32 of %w
    var %w.2: i32 of %w
    var %y.1: i32 of %y
    var %w.3: i32 of %w
    var %w.4: i32 of %w
    var %z.1: i32 of %z
    var %x.1: i32 of %x
    var %w.5: i32 of %w
    var %pre13: i32
    var %pre14: i32
    var %pre14.i: i32
bb0:
    %p.1 = setp.slt %s, 0
    br %p.1, bb1, bb2
bb1:
    %x.1 = add %a, %b
    jump bb6
bb2:
    %p.2 = setp.sgt %s, 5
    br %p.2, bb3, bb4
bb3:
    %y.1 = add %c, %b
    jump bb5
bb4:
    %pre14.i = add %b, %d
    jump bb5
bb5:
    %pre14 = phi(bb3: %y.1, bb4: %pre14.i)
    jump bb6
bb6:
    %pre13 = phi(bb1: %x.1, bb5: %pre14)
    ret %pre13
}
";

#[test]
fn semantic_example_by_each_method() {
    let f = example("pre_semantic.kir");
    let o = run(&["pre", &f]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), SEMANTIC_PRE);
    let o = run(&["pre", &f, "--stats"]);
    let t = stdout(&o);
    assert!(
        t.contains(
            "; @main (svfg): copies_forwarded 2, dead_computations 0, dead_copies 2, dead_phis 0, edges_split 0, extended 0, extension_rounds 0, inserted 1, phis_created 1, phis_deleted 0, phis_placed 1, removed 1"
        ),
        "{t}"
    );
    // Without the clean-up, PRE's copy and the program's stay.
    let t = stdout(&run(&["pre", &f, "--no-cleanup"]));
    assert!(t.contains("%z.1 = copy %pre5") && t.contains("%y.1 = copy %a"), "{t}");
    let o = run(&["pre", &f, "--method", "lcm", "--stats"]);
    let t = stdout(&o);
    assert!(t.contains("%z.3 = add %a, %b") && t.contains("inserted 0, removed 0"), "{t}");
    assert!(!t.contains("copy"), "LCM + the clean-up leaves no copy: {t}");
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
    let o = run(&["pre", &f]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), TRANSLATE_PRE);
    let t = stdout(&run(&["pre", &f, "--stats"]));
    assert!(t.contains("copies_forwarded 4, dead_computations 0, dead_copies 4, dead_phis 2"), "{t}");
    assert!(t.contains("extended 2, extension_rounds 2, inserted 1"), "{t}");
    // Without the clean-up: the plan's own output.
    let t = stdout(&run(&["pre", &f, "--no-cleanup"]));
    assert!(t.contains("bb4:\n    %w.1 = copy %d\n    %pre14.i = add %b, %w.1\n"), "{t}");
    assert!(t.contains("%pre14 = phi(bb3: %y.1, bb4: %pre14.i)"), "{t}");
    assert!(t.contains("%pre13 = phi(bb1: %x.1, bb5: %pre14)"), "{t}");
    assert!(t.contains("%z.1 = copy %pre13"), "{t}");
    let o = run(&["dot", &f, "--what", "svfg"]);
    let t = stdout(&o);
    assert!(t.contains("style=bold") && t.contains("ext v11, v14"), "{t}");
    // On the semi-SVFG alone, no translation: nothing to do here but the
    // clean-up (the program's own unused `x` and `y` go).
    let o = run(&["pre", &f, "--method", "semi", "--stats"]);
    let t = stdout(&o);
    assert!(t.contains("dead_computations 2") && t.contains("extended 0, extension_rounds 0, inserted 0"), "{t}");
    assert!(t.contains("removed 0") && t.contains("%z.1 = add %w.4, %b"), "{t}");
}

/// Loop rotation (issue 33): the `while` loop of `pre_rotate.kir` may run
/// zero times, so PRE alone leaves `a * b` in its body; `keel rotate`
/// turns it into a guard plus a bottom-tested loop, and `keel pre
/// --rotate` computes the product once, in the guarded preheader. Both run
/// to the original's result, whatever the trip count.
#[test]
fn rotation_lets_pre_hoist_an_invariant_of_a_loop_that_may_not_run() {
    let f = example("pre_rotate.kir");
    let t = stdout(&run(&["rotate", &f, "--stats"]));
    assert!(t.contains("bb0:\n    %i = const 0\n    %s = const 0\n    jump bb4\nbb4:\n    %p = setp.slt %i, %n\n    br %p, bb2, bb3\n"), "{t}");
    assert!(
        t.contains("    %i = add %i, 1\n    jump bb5\nbb5:\n    %p = setp.slt %i, %n\n    br %p, bb2, bb3\n"),
        "{t}"
    );
    assert!(t.contains("; @main: 1 rotated; left alone: none"), "{t}");
    // Without rotation the product stays in the loop body (bb2).
    let t = stdout(&run(&["pre", &f]));
    assert!(t.contains("bb2:\n    %t.1 = mul %a, %b\n"), "{t}");
    // With it: computed on the guarded edge into the loop, once.
    let t = stdout(&run(&["pre", &f, "--rotate", "--stats"]));
    assert!(t.contains("bb6:\n    %pre7.i = mul %a, %b\n    jump bb2\n"), "{t}");
    assert!(t.contains("%s.4 = add %s.3, %pre7.i"), "{t}");
    assert!(t.contains("loops_rotated 1"), "{t}");
    assert_eq!(t.matches("mul").count(), 1, "{t}");
    let dir = std::env::temp_dir().join(format!("keel-rotate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, args) in [["3", "4", "5"], ["3", "4", "0"], ["-2", "7", "1"]].iter().enumerate() {
        let run_with = |file: &str| run(&["run", file, "--arg", args[0], "--arg", args[1], "--arg", args[2]]);
        let before = run_with(&f);
        for (j, out) in [stdout(&run(&["rotate", &f])), t.clone()].iter().enumerate() {
            let path = dir.join(format!("{k}-{j}.kir"));
            std::fs::write(&path, out).unwrap();
            let after = run_with(path.to_str().unwrap());
            assert!(after.status.success(), "{after:?}");
            assert_eq!(stdout(&before), stdout(&after), "{args:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--stats` says how the memory questions were answered, when PRE asked
/// any: the first pair of equal loads has a store to another array between
/// them (the walk: the same value), the second a call (the walk: apart).
#[test]
fn statistics_count_the_memory_answers() {
    let src = "mem @a: i32[8] nram
mem @b: i32[8] nram
extern @opaque_write()

func @f(%i: i64) -> i32 {
    var %x: i32
    var %y: i32
    var %z: i32
    var %s: i32
bb0:
    %x = load @a[%i]
    store @b[%i], 7
    %y = load @a[%i]
    call @opaque_write()
    %z = load @a[%i]
    %s = add %x, %y
    %s = add %s, %z
    ret %s
}
";
    let p = std::env::temp_dir().join(format!("keel-pre-loads-{}.kir", std::process::id()));
    std::fs::write(&p, src).unwrap();
    let o = run(&["pre", p.to_str().unwrap(), "--stats"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(
        t.contains("loads_apart_by_walk 1, loads_asked_memdep 0, loads_same_by_walk 1") && t.contains("removed 1"),
        "{t}"
    );
}
