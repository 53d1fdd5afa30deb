//! Shared spill slots: the vars of one copy group (a copy's source and
//! destination, transitively: after SSA, a phi's destination and its
//! arguments) get one home slot when no two of them are ever live at
//! once. A copy of a value whose home is current then leaves
//! the destination's home current too, with no store; regalloc2 gets the
//! same from merging a block parameter's bundle with its arguments', so
//! that a spilled loop-carried value is stored once per iteration, not
//! once per copy (`docs/design/regalloc-pebble.md`, "Shared slots").
//!
//! The test: two vars of a group conflict when one is live right after a
//! definition of the other (Chaitin's interference, "Register allocation
//! via coloring", 1981, here *without* its copy exception: a copy's
//! source must die at the copy). With no conflict in a group, at most one
//! of its vars is live at any point (the last definition before a point
//! where two were live would have been made while the other was live),
//! so one slot serves the whole group: a store of one var never
//! overwrites a value another still needs, and the checker, which knows
//! a copy's destination equals its source only at the copy, sees every
//! load read its own var's value. A phi's destination and arguments after
//! SSA destruction (the case that matters: a loop-carried value spilled
//! around its loop) pass; a copy of a value read again later does not,
//! and neither does a group with two vars live into the function's entry
//! (params, or vars read before any definition). A group with any
//! conflict keeps a slot per var.
//!
//! Invariants: `key[x]` is `x` or its group's representative, the same
//! for every var of a shared group. The liveness comes from the walk the
//! caller makes anyway (the sweep's next reads: each block backward from
//! its live-out list), so this costs O(1) per var occurrence, no
//! recursion.

use crate::dag::NONE;
use crate::planted::{Bug, planted};
use cfg_dom::VarId;

/// Buffers reused between functions.
#[derive(Debug, Default)]
pub(crate) struct SlotShare {
    /// Per var: its group's representative when the group has two vars or
    /// more, else `NONE`.
    group: Vec<u32>,
    /// Per representative: vars of its group live at the current point
    /// (before the walk: the group's size).
    count: Vec<u32>,
    /// Per representative: two of its vars conflict.
    bad: Vec<bool>,
    live: Vec<bool>,
    touched: Vec<VarId>,
}

impl SlotShare {
    /// Starts a function whose vars have the copy-group representatives
    /// `root` (a var alone in its group is its own); the walk follows
    /// ([`crate::belady`]'s backward walk of each block's next reads).
    pub(crate) fn begin(&mut self, root: &[VarId]) {
        let nv = root.len();
        let count = &mut self.count;
        count.clear();
        count.resize(nv, 0);
        for &r in root {
            count[r as usize] += 1;
        }
        self.group.clear();
        self.group.extend(root.iter().map(|&r| if count[r as usize] > 1 { r } else { NONE }));
        count.fill(0);
        self.bad.clear();
        self.bad.resize(nv, false);
        self.live.clear();
        self.live.resize(nv, false);
        self.touched.clear();
    }

    /// `x` is live here (live out of the block, or read).
    #[inline]
    pub(crate) fn live(&mut self, x: VarId) {
        let g = self.group[x as usize];
        if g != NONE && !self.live[x as usize] {
            self.live[x as usize] = true;
            self.count[g as usize] += 1;
            self.touched.push(x);
        }
    }

    /// An instruction defines `d`: a conflict if another var of its group
    /// is live after it. Call for each definition before any is killed.
    #[inline]
    pub(crate) fn defined(&mut self, d: VarId) {
        let g = self.group[d as usize];
        if g != NONE && self.count[g as usize] > u32::from(self.live[d as usize]) {
            self.bad[g as usize] = true;
        }
    }

    /// An unguarded definition of `d`: not live before it.
    #[inline]
    pub(crate) fn killed(&mut self, d: VarId) {
        if self.live[d as usize] {
            self.live[d as usize] = false;
            self.count[self.group[d as usize] as usize] -= 1;
        }
    }

    /// The walk reached the block's start; `function_entry`: it is the
    /// function's entry, where two vars of a group live in conflict (their
    /// values come from outside).
    pub(crate) fn end_block(&mut self, function_entry: bool) {
        for &x in &self.touched {
            if self.live[x as usize] {
                let g = self.group[x as usize] as usize;
                if function_entry && self.count[g] > 1 {
                    self.bad[g] = true;
                }
                self.live[x as usize] = false;
                self.count[g] -= 1;
            }
        }
        self.touched.clear();
    }

    /// Per var, after every block's walk, the var whose home slot it uses
    /// (see the module doc), into `key`.
    pub(crate) fn keys(&mut self, key: &mut Vec<VarId>) {
        if planted(Bug::ShareConflictingSlots) {
            self.bad.fill(false);
        }
        let bad = &self.bad;
        key.clear();
        key.extend(
            self.group.iter().enumerate().map(|(x, &g)| if g != NONE && !bad[g as usize] { g } else { x as VarId }),
        );
    }
}
