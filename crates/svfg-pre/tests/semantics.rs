//! The interpreter oracle on the generated redundant programs: every
//! program, several random inputs each, through `fuzzing::check_module`
//! (same results and memory after PRE, GVN and LCM; PRE and GVN never
//! compute more of any opcode on the run; PRE never more than LCM).
//! `SVFG_PRE_PROGRAMS` raises the count (the figures in the design note
//! use 10,000).

use ir_core::{Imm, Type};
use ir_gen::SplitMix64;
use svfg_pre::fuzzing::{check_module, check_rotation, programs};

fn count(default: usize) -> usize {
    std::env::var("SVFG_PRE_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

#[test]
fn redundant_programs_keep_semantics_and_never_get_worse() {
    let n = count(400);
    let mut rng = SplitMix64::new(0x9e);
    let (mut runs, mut before, mut pre, mut gvn, mut lcm, mut pre_below_lcm) = (0u64, 0, 0, 0, 0, 0u64);
    for seed in 0..n as u64 {
        let (m, f) = programs::redundant(seed, 1 + (seed % 12) as usize);
        for _ in 0..3 {
            let args: Vec<Imm> = (0..3).map(|_| Imm::int(Type::I32, (rng.next_u64() % 21) as i64 - 10)).collect();
            let c = check_module(&m, f, &args, 1_000_000).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(c.finished, "seed {seed} did not finish");
            runs += 1;
            before += c.before;
            pre += c.svfg;
            gvn += c.gvn;
            lcm += c.lcm;
            pre_below_lcm += u64::from(c.svfg < c.lcm);
        }
    }
    eprintln!(
        "{n} programs, {runs} runs: computations before {before}, PRE {pre}, GVN {gvn}, LCM {lcm}; PRE < LCM on {pre_below_lcm} runs"
    );
    assert!(pre < before, "PRE removes something on redundant programs");
}

#[test]
fn semantic_family_pre_beats_lcm_on_at_least_30_percent() {
    let n = 60u64;
    let (mut wins, mut runs) = (0, 0);
    for v in 0..n {
        let (m, f) = programs::semantic(v);
        for p in [0, 1] {
            let args = [Imm::int(Type::I32, 7), Imm::int(Type::I32, -3), Imm::int(Type::I1, p)];
            let c = check_module(&m, f, &args, 100_000).unwrap_or_else(|e| panic!("variant {v}: {e}"));
            runs += 1;
            wins += usize::from(c.svfg < c.lcm);
        }
    }
    eprintln!("semantic family: PRE < LCM on {wins} of {runs} runs");
    assert!(wins * 10 >= runs * 3, "{wins} of {runs}");
}

/// Loop rotation before PRE (issue 33): every generated redundant program
/// rotated (`fuzzing::check_rotation`: the rotated module verifies and runs
/// to the same outcome, and `check_module` holds on it), and on every run
/// PRE after rotation computes no more than the original program did.
/// Prints how often PRE after rotation computes strictly less than LCM.
#[test]
fn rotated_programs_keep_semantics() {
    let n = count(200);
    let mut rng = SplitMix64::new(0x51);
    let (mut runs, mut rotated, mut below_lcm, mut below_lcm_rotated, mut below_plain_pre) =
        (0u64, 0, 0u64, 0u64, 0u64);
    let (mut before, mut pre, mut pre_rot) = (0u64, 0u64, 0u64);
    for seed in 0..n as u64 {
        let (m, f) = programs::redundant(seed, 1 + (seed % 12) as usize);
        for k in 0..3 {
            let args: Vec<Imm> = (0..3).map(|_| Imm::int(Type::I32, (rng.next_u64() % 21) as i64 - 10)).collect();
            let (plain, rot, loops) =
                check_rotation(&m, f, &args, 1_000_000).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            if k == 0 {
                rotated += loops;
            }
            if !plain.finished || !rot.finished {
                continue;
            }
            runs += 1;
            assert!(rot.svfg <= plain.before, "seed {seed}: PRE after rotation computes more than the original");
            before += plain.before;
            pre += plain.svfg;
            pre_rot += rot.svfg;
            below_lcm += u64::from(rot.svfg < plain.lcm);
            below_lcm_rotated += u64::from(rot.svfg < rot.lcm);
            below_plain_pre += u64::from(rot.svfg < plain.svfg);
        }
    }
    eprintln!(
        "{n} programs, {runs} finished runs, {rotated} loops rotated: computations before {before}, PRE {pre}, PRE after rotation {pre_rot}; PRE after rotation < LCM on {below_lcm} runs, < LCM after rotation on {below_lcm_rotated}, < PRE without rotation on {below_plain_pre}"
    );
    assert!(runs > 0);
}

/// Loop rotation before PRE on ir-gen's family of top-tested loops with
/// invariants (`ir_gen::fuzzing::loop_invariant_config`): each program on
/// three argument vectors through `fuzzing::check_rotation` (the rotated
/// module runs to the same outcome; PRE, GVN and LCM on it keep its
/// semantics and the never-worse oracle holds per run), PRE after rotation
/// never computes more than the original, and it computes strictly less
/// than LCM (without rotation) on at least 30% of the finished runs.
#[test]
fn ir_gen_top_tested_loops_rotated_then_hoisted() {
    let n = count(150);
    let config = ir_gen::fuzzing::loop_invariant_config();
    let (mut runs, mut rotated, mut below_lcm, mut before, mut pre_rot, mut lcm) = (0u64, 0, 0u64, 0u64, 0u64, 0u64);
    for seed in 0..n as u64 {
        let g = ir_gen::generate(&config, seed);
        for k in 0..3 {
            let args = ir_gen::fuzzing::arguments(&g, seed * 3 + k);
            // The SSA form's phis cost fuel too: room beyond the bound.
            let fuel = g.fuel.saturating_mul(4);
            let (plain, rot, loops) =
                check_rotation(&g.module, g.main, &args, fuel).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            if k == 0 {
                rotated += loops;
            }
            if !plain.finished || !rot.finished {
                continue;
            }
            runs += 1;
            assert!(rot.svfg <= plain.before, "seed {seed}: PRE after rotation computes more than the original");
            before += plain.before;
            pre_rot += rot.svfg;
            lcm += plain.lcm;
            below_lcm += u64::from(rot.svfg < plain.lcm);
        }
    }
    eprintln!(
        "ir-gen top-tested loops: {n} programs, {runs} finished runs, {rotated} loops rotated: computations before {before}, LCM {lcm}, PRE after rotation {pre_rot}; PRE after rotation < LCM on {below_lcm} runs"
    );
    assert!(runs > 0);
    assert!(below_lcm * 10 >= runs * 3, "PRE after rotation below LCM on only {below_lcm} of {runs} runs");
}

/// The redundant programs with loads and stores of one array
/// (`programs::redundant_with_memory`): every program on three inputs
/// through `fuzzing::check_module` (PRE numbers its loads with the memory
/// answers on demand; same results and memory, never worse per value and
/// per opcode), and the answers counted: each of the walk's outcomes (no
/// write between, a store to the same element, a store elsewhere off the
/// same base) must occur.
#[test]
fn memory_programs_keep_semantics() {
    let n = count(400);
    let mut rng = SplitMix64::new(0x3e);
    let (mut runs, mut before, mut pre, mut lcm) = (0u64, 0u64, 0u64, 0u64);
    let mut asked = svfg_pre::MemoryCounts::default();
    for seed in 0..n as u64 {
        let (m, f) = programs::redundant_with_memory(seed, 1 + (seed % 12) as usize);
        let ssa = svfg_pre::fuzzing::to_ssa(&m).unwrap();
        let (_, c) = svfg_pre::plan_in(&ssa, ssa.function(f).unwrap(), svfg_pre::Method::Svfg).unwrap();
        asked.questions += c.questions;
        asked.walked += c.walked;
        asked.clobbered += c.clobbered;
        asked.from_memdep += c.from_memdep;
        for _ in 0..3 {
            let args: Vec<Imm> = (0..3).map(|_| Imm::int(Type::I32, (rng.next_u64() % 21) as i64 - 10)).collect();
            let c = check_module(&m, f, &args, 1_000_000).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(c.finished, "seed {seed} did not finish");
            runs += 1;
            before += c.before;
            pre += c.svfg;
            lcm += c.lcm;
        }
    }
    eprintln!(
        "memory programs: {n} programs, {runs} runs: computations before {before}, PRE {pre}, LCM {lcm}; memory questions {}: walk yes {}, walk no {}, memdep {}",
        asked.questions, asked.walked, asked.clobbered, asked.from_memdep
    );
    assert!(asked.walked > 0 && asked.clobbered > 0, "{asked:?}");
}
