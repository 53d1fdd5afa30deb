//! Source document 004's global step (`docs/references.md`): the registers the local allocation leaves
//! go to variables chosen greedily (see [`crate::alloc`]).
//!
//! Candidates are taken in document 004's order (weighted local load and
//! store counts, or lifetime); each goes to the lowest global register no
//! variable already there shares a block with (blocks where it is live in,
//! live out or referenced), so variables whose lives are in different
//! blocks share a register — document 004 gives each its own; sharing is
//! our extension. Block granularity (rather than instruction-level
//! interference, which was measured within 5% better at 16 registers on
//! generated programs) keeps the whole allocation independent of
//! statement order. A global register is lent to the local game in every
//! block where none of its variables is. A definition into a global
//! register waits for the readers of the register's previous value
//! (`crate::BlockDag`).

use crate::class::{PReg, RegClass, Regs};
use crate::dag::NONE;
use crate::facts::Facts;
use crate::options::GlobalStep;
use cfg_dom::{Node, VarId};

/// Which vars hold global registers.
#[derive(Clone, Debug)]
pub(crate) struct GlobalAssign {
    /// Per var: its global register index, or `NONE`.
    pub(crate) reg: Vec<u32>,
    /// Per class, per register index: the blocks where it is taken
    /// (one bit per block). Allocated lazily: a register no var holds has
    /// no row (or an empty one), so the table grows with the registers
    /// actually given out, never with `P` (which may be 65,536).
    pub(crate) taken: [Vec<Vec<u64>>; 2],
    /// Per class, `P`: the registers `taken` may index.
    pub(crate) top: [u32; 2],
    pub(crate) list: Vec<(VarId, PReg)>,
}

impl GlobalAssign {
    pub(crate) fn none(nvars: usize) -> GlobalAssign {
        GlobalAssign { reg: vec![NONE; nvars], taken: [Vec::new(), Vec::new()], top: [0, 0], list: Vec::new() }
    }

    pub(crate) fn is_taken(&self, c: RegClass, r: u32, b: Node) -> bool {
        self.taken[c.index()]
            .get(r as usize)
            .is_some_and(|bits| bits.get(b as usize / 64).is_some_and(|w| w >> (b % 64) & 1 == 1))
    }

    /// Document 004's greedy choice for the registers `q..P` of each class
    /// (module doc).
    pub(crate) fn choose(fx: &Facts, var_cost: &[u64], q: [u32; 2], p: Regs, step: GlobalStep) -> GlobalAssign {
        let mut ga = GlobalAssign::none(fx.nvars);
        let words = fx.nblocks.div_ceil(64).max(1);
        for c in RegClass::ALL {
            ga.top[c.index()] = p.get(c);
        }
        let mut cands: Vec<VarId> = match step {
            GlobalStep::Weighted => (0..fx.nvars as VarId).filter(|&x| var_cost[x as usize] > 0).collect(),
            _ => (0..fx.nvars as VarId).filter(|&x| fx.span(x).len() > 1).collect(),
        };
        match step {
            GlobalStep::Lifetime => {
                let depth = |x: VarId| fx.span(x).iter().map(|&b| fx.weight[b as usize]).max().unwrap_or(0);
                cands.sort_by_key(|&x| {
                    (
                        core::cmp::Reverse(fx.span(x).len()),
                        core::cmp::Reverse(fx.uses[x as usize]),
                        core::cmp::Reverse(depth(x)),
                        x,
                    )
                });
            }
            _ => cands.sort_by_key(|&x| (core::cmp::Reverse(var_cost[x as usize]), x)),
        }
        for x in cands {
            let c = fx.class[x as usize];
            let span = fx.span(x);
            // A register is free for x when no var already there shares a
            // block with it (block granularity keeps the result independent
            // of statement order, like the rest of the allocation).
            // Registers past the rows allocated so far are free everywhere,
            // so the search stops there at the latest.
            let free = (q[c.index()]..p.get(c)).find(|&r| span.iter().all(|&b| !ga.is_taken(c, r, b)));
            if let Some(r) = free {
                let rows = &mut ga.taken[c.index()];
                if rows.len() <= r as usize {
                    rows.resize_with(r as usize + 1, Vec::new);
                }
                let row = &mut rows[r as usize];
                if row.is_empty() {
                    row.resize(words, 0);
                }
                for &b in span {
                    row[b as usize / 64] |= 1 << (b % 64);
                }
                ga.reg[x as usize] = r;
                ga.list.push((x, PReg::new(c, r)));
            }
        }
        ga.list.sort_unstable();
        ga
    }
}

/// The registers the local allocation may use in block `b`: `0..q` and the
/// global registers no global holds there; into `out`.
pub(crate) fn local_regs_into(ga: &GlobalAssign, q: [u32; 2], b: Node, out: &mut [Vec<u32>; 2]) {
    for c in RegClass::ALL {
        let top = ga.top[c.index()];
        let list = &mut out[c.index()];
        list.clear();
        list.extend(0..q[c.index()]);
        list.extend((q[c.index()]..top).filter(|&r| !ga.is_taken(c, r, b)));
    }
}
