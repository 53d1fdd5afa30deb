//! Re-planning a game's register decisions with its order known.
//!
//! `Local-Alloc` decides, move by move, which operation runs next *and*
//! which values to evict or slide, without knowing what comes later; its
//! step 4 ("store the input with the smallest slide cost and slide it") is
//! myopic: it may store a value read four more times rather than drop a
//! source already in memory. Once the heuristic has fixed the order, the
//! future is known, and the register decisions can be made again the way
//! Belady's MIN makes them (L. A. Belady, "A study of replacement
//! algorithms for a virtual-storage computer", IBM Systems Journal, 1966;
//! `docs/references.md`): when a register is needed, take one that costs
//! nothing (empty, or holding a value nothing reads again and that needs
//! no store), else evict the value whose next read is furthest away,
//! preferring a value already in memory on a tie; an output takes the
//! register of an input read for the last time.
//!
//! [`Replanner::replan`] plays the same order with these decisions; the caller keeps
//! whichever of the two games is cheaper ([`crate::LocalRule::Refined`]).
//! Invariant: the result is a legal game ([`crate::game::replay`]), with
//! the order given.

use crate::class::{PReg, RegClass};
use crate::dag::{Dag, NONE, OpId, OpKind, ValueId};
use crate::game::{Board, Move, PebbleError, Schedule, Setup};
use smallvec::SmallVec;

/// Reusable buffers for [`Replanner::replan`].
#[derive(Clone, Debug, Default)]
pub struct Replanner {
    b: Board,
    /// Per value: positions (in the order) of the operations reading it,
    /// in CSR, and a cursor to the next one.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    cursor: Vec<u32>,
    moves: Vec<Move>,
    out_reg: Vec<Option<PReg>>,
    height: Vec<u32>,
    state: Vec<u8>,
    stack: Vec<(OpId, u32)>,
    kids: Vec<OpId>,
}

impl Replanner {
    /// A fresh context.
    pub fn new() -> Replanner {
        Replanner::default()
    }

    /// Plays `order` (every operation once, a legal order) on `dag` from
    /// `setup`, deciding loads, stores and registers with the future known.
    pub fn replan(&mut self, dag: &Dag, setup: &Setup, order: &[OpId], out: &mut Schedule) -> Result<(), PebbleError> {
        self.b.reset(dag, setup).map_err(PebbleError::Setup)?;
        let nv = dag.num_values();
        // Reads per value in order position.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (pos, &o) in order.iter().enumerate() {
            for &v in dag.inputs(o) {
                pairs.push((v, pos as u32));
            }
        }
        cfg_dom::csr::bucket(nv, &pairs, &mut self.read_start, &mut self.reads);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.read_start[..nv]);
        self.moves.clear();
        self.out_reg.clear();
        self.out_reg.resize(nv, None);
        let (mut loads, mut stores) = (0u64, 0u64);
        for (pos, &op) in order.iter().enumerate() {
            let pos = pos as u32;
            if dag.kind(op) == OpKind::Terminator {
                // Sinks that must be in memory are stored first.
                stores += self.flush_sinks(dag);
            }
            // Inputs into registers.
            let ins = dag.inputs(op);
            let mut missing: SmallVec<[ValueId; 8]> = ins.iter().copied().filter(|&v| !self.b.is_red(v)).collect();
            missing.sort_unstable_by_key(|&v| dag.value_rank(v));
            for v in missing {
                let c = dag.class(v);
                let r = self.room(dag, c, op, pos, &mut stores).ok_or_else(|| self.too_few(dag, op, c))?;
                self.moves.push(Move::Load { value: v, reg: PReg::new(c, r) });
                loads += 1;
                self.b.put(dag, v, r);
            }
            // The reads happen; advance the cursors.
            for &v in ins {
                self.b.pending[v as usize] -= 1;
                self.cursor[v as usize] += 1;
            }
            // Outputs.
            let outs = dag.outputs(op);
            let ties: SmallVec<[Option<ValueId>; 4]> = dag.tied(op).collect();
            // Tied inputs' registers belong to their outputs.
            let mut taken: SmallVec<[(RegClass, u32); 4]> = ties
                .iter()
                .flatten()
                .filter(|&&t| self.b.pin[t as usize] == NONE)
                .map(|&t| (dag.class(t), self.b.red[t as usize]))
                .collect();
            let mut placed: SmallVec<[(ValueId, u32); 4]> = SmallVec::new();
            for (k, &o) in outs.iter().enumerate() {
                let c = dag.class(o);
                if self.b.pin[o as usize] != NONE {
                    self.out_reg[o as usize] = Some(PReg::new(c, self.b.pin[o as usize]));
                    continue;
                }
                let r = if let Some(t) = ties[k] {
                    if !self.b.can_drop(dag, t) {
                        self.moves.push(Move::Store { value: t });
                        self.b.blue[t as usize] = true;
                        stores += 1;
                    }
                    self.b.red[t as usize]
                } else {
                    // An input read for the last time (and safe to drop).
                    let slide = ins
                        .iter()
                        .copied()
                        .filter(|&i| {
                            dag.class(i) == c
                                && self.b.red[i as usize] != NONE
                                && self.b.pin[i as usize] == NONE
                                && !ties.contains(&Some(i))
                                && !taken.contains(&(c, self.b.red[i as usize]))
                                && self.b.pending[i as usize] == 0
                                && self.b.can_drop(dag, i)
                        })
                        .min_by_key(|&i| dag.value_rank(i));
                    match slide {
                        Some(i) => self.b.red[i as usize],
                        None => self
                            .room_for_output(dag, c, op, pos, &taken, &mut stores)
                            .ok_or_else(|| self.too_few(dag, op, c))?,
                    }
                };
                taken.push((c, r));
                placed.push((o, r));
            }
            for &(o, r) in &placed {
                let c = dag.class(o);
                let h = self.b.holder[c.index()][r as usize];
                if h != NONE {
                    self.b.unred(dag, h);
                }
                self.b.put(dag, o, r);
                self.out_reg[o as usize] = Some(PReg::new(c, r));
            }
            for &o in outs {
                self.b.ready[o as usize] = true;
            }
            self.b.done[op as usize] = true;
            self.moves.push(Move::Compute { op });
            // Dead values free their registers.
            for &v in ins.iter().chain(outs) {
                if self.b.red[v as usize] != NONE && self.b.pending[v as usize] == 0 && !dag.is_sink(v) {
                    self.b.unred(dag, v);
                }
            }
        }
        if dag.terminator().is_none() {
            stores += self.flush_sinks(dag);
        }
        std::mem::swap(&mut self.moves, &mut out.moves);
        std::mem::swap(&mut self.out_reg, &mut out.out_reg);
        out.final_blue.clear();
        out.final_blue.extend_from_slice(&self.b.blue);
        out.final_red.clear();
        out.final_red.extend((0..nv as ValueId).map(|v| {
            let r = self.b.red[v as usize];
            (r != NONE).then(|| PReg::new(dag.class(v), r))
        }));
        out.loads = loads;
        out.stores = stores;
        Ok(())
    }

    /// Another canonical order, depth first from the DAG's roots (values
    /// nothing reads, and operations nothing waits for) in rank order,
    /// each operation after what it reads and waits for, the taller input
    /// first (Sethi and Ullman's rule: the subcomputation needing more
    /// registers goes first) or the shorter; the terminator last. Depends
    /// only on the DAG's structure and ranks.
    pub fn depth_first_order(&mut self, dag: &Dag, tallest_first: bool, out: &mut Vec<OpId>) {
        let no = dag.num_ops();
        out.clear();
        // Height of each op: longest chain of ops below it.
        self.height.clear();
        self.height.resize(no, 0);
        for o in 0..no as OpId {
            let h = dag
                .inputs(o)
                .iter()
                .filter_map(|&v| dag.def_op(v))
                .chain(dag.waits_for(o).iter().copied())
                .map(|d| self.height[d as usize] + 1)
                .max()
                .unwrap_or(0);
            self.height[o as usize] = h;
        }
        self.state.clear();
        self.state.resize(no, 0);
        let mut roots: Vec<OpId> = (0..no as OpId)
            .filter(|&o| {
                dag.kind(o) != OpKind::Terminator
                    && dag.outputs(o).iter().all(|&v| dag.users(v).is_empty())
                    && dag.waiters(o).is_empty()
            })
            .collect();
        roots.sort_unstable_by_key(|&o| dag.op_rank(o));
        let term = dag.terminator();
        for root in roots.into_iter().chain(term) {
            if self.state[root as usize] != 0 {
                continue;
            }
            self.stack.clear();
            self.stack.push((root, 0));
            self.state[root as usize] = 1;
            while let Some(&mut (o, ref mut k)) = self.stack.last_mut() {
                // The predecessors of o, tallest first, then by rank.
                self.kids.clear();
                self.kids.extend(
                    dag.inputs(o).iter().filter_map(|&v| dag.def_op(v)).chain(dag.waits_for(o).iter().copied()),
                );
                if Some(o) == term {
                    self.kids.extend((0..no as OpId).filter(|&x| x != o));
                }
                let height = &self.height;
                if tallest_first {
                    self.kids.sort_unstable_by_key(|&d| (core::cmp::Reverse(height[d as usize]), dag.op_rank(d)));
                } else {
                    self.kids.sort_unstable_by_key(|&d| (height[d as usize], dag.op_rank(d)));
                }
                self.kids.dedup();
                let next = self.kids.iter().skip(*k as usize).position(|&d| self.state[d as usize] == 0);
                match next {
                    Some(j) => {
                        *k += j as u32 + 1;
                        let d = self.kids[*k as usize - 1];
                        self.state[d as usize] = 1;
                        self.stack.push((d, 0));
                    }
                    None => {
                        self.stack.pop();
                        self.state[o as usize] = 2;
                        out.push(o);
                    }
                }
            }
        }
    }

    /// Stores every sink that must end in memory and is only in a
    /// register, in rank order; returns how many.
    fn flush_sinks(&mut self, dag: &Dag) -> u64 {
        let mut sinks: SmallVec<[ValueId; 16]> = dag.sinks().collect();
        sinks.sort_unstable_by_key(|&v| dag.value_rank(v));
        let mut n = 0;
        for v in sinks {
            let vi = v as usize;
            if self.b.pin[vi] == NONE && !self.b.sink_anywhere[vi] && !self.b.blue[vi] && self.b.red[vi] != NONE {
                self.moves.push(Move::Store { value: v });
                self.b.blue[vi] = true;
                n += 1;
            }
        }
        n
    }

    fn too_few(&self, dag: &Dag, op: OpId, c: RegClass) -> PebbleError {
        PebbleError::TooFewRegisters {
            op,
            class: c,
            needs: dag.demand(op, c),
            have: self.b.regs[c.index()].len() as u32,
        }
    }

    /// The next read of `v` at or after the current position (`u32::MAX`:
    /// none).
    fn next_read(&self, v: ValueId) -> u32 {
        let end = self.read_start[v as usize + 1];
        let k = self.cursor[v as usize];
        if k < end { self.reads[k as usize] } else { u32::MAX }
    }

    /// A register of class `c` for an input of `op`: free, else Belady.
    fn room(&mut self, dag: &Dag, c: RegClass, op: OpId, pos: u32, stores: &mut u64) -> Option<u32> {
        self.pick(dag, c, op, pos, &[], true, stores)
    }

    fn room_for_output(
        &mut self,
        dag: &Dag,
        c: RegClass,
        op: OpId,
        pos: u32,
        taken: &[(RegClass, u32)],
        stores: &mut u64,
    ) -> Option<u32> {
        self.pick(dag, c, op, pos, taken, false, stores)
    }

    /// The register to use: empty first, then one whose value costs
    /// nothing to drop, then the value read furthest ahead (in memory
    /// already on a tie), stored first when memory lacks it and it is still
    /// wanted. Never a register `op` reads (inputs stay until it runs).
    #[allow(clippy::too_many_arguments)]
    fn pick(
        &mut self,
        dag: &Dag,
        c: RegClass,
        op: OpId,
        pos: u32,
        taken: &[(RegClass, u32)],
        loading: bool,
        stores: &mut u64,
    ) -> Option<u32> {
        let ci = c.index();
        // (preference key, register): the least key wins.
        type Key = (u8, core::cmp::Reverse<u32>, bool, u32);
        let mut best: Option<(Key, u32)> = None;
        for &r in &self.b.regs[ci] {
            if taken.contains(&(c, r)) {
                continue;
            }
            let h = self.b.holder[ci][r as usize];
            let key = if h == NONE {
                (0, core::cmp::Reverse(u32::MAX), true, r)
            } else {
                // Inputs stay while the operation's inputs are loaded; once
                // read, an input may give its register to an output.
                if self.b.pin[h as usize] != NONE || (loading && dag.inputs(op).contains(&h)) {
                    continue;
                }
                let free = self.b.pending[h as usize] == 0 && self.b.can_drop(dag, h);
                if free {
                    (1, core::cmp::Reverse(u32::MAX), true, dag.value_rank(h))
                } else {
                    // After the read, an input of `op` is next read later.
                    let next = self.next_read(h);
                    let next = if next == pos { u32::MAX - 1 } else { next };
                    (2, core::cmp::Reverse(next), !self.b.blue[h as usize], dag.value_rank(h))
                }
            };
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, r));
            }
        }
        let (_, r) = best?;
        let h = self.b.holder[ci][r as usize];
        if h != NONE {
            if !self.b.can_drop(dag, h) {
                self.moves.push(Move::Store { value: h });
                self.b.blue[h as usize] = true;
                *stores += 1;
            }
            self.b.unred(dag, h);
        }
        Some(r)
    }
}
