//! The proptest strategy: random bytes decoded by the generator.
//!
//! Invariants: the strategy is `Vec<u8>` mapped through
//! [`generate_from_bytes`], so every value it produces, and every
//! value shrinking visits, is a valid module. Shrinking removes bytes and
//! lowers them toward 0, and since 0 is the simplest answer to every
//! choice, shrunk programs get simpler: fewer branches and guards, smaller
//! constants, straight-line blocks.

use crate::config::GenConfig;
use crate::program::{Generated, generate_from_bytes};
use proptest::prelude::*;

/// Bytes the strategy draws for a configuration: enough for the generator
/// to make every choice of a program of that size from random input
/// (measured: about 12 bytes per random instruction, a few per var and
/// block, a few hundred per helper function), capped so that large
/// configurations stay cheap to shrink. Lengths are drawn uniformly up to
/// it, so some inputs run out early and end in the simplest code.
pub(crate) fn byte_budget(config: &GenConfig) -> usize {
    let insts = (config.vars as f64 * config.defs_per_var.clamp(0.0, 1e6)).max(config.blocks as f64) as usize;
    insts
        .saturating_mul(16)
        .saturating_add(config.vars.saturating_mul(8))
        .saturating_add(config.functions.max(1).saturating_mul(512))
        .min(1 << 16)
}

/// Generated modules for `config`, decoded from byte strings whose length
/// is drawn up to what a program of that size consumes (about 16 bytes per
/// random instruction, capped at 64 KiB). Use it with `proptest!`:
///
/// ```
/// use ir_gen::{GenConfig, arb_module};
/// use proptest::prelude::*;
///
/// proptest!(ProptestConfig::with_cases(8), |(g in arb_module(GenConfig { blocks: 16, ..GenConfig::default() }))| {
///     prop_assert!(ir_core::verify_module(&g.module, &ir_core::VerifyOptions::default()).is_ok());
/// });
/// ```
pub fn arb_module(config: GenConfig) -> impl Strategy<Value = Generated> {
    let len = byte_budget(&config);
    proptest::collection::vec(any::<u8>(), 0..=len).prop_map(move |bytes| generate_from_bytes(&config, &bytes))
}
