//! The CLI's one memory budget, `--max-memory` (a global option, default
//! [`DEFAULT`]): the most bytes any pass may spend on a table that grows
//! with a product of sizes (bit matrices over blocks × values, interference
//! graphs, phi tables, memory-dependence sets, simulated memory, DMA row
//! buffers, the interpreter's memory objects and temporaries). Each pass
//! estimates such a table before it allocates it, or counts it as it grows,
//! and refuses with exit 1 and a message naming the pass, the sizes and
//! the budget ([`refused`]).
//!
//! Invariant: set once, from the command line, before any subcommand runs;
//! read-only afterwards (worker threads read the same value).

use std::sync::atomic::{AtomicU64, Ordering};

/// The default budget, as the option spells it: 2 GiB, which leaves a
/// 24 GB machine room for several runs at once and keeps one run inside a
/// 4 GB address-space limit.
pub(crate) const DEFAULT: &str = "2G";

static MAX_MEMORY: AtomicU64 = AtomicU64::new(2 << 30);

/// Sets the budget (from `--max-memory`).
pub(crate) fn set(bytes: u64) {
    MAX_MEMORY.store(bytes, Ordering::Relaxed);
}

/// The budget in bytes.
pub(crate) fn get() -> u64 {
    MAX_MEMORY.load(Ordering::Relaxed)
}

/// Says on stderr that `subject` was refused for the budget, with the
/// pass's own account of the sizes (`why`), and how to raise it.
pub(crate) fn refused(subject: impl std::fmt::Display, why: impl std::fmt::Display) {
    crate::out::say(format_args!("{subject}: {why}{}", note()));
}

/// What a refusal adds: the budget and how to raise it.
pub(crate) fn note() -> String {
    format!(" (--max-memory is {}; raise it to go on)", crate::size::show_size(get()))
}
