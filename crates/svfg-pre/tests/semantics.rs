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
    let mut t = Rotations::default();
    for seed in 0..n as u64 {
        let (m, f) = programs::redundant(seed, 1 + (seed % 12) as usize);
        for k in 0..3 {
            let args: Vec<Imm> = (0..3).map(|_| Imm::int(Type::I32, (rng.next_u64() % 21) as i64 - 10)).collect();
            t.check(&m, f, &args, 1_000_000, seed, k == 0);
        }
    }
    eprintln!(
        "{n} programs, {} finished runs, {} loops rotated: computations before {}, PRE {}, PRE after rotation {}; PRE after rotation < LCM on {} runs, < LCM after rotation on {}, < PRE without rotation on {}",
        t.runs, t.rotated, t.before, t.pre, t.pre_rot, t.below_lcm, t.below_lcm_rotated, t.below_plain_pre
    );
    assert!(t.runs > 0);
}

/// The tallies of the rotation tests over their runs.
#[derive(Default)]
struct Rotations {
    runs: u64,
    rotated: usize,
    before: u64,
    pre: u64,
    pre_rot: u64,
    lcm: u64,
    below_lcm: u64,
    below_lcm_rotated: u64,
    below_plain_pre: u64,
}

impl Rotations {
    /// One run through `check_rotation` (which panics with the failure),
    /// counted when both the original and the rotated program finish;
    /// PRE after rotation never computes more than the original. The loops
    /// rotated are counted on a program's `first` run.
    fn check(&mut self, m: &ir_core::Module, f: ir_core::FuncId, args: &[Imm], fuel: u64, seed: u64, first: bool) {
        let (plain, rot, loops) = check_rotation(m, f, args, fuel).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if first {
            self.rotated += loops;
        }
        if !plain.finished || !rot.finished {
            return;
        }
        self.runs += 1;
        assert!(rot.svfg <= plain.before, "seed {seed}: PRE after rotation computes more than the original");
        self.before += plain.before;
        self.pre += plain.svfg;
        self.pre_rot += rot.svfg;
        self.lcm += plain.lcm;
        self.below_lcm += u64::from(rot.svfg < plain.lcm);
        self.below_lcm_rotated += u64::from(rot.svfg < rot.lcm);
        self.below_plain_pre += u64::from(rot.svfg < plain.svfg);
    }
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
    let mut t = Rotations::default();
    for seed in 0..n as u64 {
        let g = ir_gen::generate(&config, seed);
        for k in 0..3 {
            let args = ir_gen::fuzzing::arguments(&g, seed * 3 + k);
            // The SSA form's phis cost fuel too: room beyond the bound.
            t.check(&g.module, g.main, &args, g.fuel.saturating_mul(4), seed, k == 0);
        }
    }
    eprintln!(
        "ir-gen top-tested loops: {n} programs, {} finished runs, {} loops rotated: computations before {}, LCM {}, PRE after rotation {}; PRE after rotation < LCM on {} runs",
        t.runs, t.rotated, t.before, t.lcm, t.pre_rot, t.below_lcm
    );
    assert!(t.runs > 0);
    assert!(t.below_lcm * 10 >= t.runs * 3, "PRE after rotation below LCM on only {} of {} runs", t.below_lcm, t.runs);
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
        asked += c;
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
