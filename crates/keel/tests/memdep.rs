//! `keel memdep` end to end: the digest's tables for both test vectors,
//! loop-carried marks on saxpy and a buffer reused across trips, JSON with
//! every kind and the edge counts, Graphviz over the CFG, WebAssembly
//! input, and the exit codes of bad input and bad usage.

use std::path::PathBuf;
use std::process::{Command, Output};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples").join(name)
}

fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("keel-memdep-{}-{name}", std::process::id()));
    std::fs::write(&p, contents).expect("write scratch file");
    p
}

fn run(args: &[&str]) -> Output {
    keel().args(args).output().expect("run keel")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines().find(|l| l.trim_start().starts_with(start)).unwrap_or_else(|| panic!("no line {start:?} in\n{text}"))
}

#[test]
fn vector1_prints_the_documents_table() {
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    // The reads under ir2, ir4 and ir6.
    let reads: Vec<&str> = t.lines().filter(|l| l.trim_start().starts_with("reads")).collect();
    assert_eq!(reads.len(), 3, "{t}");
    assert!(reads[0].ends_with("@v[0, 32] <- ir1 (overlaps)"), "{t}");
    assert!(reads[1].ends_with("@v[0, 32] <- ir1 (overlaps), ir3 (overlaps)"), "{t}");
    assert!(reads[2].ends_with("@v[0, 65] <- ir3 (overlaps), ir5 (overlaps)"), "{t}");
    assert!(line(&t, "ir6").contains("tsum @v[0, 65]"));
}

#[test]
fn vector2_explains_inexact_opaque_and_guarded_dependences() {
    let o = run(&["memdep", example("memdep_vector2.kir").to_str().unwrap(), "--func", "@vector2"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.contains("reads  @a[0, %len] <- ir1 (size unknown), ir2 (size unknown)"), "{t}");
    assert!(
        t.contains("reads  anything <- ir1 (touches anything), ir2 (touches anything), ir4 (touches anything), ir5 (touches anything, guarded)"),
        "{t}"
    );
}

#[test]
fn loop_carried_dependences_are_marked_with_their_distance() {
    let o = run(&["memdep", example("saxpy.kir").to_str().unwrap()]);
    let t = stdout(&o);
    // Saxpy: every dependence is within one trip; the tiles of x and y
    // depend on nothing.
    assert!(!t.contains("loop-carried"), "{t}");
    assert!(t.contains("reads  @y[%off, 64] <- nothing in the function"), "{t}");
    let src = "mem @b: f32[64] nram\nmem @x: f32[4096] dram\n\nfunc @f(%n: i64) {\n    var %t: i64\n    var %o: i64\n    var %c: i1\n    var %s: f32\nbb0:\n    %t = const 0\n    jump bb1\nbb1:\n    %o = mul %t, 64\n    %s = tsum @b[0, 64]\n    dma @b[0, 64], @x[%o, 64]\n    %t = add %t, 1\n    %c = setp.slt %t, %n\n    br %c, bb1, bb2\nbb2:\n    ret\n}\n";
    let p = scratch("carried.kir", src.as_bytes());
    let t = stdout(&run(&["memdep", p.to_str().unwrap()]));
    assert!(t.contains("reads  @b[0, 64] <- ir2 (overlaps, loop-carried (bb1) at distance >= 1)"), "{t}");
}

#[test]
fn json_has_every_kind_and_the_counts() {
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let f = &v[0];
    assert_eq!(f["function"], "vector1");
    assert_eq!(f["counts"]["flow_pairs"], 5);
    let ir6 = &f["instructions"][5];
    assert_eq!(ir6["label"], "ir6");
    let on: Vec<&str> =
        ir6["reads"][0]["depends_on"].as_array().unwrap().iter().map(|d| d["label"].as_str().unwrap()).collect();
    assert_eq!(on, ["ir3", "ir5"]);
    // ir5 writes [16, 31]: it overwrites ir1 (output) and what ir2 and ir4
    // read (anti).
    let ir5 = &f["instructions"][4]["writes"][0];
    let labels = |k: &str| -> Vec<String> {
        ir5[k].as_array().unwrap().iter().map(|d| d["label"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(labels("output"), ["ir1"]);
    assert_eq!(labels("anti"), ["ir2", "ir4"]);
}

#[test]
fn dot_draws_the_dependences_over_the_cfg() {
    let o = run(&["memdep", example("saxpy.kir").to_str().unwrap(), "--format", "dot"]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(t.starts_with("digraph \"saxpy\" {") && t.trim_end().ends_with('}'), "{t}");
    for b in 0..4 {
        assert!(t.contains(&format!("subgraph cluster_bb{b}")), "{t}");
    }
    assert!(t.contains("lhead=cluster_bb2"), "{t}");
    assert_eq!(t.matches("color=blue").count(), 3, "{t}");
}

#[test]
fn webassembly_input_is_imported_first() {
    let wasm = wat::parse_str(
        "(module (memory 1) (func (export \"f\") (param i32) (i32.store offset=8 (local.get 0) (i32.const 1)) (drop (i32.load offset=8 (local.get 0))) (drop (i32.load offset=16 (local.get 0)))))",
    )
    .unwrap();
    let p = scratch("m.wasm", &wasm);
    let o = run(&["memdep", p.to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    // The load at offset 8 reads what the store wrote; the one at 16 does
    // not (one address, different constants).
    let reads: Vec<&str> = t.lines().filter(|l| l.trim_start().starts_with("reads")).collect();
    assert_eq!(reads.len(), 2, "{t}");
    assert!(reads[0].contains("<- ir1 (overlaps)") && reads[1].ends_with("<- nothing in the function"), "{t}");
}

#[test]
fn bad_input_and_usage_have_their_exit_codes() {
    let bad = scratch("bad.kir", b"func @f( {\n");
    let o = run(&["memdep", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error"), "{o:?}");
    let o = run(&["memdep", example("saxpy.kir").to_str().unwrap(), "--func", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no function @nope"));
    assert_eq!(run(&["memdep", "/nonexistent/file.kir"]).status.code(), Some(1));
    assert_eq!(run(&["memdep", "x.kir", "--format", "xml"]).status.code(), Some(2));
    assert_eq!(run(&["memdep"]).status.code(), Some(2));
}
