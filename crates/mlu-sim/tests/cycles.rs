//! The cycle model against analytic formulas on microkernels (each exact
//! or within 2%, as issue 16 asks), bandwidth sharing, statistics
//! invariants, determinism and the trace.

use mlu_isa::{MachineConfig, Pipe, text};
use mlu_sim::{Mode, Outcome, SimOptions, Simulator, StallReason};
use std::path::Path;

fn cycle_run(src: &str, cfg: &MachineConfig, cores: u32) -> Outcome {
    let (p, _) = text::parse(src).unwrap_or_else(|e| panic!("{e:?}"));
    mlu_isa::verify(&p, cfg).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions { cores: Some(cores), mode: Mode::Cycle, trace: Some(100_000), ..SimOptions::default() };
    let o = Simulator::new(&p, cfg, opts).unwrap().run().unwrap_or_else(|t| panic!("{t}"));
    for c in &o.stats.cores {
        for s in &c.pipes {
            assert_eq!(s.busy + s.stalled() + s.idle, o.stats.cycles);
        }
    }
    o
}

fn within(got: u64, formula: u64, pct: f64) -> bool {
    (got as f64 - formula as f64).abs() <= pct / 100.0 * formula as f64
}

#[test]
fn one_copy_and_a_sync() {
    let c = MachineConfig::mlu370();
    let l = u64::from(c.io_dma_latency);
    for bytes in [64u64, 4096, 65_536, 100, 1] {
        let src = format!(
            ".mem @x: i8[65536] dram\n.mem @n: i8[65536] nram\n    dma nram[@n], dram[@x], {bytes}\n    sync.io\n    exit\n"
        );
        let o = cycle_run(&src, &c, 1);
        // Reads move whole 64-byte granules at 64 B/cycle; sync takes one cycle.
        let formula = l + bytes.div_ceil(64) * 64 / c.io_dma_bytes_per_cycle + 1;
        assert_eq!(o.stats.cycles, formula, "{bytes} bytes");
        let io = &o.stats.cores[0].pipes[Pipe::Io.index()];
        assert_eq!(io.busy, bytes.div_ceil(64));
        assert_eq!(io.stalls.get(&StallReason::DmaLatency), Some(&l));
        assert_eq!(o.stats.cores[0].pipes[0].stalls.get(&StallReason::SyncIo), Some(&(formula - 2)));
    }
    // A write under a granule costs a read-modify-write: two granules.
    let src =
        ".mem @x: i8[128] dram\n.mem @n: i8[128] nram\n    dma dram[@x + 4], nram[@n], 8\n    sync.io\n    exit\n";
    assert_eq!(cycle_run(src, &c, 1).stats.cycles, l + 128 / 64 + 1);
}

#[test]
fn vector_and_matrix_chains() {
    let c = MachineConfig::mlu370();
    for (k, n) in [(1u64, 64u64), (5, 1024), (20, 16_384)] {
        let body = "    vadd.f32 nram[@a], nram[@a], nram[@b], N\n".replace('N', &n.to_string()).repeat(k as usize);
        let src = format!(".mem @a: f32[16384] nram\n.mem @b: f32[16384] nram\n{body}    sync.compute\n    exit\n");
        let v = u64::from(c.vector_latency) + (n * 4).div_ceil(c.vector_bytes_per_cycle);
        assert_eq!(cycle_run(&src, &c, 1).stats.cycles, (k * v).max(k) + 1, "{k} x vadd {n}");
    }
    let src = ".mem @a: f32[4096] nram\n.mem @c: f32[4096] nram\n.mem @b: f32[4096] wram\n    mmul.f32 nram[@c], nram[@a], wram[@b], 32, 64, 32\n    sync.compute\n    exit\n";
    let m = u64::from(c.matmul_latency) + (32 * 64 * 32u64).div_ceil(c.matmul_macs_per_cycle);
    assert_eq!(cycle_run(src, &c, 1).stats.cycles, m + 1);
    // Slow operations take `vector_slow_factor` times the beats.
    let src = ".mem @a: f32[1024] nram\n    vexp.f32 nram[@a], nram[@a], 1024\n    sync.compute\n    exit\n";
    let v = u64::from(c.vector_latency) + 32 * u64::from(c.vector_slow_factor);
    assert_eq!(cycle_run(src, &c, 1).stats.cycles, v + 1);
}

#[test]
fn scalar_latencies_and_dependencies() {
    let c = MachineConfig::mlu370();
    // Independent adds issue every cycle; a dependent chain of fadds waits
    // for each result; a blocking DRAM load holds the front end.
    let indep =
        ".mem @x: f32[1] dram\n    add.i64 %r1, %r1, 1\n    add.i64 %r2, %r2, 1\n    add.i64 %r3, %r3, 1\n    exit\n";
    assert_eq!(cycle_run(indep, &c, 1).stats.cycles, 3);
    let chain = "    fadd.f32 %r1, %r1, 1.0\n".repeat(10) + "    exit\n";
    // Ten fadds, each waiting for the previous (2 cycles), the last issued
    // at 18; exit follows it.
    assert_eq!(cycle_run(&chain, &c, 1).stats.cycles, 9 * u64::from(c.lat_fadd) + 1);
    let o = cycle_run(&chain, &c, 1);
    assert_eq!(o.stats.cores[0].pipes[0].stalls.get(&StallReason::Register), Some(&9));
    let load = ".mem @x: f32[1] dram\n    ld.f32 %r1, dram[@x]\n    fadd.f32 %r1, %r1, 1.0\n    exit\n";
    assert_eq!(cycle_run(load, &c, 1).stats.cycles, u64::from(c.lat_dram) + 1);
    let div = "    sdiv.i32 %r1, %r2, 3\n    add.i32 %r3, %r1, 1\n    exit\n";
    assert_eq!(cycle_run(div, &c, 1).stats.cycles, u64::from(c.lat_div) + 1);
}

#[test]
fn a_loop_costs_its_instructions() {
    let c = MachineConfig::mlu370();
    let src = "    mov.i64 %r1, 1000\nloop:\n    sub.i64 %r1, %r1, 1\n    br %r1, loop\n    exit\n";
    assert_eq!(cycle_run(src, &c, 1).stats.cycles, 1 + 2 * 1000);
}

#[test]
fn shared_dram_bandwidth_is_split_between_cores() {
    // Two cores copy 48 KiB each from DRAM: alone at 64 B/cycle; on a
    // 96 B/cycle DRAM, 48 B/cycle each.
    let src = ".mem @x: i8[98304] dram\n.mem @n: i8[49152] nram\n    sreg %r0, %coreid\n    mul.i64 %r0, %r0, 49152\n    dma nram[@n], dram[@x + %r0], 49152\n    sync.io\n    exit\n";
    let narrow = MachineConfig { dram_bytes_per_cycle: 96, ..MachineConfig::mlu370() };
    let l = u64::from(narrow.io_dma_latency);
    // The copy issues when `mul`'s result is ready.
    let issue = 1 + u64::from(narrow.lat_mul);
    let alone = cycle_run(src, &narrow, 1).stats.cycles;
    assert_eq!(alone, issue + l + 49152 / 64 + 1);
    let two = cycle_run(src, &narrow, 2);
    assert_eq!(two.stats.cycles, issue + l + 49152 / 48 + 1);
    let io = &two.stats.cores[1].pipes[Pipe::Io.index()];
    assert_eq!(io.stalls.get(&StallReason::Bandwidth), Some(&(49152 / 48 - 49152 / 64)));
    assert!(
        (two.stats.roofline("dram").unwrap().fraction - (2.0 * 49152.0 / 96.0) / two.stats.cycles as f64).abs() < 1e-9
    );
    // Four cores on the MLU370's 192 B/cycle: 48 each as well.
    let four = cycle_run(&src.replace("98304", "196608"), &MachineConfig::mlu370(), 4);
    assert_eq!(four.stats.cycles, issue + l + 49152 / 48 + 1);
}

fn kernel(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mlu").join(name)).unwrap()
}

#[test]
fn buffered_vector_adds_against_their_formulas() {
    let c = MachineConfig::mlu370();
    let l = u64::from(c.io_dma_latency);
    let d = 65_536 / c.io_dma_bytes_per_cycle; // one 64 KiB tile copy
    let v = u64::from(c.vector_latency) + 65_536 / c.vector_bytes_per_cycle;
    // Single buffer, per tile: two loads (latency, two copies), sync, add,
    // sync, store (latency, one copy), sync, three loop instructions.
    let single = 1 + 64 * (l + 2 * d + 1 + v + 1 + l + d + 1 + 3);
    assert_eq!(cycle_run(&kernel("vector_add_single_buffered.mlu"), &c, 1).stats.cycles, single);
    // Double buffer: every iteration exposes one latency and the IO pipe
    // moves 192 tile copies in all (the loop's scalar work overlaps).
    let double = 66 * l + 192 * d;
    let got = cycle_run(&kernel("vector_add_double_buffered.mlu"), &c, 1).stats.cycles;
    assert!(within(got, double, 2.0), "{got} vs {double}");
}

#[test]
fn runs_are_deterministic_and_traces_are_chrome_json() {
    let c = MachineConfig::mlu370();
    let src = kernel("reduce_4core.mlu");
    let a = cycle_run(&src, &c, 4);
    let b = cycle_run(&src, &c, 4);
    assert_eq!(a.stats, b.stats);
    assert_eq!(a.trace, b.trace);
    let trace = a.trace.unwrap();
    let mut out = Vec::new();
    trace.write_chrome(&mut out, 4, c.clock_mhz).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    for core in 0..4 {
        for pipe in ["scalar", "compute", "io", "move"] {
            assert!(names.contains(&format!("core {core} {pipe}").as_str()), "{names:?}");
        }
    }
    assert!(events.iter().any(|e| e["ph"] == "X" && e["name"].as_str().unwrap().starts_with("dma GDRAM2NRAM")));
    assert!(events.iter().any(|e| e["name"] == "stall: barrier"));
    let mut json = Vec::new();
    serde_json::to_writer(&mut json, &a.stats.to_json()).unwrap();
    let mut text = Vec::new();
    a.stats.write_text(&mut text).unwrap();
    assert!(String::from_utf8(text).unwrap().contains("rooflines"));
}
