//! `keel memdep` end to end: the digest's tables for both test vectors
//! (`--expand`), loop-carried marks on saxpy and a buffer reused across
//! trips, JSON with every kind and the edge counts, Graphviz over the CFG,
//! WebAssembly input, and the exit codes of bad input and bad usage; the
//! compact form (the default) on the vectors, and the same dependences as
//! the expanded form, text and JSON, on the examples and generated
//! programs.

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
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap(), "--expand"]);
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
    let o = run(&["memdep", example("memdep_vector2.kir").to_str().unwrap(), "--func", "@vector2", "--expand"]);
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
    let o = run(&["memdep", example("saxpy.kir").to_str().unwrap(), "--expand"]);
    let t = stdout(&o);
    // Saxpy: every dependence is within one trip; the tiles of x and y
    // depend on nothing.
    assert!(!t.contains("loop-carried"), "{t}");
    assert!(t.contains("reads  @y[%off, 64] <- nothing in the function"), "{t}");
    let src = "mem @b: f32[64] nram\nmem @x: f32[4096] dram\n\nfunc @f(%n: i64) {\n    var %t: i64\n    var %o: i64\n    var %c: i1\n    var %s: f32\nbb0:\n    %t = const 0\n    jump bb1\nbb1:\n    %o = mul %t, 64\n    %s = tsum @b[0, 64]\n    dma @b[0, 64], @x[%o, 64]\n    %t = add %t, 1\n    %c = setp.slt %t, %n\n    br %c, bb1, bb2\nbb2:\n    ret\n}\n";
    let p = scratch("carried.kir", src.as_bytes());
    let t = stdout(&run(&["memdep", p.to_str().unwrap(), "--expand"]));
    assert!(t.contains("reads  @b[0, 64] <- ir2 (overlaps, loop-carried (bb1) at distance >= 1)"), "{t}");
}

#[test]
fn json_has_every_kind_and_the_counts() {
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap(), "--format", "json", "--expand"]);
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
    let o = run(&["memdep", p.to_str().unwrap(), "--expand"]);
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

#[test]
fn vector1_in_the_compact_form() {
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    assert!(line(&t, "ir1").contains("tfill @v[0, 32], 1"), "{t}");
    let writes: Vec<&str> = t.lines().filter(|l| l.trim_start().starts_with("writes")).map(str::trim).collect();
    assert_eq!(writes, ["writes w0 @v[0, 32]", "writes w1 @v[0, 16]", "writes w2 @v[16, 16]"], "{t}");
    let reads: Vec<&str> = t.lines().filter(|l| l.trim_start().starts_with("reads")).map(str::trim).collect();
    assert_eq!(
        reads,
        [
            "reads  @v[0, 32] <- must S0 (1 write)",
            "reads  @v[0, 32] <- must S1 (2 writes)",
            "reads  @v[0, 65] <- must S2 (2 writes)"
        ],
        "{t}"
    );
    let sets: Vec<&str> = t.lines().filter(|l| l.trim_start().starts_with('S')).map(str::trim).collect();
    assert_eq!(sets, ["S0 = w0", "S1 = w0-w1", "S2 = w1-w2"], "{t}");
}

/// Per read (in output order), the labels of the writes it depends on,
/// sorted: from the expanded text, and from the compact text by expanding
/// its sets.
fn reads_expanded(t: &str) -> Vec<Vec<String>> {
    t.lines()
        .filter_map(|l| l.trim_start().strip_prefix("reads  "))
        .map(|l| {
            let list = l.split(" <- ").nth(1).unwrap_or("");
            let mut labels: Vec<String> = if list == "nothing in the function" {
                Vec::new()
            } else {
                // `ir3 (overlaps, ...), ir5 (...)`: a label starts each
                // item, at parenthesis depth 0 (reasons nest parentheses).
                let (mut labels, mut depth, mut word) = (Vec::new(), 0, String::new());
                for ch in list.chars() {
                    match ch {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        ' ' | ',' if depth == 0 && !word.is_empty() => labels.push(std::mem::take(&mut word)),
                        ' ' | ',' if depth == 0 => {}
                        c if depth == 0 => word.push(c),
                        _ => {}
                    }
                }
                labels.extend((!word.is_empty()).then_some(word));
                labels
            };
            labels.sort();
            labels
        })
        .collect()
}

fn reads_compact(t: &str) -> Vec<Vec<String>> {
    let mut label_of_write = std::collections::HashMap::new();
    let mut set_of = std::collections::HashMap::new();
    let mut current = String::new();
    for l in t.lines() {
        let l = l.trim_start();
        if let Some(w) = l.strip_prefix("writes w") {
            let id: u32 = w.split(' ').next().unwrap().parse().unwrap();
            label_of_write.insert(id, current.clone());
        } else if let Some((name, ranges)) = l.split_once(" = ").filter(|(n, _)| n.starts_with('S')) {
            let mut ids = Vec::new();
            for r in ranges.split(", ") {
                let (lo, hi) = r.split_once('-').unwrap_or((r, r));
                let (lo, hi): (u32, u32) = (lo[1..].parse().unwrap(), hi[1..].parse().unwrap());
                ids.extend(lo..=hi);
            }
            set_of.insert(name.to_string(), ids);
        } else if l.starts_with("ir") {
            current = l.split(' ').next().unwrap().to_string();
        }
    }
    t.lines()
        .filter_map(|l| l.trim_start().strip_prefix("reads  "))
        .map(|l| {
            // `must S1 (2 writes), may S4 (7 writes); carried around ...`
            let rest = l.split(" <- ").nth(1).unwrap_or("").split(';').next().unwrap_or("");
            let mut labels: Vec<String> = rest
                .split(' ')
                .filter(|w| w.starts_with('S'))
                .flat_map(|s| set_of[s].iter().map(|w| label_of_write[w].clone()))
                .collect();
            labels.sort();
            labels
        })
        .collect()
}

#[test]
fn the_compact_text_holds_the_expanded_dependences() {
    let generated = scratch("gen.kir", &run(&["gen", "--seed", "5", "--blocks", "60"]).stdout);
    let mut files = vec![generated];
    for name in ["memdep_vector1.kir", "memdep_vector2.kir", "saxpy.kir"] {
        files.push(example(name));
    }
    for f in &files {
        let f = f.to_str().unwrap();
        let compact = stdout(&run(&["memdep", f]));
        let expanded = stdout(&run(&["memdep", f, "--expand"]));
        let (c, e) = (reads_compact(&compact), reads_expanded(&expanded));
        assert!(!c.is_empty(), "{f}: no reads\n{compact}");
        assert_eq!(c, e, "{f}\n{compact}\n{expanded}");
    }
}

#[test]
fn the_compact_json_holds_the_expanded_dependences() {
    let generated = scratch("gen-json.kir", &run(&["gen", "--seed", "9", "--blocks", "60"]).stdout);
    for f in [generated, example("memdep_vector1.kir"), example("saxpy.kir")] {
        let f = f.to_str().unwrap();
        let o = run(&["memdep", f, "--format", "json"]);
        assert!(o.status.success(), "{o:?}");
        let text = stdout(&o);
        // A streamed array: `[`, one function per line, `]`.
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!((lines[0], *lines.last().unwrap()), ("[", "]"), "{text}");
        let compact: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let expanded: serde_json::Value =
            serde_json::from_slice(&run(&["memdep", f, "--format", "json", "--expand"]).stdout).expect("JSON");
        let funcs = compact.as_array().unwrap();
        assert_eq!(funcs.len(), lines.len() - 2);
        for (c, e) in funcs.iter().zip(expanded.as_array().unwrap()) {
            assert_eq!(c["function"], e["function"]);
            assert_eq!(c["counts"], e["counts"]);
            let label: std::collections::HashMap<u64, &str> = c["writes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| (w["id"].as_u64().unwrap(), w["label"].as_str().unwrap()))
                .collect();
            let sets = c["sets"].as_array().unwrap();
            let members = |k: &serde_json::Value| -> Vec<u64> {
                match k.as_u64() {
                    None => Vec::new(),
                    Some(k) => sets[k as usize]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|r| r[0].as_u64().unwrap()..r[1].as_u64().unwrap())
                        .collect(),
                }
            };
            let mut from_compact: Vec<(u64, Vec<&str>)> = c["reads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let mut l: Vec<&str> = members(&r["depends_on"]).iter().map(|w| label[w]).collect();
                    l.sort();
                    // must and may split depends_on.
                    let mut split: Vec<&str> =
                        members(&r["must"]).iter().chain(&members(&r["may"])).map(|w| label[w]).collect();
                    split.sort();
                    assert_eq!(split, l, "{f}: read {}", r["id"]);
                    (r["id"].as_u64().unwrap(), l)
                })
                .collect();
            let mut from_expanded: Vec<(u64, Vec<&str>)> = e["instructions"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|i| i["reads"].as_array().unwrap().iter())
                .map(|r| {
                    let mut l: Vec<&str> =
                        r["depends_on"].as_array().unwrap().iter().map(|d| d["label"].as_str().unwrap()).collect();
                    l.sort();
                    (r["id"].as_u64().unwrap(), l)
                })
                .collect();
            from_compact.sort();
            from_expanded.sort();
            assert_eq!(from_compact, from_expanded, "{f}");
            // Output sets name writes, anti sets reads, as in the expanded form.
            let outputs: usize = c["writes"].as_array().unwrap().iter().map(|w| members(&w["output"]).len()).sum();
            assert_eq!(outputs as u64, c["counts"]["output_pairs"].as_u64().unwrap());
            let antis: usize = c["writes"].as_array().unwrap().iter().map(|w| members(&w["anti"]).len()).sum();
            assert_eq!(antis as u64, c["counts"]["anti_pairs"].as_u64().unwrap());
        }
    }
}

#[test]
fn the_json_shape_documents_its_own_example() {
    let doc = std::fs::read_to_string(example("../memdep-json.md")).expect("docs/memdep-json.md");
    let block = doc.split("```json\n").nth(1).and_then(|b| b.split("```").next()).expect("a json block");
    let documented: serde_json::Value = serde_json::from_str(block).expect("the example parses");
    let o = run(&["memdep", example("memdep_vector1.kir").to_str().unwrap(), "--format", "json"]);
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(printed[0], documented, "docs/memdep-json.md's example is out of date");
}

#[test]
fn explain_shows_the_documents_tables() {
    let v1 = example("memdep_vector1.kir");
    let t = stdout(&run(&["memdep", v1.to_str().unwrap(), "--explain", "ir4"]));
    // Before ir4: ir3 killed md1's [0, 15]; ir1 lives on in [16, 31].
    assert!(t.starts_with("@vector1 at ir4: %u4 = tsum @v[0, 32]\n"), "{t}");
    assert!(t.contains("    [0, 16)        ir3 (w1 @v[0, 16])\n    [16, 32)       ir1 (w0 @v[0, 32])\n"), "{t}");
    assert!(t.contains("      ir1 (w0 @v[0, 32]): live on [16, 32); killed on [0, 16)\n"), "{t}");
    assert!(t.contains("      ir3 (w1 @v[0, 16]): live on [0, 16)\n"), "{t}");
    // Before ir6: md1 is wholly killed.
    let t = stdout(&run(&["memdep", v1.to_str().unwrap(), "--explain", "ir6"]));
    assert!(!t.contains("ir1 ("), "{t}");
    let v2 = example("memdep_vector2.kir");
    let t = stdout(&run(&["memdep", v2.to_str().unwrap(), "--func", "@vector2", "--explain", "ir3"]));
    // ir2's inexact write marks ir1 possibly killed and kills nothing.
    assert!(t.contains("      ir1 (w0 @a[0, 32]): live on [0, 32); possibly killed by ir2\n"), "{t}");
    assert!(t.contains("      ir2 (w2 @a[0, %len]): inexact, live over the object, kills nothing\n"), "{t}");
    // Usage: a label that is not irN (2), an instruction that is not there (1).
    assert_eq!(run(&["memdep", v1.to_str().unwrap(), "--explain", "4"]).status.code(), Some(2));
    assert_eq!(run(&["memdep", v1.to_str().unwrap(), "--explain", "ir0"]).status.code(), Some(2));
    // It has one form: with --format or --expand, a usage error.
    for other in [&["--format", "json"][..], &["--expand"]] {
        let mut args = vec!["memdep", v1.to_str().unwrap(), "--explain", "ir4"];
        args.extend_from_slice(other);
        assert_eq!(run(&args).status.code(), Some(2), "{args:?}");
    }
    let o = run(&["memdep", v1.to_str().unwrap(), "--explain", "ir9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no memory instruction ir9 (it has 6)"), "{o:?}");
}
