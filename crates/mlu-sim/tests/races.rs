//! Race detection on a generated set of injected races: every bundled
//! kernel (race-free as written) with, one at a time, each sync removed,
//! each barrier removed or made to count one core only, and an overlapping
//! asynchronous copy on the other copy pipe after each copy into NRAM. For
//! every variant the detector's verdict on every access equals the
//! vector-clock oracle's, and every variant the oracle finds racy is
//! reported: 100% of the injected races are detected. A planted bug in the
//! detector is caught by the same comparison.

use mlu_isa::{Addr, Inst, MachineConfig, Operand, Program, Space, text};
use mlu_sim::fuzzing::{self, Bug};
use mlu_sim::{Mode, RaceMode, SimOptions, Simulator, TrapKind, oracle};
use std::path::Path;

struct Kernel {
    file: &'static str,
    clusters: u32,
    cores: Option<u32>,
}

const KERNELS: [Kernel; 6] = [
    Kernel { file: "vector_add_double_buffered.mlu", clusters: 1, cores: Some(1) },
    Kernel { file: "vector_add_single_buffered.mlu", clusters: 1, cores: Some(1) },
    Kernel { file: "saxpy.mlu", clusters: 1, cores: None },
    Kernel { file: "matmul_tile.mlu", clusters: 1, cores: Some(1) },
    Kernel { file: "reduce_4core.mlu", clusters: 1, cores: None },
    Kernel { file: "global_2cluster.mlu", clusters: 2, cores: None },
];

fn load(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mlu").join(name);
    text::parse(&std::fs::read_to_string(path).unwrap()).unwrap().0
}

/// Runs a variant in functional mode with warnings and the access log.
/// Returns (hazards reported, detector verdicts, oracle verdicts), or the
/// trap if it trapped for another reason than a race.
fn judge(p: &Program, k: &Kernel, plant: Option<Bug>) -> Result<(u64, Vec<bool>, Vec<bool>), TrapKind> {
    let opts = SimOptions {
        clusters: k.clusters,
        cores: k.cores,
        mode: Mode::Functional,
        races: RaceMode::Warn,
        record_races: true,
        ..SimOptions::default()
    };
    let mut sim = Simulator::new(p, &MachineConfig::mlu370(), opts).unwrap();
    let outcome = match plant {
        Some(bug) => fuzzing::with_bug(bug, || sim.run()),
        None => sim.run(),
    };
    let outcome = outcome.map_err(|t| t.kind)?;
    let (log, verdicts) = sim.race_log().unwrap();
    let want = oracle::racy_accesses(log, sim.cores());
    Ok((outcome.stats.hazards, verdicts.to_vec(), want))
}

/// The injected variants of `p`, each named.
fn injections(p: &Program) -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for (pc, inst) in p.insts.iter().enumerate() {
        let mut with = |name: String, f: &dyn Fn(&mut Program)| {
            let mut q = p.clone();
            f(&mut q);
            out.push((name, q));
        };
        match inst {
            Inst::Sync(k) => with(format!("{k} at {pc} removed"), &|q| q.insts[pc] = Inst::Nop),
            Inst::Barrier { scope, id, .. } => {
                with(format!("{scope} at {pc} removed"), &|q| q.insts[pc] = Inst::Nop);
                let (scope, id) = (*scope, *id);
                with(format!("{scope} at {pc} on one core only"), &|q| {
                    q.insts[pc] = Inst::Barrier { scope, id, count: Operand::int(1) };
                });
            }
            Inst::Dma { dst, bytes, .. } if dst.space == Space::Nram => {
                let other = overlapping_copy(p, inst, *dst, *bytes);
                if let Some(other) = other {
                    with(format!("an overlapping copy after {pc}"), &|q| {
                        insert_after(q, pc, other.clone());
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A copy on the other copy pipe writing the same NRAM bytes.
fn overlapping_copy(p: &Program, inst: &Inst, dst: Addr, bytes: Operand) -> Option<Inst> {
    if inst.pipe() == mlu_isa::Pipe::Io {
        // Move-DMA: NRAM to NRAM onto the same destination.
        Some(Inst::Dma { dst, src: dst, bytes })
    } else {
        // IO-DMA: from the start of a DRAM object onto the same destination.
        let d = p.mems.iter().position(|m| m.space == Space::Dram)?;
        Some(Inst::Dma { dst, src: Addr::sym(Space::Dram, mlu_isa::MemId(d as u32), 0), bytes })
    }
}

/// Inserts `i` after position `pc`, moving labels after it.
fn insert_after(q: &mut Program, pc: usize, i: Inst) {
    q.insts.insert(pc + 1, i);
    for l in &mut q.labels {
        if l.at as usize > pc {
            l.at += 1;
        }
    }
}

#[test]
fn every_injected_race_is_detected_and_the_detector_agrees_with_the_oracle() {
    let (mut racy, mut detected, mut clean, mut deadlocks, mut total) = (0, 0, 0, 0, 0);
    for k in &KERNELS {
        let p = load(k.file);
        let (h, v, o) = judge(&p, k, None).unwrap_or_else(|t| panic!("{}: {t:?}", k.file));
        assert_eq!(h, 0, "{} races as written", k.file);
        assert_eq!(v, o, "{}", k.file);
        for (name, q) in injections(&p) {
            total += 1;
            match judge(&q, k, None) {
                Ok((hazards, verdicts, want)) => {
                    assert_eq!(verdicts, want, "{}: {name}: the detector and the oracle disagree", k.file);
                    if want.contains(&true) {
                        racy += 1;
                        assert!(hazards > 0, "{}: {name}: a race went unreported", k.file);
                        detected += 1;
                    } else {
                        clean += 1;
                        assert_eq!(hazards, 0, "{}: {name}", k.file);
                    }
                }
                // Removing a barrier a core waits at can also leave the
                // other cores waiting forever: reported too.
                Err(TrapKind::Deadlock) => deadlocks += 1,
                Err(t) => panic!("{}: {name}: unexpected trap {t:?}", k.file),
            }
        }
    }
    eprintln!(
        "{total} injections: {racy} racy, {detected} detected, {clean} race-free (redundant syncs), {deadlocks} deadlocks"
    );
    assert_eq!(detected, racy);
    assert!(racy >= 25, "too few racy injections: {racy}");
}

#[test]
fn a_hazard_names_both_instructions() {
    let src = "\
.mem @x: f32[64] dram
.mem @b: f32[64] nram
    dma nram[@b], dram[@x], 256
    vexp.f32 nram[@b], nram[@b], 64
    exit
";
    let (p, _) = text::parse(src).unwrap();
    let opts = SimOptions { cores: Some(1), ..SimOptions::default() };
    let t = Simulator::new(&p, &MachineConfig::mlu370(), opts).unwrap().run().unwrap_err();
    assert_eq!(t.kind, TrapKind::Hazard);
    let h = t.hazard.as_ref().unwrap();
    assert_eq!((h.first.pc, h.second.pc), (0, 1));
    assert_eq!(h.first.inst, "dma nram[@b], dram[@x], 256");
    assert_eq!(h.second.inst, "vexp.f32 nram[@b], nram[@b], 64");
    assert!(h.first.write && !h.second.write);
    assert_eq!(h.memory, "nram of core 0");
    let msg = t.to_string();
    assert!(msg.contains("at instruction 1 `vexp.f32") && msg.contains("at instruction 0 `dma"), "{msg}");
    // As a warning the run goes on, and reports it once per instruction pair.
    let opts = SimOptions { cores: Some(1), races: RaceMode::Warn, ..SimOptions::default() };
    let o = Simulator::new(&p, &MachineConfig::mlu370(), opts).unwrap().run().unwrap();
    assert_eq!((o.hazards.len(), o.stats.hazards), (1, 1));
}

#[test]
fn cross_core_races_need_a_barrier() {
    // Core 0 writes SRAM; core 1 reads it: racy without a barrier (for any
    // timing), ordered with one.
    let racy = "\
.mem @s: f32[64] sram
    sreg %r0, %coreid
    brz %r0, writer
    ld.f32 %r1, sram[@s]
    exit
writer:
    st.f32 sram[@s], 1.0
    exit
";
    let ordered = "\
.mem @s: f32[64] sram
    sreg %r0, %coreid
    brz %r0, writer
    barrier.sync.local 0, 2
    ld.f32 %r1, sram[@s]
    exit
writer:
    st.f32 sram[@s], 1.0
    barrier.sync.local 0, 2
    exit
";
    for (src, want) in [(racy, true), (ordered, false)] {
        let (p, _) = text::parse(src).unwrap();
        let k = Kernel { file: "", clusters: 1, cores: Some(2) };
        let (h, v, o) = judge(&p, &k, None).unwrap();
        assert_eq!(v, o);
        assert_eq!(h > 0, want, "{src}");
    }
}

#[test]
fn a_planted_detector_bug_is_caught_by_the_oracle() {
    // vexp writes @b on the compute pipe; `sync.io` does not order it; the
    // scalar load races with it. The planted bug makes `sync.io` forget
    // compute accesses too.
    let src = "\
.mem @b: f32[64] nram
    vexp.f32 nram[@b], nram[@b], 64
    sync.io
    ld.f32 %r1, nram[@b]
    exit
";
    let (p, _) = text::parse(src).unwrap();
    let k = Kernel { file: "", clusters: 1, cores: Some(1) };
    let (h, v, o) = judge(&p, &k, None).unwrap();
    assert!(h > 0 && v == o);
    let (h, v, o) = judge(&p, &k, Some(Bug::SyncIoForgetsCompute)).unwrap();
    assert_eq!(h, 0);
    assert_ne!(v, o, "the oracle must tell the planted bug apart");
}
