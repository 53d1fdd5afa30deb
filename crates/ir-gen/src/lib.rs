//! `ir-gen`: seeded, deterministic generation of valid, terminating Keel
//! modules, as inputs for analysis oracle tests, benchmarks (10^6 blocks),
//! fuzzing and `keel gen`.
//!
//! Every generated module
//! - **verifies** at the base level (`ir_core::verify_module`);
//! - **terminates without trapping** in the reference interpreter, for any
//!   arguments to `main`, within [`Generated::fuel`] (an upper bound on the
//!   instructions plus tensor elements executed, callees included);
//! - is **deterministic**: the same configuration and the same seed (or
//!   bytes) give a byte-identical printed module.
//!
//! The generator is a decoder over a [`Source`] of choices: a seeded
//! [`SplitMix64`] stream ([`generate`]), raw bytes ([`generate_from_bytes`],
//! for fuzzers), or proptest's bytes ([`arb_module`]). The answer 0 to any
//! choice is the simplest option, so an empty input gives the simplest
//! program the configuration allows, and shrinking bytes shrinks programs.
//!
//! A function is an entry block that defines every var, then a sequence of
//! regions (straight blocks, chains, if/else diamonds and ladders of them,
//! loops, switches, early exits, irreducible two-block cycles), then the
//! return block, then unreachable blocks. `docs/design/ir-gen.md` explains
//! the shapes, the termination argument and the fuel bound.
//!
//! # Example
//!
//! ```
//! use ir_gen::{GenConfig, generate};
//!
//! let config = GenConfig { blocks: 40, vars: 12, functions: 2, ..GenConfig::default() };
//! let g = generate(&config, 7);
//! ir_core::verify_module(&g.module, &ir_core::VerifyOptions::default()).unwrap();
//!
//! // Exactly the requested number of blocks, and the same text every time.
//! let blocks: usize = g.module.functions().map(|(_, f)| f.layout().num_blocks()).sum();
//! assert_eq!(blocks, 40);
//! let text = ir_core::text::print_module(&g.module);
//! assert_eq!(text, ir_core::text::print_module(&generate(&config, 7).module));
//! assert!(text.starts_with("func @main(") || text.starts_with("mem "));
//! assert!(g.fuel >= 40);
//! ```

#![deny(missing_docs)]

mod body;
mod config;
mod contents;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod graphs;
mod memory;
mod program;
mod regions;
mod source;
mod strategy;

pub use config::GenConfig;
pub use source::{ByteSource, Source, SplitMix64};
pub use strategy::arb_module;

use ir_core::{FuncId, Module};

/// A generated module.
#[derive(Clone)]
pub struct Generated {
    /// The module: memory objects, then `@main`, then helpers `@f1`, ...
    pub module: Module,
    /// `@main`, the function to run. Its params may take any values.
    pub main: FuncId,
    /// An upper bound on the fuel the reference interpreter charges to run
    /// `main` with any arguments: one per instruction executed (phis,
    /// terminators and guarded-off instructions included) plus the elements
    /// each tensor instruction processes, callees included. Saturates at
    /// `u64::MAX`.
    pub fuel: u64,
}

/// Shows the module as text (what a failing property test should print).
impl core::fmt::Debug for Generated {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "Generated {{ main: {}, fuel: {} }}", self.main, self.fuel)?;
        f.write_str(&ir_core::text::print_module(&self.module))
    }
}

/// Generates a module from a seed (a [`SplitMix64`] stream).
pub fn generate(config: &GenConfig, seed: u64) -> Generated {
    generate_with(config, &mut SplitMix64::new(seed))
}

/// Generates a module from bytes (a [`ByteSource`]); any bytes give a valid
/// module, and short or zero bytes give simple ones.
pub fn generate_from_bytes(config: &GenConfig, bytes: &[u8]) -> Generated {
    generate_with(config, &mut ByteSource::new(bytes))
}

/// Generates a module from any source of choices.
pub fn generate_with<S: Source + ?Sized>(config: &GenConfig, source: &mut S) -> Generated {
    program::generate(config, source)
}
