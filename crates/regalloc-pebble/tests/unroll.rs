//! Loop unrolling (`regalloc_pebble::unroll`, `Options::unroll`): the
//! unrolled function computes what the original computes on generated
//! programs with loops (irreducible ones are left alone), and the unroll
//! search keeps an unrolled copy only where it is cheaper per original
//! iteration, and what it keeps still computes the same.

use ir_core::interp::{Config, run};
use ir_core::{VerifyOptions, verify_module};
use ir_gen::fuzzing::arguments;
use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::check_program_with;
use regalloc_pebble::unroll::unroll_loops;
use regalloc_pebble::{Method, Options, allocate_module, lower_phis, needs_destruct};

#[test]
fn unrolled_functions_compute_the_same() {
    let mut unrolled = 0;
    for seed in 0..150u64 {
        let cfg = GenConfig { blocks: 24, vars: 8, predication: 0.2, memory: 0.2, phis: 0.2, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let args = arguments(&g, seed);
        let want = run(&g.module, g.main, &args, Config { fuel: g.fuel + 1000, ..Config::default() });
        for k in [2, 3] {
            let mut m = g.module.clone();
            for id in m.function_ids().collect::<Vec<_>>() {
                let f = m.function_mut(id).unwrap();
                if needs_destruct(f) {
                    lower_phis(f);
                }
                unrolled += unroll_loops(f, k).loops;
            }
            verify_module(&m, &VerifyOptions::default()).unwrap_or_else(|e| panic!("seed {seed}, k {k}: {e}"));
            let got = run(&m, g.main, &args, Config { fuel: (g.fuel + 1000).saturating_mul(4), ..Config::default() });
            match (&want, &got) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.results, b.results, "seed {seed}, k {k}");
                    for (mem, _) in g.module.mems() {
                        assert_eq!(a.memory.elements(mem), b.memory.elements(mem), "seed {seed}, k {k}");
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "seed {seed}, k {k}"),
                _ => panic!("seed {seed}, k {k}: {want:?} vs {got:?}"),
            }
        }
    }
    assert!(unrolled > 100, "only {unrolled} loops unrolled");
}

#[test]
fn the_search_unrolls_where_it_pays_and_the_result_runs_the_same() {
    // Generated programs under register pressure: wherever the search
    // keeps an unrolled copy (cheaper per original iteration), the
    // allocated function still interprets like the original.
    let (mut kept, mut total) = (0, 0);
    for seed in 0..120u64 {
        let cfg = GenConfig { blocks: 16, vars: 10, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let args = arguments(&g, seed);
        for p in [3u32, 4] {
            let opts = Options { regs: regalloc_pebble::Regs::new(p, 4), unroll: 4, ..Options::default() };
            let (_, results) = allocate_module(&g.module, Method::Pebble, &opts);
            for (_, r) in &results {
                if let Ok(a) = r {
                    total += 1;
                    kept += usize::from(a.unroll_factor > 1);
                }
            }
            let c = check_program_with(&g.module, g.main, &args, g.fuel + 1000, &[(Method::Pebble, opts)]);
            assert!(c.ran + c.too_few > 0);
        }
    }
    assert!(kept > 10, "the search kept an unrolled copy for {kept} of {total} functions");
}
