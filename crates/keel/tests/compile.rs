//! `keel compile --target mlu` and `keel run-mlu` end to end: assembly that
//! `keel asm` accepts as canonical and `keel sim` runs, the compile report,
//! agreement with the interpreter, compile errors that name the construct,
//! and exit codes (0 ok, 1 bad input or compile error, 2 usage, 3 trap).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples").join(name).to_string_lossy().into_owned()
}

fn scratch(ext: &str, contents: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = std::env::temp_dir().join(format!(
        "keel-compile-{}-{}.{ext}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&p, contents).unwrap();
    p.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> Output {
    keel().args(args).output().expect("run keel")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn compiled_assembly_is_canonical_and_runs_on_keel_sim() {
    let mlu = scratch("mlu", "");
    let o = run(&["compile", "--target", "mlu", &example("matmul.kir"), "-o", &mlu]);
    assert!(o.status.success(), "{}", err(&o));
    let o = run(&["asm", "--check", &mlu]);
    assert!(o.status.success(), "{}", err(&o));
    // A whole cluster launched: the kernel runs on task 0, the others leave.
    let o = run(&["sim", &mlu]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("@output: f32[6] = [0.0, 4.5, 5.0, 0.0, 1.875, 0.0]"), "{}", out(&o));
    // The result 11.375 as f32 bits in @keel.ret.
    assert!(out(&o).contains(&format!("@keel.ret: i64[1] = [{}]", 11.375f32.to_bits())), "{}", out(&o));
}

#[test]
fn the_report_is_comments_and_names_placement_syncs_and_cycles() {
    let o = run(&["compile", &example("saxpy.kir"), "--report"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    for want in [
        "; placement",
        "@keel.stage0",
        "; syncs and barriers:",
        "; cores: single-core",
        "sync.compute: `dma` reads @keel.stage0, which an in-flight `vfma.f32` on the compute pipe writes",
        "`tfma`: one tile (nothing to overlap)",
        "; static cycles",
        "; registers (regalloc-pebble):",
    ] {
        assert!(text.contains(want), "missing {want}:\n{text}");
    }
    // The report is comments: the whole output still assembles.
    let mlu = scratch("mlu", &text);
    assert!(run(&["asm", &mlu]).status.success());
}

#[test]
fn run_mlu_prints_both_results_and_cycles() {
    let o = run(&[
        "run-mlu",
        &example("vectorize_examples.kir"),
        "--func",
        "p",
        "--arg",
        "1.5",
        "--arg",
        "2",
        "--arg",
        "-3",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("interpreter: f32 -4.5"), "{text}");
    assert!(text.contains("simulator:   f32 -4.5"), "{text}");
    assert!(text.contains("cycles: "), "{text}");
    assert!(text.contains("equal: results and every memory object"), "{text}");
    let o = run(&["run-mlu", &example("saxpy.kir"), "--arg", "0.5", "--arg", "64", "--stats"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("; placement"), "{}", out(&o));
}

#[test]
fn run_mlu_reports_a_trap_in_both_runs() {
    // 65 tiles of 64 read past @x's 4096 elements: both trap.
    let o = run(&["run-mlu", &example("saxpy.kir"), "--arg", "1.0", "--arg", "65"]);
    assert_eq!(o.status.code(), Some(3), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("equal: both trap"), "{}", out(&o));
}

#[test]
fn constructs_the_mlu_cannot_express_are_named() {
    let cases = [
        (
            "func @f() -> i64 {\n    var %x: i64\nbb0:\n    %x = intrinsic \"cycles\"()\n    ret %x\n}\n",
            "intrinsic \"cycles\"",
        ),
        (
            "mem @w: f32[64] wram\n\nfunc @f() -> f32 {\n    var %x: f32\nbb0:\n    %x = load @w[3]\n    ret %x\n}\n",
            "WRAM",
        ),
        ("func @f(%n: i32) -> i32 {\nbb0:\n    %n = call @f(%n)\n    ret %n\n}\n", "recursive"),
        ("mem @a: f32[300000] nram\n\nfunc @f() {\nbb0:\n    tfill @a[0, 64], 1.0\n    ret\n}\n", "nram overflows"),
    ];
    for (src, want) in cases {
        let file = scratch("kir", src);
        let o = run(&["compile", &file]);
        assert_eq!(o.status.code(), Some(1), "{src}");
        assert!(err(&o).contains(want), "{src}: {}", err(&o));
    }
}

#[test]
fn usage_and_input_errors() {
    assert_eq!(run(&["compile", "--target", "x86", &example("saxpy.kir")]).status.code(), Some(2));
    assert_eq!(run(&["compile", "/nonexistent/x.kir"]).status.code(), Some(1));
    let o = run(&["run-mlu", &example("saxpy.kir")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("--arg"), "{}", err(&o));
    // Not a multiple of 512: a usage error (issue 30), checked by clap.
    let o = run(&["compile", &example("saxpy.kir"), "--tile-bytes", "100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("multiple of 512"), "{}", err(&o));
}
