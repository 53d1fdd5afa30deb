//! The CLI's one memory budget, `--max-memory` (a global option, default
//! [`DEFAULT`], 1 GiB for `run`): the most bytes any pass may spend on a table that grows
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

/// The default budget: 2 GiB, which leaves a 24 GB machine room for
/// several runs at once and keeps one run inside a 4 GB address-space
/// limit. `run` keeps its interpreter's long-standing 1 GiB
/// ([`RUN_DEFAULT`]).
pub(crate) const DEFAULT: u64 = 2 << 30;

/// `keel run`'s default: the interpreter's memory objects and temporaries.
pub(crate) const RUN_DEFAULT: u64 = 1 << 30;

/// `u64::MAX` until `--max-memory` is given.
static MAX_MEMORY: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets the budget (from `--max-memory`, when given).
pub(crate) fn set(bytes: Option<u64>) {
    MAX_MEMORY.store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// The budget in bytes: `--max-memory`, else [`DEFAULT`].
pub(crate) fn get() -> u64 {
    get_or(DEFAULT)
}

/// The budget in bytes: `--max-memory`, else `default`.
pub(crate) fn get_or(default: u64) -> u64 {
    match MAX_MEMORY.load(Ordering::Relaxed) {
        u64::MAX => default,
        bytes => bytes,
    }
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
