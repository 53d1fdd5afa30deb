//! The oracles can fail: bugs planted through Keel's test-only hook
//! (`fuzzing::with_bug`, feature `fuzzing`) are caught —
//! by the differential oracle (scalar and tensor lowering bugs), by the
//! allocation checker (a shared register home), and by the simulator's race
//! detector (a sync removed from compiled code).

use ir_gen::fuzzing::{arguments, seed_of};
use ir_gen::generate;
use mlu_isa::{Inst, MachineConfig};
use mlu_sim::{Mode, RaceMode, SimOptions, Simulator};
use target_mlu::compile::{CompileError, CompileOptions, compile};
use target_mlu::differential::{DiffOptions, Verdict, run};
use target_mlu::fuzzing::{Bug, with_bug};

fn differ_count(bug: Bug, seeds: u64) -> u64 {
    let configs = target_mlu::fuzzing::configs();
    let mut differ = 0;
    for seed in 0..seeds {
        let g = generate(&configs[(seed % configs.len() as u64) as usize], seed);
        let args = arguments(&g, seed_of(&seed.to_le_bytes()));
        let options = DiffOptions { interp_fuel: g.fuel.max(1), cycles: false, ..DiffOptions::default() };
        if let Ok(r) = with_bug(bug, || run(&g.module, g.main, &args, &options))
            && matches!(r.verdict, Verdict::Differ(_))
        {
            differ += 1;
        }
    }
    differ
}

#[test]
fn the_differential_oracle_catches_a_wrong_scalar_lowering() {
    let n = differ_count(Bug::SwapSubOperands, 100);
    eprintln!("swapped `sub` operands: {n} of 100 programs differ");
    assert!(n >= 10, "{n}");
}

#[test]
fn the_differential_oracle_catches_a_wrong_tensor_lowering() {
    let n = differ_count(Bug::ShortResultTile, 100);
    eprintln!("short result tiles: {n} of 100 programs differ");
    assert!(n >= 10, "{n}");
}

const KERNEL: &str = "\
mem @x: f32[256] dram = [1.0, 2.0, 3.0, -4.0]
mem @y: f32[256] dram = [0.5, 0.25]

func @k(%a: f32, %b: i32, %c: i32) -> f32, i32 {
    var %s: f32
    var %t: i32
    var %u: i32
bb0:
    tfma @y[0, 256], @x[0, 256], %a, @y[0, 256]
    %s = tsum @y[0, 256]
    %t = mul %b, %c
    %u = sub %t, %b
    %t = add %u, %c
    ret %s, %t
}
";

#[test]
fn the_allocation_checker_catches_a_shared_home() {
    let (module, _) = ir_core::text::parse(KERNEL).unwrap();
    let f = module.function_by_name("k").unwrap();
    let config = MachineConfig::mlu370();
    let good = CompileOptions { check: true, ..CompileOptions::default() };
    compile(&module, f, &config, &good).expect("the honest allocation checks");
    let e = with_bug(Bug::SharedHome, || compile(&module, f, &config, &good))
        .expect_err("the checker must refuse a shared home");
    assert!(matches!(e, CompileError::WrongAllocation(_)), "{e}");
    assert!(e.to_string().contains("register allocation is wrong"), "{e}");
}

#[test]
fn the_allocation_checker_catches_a_dropped_reload_or_move() {
    // 40 values live at once on 16 GPRs: regalloc-pebble must spill and
    // reload, and the planted bug drops one of its edits.
    let src = target_mlu::fuzzing::register_pressure(40);
    let (module, _) = ir_core::text::parse(&src).unwrap();
    let f = module.function_by_name("f").unwrap();
    let config = MachineConfig::parse("base = mlu370\ngprs = 16\n").unwrap();
    let good = CompileOptions { check: true, ..CompileOptions::default() };
    compile(&module, f, &config, &good).expect("the honest allocation checks");
    let e = with_bug(Bug::DroppedEdit, || compile(&module, f, &config, &good))
        .expect_err("the checker must refuse a dropped edit");
    assert!(matches!(e, CompileError::WrongAllocation(_)), "{e}");
    assert!(e.to_string().contains("register allocation is wrong"), "{e}");
}

#[test]
fn removing_syncs_from_compiled_code_makes_the_race_detector_fire() {
    let (module, _) = ir_core::text::parse(KERNEL).unwrap();
    let f = module.function_by_name("k").unwrap();
    let config = MachineConfig::mlu370();
    let compiled = compile(&module, f, &config, &CompileOptions::default()).unwrap();
    let options =
        SimOptions { cores: Some(1), mode: Mode::Functional, races: RaceMode::Error, ..SimOptions::default() };
    Simulator::new(&compiled.program, &config, options.clone()).unwrap().run().expect("the naive code is race-free");
    let syncs: Vec<usize> =
        compiled.program.insts.iter().enumerate().filter(|(_, i)| matches!(i, Inst::Sync(_))).map(|(k, _)| k).collect();
    let mut fired = 0;
    for &k in &syncs {
        let mut p = compiled.program.clone();
        p.insts[k] = Inst::Nop;
        let mut sim = Simulator::new(&p, &config, options.clone()).unwrap();
        if let Err(t) = sim.run() {
            assert!(t.to_string().contains("race") || t.to_string().contains("hazard"), "{t}");
            fired += 1;
        }
    }
    eprintln!("{fired} of {} syncs are needed (tests/syncs.rs checks every kernel)", syncs.len());
    assert!(fired >= 3, "{fired} of {}", syncs.len());
}
