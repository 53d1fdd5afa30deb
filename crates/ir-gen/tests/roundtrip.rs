//! Property tests over `arb_module` with small configurations (at most 64
//! blocks): every generated module verifies, printing then parsing gives
//! the same text, generation is deterministic, and the module has exactly
//! the requested number of blocks.

mod common;

use common::{assert_verifies, round_trip};
use ir_gen::{GenConfig, arb_module, generate_from_bytes};
use proptest::prelude::*;

fn configs() -> impl Strategy<Value = GenConfig> {
    (1usize..=64, 1usize..=24, 0u32..=6, 0u32..=4, 1usize..=4, any::<[u8; 6]>()).prop_map(
        |(blocks, vars, max_depth, max_trips, functions, r)| GenConfig {
            blocks,
            vars,
            defs_per_var: f64::from(r[0] % 8),
            predication: f64::from(r[1]) / 255.0,
            memory: f64::from(r[2]) / 255.0,
            irreducible: f64::from(r[3]) / 255.0,
            functions,
            max_depth,
            max_trips,
            unreachable: f64::from(r[4] % 64) / 255.0,
            phis: f64::from(r[5]) / 255.0,
            // The opt-in memory knobs, from the same bytes.
            exact_memory: r[0] & 8 != 0,
            tiles: f64::from(r[1] % 3) / 4.0,
            symbolic: f64::from(r[2] % 3) / 4.0,
            extern_calls: f64::from(r[3] % 2) / 8.0,
            mlu_expressible: false,
            shared_memory: false,
            invariants: f64::from(r[4] % 3) / 4.0,
            loops: f64::from(r[5] % 3) / 4.0,
        },
    )
}

fn block_count(g: &ir_gen::Generated) -> usize {
    g.module.functions().map(|(_, f)| f.layout().num_blocks()).sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn default_config_modules_verify_and_round_trip(g in arb_module(GenConfig::default())) {
        assert_verifies(&g);
        round_trip(&g.module);
        prop_assert_eq!(block_count(&g), 64);
    }

    #[test]
    fn busy_modules_verify_and_round_trip(g in arb_module(GenConfig {
        blocks: 48, vars: 20, functions: 3, predication: 0.4, memory: 0.4, irreducible: 0.3,
        unreachable: 0.2, phis: 0.4, max_depth: 4, ..GenConfig::default()
    })) {
        assert_verifies(&g);
        round_trip(&g.module);
        prop_assert_eq!(block_count(&g), 48);
    }

    #[test]
    fn any_config_verifies_round_trips_and_is_deterministic(
        config in configs(),
        bytes in proptest::collection::vec(any::<u8>(), 0..3000),
    ) {
        let g = generate_from_bytes(&config, &bytes);
        assert_verifies(&g);
        let text = round_trip(&g.module);
        let again = generate_from_bytes(&config, &bytes);
        prop_assert_eq!(ir_core::text::print_module(&again.module), text);
        prop_assert_eq!(again.fuel, g.fuel);
        if config.blocks >= config.functions {
            prop_assert_eq!(block_count(&g), config.blocks);
        }
    }
}
