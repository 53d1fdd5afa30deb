//! Step 1 of `Local-Alloc`: the set `S` of `P` frontier values minimising
//! `move-cost(S) / (number of operations S dominates)`.
//!
//! *Dominates* (source document 004's "支配"; `docs/references.md`): an operation not yet run is
//! dominated by `S` when it can be computed from `S` alone — each input is
//! in `S` or an output of an operation `S` dominates (or a constant that
//! needs no input), and each operation it waits for has run or is
//! dominated. `move-cost(S)` is the number of values of `S` not in a
//! register. The closure is counted up to [`DOMINATED_CAP`] operations: a
//! set that opens that much work is as good as one that opens more.
//!
//! Exact minimisation over all `P`-subsets is exponential in the frontier,
//! so: when the frontier fits (at most `P` values per class) `S` is the
//! frontier; when the number of `P`-subsets is at most [`ENUMERATE_LIMIT`]
//! every one is tried (document 004's examples are in this case); otherwise
//! `S` is grown greedily — red values first (they cost nothing), each time
//! the one that adds the most dominated operations. Every tie is broken by
//! rank, never by id, so the choice does not depend on how the DAG was
//! numbered.

use crate::class::RegClass;
use crate::dag::{Dag, OpKind, ValueId};
use crate::game::Board;

/// Dominated operations are counted up to this many.
pub const DOMINATED_CAP: u32 = 64;

/// Up to this many candidate sets are enumerated exactly.
pub const ENUMERATE_LIMIT: u64 = 128;

/// Scratch memory of the selection, reused across steps (stamped, so
/// nothing is cleared per step).
#[derive(Clone, Debug, Default)]
pub(crate) struct Selector {
    stamp: u32,
    /// Per value: in `S` or produced by a dominated operation, at `stamp`.
    avail: Vec<u32>,
    /// Per op: touched at `stamp`, and its remaining requirements.
    touched: Vec<u32>,
    req: Vec<u32>,
    dom: Vec<u32>,
    queue: Vec<u32>,
    /// The chosen set.
    pub chosen: Vec<ValueId>,
    trial: Vec<ValueId>,
    best: Vec<ValueId>,
}

impl Selector {
    pub fn reset(&mut self, dag: &Dag) {
        self.stamp = 0;
        self.avail.clear();
        self.avail.resize(dag.num_values(), 0);
        self.touched.clear();
        self.touched.resize(dag.num_ops(), 0);
        self.req.clear();
        self.req.resize(dag.num_ops(), 0);
        self.dom.clear();
        self.dom.resize(dag.num_ops(), 0);
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.avail.iter_mut().for_each(|x| *x = 0);
            self.touched.iter_mut().for_each(|x| *x = 0);
            self.dom.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The number of operations `set` dominates (capped).
    pub fn dominated(&mut self, dag: &Dag, b: &Board, lazy: &[bool], set: &[ValueId]) -> u32 {
        let s = self.next_stamp();
        self.queue.clear();
        for &v in set {
            self.avail[v as usize] = s;
            self.queue.push(v);
        }
        let mut count = 0u32;
        // The queue holds values that just became available (tagged) and
        // operations that just became dominated (for their waiters), kept
        // apart by the high bit.
        const OP: u32 = 1 << 31;
        while let Some(x) = self.queue.pop() {
            let ops: &[u32] = if x & OP != 0 { dag.waiters(x & !OP) } else { dag.users(x) };
            for &o in ops {
                if b.done[o as usize] || dag.kind(o) == OpKind::Terminator || self.dom[o as usize] == s {
                    continue;
                }
                if self.touched[o as usize] != s {
                    self.touched[o as usize] = s;
                    self.req[o as usize] = self.unmet(dag, b, lazy, o, s);
                } else {
                    self.req[o as usize] = self.req[o as usize].saturating_sub(1);
                }
                if self.req[o as usize] == 0 {
                    self.dom[o as usize] = s;
                    count += 1;
                    if count >= DOMINATED_CAP {
                        return count;
                    }
                    for &out in dag.outputs(o) {
                        self.avail[out as usize] = s;
                        self.queue.push(out);
                    }
                    if !dag.waiters(o).is_empty() {
                        self.queue.push(o | OP);
                    }
                }
            }
        }
        count
    }

    /// Requirements of `o` not met by what is available at stamp `s`.
    fn unmet(&self, dag: &Dag, b: &Board, lazy: &[bool], o: u32, s: u32) -> u32 {
        let ins = dag.inputs(o).iter().filter(|&&v| {
            if self.avail[v as usize] == s || b.pin[v as usize] != crate::dag::NONE {
                return false;
            }
            // A constant-like input (computed by an operation with no input
            // and nothing to wait for) needs nothing from S.
            !dag.def_op(v).is_some_and(|d| lazy[d as usize] && !b.done[d as usize])
        });
        let waits = dag.waits_for(o).iter().filter(|&&w| !b.done[w as usize] && self.dom[w as usize] != s);
        (ins.count() + waits.count()) as u32
    }

    /// Chooses `S` from `frontier` (values with a pebble and a pending
    /// reader) under per-class caps; the result is in `self.chosen`.
    pub fn select(&mut self, dag: &Dag, b: &Board, lazy: &[bool], frontier: &[ValueId], caps: [u32; 2]) {
        self.chosen.clear();
        let count = |c: RegClass| frontier.iter().filter(|&&v| dag.class(v) == c).count() as u64;
        let (n0, n1) = (count(RegClass::Scalar), count(RegClass::Vector));
        let (k0, k1) = (n0.min(u64::from(caps[0])), n1.min(u64::from(caps[1])));
        if k0 == n0 && k1 == n1 {
            self.chosen.extend_from_slice(frontier);
            return;
        }
        let subsets = binomial(n0, k0).saturating_mul(binomial(n1, k1));
        if subsets <= ENUMERATE_LIMIT {
            self.enumerate(dag, b, lazy, frontier, [k0 as usize, k1 as usize]);
            if !self.chosen.is_empty() {
                return;
            }
        }
        self.greedy(dag, b, lazy, frontier, caps);
    }

    /// Tries every subset with `k[c]` values of each class; keeps the best
    /// ratio (then more dominated, then the smaller ranks). Leaves `chosen`
    /// empty when no subset dominates anything.
    fn enumerate(&mut self, dag: &Dag, b: &Board, lazy: &[bool], frontier: &[ValueId], k: [usize; 2]) {
        let mut by_class: [Vec<ValueId>; 2] = [Vec::new(), Vec::new()];
        for &v in frontier {
            by_class[dag.class(v).index()].push(v);
        }
        for list in &mut by_class {
            list.sort_unstable_by_key(|&v| dag.value_rank(v));
        }
        let combos0 = combinations(by_class[0].len(), k[0]);
        let combos1 = combinations(by_class[1].len(), k[1]);
        let mut best: Option<(u64, u64, Vec<u32>)> = None;
        self.best.clear();
        for c0 in &combos0 {
            for c1 in &combos1 {
                self.trial.clear();
                self.trial.extend(c0.iter().map(|&i| by_class[0][i]));
                self.trial.extend(c1.iter().map(|&i| by_class[1][i]));
                let trial = std::mem::take(&mut self.trial);
                let d = u64::from(self.dominated(dag, b, lazy, &trial));
                self.trial = trial;
                if d == 0 {
                    continue;
                }
                let cost = self.trial.iter().filter(|&&v| !b.is_red(v)).count() as u64;
                let mut ranks: Vec<u32> = self.trial.iter().map(|&v| dag.value_rank(v)).collect();
                ranks.sort_unstable();
                let better = match &best {
                    None => true,
                    Some((bc, bd, br)) => {
                        // cost/d < bc/bd, then larger d, then smaller ranks.
                        let (l, r) = (cost * bd, bc * d);
                        l < r || (l == r && (d > *bd || (d == *bd && ranks < *br)))
                    }
                };
                if better {
                    best = Some((cost, d, ranks));
                    self.best.clone_from(&self.trial);
                }
            }
        }
        if best.is_some() {
            self.chosen.clone_from(&self.best);
        }
    }

    /// Grows `S`: red values first, each round the value adding the most
    /// dominated operations (ties by rank).
    fn greedy(&mut self, dag: &Dag, b: &Board, lazy: &[bool], frontier: &[ValueId], caps: [u32; 2]) {
        let mut left = caps;
        let mut pool: Vec<ValueId> = frontier.to_vec();
        pool.sort_unstable_by_key(|&v| (!b.is_red(v), dag.value_rank(v)));
        self.chosen.clear();
        for red_phase in [true, false] {
            loop {
                let mut base_set = std::mem::take(&mut self.chosen);
                let base = self.dominated(dag, b, lazy, &base_set);
                let mut pick: Option<(u32, usize)> = None;
                for (i, &v) in pool.iter().enumerate() {
                    if b.is_red(v) != red_phase || left[dag.class(v).index()] == 0 {
                        continue;
                    }
                    base_set.push(v);
                    let gain = self.dominated(dag, b, lazy, &base_set).saturating_sub(base);
                    base_set.pop();
                    // Pool is in rank order within a phase: the first best wins.
                    if pick.is_none_or(|(g, _)| gain > g) {
                        pick = Some((gain, i));
                    }
                }
                self.chosen = base_set;
                let Some((_, i)) = pick else { break };
                let v = pool.remove(i);
                left[dag.class(v).index()] -= 1;
                self.chosen.push(v);
            }
        }
    }
}

/// `n` choose `k`, saturating.
fn binomial(n: u64, k: u64) -> u64 {
    let k = k.min(n - k.min(n));
    let mut r: u64 = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
        if r >= u64::MAX / 64 {
            return u64::MAX;
        }
    }
    r
}

/// All `k`-subsets of `0..n`, as index lists in lexicographic order (called
/// only when their number is small).
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..k).collect();
    if k > n {
        return out;
    }
    loop {
        out.push(idx.clone());
        // Advance the rightmost index that can move.
        let mut i = k;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if idx[i] < n - k + i {
                break;
            }
            if i == 0 && idx[0] >= n - k {
                return out;
            }
        }
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{binomial, combinations};

    #[test]
    fn counting() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(3, 3), 1);
        assert_eq!(binomial(3, 0), 1);
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(3, 0), vec![Vec::<usize>::new()]);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(3, 2), vec![vec![0, 1], vec![0, 2], vec![1, 2]]);
    }
}
