//! Allocated programs compute what the originals compute: 10^4 generated
//! programs, each allocated at 2, 4, 8 and 16 registers by the pebble
//! allocator (default options) and the Chaitin-Briggs baseline, every
//! allocation passing the symbolic checker, verifying, and interpreting to
//! the same results and memory; one program in fifty also under every
//! option (global step off / weighted / lifetime, carrying on and off,
//! vars instead of webs). Half the programs come from a configuration
//! without predication, memory or calls, so that two registers often
//! suffice; a refusal ("too few registers") must name an instruction that
//! really needs more.

use ir_gen::fuzzing::arguments;
use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::{ProgramCheck, check_program_with, option_grid};
use regalloc_pebble::{Method, Options};

const PROGRAMS: u64 = 10_000;

#[test]
fn ten_thousand_programs_at_four_register_counts() {
    let rich = GenConfig {
        blocks: 10,
        vars: 6,
        functions: 2,
        predication: 0.25,
        memory: 0.15,
        phis: 0.2,
        irreducible: 0.2,
        ..GenConfig::default()
    };
    let lean = GenConfig {
        blocks: 10,
        vars: 6,
        functions: 1,
        predication: 0.0,
        memory: 0.0,
        phis: 0.2,
        ..GenConfig::default()
    };
    let mut per_p: Vec<(u32, ProgramCheck)> = [2u32, 4, 8, 16].iter().map(|&p| (p, ProgramCheck::default())).collect();
    for seed in 0..PROGRAMS {
        let cfg = if seed % 2 == 0 { &rich } else { &lean };
        let g = generate(cfg, seed);
        let args = arguments(&g, seed);
        for (p, acc) in per_p.iter_mut() {
            let grid = if seed % 50 == 0 {
                option_grid(*p)
            } else {
                vec![(Method::Pebble, Options::with_regs(*p)), (Method::Briggs, Options::with_regs(*p))]
            };
            let r = check_program_with(&g.module, g.main, &args, g.fuel + 1000, &grid);
            acc.ran += r.ran;
            acc.too_few += r.too_few;
        }
    }
    for (p, r) in &per_p {
        println!("P = {p:2}: {} allocations checked and run, {} refused (too few registers)", r.ran, r.too_few);
    }
    // Enough of each: at two registers about a third of the programs fit.
    assert!(per_p[0].1.ran > 4_000, "{per_p:?}");
    for (_, r) in &per_p[1..] {
        assert!(r.ran > 18_000, "{per_p:?}");
    }
}
