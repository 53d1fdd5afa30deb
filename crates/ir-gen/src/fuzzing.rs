//! The generator's contract as a check, shared by the `generate` fuzz target
//! and `cargo test` smoke runs.
//!
//! [`check_generated`] panics when the contract fails: a generated module
//! that does not verify, that traps or runs past its fuel bound in the
//! reference interpreter, or that computes something else after a print and
//! re-parse.

use crate::config::GenConfig;
use crate::program::{Generated, generate_from_bytes};
use crate::source::SplitMix64;
use ir_core::interp::{Config, Interpreter, Outcome, run};
use ir_core::{Imm, Type, VerifyOptions, text, verify_module};

/// Configurations the fuzz input chooses among (by its first byte), so one
/// target covers every feature.
pub fn fuzz_configs() -> Vec<GenConfig> {
    let base = GenConfig { blocks: 48, vars: 12, ..GenConfig::default() };
    vec![
        base.clone(),
        GenConfig { predication: 0.5, memory: 0.5, functions: 3, ..base.clone() },
        GenConfig { irreducible: 0.5, unreachable: 0.3, phis: 0.4, ..base.clone() },
        GenConfig { max_depth: 6, max_trips: 4, blocks: 96, functions: 2, ..base.clone() },
        GenConfig { max_depth: 0, blocks: 200, memory: 0.3, ..base },
    ]
}

/// The configuration that analysis and transform fuzzing (the `defuse` and
/// `ssa` targets, and their smoke tests) decode bytes with: small functions
/// with every shape an analysis must get right — predicated definitions,
/// memory, irreducible regions, unreachable blocks, phis already in the
/// input, and calls.
pub fn analysis_config() -> GenConfig {
    GenConfig {
        blocks: 40,
        vars: 10,
        predication: 0.35,
        memory: 0.2,
        irreducible: 0.3,
        unreachable: 0.2,
        phis: 0.3,
        functions: 2,
        ..GenConfig::default()
    }
}

/// The family of top-tested loops with loop invariants in their bodies
/// (the `invariants` knob), for loop rotation before PRE: every loop may
/// run zero times, about a quarter of the instructions in loop bodies read
/// only the two invariant operands, and loops are more frequent than by
/// default (the `loops` knob). No phis in the input and no
/// irreducible cycles, so every loop is a candidate for rotation.
pub fn loop_invariant_config() -> GenConfig {
    GenConfig {
        blocks: 40,
        vars: 10,
        predication: 0.1,
        memory: 0.1,
        irreducible: 0.0,
        unreachable: 0.1,
        phis: 0.0,
        functions: 2,
        invariants: 0.25,
        loops: 0.3,
        ..GenConfig::default()
    }
}

/// What analysis fuzzing runs on: the module `bytes` decode to under
/// [`analysis_config`], and arguments for its `main` drawn from a hash of
/// the same bytes.
pub fn analysis_input(bytes: &[u8]) -> (Generated, Vec<Imm>) {
    let g = generate_from_bytes(&analysis_config(), bytes);
    let args = arguments(&g, seed_of(bytes));
    (g, args)
}

/// A 64-bit seed from fuzz input bytes (FNV-1a, the hash of G. Fowler,
/// L. C. Noll and K.-P. Vo; `docs/references.md`).
pub fn seed_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Arguments for `main` drawn from `seed`, with edge values mixed in.
pub fn arguments(g: &Generated, seed: u64) -> Vec<Imm> {
    let mut rng = SplitMix64::new(seed);
    let params = g.module.function(g.main).map(|f| f.signature().params.clone()).unwrap_or_default();
    params
        .iter()
        .map(|&t| {
            let bits = match rng.next_u64() % 4 {
                0 => 0,
                1 => u64::MAX,
                _ => rng.next_u64(),
            };
            let bits = if t == Type::F32 { bits & 0xffff_ffff } else { bits };
            Imm::from_bits(t, bits)
        })
        .collect()
}

/// Runs `main` on `args` within the module's fuel bound; panics on a trap
/// or an overrun.
pub fn run_within_bound(g: &Generated, args: &[Imm]) -> Outcome {
    let config = Config { fuel: g.fuel, ..Config::default() };
    // Modules calling `@ext_touch` (the `extern_calls` knob) run with its
    // handler; others exactly as `interp::run` runs them.
    let ran = if g.module.externs().len() > 0 {
        Interpreter::new(&g.module, config).and_then(|mut it| {
            it.set_extern_handler(Box::new(crate::ExternMemory));
            let results = it.call(g.main, args)?;
            let (memory, stats) = it.into_parts();
            Ok(Outcome { results, memory, stats })
        })
    } else {
        run(&g.module, g.main, args, config)
    };
    match ran {
        Ok(outcome) => {
            assert!(
                outcome.stats.fuel_used <= g.fuel,
                "used {} fuel over the bound {}",
                outcome.stats.fuel_used,
                g.fuel
            );
            outcome
        }
        Err(trap) => panic!("a generated module trapped: {}\n{g:?}", trap.describe(&g.module)),
    }
}

/// The whole contract on the module that `bytes` decode to.
pub fn check_generated(bytes: &[u8]) {
    let configs = fuzz_configs();
    let config = &configs[usize::from(bytes.first().copied().unwrap_or(0)) % configs.len()];
    let g = generate_from_bytes(config, bytes.get(1..).unwrap_or(&[]));
    if let Err(e) = verify_module(&g.module, &VerifyOptions::default()) {
        panic!("a generated module does not verify:\n{e}\n{g:?}");
    }
    let args = arguments(&g, seed_of(bytes));
    let before = run_within_bound(&g, &args);
    let printed = text::print_module(&g.module);
    let (module, _) = text::parse(&printed).unwrap_or_else(|d| panic!("the printed module does not parse: {d:?}"));
    let again = Generated { module, ..g.clone() };
    let after = run_within_bound(&again, &args);
    assert_eq!(before.results, after.results, "results differ after a print/parse round trip\n{g:?}");
    assert_eq!(before.memory, after.memory, "memory differs after a print/parse round trip");
    assert_eq!(
        counts_by_position(&g.module, &before.stats),
        counts_by_position(&again.module, &after.stats),
        "execution differs after a print/parse round trip"
    );
}

/// Per-instruction counts in layout order, function by function: printing
/// renumbers instructions (ids follow text order), positions do not change.
pub fn counts_by_position(module: &ir_core::Module, stats: &ir_core::interp::Stats) -> Vec<u64> {
    let mut out = Vec::new();
    for (f, func) in module.functions() {
        for b in func.blocks() {
            out.extend(func.block_insts(b).map(|i| stats.inst_count(f, i)));
        }
    }
    out.extend([stats.executed, stats.guard_skipped, stats.elements, stats.calls, stats.fuel_used]);
    out
}
