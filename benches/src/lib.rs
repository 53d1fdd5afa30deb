//! Shared inputs for Keel's criterion benchmarks.
//!
//! The benchmarks live in `benches/benches/*.rs`; run one with
//! `cargo bench -p benches --bench NAME`. Inputs come from `ir-gen` with
//! fixed seeds, so runs compare like with like.

#![deny(missing_docs)]

use ir_gen::{GenConfig, Generated, generate};

/// A generated single-function module of about `blocks` blocks with the
/// generator's default mix (loops, diamonds, switches, irreducible regions,
/// guards, memory), 8 vars per 100 blocks (at least 16), seed 1.
pub fn program(blocks: usize) -> Generated {
    let config = GenConfig { blocks, vars: (blocks / 12).max(16), ..GenConfig::default() };
    generate(&config, 1)
}
