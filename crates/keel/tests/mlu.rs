//! `keel asm` and `keel sim` end to end: canonical printing, located
//! diagnostics and exit codes (0 ok, 1 bad input, 2 usage, 3 trap), inputs
//! from files, statistics, JSON, traces, races and deadlocks.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn keel() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keel"))
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mlu").join(name)
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(example("")).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

fn scratch(ext: &str, contents: &[u8]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = std::env::temp_dir().join(format!(
        "keel-mlu-{}-{}.{ext}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&p, contents).unwrap();
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

fn no_panic(o: &Output) {
    assert!(!err(o).contains("panicked") && !err(o).contains("internal error"), "{}", err(o));
}

#[test]
fn asm_prints_canonical_text_that_is_a_fixed_point() {
    for f in examples() {
        let o = run(keel().arg("asm").arg(&f));
        assert!(o.status.success(), "{}: {}", f.display(), err(&o));
        let once = out(&o);
        let p = scratch("mlu", once.as_bytes());
        let twice = run(keel().arg("asm").arg(&p));
        assert_eq!(out(&twice), once);
        assert!(run(keel().args(["asm", "--check"]).arg(&p)).status.success());
        let o = run(keel().args(["asm", "--check"]).arg(&f));
        assert_eq!(o.status.code(), Some(1), "{} has comments, so it is not canonical", f.display());
        assert!(err(&o).contains("not in canonical form"));
    }
}

#[test]
fn asm_reports_parse_and_verify_errors_with_carets() {
    let p = scratch("mlu", b"    nop\n    vad.f32 nram[0], nram[0], nram[0], 64\n    exit\n");
    let o = run(keel().arg("asm").arg(&p));
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(e.contains("error: unknown instruction `vad.f32`") && e.contains(":2:5") && e.contains("^^^^^^^"), "{e}");
    let p = scratch("mlu", b"    ld.f32 %r1, wram[0]\n    exit\n");
    let o = run(keel().arg("asm").arg(&p));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("must be in nram or sram or dram, not wram") && err(&o).contains("(for mlu370)"),
        "{}",
        err(&o)
    );
    // Registers depend on the configuration.
    let cfg = scratch("cfg", b"base = mlu270\nname = small\ngprs = 8\n");
    let p = scratch("mlu", b"    mov.i32 %r9, 1\n    exit\n");
    assert!(run(keel().arg("asm").arg(&p)).status.success());
    let o = run(keel().arg("asm").arg(&p).arg("--config").arg(&cfg));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("%r9 is not one of the 8 registers of small"), "{}", err(&o));
    let o = run(keel().args(["asm", "--config", "mlu999"]).arg(&p));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("neither a preset"));
    let bad_cfg = scratch("cfg", b"gprs = 8\nwarp = 32\n");
    let o = run(keel().arg("asm").arg(&p).arg("--config").arg(&bad_cfg));
    assert!(err(&o).contains("unknown key `warp`") && err(&o).contains(":2:1"), "{}", err(&o));
}

#[test]
fn sim_runs_a_kernel_with_inputs_and_prints_results_and_stats() {
    let values: String = (0..16384).map(|i| format!("{}\n", i % 7)).collect();
    let input = scratch("txt", values.as_bytes());
    let o = run(keel()
        .arg("sim")
        .arg(example("reduce_4core.mlu"))
        .arg("--mem")
        .arg(format!("x={}", input.display()))
        .arg("--stats"));
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let want: f32 = (0..16384).map(|i| (i % 7) as f32).sum();
    assert!(text.contains(&format!("@sum: f32[1] = [{want:?}]")), "{text}");
    assert!(text.contains("cycles: 1034") && text.contains("rooflines") && text.contains("GDRAM2NRAM"), "{text}");
    let json = run(keel().arg("sim").arg(example("global_2cluster.mlu")).args([
        "--clusters",
        "2",
        "--format",
        "json",
        "--stats",
    ]));
    assert!(json.status.success(), "{}", err(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["stats"]["cycles"], 2087);
    assert_eq!(v["stats"]["cores"].as_array().unwrap().len(), 8);
    assert_eq!(v["results"]["sum"]["values"][0], "0.0");
}

#[test]
fn sim_writes_a_chrome_trace() {
    let trace = std::env::temp_dir().join(format!("keel-mlu-trace-{}.json", std::process::id()));
    let o = run(keel().arg("sim").arg(example("saxpy.mlu")).arg("--trace").arg(&trace));
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["name"] == "vfma.f32" && e["ph"] == "X"));
    assert!(events.iter().any(|e| e["args"]["name"] == "core 3 io"));
}

#[test]
fn sim_exit_codes_for_traps_races_and_usage() {
    // Two cores at a barrier counting four: a deadlock (exit 3).
    let o = run(keel().arg("sim").arg(example("reduce_4core.mlu")).args(["--cores", "2"]));
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(
        err(&o).contains("keel: trap: deadlock on core 0") && err(&o).contains("barrier.sync.local 0, 4"),
        "{}",
        err(&o)
    );
    // A race: an error by default, a warning on request.
    let racy = scratch("mlu", b".mem @x: f32[64] dram\n.mem @b: f32[64] nram\n    dma nram[@b], dram[@x], 256\n    vexp.f32 nram[@b], nram[@b], 64\n    exit\n");
    let o = run(keel().arg("sim").arg(&racy).args(["--cores", "1"]));
    assert_eq!(o.status.code(), Some(3));
    assert!(err(&o).contains("hazard") && err(&o).contains("`dma nram[@b], dram[@x], 256`"), "{}", err(&o));
    let o = run(keel().arg("sim").arg(&racy).args(["--cores", "1", "--races", "warn"]));
    assert!(o.status.success());
    assert!(err(&o).contains("warning: hazard"), "{}", err(&o));
    let o = run(keel().arg("sim").arg(&racy).args(["--cores", "1", "--format", "json"]));
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trap"]["kind"], "hazard");
    // Usage: more clusters than the machine has (2); a bad --mem (1).
    let o = run(keel().arg("sim").arg(example("saxpy.mlu")).args(["--clusters", "99"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("1 to 8 clusters"));
    let o = run(keel().arg("sim").arg(example("saxpy.mlu")).args(["--mem", "nothing=/nonexistent"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(run(keel().args(["sim", "--races", "maybe"]).arg(example("saxpy.mlu"))).status.code() == Some(2));
    let o = run(keel().arg("sim").arg(example("saxpy.mlu")).args(["--functional", "--fuel", "10"]));
    assert_eq!(o.status.code(), Some(3));
    assert!(err(&o).contains("out of fuel"));
}

#[test]
fn garbage_never_panics() {
    let inputs: [&[u8]; 5] = [
        b"",
        b"\xff\xfe\x00",
        b"    dma nram[",
        b".mem @x: f32[99999999999] dram\n    exit\n",
        b"loop:\n    jmp loop\n",
    ];
    for bytes in inputs {
        let p = scratch("mlu", bytes);
        for sub in ["asm", "sim"] {
            let o = run(keel().arg(sub).arg(&p).args(if sub == "sim" { vec!["--fuel", "1000"] } else { vec![] }));
            no_panic(&o);
            assert!(matches!(o.status.code(), Some(0..=3)), "{sub} {bytes:?}: {:?}", o.status);
        }
    }
}
