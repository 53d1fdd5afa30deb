//! The clean-up after PRE, the last step of source document 001: every
//! unused phi and pseudo-phi, and the dead code the insertion leaves, is
//! deleted. PRE turns a redundant computation into a copy of the value
//! that makes it redundant and leaves the program's own copies and phis;
//! this pass forwards copies and deletes what nothing reads, so that the
//! output is what a user would keep.
//!
//! Two steps over an SSA function, each linear in its size:
//! 1. **Copy forwarding.** A copy `v = copy s` of a value (not of an
//!    immediate: a constant stays where it is, since not every operand
//!    position of every IR takes an immediate) makes every read of `v`
//!    read `s` instead, through chains of copies (`v = copy u; u = copy
//!    s`: both read `s`). In SSA this is exact: `s` is defined once, its
//!    definition dominates the copy, which dominates every read of `v`, so
//!    `s` has the same value wherever `v` was read. Chains are followed
//!    with an explicit path and a state per value; a cycle of copies
//!    (possible only in unreachable code) is left alone.
//!    A *trivial* phi, whose operands are all one value `s` or the phi
//!    itself (a loop-invariant phi PRE leaves at a loop header), is a copy
//!    of `s` too (Braun et al., "Simple and efficient construction of
//!    static single assignment form", CC 2013): every path into its block
//!    first arrives over an edge carrying `s`, so `s`'s definition
//!    dominates the phi. Forwarding one can make another trivial; the
//!    search runs a few rounds ([`TRIVIAL_PHI_ROUNDS`]), each linear, so a
//!    deeper chain, or a cycle of phis that are only trivial together, keeps
//!    its phis (correct, just not minimal).
//! 2. **Dead code elimination** by marking (the classical mark-and-sweep
//!    form, e.g. Cytron et al., TOPLAS 1991, section 7.1, without its
//!    control-dependence part: branches are never deleted): the reads of
//!    every instruction that is kept whatever happens (loads, operations
//!    that may trap, and everything [`InstKind::Other`]: calls, stores,
//!    guarded instructions, terminators) are live; a phi, copy or pure
//!    operation that cannot trap is live when a live read names its
//!    result, and then its own reads are live; everything else of those
//!    three kinds is deleted. Marking, not use counts, so that a cycle of
//!    dead phis (a loop's phi feeding only itself) goes too.
//!
//! Choices where document 001 is silent: loads are kept even unused (they
//! read memory; an IR's load may fault), and so is any operation
//! [`PreCode::may_trap`] says may trap, since deleting it would remove a
//! trap some run observes. Reads are what [`PreCode::reads`] lists: an
//! instruction's operands *and* anything else it reads (a guard, the
//! values a guarded definition keeps), so that a definition read only as a
//! guard is not deleted; and what [`PreCode::block_reads`] lists, for IRs
//! whose terminators are no instructions.
//!
//! Invariants: the result is plain data ([`Cleanup`]) that an adapter
//! applies (Keel's: `keel::cleanup`); the code is checked as [`crate::plan`]
//! checks it ([`InputError`]) before anything is decided; no recursion,
//! everything in id order, so the result is deterministic.

use crate::flat::{Flat, InputError};
use crate::input::{InstKind, NONE, Operand, PreCode, ValueId};
use crate::planted::{Bug, planted};
use cfg_dom::{Graph, InstId, Node, Stale, Versioned};

/// What the clean-up deleted, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CleanupStats {
    /// Copies whose reads now read the copied value.
    pub copies_forwarded: usize,
    /// Trivial phis (every operand one value, or the phi itself) whose
    /// reads now read that value.
    pub trivial_phis: usize,
    /// Phis deleted (the program's own and PRE's).
    pub phis_deleted: usize,
    /// Copies and constants deleted.
    pub copies_deleted: usize,
    /// Pure operations deleted.
    pub computations_deleted: usize,
}

impl CleanupStats {
    /// Instructions deleted, of every kind.
    pub fn deleted(&self) -> usize {
        self.phis_deleted + self.copies_deleted + self.computations_deleted
    }
}

/// The clean-up of a function: what to forward and what to delete (see the
/// module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleanup {
    /// `(v, s)`: every read of value `v` is to read value `s` instead;
    /// sorted by `v`.
    pub forward: Vec<(ValueId, ValueId)>,
    /// The instructions to delete, ascending.
    pub delete: Vec<InstId>,
    /// Counts.
    pub stats: CleanupStats,
    /// The code's stamp when the clean-up was made ([`Cleanup::check`]).
    pub stamp: Option<u64>,
}

impl Cleanup {
    /// `Ok` when `code` is still the version the clean-up was made for
    /// (as [`crate::Plan::check`]).
    pub fn check(&self, code: &impl Versioned) -> Result<(), Stale> {
        cfg_dom::check_stamp(self.stamp, code.code_stamp())
    }
}

/// The clean-up of `code` (SSA form) on `graph` (see the module doc).
pub fn cleanup<G: Graph, C: PreCode>(graph: &G, code: &C) -> Result<Cleanup, InputError> {
    let flat = Flat::new(graph, code)?;
    let nv = code.num_values();
    let n = flat.len();
    // Step 1: each copy of a value, then each value's root.
    let mut source = vec![NONE; nv];
    let mut def_at = vec![NONE; nv];
    for e in 0..n {
        for &v in flat.results(e) {
            def_at[v as usize] = e as u32;
        }
        if matches!(flat.kind[e], InstKind::Copy)
            && let (&[v], Some(&Operand::Value(s))) = (flat.results(e), flat.operands(e).first())
            && s != v
        {
            source[v as usize] = s;
        }
    }
    let mut root = roots(&source);
    // Trivial phis, whose operands are one value or the phi itself, are
    // copies of that value (each round may make more of them trivial).
    let phis: Vec<usize> = (0..n).filter(|&e| matches!(flat.kind[e], InstKind::Phi)).collect();
    let mut trivial = 0;
    for _ in 0..TRIVIAL_PHI_ROUNDS {
        let before = trivial;
        for &e in &phis {
            let v = flat.results(e)[0];
            if source[v as usize] != NONE {
                continue;
            }
            if let Some(s) = only_other(flat.operands(e), root[v as usize], &root) {
                source[v as usize] = s;
                trivial += 1;
            }
        }
        if trivial == before {
            break;
        }
        root = roots(&source);
    }
    let mut out = Cleanup::default();
    for (v, &r) in root.iter().enumerate() {
        if r != v as ValueId {
            out.forward.push((v as ValueId, r));
        }
    }
    out.stats.copies_forwarded = out.forward.len() - trivial.min(out.forward.len());
    out.stats.trivial_phis = trivial;
    // Step 2: marking from what is always kept.
    let delete_traps = planted(Bug::CleanupDeletesTraps);
    let deletable = |e: usize| match flat.kind[e] {
        InstKind::Phi | InstKind::Copy => true,
        InstKind::Pure(op) => !code.may_trap(op) || delete_traps,
        InstKind::Load(_) | InstKind::Other => false,
    };
    let mut live_value = vec![false; nv];
    let mut live_inst = vec![false; n];
    let mut work: Vec<ValueId> = Vec::new();
    // A read of `v` by `inst` (`None`: by a block outside its instructions).
    let mut read = |v: ValueId, work: &mut Vec<ValueId>, inst: Option<InstId>| -> Result<(), InputError> {
        let r = *root.get(v as usize).ok_or(InputError::ValueOutOfRange { inst, value: v, num_values: nv })?;
        if !live_value[r as usize] {
            live_value[r as usize] = true;
            work.push(r);
        }
        Ok(())
    };
    for e in (0..n).filter(|&e| !deletable(e)) {
        let inst = flat.inst[e];
        for v in code.reads(inst) {
            read(v, &mut work, Some(inst))?;
        }
    }
    for b in 0..graph.num_nodes() as Node {
        for v in code.block_reads(b) {
            read(v, &mut work, None)?;
        }
    }
    while let Some(v) = work.pop() {
        let e = def_at[v as usize];
        if e == NONE || live_inst[e as usize] || !deletable(e as usize) {
            continue;
        }
        live_inst[e as usize] = true;
        let inst = flat.inst[e as usize];
        for w in code.reads(inst) {
            read(w, &mut work, Some(inst))?;
        }
    }
    for e in (0..n).filter(|&e| deletable(e) && !live_inst[e]) {
        out.delete.push(flat.inst[e]);
        let s = &mut out.stats;
        match flat.kind[e] {
            InstKind::Phi => s.phis_deleted += 1,
            InstKind::Copy => s.copies_deleted += 1,
            _ => s.computations_deleted += 1,
        }
    }
    out.delete.sort_unstable();
    out.stamp = code.code_stamp();
    Ok(out)
}

/// Rounds of the trivial-phi search: a phi made trivial by forwarding
/// another is found in the next round; chains deeper than this (rare: a
/// phi of a phi of a phi... each of one value) keep their last phis.
const TRIVIAL_PHI_ROUNDS: usize = 4;

/// The one value other than `own` (a root) that `operands` name, through
/// `root`; `None` when there are two, an immediate, or none.
fn only_other<I>(operands: &[Operand<I>], own: ValueId, root: &[ValueId]) -> Option<ValueId> {
    let mut other = None;
    for o in operands {
        let Operand::Value(w) = *o else { return None };
        let r = *root.get(w as usize)?;
        if r == own {
            continue;
        }
        match other {
            None => other = Some(r),
            Some(x) if x == r => {}
            Some(_) => return None,
        }
    }
    other
}

/// Per value, the end of its chain of copies (itself when it is no copy's
/// result, or when its chain runs into a cycle).
fn roots(source: &[ValueId]) -> Vec<ValueId> {
    const TODO: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut root: Vec<ValueId> = (0..source.len() as ValueId).collect();
    let mut state = vec![TODO; source.len()];
    let mut path: Vec<ValueId> = Vec::new();
    for v in 0..source.len() {
        if state[v] != TODO {
            continue;
        }
        path.clear();
        let mut x = v as ValueId;
        // Walk until a value with no source, a value already resolved, or
        // one on this path (a cycle).
        let end = loop {
            state[x as usize] = ON_PATH;
            path.push(x);
            let s = source[x as usize];
            if s == NONE {
                break Some(x);
            }
            match state.get(s as usize) {
                Some(&TODO) => x = s,
                Some(&DONE) => break Some(root[s as usize]),
                // A cycle, or a source out of range: no forwarding here.
                _ => break None,
            }
        };
        for &p in &path {
            root[p as usize] = end.unwrap_or(p);
            state[p as usize] = DONE;
        }
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_resolve_and_cycles_stay() {
        // 1 = copy 0; 2 = copy 1; 4 = copy 5; 5 = copy 4 (a cycle); 3 alone.
        let source = [NONE, 0, 1, NONE, 5, 4];
        assert_eq!(roots(&source), vec![0, 0, 0, 3, 4, 5]);
        // A chain reached from its middle first.
        let source = [NONE, 2, 0];
        assert_eq!(roots(&source), vec![0, 0, 0]);
    }
}
