//! The properties of the SVFG (source document 001, steps 3–4) as greatest
//! fixpoints by worklists over the whole graph: down-safety (mds),
//! can-be-available (cus with the insertability of each operand), and use
//! marking (which phis are materialized). See `pre.rs` for the rules.
//! They read the SVFG alone, never the code.
//!
//! Invariant: every pass only turns flags from true to false (or `used`
//! from false to true), so each worklist terminates after at most one visit
//! per phi and flag. The worklists follow every dependence (value
//! transfers forward and backward, and the sub-value phis an insertion
//! reads), so the result does not depend on the order of the phis.
//!
//! An extension phi whose operands are all ⊥ (or unreachable) would only
//! move `t` into every predecessor, so no path would compute less: it
//! starts as a dead end (not down-safe), and is never materialized.
//!
//! Extension phis (at `dn(t)`, fed by phis of the translated values `t_k`)
//! need one refinement: a down-safe extension phi that stays unavailable
//! would leave the `t_k` phis feeding it counting a use that never comes.
//! Such a phi is taken as not down-safe (a dead end, like an ε node) and
//! the fixpoints are recomputed from the local facts, at most
//! [`REFINE_ROUNDS`] times; after that the backward rule (a down-safe
//! unavailable phi withdraws the phis feeding it), which is sound on its
//! own, settles the rest.

use crate::construct::Repl;
use crate::svfg::{ArgSource, Source, Svfg, SvfgPhi};
use cfg_dom::InstId;
use smallvec::SmallVec;

/// The most recomputations for unavailable down-safe extension phis.
pub const REFINE_ROUNDS: u32 = 4;

/// mds, cus (with insertability) and use marking. `down_safe` on entry
/// holds the local facts (no ε node or exit reached with the phi on top).
pub(crate) fn properties(svfg: &mut Svfg, occurrences: &mut [(InstId, Repl)]) {
    let n = svfg.phis.len();
    // Users: (user phi, operand index) per phi; arg users: (phi, operand)
    // whose insertion reads the phi as a sub-value.
    let mut users: Vec<SmallVec<[(u32, u32); 2]>> = vec![SmallVec::new(); n];
    let mut arg_users: Vec<SmallVec<[(u32, u32); 2]>> = vec![SmallVec::new(); n];
    for (i, phi) in svfg.phis.iter().enumerate() {
        for (k, s) in phi.sources.iter().enumerate() {
            if let Source::Phi(q) = s {
                users[*q as usize].push((i as u32, k as u32));
            }
            for a in phi.insert_args[k].iter().flatten() {
                if let ArgSource::Phi(q) = a {
                    arg_users[*q as usize].push((i as u32, k as u32));
                }
            }
        }
    }
    let local: Vec<bool> = svfg.phis.iter().map(|p| p.down_safe).collect();
    // An extension phi none of whose operands carries a computed value
    // would only move `t` up into every predecessor: no path computes
    // less. It is a dead end from the start (laziness, as in LCM).
    let mut dead_end: Vec<bool> = svfg
        .phis
        .iter()
        .map(|p| p.is_extension() && p.sources.iter().all(|s| matches!(s, Source::Bottom | Source::Unreachable)))
        .collect();
    for round in 0..=REFINE_ROUNDS {
        for (i, phi) in svfg.phis.iter_mut().enumerate() {
            phi.down_safe = local[i] && !dead_end[i];
            phi.can_be_avail = true;
        }
        down_safety(svfg);
        availability(svfg, &users, &arg_users);
        if round == REFINE_ROUNDS {
            break;
        }
        let mut changed = false;
        for (i, phi) in svfg.phis.iter().enumerate() {
            if phi.is_extension() && phi.down_safe && !phi.can_be_avail && !dead_end[i] {
                dead_end[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    mark_used(svfg, occurrences);
}

/// Down-safety: a phi that is not down-safe makes the phis feeding it
/// without a computation between not down-safe either.
fn down_safety(svfg: &mut Svfg) {
    let mut work: Vec<u32> = (0..svfg.phis.len() as u32).filter(|&i| !svfg.phis[i as usize].down_safe).collect();
    while let Some(i) = work.pop() {
        for k in 0..svfg.phis[i as usize].sources.len() {
            if let Source::Phi(q) = svfg.phis[i as usize].sources[k]
                && svfg.phis[q as usize].down_safe
            {
                svfg.phis[q as usize].down_safe = false;
                work.push(q);
            }
        }
    }
}

/// Whether operand `k` of `phi` needs an insertion: ⊥, or a phi that
/// stays unavailable.
fn needs_insertion(phis: &[SvfgPhi], phi: &SvfgPhi, k: usize) -> bool {
    match phi.sources[k] {
        Source::Bottom => true,
        Source::Phi(q) => !phis[q as usize].can_be_avail,
        _ => false,
    }
}

/// Whether the computation of operand `k`'s value can be built at the end
/// of its predecessor: every operand available there, sub-value phis
/// included.
fn insertable(phis: &[SvfgPhi], phi: &SvfgPhi, k: usize) -> bool {
    match &phi.insert_args[k] {
        None => false,
        Some(args) => args.iter().all(|a| match a {
            ArgSource::Phi(q) => phis[*q as usize].can_be_avail,
            _ => true,
        }),
    }
}

/// Can-be-available: a phi with an operand needing an insertion is
/// unavailable unless it is down-safe and the insertion can be built;
/// unavailability spreads forward to users, to the phis whose insertions
/// read it, and backward from a down-safe phi to the phis feeding it
/// (their insertions would not be paid for by a deletion on that path).
fn availability(svfg: &mut Svfg, users: &[SmallVec<[(u32, u32); 2]>], arg_users: &[SmallVec<[(u32, u32); 2]>]) {
    let n = svfg.phis.len();
    let bad = |phis: &[SvfgPhi], i: usize, k: usize| {
        let phi = &phis[i];
        needs_insertion(phis, phi, k) && (!phi.down_safe || !insertable(phis, phi, k))
    };
    let mut work: Vec<u32> = Vec::new();
    for i in 0..n {
        if (0..svfg.phis[i].sources.len()).any(|k| bad(&svfg.phis, i, k)) {
            svfg.phis[i].can_be_avail = false;
            work.push(i as u32);
        }
    }
    while let Some(i) = work.pop() {
        for &(u, k) in users[i as usize].iter().chain(&arg_users[i as usize]) {
            if svfg.phis[u as usize].can_be_avail && bad(&svfg.phis, u as usize, k as usize) {
                svfg.phis[u as usize].can_be_avail = false;
                work.push(u);
            }
        }
        if svfg.phis[i as usize].down_safe {
            for k in 0..svfg.phis[i as usize].sources.len() {
                if let Source::Phi(q) = svfg.phis[i as usize].sources[k]
                    && svfg.phis[q as usize].can_be_avail
                {
                    svfg.phis[q as usize].can_be_avail = false;
                    work.push(q);
                }
            }
        }
    }
}

/// Used: read by a computation, by a used available phi, or as the
/// sub-value of an insertion of a used available phi.
fn mark_used(svfg: &mut Svfg, occurrences: &mut [(InstId, Repl)]) {
    let mut work: Vec<u32> = Vec::new();
    for (_, repl) in occurrences.iter_mut() {
        if let Repl::Phi(p) = *repl {
            let phi = &mut svfg.phis[p as usize];
            if phi.can_be_avail {
                if !phi.used {
                    phi.used = true;
                    work.push(p);
                }
            } else {
                *repl = Repl::Keep;
            }
        }
    }
    while let Some(i) = work.pop() {
        let mut next: SmallVec<[u32; 4]> = SmallVec::new();
        let phi = &svfg.phis[i as usize];
        for (k, s) in phi.sources.iter().enumerate() {
            if let Source::Phi(q) = s
                && svfg.phis[*q as usize].can_be_avail
            {
                next.push(*q);
            }
            if needs_insertion(&svfg.phis, phi, k) {
                next.extend(phi.insert_args[k].iter().flatten().filter_map(|a| match a {
                    ArgSource::Phi(q) => Some(*q),
                    _ => None,
                }));
            }
        }
        for q in next {
            if !svfg.phis[q as usize].used {
                svfg.phis[q as usize].used = true;
                work.push(q);
            }
        }
    }
}
