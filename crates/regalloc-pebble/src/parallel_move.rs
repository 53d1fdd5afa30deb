//! Sequencing a parallel move: the fix-up on a CFG edge, where every value
//! must go from where the predecessor left it to where the successor
//! expects it, all reads before any write.
//!
//! Order: stores first (they read registers and write each var's own home
//! slot, which no other movement reads); then register moves, each emitted
//! once no pending move still reads its destination; a cycle is broken by
//! copying one register to a free scratch register, or, without one, by
//! sending that value through its home slot (a store, unless the home is
//! already current, and a load at the end); loads last (they overwrite
//! registers whose old contents every move has already read).
//!
//! Invariant (tested against a direct simulation): running the result in
//! order leaves every destination with the value its source held before,
//! and touches no register outside the destinations and the scratch.

use crate::class::{Loc, PReg};
use crate::output::Edit;
use cfg_dom::VarId;

/// One wanted movement of `var`'s value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Want {
    pub from: Loc,
    pub to: Loc,
    pub var: VarId,
}

/// Sequences `wants` into `out`. `home(var)` is the var's home slot;
/// `home_current(var)` says whether that slot already holds the value;
/// `scratch` lists registers free to clobber (per class, any order).
pub(crate) fn sequence(
    wants: &[Want],
    home: impl Fn(VarId) -> u32,
    home_current: impl Fn(VarId) -> bool,
    scratch: &[PReg],
    out: &mut Vec<Edit>,
) {
    let mut stores: Vec<Want> = Vec::new();
    let mut moves: Vec<Want> = Vec::new();
    let mut loads: Vec<Want> = Vec::new();
    for &w in wants {
        match (w.from, w.to) {
            (Loc::Reg(a), Loc::Reg(b)) if a == b => {}
            (Loc::Reg(_), Loc::Reg(_)) => moves.push(w),
            (Loc::Reg(_), Loc::Slot(_)) => stores.push(w),
            (Loc::Slot(_), Loc::Reg(_)) => loads.push(w),
            (Loc::Slot(a), Loc::Slot(b)) if a == b => {}
            (Loc::Slot(_), Loc::Slot(_)) => {
                // Never wanted by the allocator; keep it correct anyway: a
                // memory-to-memory move would need a register, which the
                // caller provides as scratch.
                if let Some(&s) = scratch.first() {
                    loads.push(Want { from: w.from, to: Loc::Reg(s), var: w.var });
                    stores.push(Want { from: Loc::Reg(s), to: w.to, var: w.var });
                }
            }
        }
    }
    let mut stored: Vec<VarId> = Vec::new();
    for w in &stores {
        out.push(Edit { from: w.from, to: w.to, var: w.var });
        stored.push(w.var);
    }
    let mut used_scratch: Vec<PReg> = Vec::new();
    while !moves.is_empty() {
        // A move whose destination no pending move reads.
        if let Some(k) = moves.iter().position(|m| !moves.iter().any(|n| n.from == m.to)) {
            let m = moves.remove(k);
            out.push(Edit { from: m.from, to: m.to, var: m.var });
            continue;
        }
        // Every destination is still read: a cycle. Free the destination
        // of the first move by saving what it holds.
        let m = moves[0];
        let Loc::Reg(held) = m.to else { unreachable!("moves are register to register") };
        let victim_var = moves.iter().find(|n| n.from == m.to).map(|n| n.var).expect("in a cycle");
        let spare = scratch.iter().copied().find(|s| s.class == held.class && !used_scratch.contains(s));
        match spare {
            Some(s) => {
                used_scratch.push(s);
                out.push(Edit { from: Loc::Reg(held), to: Loc::Reg(s), var: victim_var });
                for n in moves.iter_mut().filter(|n| n.from == m.to) {
                    n.from = Loc::Reg(s);
                }
            }
            None => {
                let slot = home(victim_var);
                if !home_current(victim_var) && !stored.contains(&victim_var) {
                    out.push(Edit { from: Loc::Reg(held), to: Loc::Slot(slot), var: victim_var });
                    stored.push(victim_var);
                }
                // Its readers now load it from memory, last.
                let mut k = 0;
                while k < moves.len() {
                    if moves[k].from == m.to {
                        let n = moves.remove(k);
                        loads.push(Want { from: Loc::Slot(slot), to: n.to, var: n.var });
                    } else {
                        k += 1;
                    }
                }
            }
        }
    }
    for w in &loads {
        out.push(Edit { from: w.from, to: w.to, var: w.var });
    }
}

#[cfg(test)]
mod tests {
    use super::{Want, sequence};
    use crate::class::{Loc, PReg};
    use std::collections::HashMap;

    fn run(edits: &[crate::output::Edit], init: &HashMap<Loc, u32>) -> HashMap<Loc, u32> {
        let mut st = init.clone();
        for e in edits {
            let v = st.get(&e.from).copied().expect("reads something defined");
            st.insert(e.to, v);
        }
        st
    }

    #[test]
    fn cycles_and_chains() {
        let r = |i| Loc::Reg(PReg::scalar(i));
        // A swap, a chain and a load and a store.
        let wants = [
            Want { from: r(0), to: r(1), var: 10 },
            Want { from: r(1), to: r(0), var: 11 },
            Want { from: r(2), to: r(3), var: 12 },
            Want { from: r(3), to: r(4), var: 13 },
            Want { from: Loc::Slot(7), to: r(2), var: 14 },
            Want { from: r(5), to: Loc::Slot(8), var: 15 },
        ];
        let mut init = HashMap::new();
        for (i, v) in [(0, 10), (1, 11), (2, 12), (3, 13), (5, 15)] {
            init.insert(r(i), v);
        }
        init.insert(Loc::Slot(7), 14);
        init.insert(Loc::Slot(100), 10);
        init.insert(Loc::Slot(101), 11);
        for scratch in [vec![PReg::scalar(9)], vec![]] {
            let mut out = Vec::new();
            sequence(&wants, |v| 90 + v, |_| false, &scratch, &mut out);
            let end = run(&out, &init);
            for w in &wants {
                assert_eq!(end.get(&w.to), Some(&w.var), "{w:?} with scratch {scratch:?}: {out:?}");
            }
            // Only destinations, scratch and homes are written.
            for e in &out {
                let ok = wants.iter().any(|w| w.to == e.to)
                    || scratch.iter().any(|&s| Loc::Reg(s) == e.to)
                    || matches!(e.to, Loc::Slot(s) if s >= 90);
                assert!(ok, "{e:?}");
            }
        }
    }
}
