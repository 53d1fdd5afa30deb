//! Bugs the tests plant in the SSA method (`via_ssa`), to show that its
//! agreement checks catch them. Invariant: outside `cfg(test)` nothing is
//! ever planted and every check compiles to `false`. A module of its own so
//! the walk and the resolver need not import the method they serve.

/// Bugs the tests plant in the method, to show the agreement checks catch
/// them (`via_ssa::tests::planted_folding_bugs_are_caught`). Outside tests nothing
/// is ever planted and the checks compile away.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Planted {
    /// A guarded definition kills, like an unguarded one (its "may leave"
    /// link is dropped).
    GuardKills,
    /// A phi keeps only its first operand.
    FirstOperandOnly,
}

#[cfg(test)]
thread_local! {
    pub(crate) static PLANTED: std::cell::Cell<Option<Planted>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
pub(crate) fn planted(bug: Planted) -> bool {
    PLANTED.with(|p| p.get() == Some(bug))
}

#[cfg(not(test))]
#[inline(always)]
pub(crate) fn planted(_: Planted) -> bool {
    false
}
