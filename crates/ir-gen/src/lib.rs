//! `ir-gen`: seeded, deterministic generation of valid, terminating Keel
//! modules, as inputs for analysis oracle tests, benchmarks (10^6 blocks),
//! fuzzing and `keel gen`.
//!
//! Every generated module
//! - **verifies** at the base level (`ir_core::verify_module`);
//! - **terminates without trapping** in the reference interpreter, for any
//!   arguments to `main`, within [`Generated::fuel`] (an upper bound on the
//!   instructions plus tensor elements executed, callees included), with
//!   [`ExternMemory`] installed when it calls `@ext_touch`;
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
//! Memory analyses get opt-in knobs, all off by default (a seed then gives
//! the module it always gave): [`GenConfig::exact_memory`] (every
//! descriptor exact), [`GenConfig::tiles`] (descriptors affine in a loop's
//! counter), [`GenConfig::symbolic`] (offsets sharing a symbolic base) and
//! [`GenConfig::extern_calls`] (calls to `@ext_touch`, which reads and
//! writes memory).
//!
//! Behind the non-default `fuzzing` feature, the `fuzzing` module holds the
//! contract as a check for fuzz targets and smoke tests, and `plan` a
//! second generator, of builder-made modules without that contract (any
//! instruction format, arbitrary control flow, ill-typed on request), for
//! the text format's and the verifier's property tests.
//!
//! # Bad input
//!
//! The rule: generation never fails and never panics. Every field of a
//! [`GenConfig`] is clamped into the range the generator supports (rates to
//! `0..=1`, NaN to 0, at least one block and function, at least one var of
//! every type, nesting at most 6; see `config.rs`); any bytes decode to a
//! program. Sizes are taken as asked: a huge `blocks` is a huge module. A
//! caller that wants a wrong knob reported rather than clamped calls
//! [`GenConfig::check`] first: its [`ConfigError`] names the field and what
//! is wrong with its value.
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

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod body;
mod config;
mod contents;
mod externs;
mod function;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod graphs;
mod memory;
#[cfg(feature = "fuzzing")]
pub mod plan;
mod program;
mod regions;
pub mod shapes;
mod source;
mod strategy;
mod types;

pub use config::{
    ConfigError, ConfigErrorKind, GenConfig, MAX_BLOCKS, MAX_DEPTH, MAX_FUNCTIONS, MAX_RANDOM_INSTS, MAX_TRIPS,
    MAX_VARS,
};
pub use externs::{EXT_TOUCH, ExtTouchError, ExternMemory, Touch, ext_touch};
pub use program::{Generated, generate, generate_from_bytes, generate_with};
pub use source::{ByteSource, Source, SplitMix64};
pub use strategy::arb_module;
