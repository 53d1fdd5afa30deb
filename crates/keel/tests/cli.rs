//! The `keel` binary end to end: exit codes, diagnostics on stderr, and no
//! panic on any input (truncated, binary, absurdly nested, huge).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples")
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(examples_dir())
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "kir"))
        .collect();
    v.sort();
    v
}

/// A scratch file, unique per test process and call.
fn scratch(contents: &[u8]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let p =
        std::env::temp_dir().join(format!("keel-cli-{}-{}.kir", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&p, contents).expect("write scratch file");
    p
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run keel")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_clean_failure(o: &Output, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{what}: expected exit 1\n{err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{what}: panicked\n{err}");
    assert!(err.contains("error:"), "{what}: no diagnostic\n{err}");
}

#[test]
fn check_accepts_every_example() {
    let o = run(keel().arg("check").args(examples()));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().filter(|l| l.contains(": ok (")).count(), examples().len(), "{out}");
}

#[test]
fn check_reports_located_errors_and_exits_1() {
    let p = scratch(b"func @f(%a: i32) -> i32 {\nbb0:\n    %a = ad %a, 1\n    ret %a\n}\n");
    let o = run(keel().arg("check").arg(&p));
    assert_clean_failure(&o, "unknown opcode");
    let err = stderr(&o);
    let want =
        format!("error: unknown opcode `ad`\n --> {}:3:10\n  |\n3 |     %a = ad %a, 1\n  |          ^^\n", p.display());
    assert!(err.starts_with(&want), "{err}");
    assert!(err.ends_with(": 1 error\n"), "{err}");
}

#[test]
fn check_reports_verifier_errors_in_source_order() {
    let src = "func @f(%a: i32, %b: i64) -> i32 {\n    var %p: i32\nbb0:\n    @%p %a = add %a, %b\n    ret %b\n}\n";
    let p = scratch(src.as_bytes());
    let o = run(keel().arg("check").arg(&p));
    assert_clean_failure(&o, "verifier");
    let err = stderr(&o);
    // Each diagnostic: its title, `--> file:line:col`, the source line and
    // a caret under the instruction.
    let diags: Vec<&str> = err.split("error: ").skip(1).collect();
    assert_eq!(diags.len(), 4, "{err}");
    let first = format!(
        "the guard %p has type i32, expected i1 (in @f)\n --> {}:4:5\n  |\n4 |     @%p %a = add %a, %b\n  |     ^^^^^^^^^^^^^^^^^^^\n",
        p.display()
    );
    assert_eq!(diags[0], first, "{err}");
    let last = format!(
        "return value 0 (%b) has type i64, expected i32 (in @f)\n --> {}:5:5\n  |\n5 |     ret %b\n  |     ^^^^^^\n",
        p.display()
    );
    assert!(diags[3].starts_with(&last), "{err}");
    assert!(err.ends_with(": 4 errors\n"), "{err}");
}

#[test]
fn truncated_inputs_never_panic() {
    for ex in examples() {
        let bytes = std::fs::read(&ex).expect("read");
        // Every 13th prefix keeps the test fast while cutting everywhere.
        for cut in (0..bytes.len()).step_by(13) {
            let p = scratch(&bytes[..cut]);
            let o = run(keel().arg("check").arg("--quiet").arg(&p));
            let err = stderr(&o);
            assert!(matches!(o.status.code(), Some(0 | 1)), "{} cut at {cut}: {err}", ex.display());
            assert!(!err.contains("panicked"), "{} cut at {cut}: {err}", ex.display());
            let _ = std::fs::remove_file(p);
        }
    }
}

#[test]
fn binary_and_nested_inputs_are_errors() {
    let mut noise = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..4096 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        noise.push((x >> 16) as u8);
    }
    let o = run(keel().arg("check").arg(scratch(&noise)));
    assert_clean_failure(&o, "binary");
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));

    let nested = format!("func @f() {{\nbb0:\n    {}\n    ret\n}}\n", "[".repeat(200_000));
    assert_clean_failure(&run(keel().arg("check").arg(scratch(nested.as_bytes()))), "nested [");
    let nested = format!("{}\n", "(".repeat(200_000));
    assert_clean_failure(&run(keel().arg("check").arg(scratch(nested.as_bytes()))), "nested (");
    assert_clean_failure(&run(keel().arg("check").arg(scratch(b"func"))), "bare func");
    let missing = Path::new("/nonexistent/keel/input.kir");
    let o = run(keel().arg("check").arg(missing));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn fmt_is_canonical_and_reads_stdin() {
    for ex in examples() {
        let o = run(keel().arg("fmt").arg(&ex));
        assert!(o.status.success(), "{}", stderr(&o));
        let printed = scratch(&o.stdout);
        let again = run(keel().arg("fmt").arg(&printed));
        assert_eq!(again.stdout, o.stdout, "fmt is not idempotent on {}", ex.display());
        assert!(run(keel().args(["fmt", "--check"]).arg(&printed)).status.success());
        let mut child = keel().args(["fmt", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &std::fs::read(&ex).expect("read"))
            .expect("write stdin");
        let piped = child.wait_with_output().expect("wait");
        assert_eq!(piped.stdout, o.stdout);
    }
    // fmt keeps comments: every example, comments and all, is canonical.
    for ex in examples() {
        let o = run(keel().args(["fmt", "--check"]).arg(&ex));
        assert!(o.status.success(), "{}: {}", ex.display(), stderr(&o));
    }
    // A file not in canonical form is told apart.
    let p = scratch(b"func @f() {\nbb0:\n  ret   ; done\n}\n");
    let o = run(keel().args(["fmt", "--check"]).arg(&p));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not in canonical form"));
    assert_eq!(
        stdout(&run(keel().arg("fmt").arg(&p))),
        "func @f() {\nbb0:\n    ret                         ; done\n}\n"
    );
}

#[test]
fn help_everywhere() {
    for args in [vec!["--help"], vec!["check", "--help"], vec!["fmt", "--help"], vec!["help"]] {
        let o = run(keel().args(&args));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage"), "{args:?}");
    }
    let o = run(keel().arg("frobnicate"));
    assert_eq!(o.status.code(), Some(2));
}

/// The acceptance check: a 10^6-block file checks in seconds on a main
/// thread limited to a 2 MiB stack (`ulimit -s`), well under the default.
#[test]
fn million_block_file_on_a_small_stack() {
    let blocks = 1_000_000;
    let mut src = String::with_capacity(blocks * 64);
    src.push_str("func @chain(%n: i64) -> i64 {\n    var %x: i64\n    var %p: i1\n");
    for i in 0..blocks {
        src.push_str(&format!("bb{i}:\n"));
        if i == 0 {
            src.push_str("    %x = copy %n\n");
        }
        src.push_str(&format!("    %p = setp.slt %x, {i}\n    @%p %x = add %x, 1\n"));
        if i + 1 == blocks {
            src.push_str("    ret %x\n");
        } else if i % 4 == 3 {
            src.push_str(&format!("    br %p, bb{}, bb{}\n", i - 1, i + 1));
        } else {
            src.push_str(&format!("    jump bb{}\n", i + 1));
        }
    }
    src.push_str("}\n");
    let p = scratch(src.as_bytes());
    let o = run(Command::new("sh")
        .arg("-c")
        .arg("ulimit -s 2048 && exec \"$0\" check \"$1\"")
        .arg(env!("CARGO_BIN_EXE_keel"))
        .arg(&p));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1000000 blocks"));
    let _ = std::fs::remove_file(p);
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn run_prints_typed_results() {
    let du = examples_dir().join("du_chains.kir");
    let o = run(keel().arg("run").arg(&du).args(["--arg", "3", "--arg", "0", "--arg", "1"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "i32 8\n");
    let o = run(keel().arg("run").arg(&du).args(["--arg", "3", "--arg", "1", "--arg", "1", "--stats"]));
    let out = stdout(&o);
    assert!(out.starts_with("i32 -1\n; executed 34 instructions (0 guarded off)"), "{out}");
    assert!(out.contains("@du_example bb3: @%p %x = add %a, %b"), "{out}");
    // Negative arguments are not taken for options.
    let pebble = examples_dir().join("pebble_block.kir");
    let o = run(keel().arg("run").arg(&pebble).args(["--arg", "-5", "--arg", "6", "--arg", "7"]));
    assert_eq!(stdout(&o), "i32 42\ni32 -5\n", "{}", stderr(&o));
}

#[test]
fn run_loads_and_shows_memory() {
    let values = scratch(b"1.0, 2.0 ; a comment\n4.5 8.5\n");
    let o = run(keel()
        .arg("run")
        .arg(examples_dir().join("vectorize_examples.kir"))
        .args(["--func", "mean", "--arg", "4"])
        .arg(format!("--mem=arr={}", values.display()))
        .args(["--show-mem", "arr"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("f32 4.0\n@arr = [1.0, 2.0, 4.5, 8.5, 0.0,"), "{out}");
}

#[test]
fn run_reports_traps_with_exit_3_and_bad_input_with_exit_1() {
    let max = examples_dir().join("predicated_max.kir");
    let o = run(keel().arg("run").arg(&max).args(["--arg", "300"]));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("keel: trap: out of bounds in @max at bb2: `%v = load @data[%i]`"), "{}", stderr(&o));
    let o = run(keel().arg("run").arg(&max).args(["--fuel", "50", "--arg", "200"]));
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("fuel exhausted"), "{}", stderr(&o));
    // Wrong argument count, bad literal, unknown function, several functions without @main.
    for (args, msg) in [
        (vec!["--arg", "1", "--arg", "2"], "@max takes 1 argument(s) (i64)"),
        (vec!["--arg", "1.5"], "argument 0: `1.5` is not an integer literal"),
        (vec!["--func", "nope", "--arg", "1"], "no function @nope"),
    ] {
        let o = run(keel().arg("run").arg(&max).args(&args));
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
    let o = run(keel().arg("run").arg(examples_dir().join("vectorize_examples.kir")));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("several functions and no @main; choose one with --func (@p, @mean)"),
        "{}",
        stderr(&o)
    );
    // A module that does not verify is not run.
    let bad = scratch(b"func @main() -> i32 {\nbb0:\n    ret\n}\n");
    let o = run(keel().arg("run").arg(&bad));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not verify"), "{}", stderr(&o));
}

#[test]
fn gen_prints_a_module_that_checks_and_runs_within_its_bound() {
    let args = [
        "gen",
        "--blocks",
        "300",
        "--vars",
        "20",
        "--seed",
        "9",
        "--irreducible",
        "--memory",
        "0.3",
        "--functions",
        "3",
    ];
    let o = run(keel().args(args));
    assert!(o.status.success(), "{}", stderr(&o));
    let again = run(keel().args(args));
    assert_eq!(o.stdout, again.stdout, "same seed, same module");
    let other = run(keel().args(["gen", "--blocks", "300", "--vars", "20", "--seed", "10"]));
    assert_ne!(o.stdout, other.stdout);
    let text = stdout(&o);
    let p = scratch(&o.stdout);
    let c = run(keel().arg("check").arg(&p));
    assert!(c.status.success(), "{}", stderr(&c));
    assert!(stdout(&c).contains("3 functions, 300 blocks"), "{}", stdout(&c));
    // The header's command (`keel run FILE --fuel N --arg ...`) works as given.
    let command = text.lines().nth(1).and_then(|l| l.split('`').nth(1)).expect("the second line gives a command");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(&words[..3], ["keel", "run", "FILE"], "{command}");
    let r = run(keel().arg("run").arg(&p).args(&words[3..]));
    assert!(r.status.success(), "{command}\n{}", stderr(&r));
}

#[test]
fn dot_draws_every_view() {
    let du = examples_dir().join("du_chains.kir");
    let view = |what: &str| {
        let o = run(keel().arg("dot").arg(&du).args(["--what", what]));
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        stdout(&o)
    };
    let cfg = view("cfg");
    assert!(cfg.starts_with("digraph cfg {") && cfg.contains("n5 -> n2;") && cfg.ends_with("}\n"), "{cfg}");
    // The digest's dominator tree: entry→bb1→bb2→{bb3, bb4}, bb4→bb5→bb6.
    let dom = view("domtree");
    let edges: Vec<&str> = dom.lines().filter(|l| l.contains("->")).map(str::trim).collect();
    assert_eq!(edges, ["n0 -> n1;", "n1 -> n2;", "n2 -> n3;", "n2 -> n4;", "n4 -> n5;", "n5 -> n6;"]);
    let post = view("postdomtree");
    assert!(post.contains("[label=\"exit\", style=dashed]") && post.contains("n4 -> n3;"), "{post}");
    let loops = view("loops");
    assert!(loops.contains("subgraph cluster_loop0 {") && loops.contains("header bb2"), "{loops}");
    let o = run(keel().arg("dot").arg(&du).args(["--what", "nonsense"]));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn ssa_prints_the_documents_phis_and_destructs() {
    let du = examples_dir().join("du_chains.kir");
    let o = run(keel().arg("ssa").arg(&du));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("%x.2 = phi(bb1: %x.1, bb5: %x.4)"), "{text}");
    assert!(text.contains("@%p.1 %x.5 = add %a.1, %b.1 else %x.2"), "{text}");
    // The printed SSA form passes the SSA-level verifier.
    let p = scratch(text.as_bytes());
    let c = run(keel().args(["check", "--ssa", "--quiet"]).arg(&p));
    assert!(c.status.success(), "{}", stderr(&c));
    // Minimal placement puts a phi for %more too (dead: clean-up removes
    // it); destruction leaves no phi and no fallback.
    let phis = |args: &[&str]| stdout(&run(keel().arg("ssa").arg(&du).args(args))).matches("= phi(").count();
    assert_eq!(phis(&["--placement", "minimal", "--no-cleanup"]), 4);
    assert_eq!(phis(&["--placement", "minimal"]), 3);
    assert_eq!(phis(&["--no-cleanup"]), 3);
    let out = stdout(&run(keel().arg("ssa").arg(&du).arg("--destruct")));
    assert!(!out.contains("phi(") && !out.contains(" else "), "{out}");
    let bad = scratch(b"func @f() {\nbb0:\n    ret %nope\n}\n");
    assert_clean_failure(&run(keel().arg("ssa").arg(&bad)), "ssa on bad input");
}

#[test]
fn du_prints_the_documents_table_and_agrees_with_itself() {
    let du = examples_dir().join("du_chains.kir");
    let o = run(keel().arg("du").arg(&du).args(["--method", "both", "--verify"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    // The use of x in `%y = copy %x` is reached by the three definitions of x.
    let row = table.lines().find(|l| l.contains("%y = copy %x")).expect("the copy's row");
    assert!(row.ends_with("%x <- {s6, s10, s12}"), "{row}");
    // Same output whatever the method and the number of jobs.
    for args in [["--method", "iterative", "-j", "1"], ["--method", "ssa", "-j", "2"]] {
        assert_eq!(stdout(&run(keel().arg("du").arg(&du).args(args))), table, "{args:?}");
    }
}

#[test]
fn du_json_stats_has_the_fields_tools_read() {
    let generated = run(keel().args(["gen", "--blocks", "300", "--vars", "40", "--seed", "5", "--functions", "3"]));
    assert!(generated.status.success(), "{}", stderr(&generated));
    let p = scratch(&generated.stdout);
    let o = run(keel().arg("du").arg(&p).args(["--method", "both", "--verify", "--stats", "--format", "json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    for key in [
        "ssa_seconds",
        "iterative_seconds",
        "speedup",
        "definitions",
        "uses",
        "chain_edges",
        "mismatches",
        "functions",
        "instructions",
        "variables",
        "phases",
    ] {
        assert!(v.get(key).is_some(), "no {key} in {v}");
    }
    assert_eq!(v["mismatches"], 0);
    assert_eq!(v["functions"], 3);
    assert!(v["chain_edges"].as_u64().is_some_and(|e| e > 0), "{v}");
    // Every phase the issue names, for each method.
    for phase in ["dominators", "frontiers", "placement", "renaming", "folding", "iterative_setup", "iterative_solve"] {
        assert!(v["phases"][phase].as_f64().is_some(), "no phase {phase} in {v}");
    }
    // The text form gives the same phases and the ratio.
    let o = run(keel().arg("du").arg(&p).args(["--method", "both", "--stats"]));
    let text = stdout(&o);
    for word in
        ["dominators", "frontiers", "placement", "renaming", "folding", "solve", "speedup (iterative time / SSA time)"]
    {
        assert!(text.contains(word), "no {word} in {text}");
    }
    // Without --stats, the chains themselves.
    let o = run(keel().arg("du").arg(&p).args(["--format", "json"]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["chains"].as_array().map(Vec::len), Some(3), "{v}");
}

#[test]
fn du_rejects_bad_input_cleanly() {
    let bad = scratch(b"func @f(%a: i32) -> i32 {\nbb0:\n    ret %b\n}\n");
    assert_clean_failure(&run(keel().arg("du").arg(&bad)), "du on an undeclared var");
    let du = examples_dir().join("du_chains.kir");
    let o = run(keel().arg("du").arg(&du).args(["--func", "nope"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A small WebAssembly module: a loop over a local, a call, memory.
fn wasm_module() -> PathBuf {
    let wasm = wat::parse_str(
        r#"(module (memory 1)
          (func $sum (export "sum") (param $n i32) (result i32) (local $s i32)
            (block $out (loop $top
              (br_if $out (i32.eqz (local.get $n)))
              (local.set $s (i32.add (local.get $s) (local.get $n)))
              (local.set $n (i32.sub (local.get $n) (i32.const 1)))
              (br $top)))
            (i32.store (i32.const 8) (local.get $s))
            (local.get $s))
          (func $twice (export "twice") (param i32) (result i32)
            (i32.add (call $sum (local.get 0)) (call $sum (local.get 0)))))"#,
    )
    .expect("valid text");
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = std::env::temp_dir().join(format!(
        "keel-cli-{}-{}.wasm",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&p, wasm).expect("write module");
    p
}

#[test]
fn import_prints_ir_that_checks_and_runs() {
    let m = wasm_module();
    let o = run(keel().arg("import").arg(&m));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("imported 2 of 2 functions"), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("func @sum(%n: i32) -> i32 {") && text.contains("mem @memory: i8[65536] dram"), "{text}");
    let p = scratch(text.as_bytes());
    let c = run(keel().args(["check", "--quiet"]).arg(&p));
    assert!(c.status.success(), "{}", stderr(&c));
    let r = run(keel().arg("run").arg(&p).args(["--func", "twice", "--arg", "4"]));
    assert_eq!(stdout(&r).trim(), "i32 20", "{}", stderr(&r));
    // -o writes the same text; --func keeps one body and declares the other.
    let out = std::env::temp_dir().join(format!("keel-cli-{}-import.kir", std::process::id()));
    let o = run(keel().arg("import").arg(&m).arg("-o").arg(&out).arg("--quiet"));
    assert!(o.status.success() && o.stdout.is_empty() && o.stderr.is_empty(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).expect("written"), text);
    let one = stdout(&run(keel().arg("import").arg(&m).args(["--func", "1"])));
    assert!(one.contains("func @twice(") && one.contains("extern @sum(i32) -> i32"), "{one}");
    let p = scratch(one.as_bytes());
    assert!(run(keel().args(["check", "--quiet"]).arg(&p)).status.success());
}

#[test]
fn import_rejects_what_is_not_a_valid_module() {
    let text = scratch(b"func @f() {\nbb0:\n    ret\n}\n");
    let o = run(keel().arg("import").arg(&text));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let want = format!("error: not a WebAssembly binary (it does not start with `\\0asm`)\n--> {}\n", text.display());
    assert_eq!(err, want);
    let broken = scratch(b"\0asm\x01\0\0\0\x01\xff\xff");
    let o = run(keel().arg("import").arg(&broken));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: invalid WebAssembly module at offset 0x") && !err.contains("panicked"), "{err}");
    assert!(err.ends_with(&format!("\n--> {}\n", broken.display())), "{err}");
    let o = run(keel().arg("import").arg(wasm_module()).args(["--func", "7"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn du_analyses_a_wasm_module_in_parallel() {
    let m = wasm_module();
    let o =
        run(keel().arg("du").arg(&m).args(["--method", "both", "--verify", "--stats", "--format", "json", "-j", "2"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!((v["functions"].as_u64(), v["imported"].as_u64(), v["failed"].as_u64()), (Some(2), Some(2), Some(0)));
    assert_eq!(v["mismatches"], 0);
    assert!(v["speedup"].as_f64().is_some(), "{v}");
    // The table is the same whatever the number of jobs.
    let one = stdout(&run(keel().arg("du").arg(&m).args(["-j", "1"])));
    assert_eq!(stdout(&run(keel().arg("du").arg(&m).args(["-j", "2"]))), one);
    assert!(one.contains("function @sum") && one.contains("function @twice"), "{one}");
}
