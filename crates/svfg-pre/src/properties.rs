//! The properties of the semi-SVFG (digest §001, step 4) as greatest
//! fixpoints by worklists: down-safety (mds), can-be-available (cus with
//! the insertability of each operand, settled value number by value number
//! so that sub-values come first), and use marking (which phis are
//! materialized). See `pre.rs` for the rules.
//!
//! Invariant: every pass only turns flags from true to false (or `used`
//! from false to true), so each worklist terminates after at most one visit
//! per phi and flag.

use crate::pre::{Plant, Repl};
use crate::svfg::{ArgSource, Source, Svfg, SvfgPhi};
use ir_core::Inst;
use smallvec::SmallVec;

/// mds, cus (with insertability) and use marking, by worklists; cus and
/// use marking go value by value (operands' numbers are smaller, so a
/// sub-value's phis are settled before the values built on them).
pub(crate) fn properties(svfg: &mut Svfg, occurrences: &mut [(Inst, Repl)], _plant: Plant) {
    let n = svfg.phis.len();
    // Users: (user phi, operand index) per phi.
    let mut users: Vec<SmallVec<[(u32, u32); 2]>> = vec![SmallVec::new(); n];
    for (i, phi) in svfg.phis.iter().enumerate() {
        for (k, s) in phi.sources.iter().enumerate() {
            if let Source::Phi(q) = s {
                users[*q as usize].push((i as u32, k as u32));
            }
        }
    }
    // Down-safety: a phi that is not down-safe makes the phis feeding it
    // without a computation between not down-safe either.
    let mut work: Vec<u32> = (0..n as u32).filter(|&i| !svfg.phis[i as usize].down_safe).collect();
    while let Some(i) = work.pop() {
        let srcs = svfg.phis[i as usize].sources.clone();
        for s in srcs {
            if let Source::Phi(q) = s
                && svfg.phis[q as usize].down_safe
            {
                svfg.phis[q as usize].down_safe = false;
                work.push(q);
            }
        }
    }
    // Phis are grouped by value number, in increasing order.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=n {
        if i == n || svfg.phis[i].value != svfg.phis[start].value {
            groups.push((start, i));
            start = i;
        }
    }
    // Can-be-available.
    fn insertable(phis: &[SvfgPhi], phi: &SvfgPhi, k: usize) -> bool {
        match &phi.insert_args[k] {
            None => false,
            Some(args) => args.iter().all(|a| match a {
                ArgSource::Phi(q) => phis[*q as usize].can_be_avail,
                _ => true,
            }),
        }
    }
    for &(lo, hi) in &groups {
        let mut work: Vec<u32> = Vec::new();
        for i in lo..hi {
            let phi = &svfg.phis[i];
            let bad = phi
                .sources
                .iter()
                .enumerate()
                .any(|(k, s)| *s == Source::Bottom && (!phi.down_safe || !insertable(&svfg.phis, phi, k)));
            if bad {
                svfg.phis[i].can_be_avail = false;
                work.push(i as u32);
            }
        }
        while let Some(i) = work.pop() {
            // Forward: users of an unavailable phi.
            for &(u, k) in &users[i as usize] {
                let user = &svfg.phis[u as usize];
                if user.can_be_avail && (!user.down_safe || !insertable(&svfg.phis, user, k as usize)) {
                    svfg.phis[u as usize].can_be_avail = false;
                    work.push(u);
                }
            }
            // Backward: a down-safe phi that stays unavailable would waste
            // the insertions of the phis feeding it.
            if svfg.phis[i as usize].down_safe {
                let srcs = svfg.phis[i as usize].sources.clone();
                for s in srcs {
                    if let Source::Phi(q) = s
                        && svfg.phis[q as usize].can_be_avail
                    {
                        svfg.phis[q as usize].can_be_avail = false;
                        work.push(q);
                    }
                }
            }
        }
    }
    // Used: read by a computation, by a used available phi, or as the
    // sub-value of an insertion.
    for (_, repl) in occurrences.iter_mut() {
        if let Repl::Phi(p) = *repl {
            let phi = &mut svfg.phis[p as usize];
            if phi.can_be_avail {
                phi.used = true;
            } else {
                *repl = Repl::Keep;
            }
        }
    }
    for &(lo, hi) in groups.iter().rev() {
        let mut work: Vec<u32> = (lo as u32..hi as u32).filter(|&i| svfg.phis[i as usize].used).collect();
        while let Some(i) = work.pop() {
            let srcs = svfg.phis[i as usize].sources.clone();
            for s in srcs {
                if let Source::Phi(q) = s
                    && svfg.phis[q as usize].can_be_avail
                    && !svfg.phis[q as usize].used
                {
                    svfg.phis[q as usize].used = true;
                    work.push(q);
                }
            }
        }
        for i in lo..hi {
            let phi = &svfg.phis[i];
            if !(phi.used && phi.can_be_avail) {
                continue;
            }
            let mut subs: SmallVec<[u32; 4]> = SmallVec::new();
            for (k, s) in phi.sources.iter().enumerate() {
                let inserted = match s {
                    Source::Bottom => true,
                    Source::Phi(q) => !svfg.phis[*q as usize].can_be_avail,
                    _ => false,
                };
                if inserted {
                    subs.extend(phi.insert_args[k].iter().flatten().filter_map(|a| match a {
                        ArgSource::Phi(q) => Some(*q),
                        _ => None,
                    }));
                }
            }
            for q in subs {
                svfg.phis[q as usize].used = true;
            }
        }
    }
}
