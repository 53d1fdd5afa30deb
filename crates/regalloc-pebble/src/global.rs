//! The document's global step: the registers the local allocation leaves
//! go to variables chosen greedily (see [`crate::alloc`]).
//!
//! Candidates are taken in the document's order (weighted local load and
//! store counts, or lifetime); each goes to the lowest global register
//! that no variable already there *interferes* with (one is defined where
//! the other is live, in statement order), so variables whose lives do not
//! overlap share a register — the document gives each its own; sharing is
//! our extension, and is what makes the step pay when variables outnumber
//! registers. A global register is lent to the local game in every block
//! where none of its variables is live or referenced. Inside a block the
//! game may reorder, so a definition into a shared register waits for the
//! readers of the register's previous value (`crate::BlockDag`).

use crate::alloc::GlobalStep;
use crate::class::{PReg, RegClass, Regs};
use crate::dag::NONE;
use crate::facts::Facts;
use crate::input::RegCode;
use cfg_dom::{Graph, Input, Liveness, Node, VarId};

/// Per var, the vars it interferes with (sorted): one is defined (not
/// under a guard that keeps it... any definition) where the other is live
/// after, in statement order; vars live into the entry interfere pairwise;
/// only vars of one class.
pub(crate) fn interference<G: Graph, C: RegCode>(input: &Input<'_, G, C>, liveness: &Liveness, class: &[RegClass]) -> Vec<Vec<VarId>> {
    let nv = input.num_vars();
    let mut pairs: Vec<(VarId, VarId)> = Vec::new();
    let mut live = vec![false; nv];
    let mut list: Vec<VarId> = Vec::new();
    let g = input.graph();
    for b in 0..input.num_blocks() as Node {
        list.clear();
        for x in liveness.live_out(b) {
            live[x as usize] = true;
            list.push(x);
        }
        for &i in input.block_insts(b).iter().rev() {
            list.retain(|&x| live[x as usize]);
            let defs = input.defs(i);
            for &d in defs {
                for &y in list.iter().chain(defs) {
                    if y != d && class[y as usize] == class[d as usize] {
                        pairs.push((d.min(y), d.max(y)));
                    }
                }
            }
            if !input.is_guarded(i) {
                for &d in defs {
                    live[d as usize] = false;
                }
            }
            for u in input.uses(i) {
                if !live[u.var as usize] {
                    live[u.var as usize] = true;
                    list.push(u.var);
                }
            }
        }
        for &x in &list {
            live[x as usize] = false;
        }
    }
    if let Some(e) = g.entry() {
        let entry: Vec<VarId> = liveness.live_in(e).collect();
        for (k, &a) in entry.iter().enumerate() {
            for &b in &entry[..k] {
                if class[a as usize] == class[b as usize] {
                    pairs.push((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut adj: Vec<Vec<VarId>> = vec![Vec::new(); nv];
    for (a, b) in pairs {
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    for l in &mut adj {
        l.sort_unstable();
    }
    adj
}

/// Which vars hold global registers.
#[derive(Clone, Debug)]
pub(crate) struct GlobalAssign {
    /// Per var: its global register index, or `NONE`.
    pub(crate) reg: Vec<u32>,
    /// Per class, per register index: the blocks where it is taken
    /// (one bit per block).
    pub(crate) taken: [Vec<Vec<u64>>; 2],
    pub(crate) list: Vec<(VarId, PReg)>,
}

impl GlobalAssign {
    pub(crate) fn none(nvars: usize) -> GlobalAssign {
        GlobalAssign { reg: vec![NONE; nvars], taken: [Vec::new(), Vec::new()], list: Vec::new() }
    }

    pub(crate) fn is_taken(&self, c: RegClass, r: u32, b: Node) -> bool {
        self.taken[c.index()].get(r as usize).is_some_and(|bits| bits[b as usize / 64] >> (b % 64) & 1 == 1)
    }

    /// The document's greedy choice for the registers `q..P` of each class
    /// (module doc).
    pub(crate) fn choose(fx: &Facts, var_cost: &[u64], q: [u32; 2], p: Regs, step: GlobalStep) -> GlobalAssign {
        let mut ga = GlobalAssign::none(fx.nvars);
        let words = fx.nblocks.div_ceil(64).max(1);
        for c in RegClass::ALL {
            ga.taken[c.index()] = vec![vec![0u64; words]; p.get(c) as usize];
        }
        let mut cands: Vec<VarId> = match step {
            GlobalStep::Weighted => (0..fx.nvars as VarId).filter(|&x| var_cost[x as usize] > 0).collect(),
            _ => (0..fx.nvars as VarId).filter(|&x| fx.span(x).len() > 1).collect(),
        };
        match step {
            GlobalStep::Lifetime => {
                let depth = |x: VarId| fx.span(x).iter().map(|&b| fx.weight[b as usize]).max().unwrap_or(0);
                cands.sort_by_key(|&x| {
                    (core::cmp::Reverse(fx.span(x).len()), core::cmp::Reverse(fx.uses[x as usize]), core::cmp::Reverse(depth(x)), x)
                });
            }
            _ => cands.sort_by_key(|&x| (core::cmp::Reverse(var_cost[x as usize]), x)),
        }
        let mut holders: [Vec<Vec<VarId>>; 2] = [vec![Vec::new(); p.get(RegClass::Scalar) as usize], vec![Vec::new(); p.get(RegClass::Vector) as usize]];
        for x in cands {
            let c = fx.class[x as usize];
            let span = fx.span(x);
            let adj = &fx.interference[x as usize];
            let free = (q[c.index()]..p.get(c)).find(|&r| holders[c.index()][r as usize].iter().all(|y| adj.binary_search(y).is_err()));
            if let Some(r) = free {
                holders[c.index()][r as usize].push(x);
                for &b in span {
                    ga.taken[c.index()][r as usize][b as usize / 64] |= 1 << (b % 64);
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
        let top = ga.taken[c.index()].len() as u32;
        let list = &mut out[c.index()];
        list.clear();
        list.extend(0..q[c.index()]);
        list.extend((q[c.index()]..top).filter(|&r| !ga.is_taken(c, r, b)));
    }
}

