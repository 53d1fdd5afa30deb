//! Interpreter equivalence: every module from `arb_module` runs `main`
//! without a trap within `Generated::fuel` for any arguments, and printing
//! and re-parsing it gives the same results, memory and counts. Also the
//! fuzz check (`ir_gen::fuzzing::check_generated`) run a fixed number of
//! times on seeded random bytes, and a 10^6-block module run end to end.

use ir_core::interp::{Config, run};
use ir_core::{Imm, text};
use ir_gen::fuzzing::{arguments, check_generated, counts_by_position, run_within_bound};
use ir_gen::{GenConfig, Generated, SplitMix64, arb_module, generate};
use proptest::prelude::*;

/// Random inputs per run (about a second and a half on the 2-core CI machine
/// when set; a fixed count, so the test does the same work anywhere).
const FUZZ_RUNS: usize = 4000;

fn round_trip_agrees(g: &Generated, args: &[Imm]) -> Result<(), TestCaseError> {
    let before = run_within_bound(g, args);
    let (module, _) = text::parse(&text::print_module(&g.module)).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
    let again = Generated { module, ..g.clone() };
    let after = run_within_bound(&again, args);
    prop_assert_eq!(&before.results, &after.results);
    prop_assert_eq!(&before.memory, &after.memory);
    prop_assert_eq!(counts_by_position(&g.module, &before.stats), counts_by_position(&again.module, &after.stats));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_run_within_their_bound(
        g in arb_module(GenConfig { blocks: 48, predication: 0.4, memory: 0.4, irreducible: 0.3, functions: 3, phis: 0.3, ..GenConfig::default() }),
        seed in any::<u64>(),
    ) {
        round_trip_agrees(&g, &arguments(&g, seed))?;
    }

    #[test]
    fn deep_nesting_runs_within_its_bound(
        g in arb_module(GenConfig { blocks: 80, max_depth: 6, max_trips: 4, unreachable: 0.2, ..GenConfig::default() }),
        seed in any::<u64>(),
    ) {
        round_trip_agrees(&g, &arguments(&g, seed))?;
    }
}

#[test]
fn fuzz_check_on_random_bytes() {
    let mut rng = SplitMix64::new(0x5eed);
    for _ in 0..FUZZ_RUNS {
        let len = (rng.next_u64() % 600) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        check_generated(&bytes);
    }
    // The simplest inputs too.
    for first in 0..8u8 {
        check_generated(&[first]);
    }
    check_generated(&[]);
}

#[test]
fn a_million_blocks_run_end_to_end() {
    let config = GenConfig { blocks: 1_000_000, vars: 1000, ..GenConfig::default() };
    let g = generate(&config, 1);
    let args = arguments(&g, 1);
    let out = run(&g.module, g.main, &args, Config { fuel: g.fuel, ..Config::default() }).expect("no trap");
    assert!(out.stats.fuel_used <= g.fuel);
    // Early exits end most runs before the last block; this one runs a while.
    assert!(out.stats.executed > 100_000, "{}", out.stats.executed);
}
