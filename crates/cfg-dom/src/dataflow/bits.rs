//! The gen/kill bitset solver: [`GenKill`] problems and their
//! [`BitDataflow`] solutions, each family of sets one flat `u64` matrix
//! (see the module doc's "bitset representation").
//!
//! Invariants: bits past the domain in the last word of a row are always
//! zero; element and node arguments out of range are ignored; the fixpoint
//! loop allocates nothing.

use super::framework::{Confluence, Direction, Flow};
use super::worklist::Worklist;
use crate::graph::{Graph, NONE, Node};

/// A gen/kill problem over sets of `0..domain_size`: per node a gen and a
/// kill set, so that the transfer of node `n` is `out = gen ∪ (in − kill)`
/// forward and `in = gen ∪ (out − kill)` backward; a boundary set; and an
/// optional per-node **join-gen** set, united into the node's confluence
/// result after the confluence (its out state backward, its in state
/// forward), for facts that arise on the node's outgoing (backward) or
/// incoming (forward) edges whatever the neighbours say — liveness puts
/// there the phi operands its successors read at its end.
///
/// Solve it with [`BitDataflow`]. Sets are rows of flat word matrices (see
/// the module doc); element and node arguments out of range are ignored.
#[derive(Clone, Debug, Default)]
pub struct GenKill {
    flow: Flow,
    num_nodes: usize,
    domain: usize,
    words: usize,
    gens: Vec<u64>,
    kills: Vec<u64>,
    /// Empty until a join-gen bit is first inserted (then `num_nodes`
    /// rows).
    join_gens: Vec<u64>,
    boundary: Vec<u64>,
}

/// `(word, mask)` of element `e`.
fn bit(e: usize) -> (usize, u64) {
    (e / 64, 1u64 << (e % 64))
}

impl GenKill {
    /// An empty problem: no nodes, an empty domain, [`Flow::default`].
    pub fn new() -> GenKill {
        GenKill::default()
    }

    /// A problem of `num_nodes` nodes over `0..domain_size`, every set
    /// empty.
    pub fn with_size(flow: Flow, num_nodes: usize, domain_size: usize) -> GenKill {
        let mut p = GenKill::new();
        p.reset(flow, num_nodes, domain_size);
        p
    }

    /// Resizes to `num_nodes` nodes over `0..domain_size` with every set
    /// empty, reusing buffers.
    pub fn reset(&mut self, flow: Flow, num_nodes: usize, domain_size: usize) {
        self.clear();
        self.flow = flow;
        self.num_nodes = num_nodes;
        self.domain = domain_size;
        self.words = domain_size.div_ceil(64);
        let cells = num_nodes.saturating_mul(self.words);
        self.gens.resize(cells, 0);
        self.kills.resize(cells, 0);
        self.boundary.resize(self.words, 0);
    }

    /// Empties the problem (no nodes), keeping its buffers.
    pub fn clear(&mut self) {
        self.num_nodes = 0;
        self.domain = 0;
        self.words = 0;
        self.gens.clear();
        self.kills.clear();
        self.join_gens.clear();
        self.boundary.clear();
    }

    /// Direction, confluence and scope.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// Size of the domain: elements are `0..domain_size()`.
    pub fn domain_size(&self) -> usize {
        self.domain
    }

    /// Words per row: `ceil(domain_size / 64)`.
    pub fn words_per_row(&self) -> usize {
        self.words
    }

    fn range(&self, n: Node) -> Option<core::ops::Range<usize>> {
        let n = n as usize;
        (n < self.num_nodes).then(|| n * self.words..(n + 1) * self.words)
    }

    fn set(matrix: &mut [u64], row: Option<core::ops::Range<usize>>, e: usize, domain: usize, on: bool) -> bool {
        let Some(row) = row.filter(|_| e < domain) else { return false };
        let (w, m) = bit(e);
        let Some(word) = matrix.get_mut(row.start + w) else { return false };
        let was = *word & m != 0;
        if on {
            *word |= m;
        } else {
            *word &= !m;
        }
        was != on
    }

    /// Adds `e` to the gen set of `n`; true when it was not there.
    pub fn insert_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.gens, row, e, self.domain, true)
    }

    /// Removes `e` from the gen set of `n`; true when it was there.
    pub fn remove_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.gens, row, e, self.domain, false)
    }

    /// Adds `e` to the kill set of `n`; true when it was not there.
    pub fn insert_kill(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.kills, row, e, self.domain, true)
    }

    /// Adds every element of `elems` (clipped to the domain) to the kill
    /// set of `n`, a word at a time: a definition killing every other
    /// definition of its variable is one range when definitions are
    /// numbered by variable. Nothing happens when `n` is out of range.
    pub fn insert_kill_range(&mut self, n: Node, elems: core::ops::Range<usize>) {
        let Some(row) = self.range(n) else { return };
        let (lo, hi) = (elems.start, elems.end.min(self.domain));
        if lo >= hi {
            return;
        }
        let words = &mut self.kills[row];
        let (first, last) = (lo / 64, (hi - 1) / 64);
        let head = !0u64 << (lo % 64);
        let tail = !0u64 >> (63 - (hi - 1) % 64);
        if first == last {
            words[first] |= head & tail;
            return;
        }
        words[first] |= head;
        words[first + 1..last].fill(!0);
        words[last] |= tail;
    }

    /// Removes `e` from the kill set of `n`; true when it was there.
    pub fn remove_kill(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        GenKill::set(&mut self.kills, row, e, self.domain, false)
    }

    /// Adds `e` to the join-gen set of `n` (see the type's doc); true when
    /// it was not there.
    pub fn insert_join_gen(&mut self, n: Node, e: usize) -> bool {
        let row = self.range(n);
        if row.is_none() || e >= self.domain {
            return false;
        }
        if self.join_gens.is_empty() {
            self.join_gens.resize(self.gens.len(), 0);
        }
        GenKill::set(&mut self.join_gens, row, e, self.domain, true)
    }

    /// Adds `e` to the boundary set; true when it was not there.
    pub fn insert_boundary(&mut self, e: usize) -> bool {
        let row = Some(0..self.words);
        GenKill::set(&mut self.boundary, row, e, self.domain, true)
    }

    /// The gen set of `n` as words (empty out of range).
    pub fn gen_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.gens.get(r)).unwrap_or(&[])
    }

    /// The kill set of `n` as words (empty out of range).
    pub fn kill_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.kills.get(r)).unwrap_or(&[])
    }

    /// The join-gen set of `n` as words (empty out of range or when no
    /// node has one).
    pub fn join_gen_row(&self, n: Node) -> &[u64] {
        self.range(n).and_then(|r| self.join_gens.get(r)).unwrap_or(&[])
    }

    /// The boundary set as words.
    pub fn boundary_row(&self) -> &[u64] {
        &self.boundary
    }
}

/// The solution of a [`GenKill`] problem: an in and an out set per node,
/// as rows of two flat word matrices.
///
/// Follows the crate's lifecycle (`new`, `of`, `compute` reusing buffers,
/// `clear`). The fixpoint loop allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BitDataflow {
    flow: Flow,
    domain: usize,
    words: usize,
    ins: Vec<u64>,
    outs: Vec<u64>,
    work: Worklist,
    tmp: Vec<u64>,
    visits: u64,
    stamp: Option<u64>,
}

impl BitDataflow {
    /// An empty solution (no nodes).
    pub fn new() -> BitDataflow {
        BitDataflow::default()
    }

    /// Solves `problem` on `g`.
    pub fn of(g: &impl Graph, problem: &GenKill) -> BitDataflow {
        let mut s = BitDataflow::new();
        s.compute(g, problem);
        s
    }

    /// Empties the solution, keeping its buffers.
    pub fn clear(&mut self) {
        self.domain = 0;
        self.words = 0;
        self.ins.clear();
        self.outs.clear();
        self.work.clear();
        self.tmp.clear();
        self.visits = 0;
        self.stamp = None;
    }

    /// Solves `problem` on `g` to its fixed point, reusing buffers. The
    /// graph's nodes are solved; rows the problem lacks (nodes past its
    /// `num_nodes`) count as empty gen and kill sets.
    pub fn compute(&mut self, g: &impl Graph, problem: &GenKill) {
        self.clear();
        let n = g.num_nodes().min(NONE as usize);
        self.stamp = g.stamp();
        self.flow = problem.flow;
        self.domain = problem.domain;
        let w = problem.words;
        self.words = w;
        let cells = n.saturating_mul(w);
        self.ins.resize(cells, 0);
        self.outs.resize(cells, 0);
        self.tmp.resize(w, 0);
        self.work.build(g, n, self.flow.direction, self.flow.scope);
        let must = self.flow.confluence == Confluence::Must;
        let full = full_mask(self.domain);
        if must {
            for &v in &self.work.order {
                let r = v as usize * w..(v as usize + 1) * w;
                fill(&mut self.ins[r.clone()], full);
                fill(&mut self.outs[r], full);
            }
        }
        let entry = g.entry();
        let forward = self.flow.direction == Direction::Forward;
        while let Some(v) = self.work.pop() {
            self.visits += 1;
            let vi = v as usize;
            let row = vi * w..(vi + 1) * w;
            let tmp = &mut self.tmp[..];
            if must {
                fill(tmp, full);
            } else {
                tmp.fill(0);
            }
            // Confluence into `tmp`, then the join-gen set.
            let boundary_node = if forward {
                for p in g.predecessors(v) {
                    if self.work.in_scope(p) {
                        combine(tmp, &self.outs[p as usize * w..(p as usize + 1) * w], must);
                    }
                }
                entry == Some(v)
            } else {
                let mut exit = true;
                for s in g.successors(v) {
                    if (s as usize) < n {
                        exit = false;
                        if self.work.in_scope(s) {
                            combine(tmp, &self.ins[s as usize * w..(s as usize + 1) * w], must);
                        }
                    }
                }
                exit
            };
            if boundary_node {
                combine(tmp, &problem.boundary, must);
            }
            let jg = problem.join_gen_row(v);
            if jg.len() == w {
                tmp.iter_mut().zip(jg).for_each(|(t, &j)| *t |= j);
            }
            // Store the confluence side; transfer into the other side.
            let (join_side, other_side) =
                if forward { (&mut self.ins, &mut self.outs) } else { (&mut self.outs, &mut self.ins) };
            join_side[row.clone()].copy_from_slice(tmp);
            let other = &mut other_side[row];
            let (gen_row, kill_row) = (problem.gen_row(v), problem.kill_row(v));
            let mut changed = false;
            if gen_row.len() == w && kill_row.len() == w {
                for (((o, &t), &gn), &k) in other.iter_mut().zip(tmp.iter()).zip(gen_row).zip(kill_row) {
                    let new = gn | (t & !k);
                    changed |= new != *o;
                    *o = new;
                }
            } else {
                changed = other != tmp;
                other.copy_from_slice(tmp);
            }
            if changed {
                if forward {
                    for s in g.successors(v) {
                        self.work.push(s);
                    }
                } else {
                    for p in g.predecessors(v) {
                        self.work.push(p);
                    }
                }
            }
        }
    }

    /// Direction, confluence and scope of the problem solved.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Size of the domain solved.
    pub fn domain_size(&self) -> usize {
        self.domain
    }

    /// Number of nodes solved for (the graph's).
    pub fn num_nodes(&self) -> usize {
        self.work.pos.len()
    }

    fn row<'a>(&self, m: &'a [u64], n: Node) -> &'a [u64] {
        let n = n as usize;
        m.get(n * self.words..(n + 1) * self.words).unwrap_or(&[])
    }

    /// The in set of `n` (at its top) as words; empty out of range.
    pub fn in_words(&self, n: Node) -> &[u64] {
        self.row(&self.ins, n)
    }

    /// The out set of `n` (at its bottom) as words; empty out of range.
    pub fn out_words(&self, n: Node) -> &[u64] {
        self.row(&self.outs, n)
    }

    /// True when `e` is in the in set of `n`.
    pub fn contains_in(&self, n: Node, e: usize) -> bool {
        contains(self.in_words(n), e)
    }

    /// True when `e` is in the out set of `n`.
    pub fn contains_out(&self, n: Node, e: usize) -> bool {
        contains(self.out_words(n), e)
    }

    /// The elements of the in set of `n`, in increasing order.
    pub fn iter_in(&self, n: Node) -> impl Iterator<Item = usize> + '_ {
        ones(self.in_words(n))
    }

    /// The elements of the out set of `n`, in increasing order.
    pub fn iter_out(&self, n: Node) -> impl Iterator<Item = usize> + '_ {
        ones(self.out_words(n))
    }

    /// True when `n` was solved (it is in the problem's scope).
    pub fn is_solved(&self, n: Node) -> bool {
        self.work.in_scope(n)
    }

    /// Number of node visits the fixpoint took (at least one per solved
    /// node).
    pub fn visits(&self) -> u64 {
        self.visits
    }

    /// The stamp of the graph the solution was computed on.
    pub fn stamp(&self) -> Option<u64> {
        self.stamp
    }
}

/// The last-word mask of a full row of `domain` elements (all ones when the
/// domain fills whole words).
fn full_mask(domain: usize) -> u64 {
    if domain.is_multiple_of(64) { !0 } else { (1u64 << (domain % 64)) - 1 }
}

/// Fills a row with every element of the domain (`last` masks the last
/// word).
fn fill(row: &mut [u64], last: u64) {
    row.fill(!0);
    if let Some(l) = row.last_mut() {
        *l = last;
    }
}

/// `acc ∩= x` (must) or `acc ∪= x` (may), word by word.
fn combine(acc: &mut [u64], x: &[u64], must: bool) {
    if must {
        acc.iter_mut().zip(x).for_each(|(a, &b)| *a &= b);
    } else {
        acc.iter_mut().zip(x).for_each(|(a, &b)| *a |= b);
    }
}

fn contains(row: &[u64], e: usize) -> bool {
    let (w, m) = bit(e);
    row.get(w).is_some_and(|&x| x & m != 0)
}

/// The set bits of a row, in increasing order.
pub(crate) fn ones(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
    row.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        core::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(i * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_bits() {
        let mut p = GenKill::with_size(Flow::default(), 3, 130);
        assert_eq!(p.words_per_row(), 3);
        assert!(p.insert_gen(1, 129) && !p.insert_gen(1, 129));
        assert!(!p.insert_gen(3, 0) && !p.insert_gen(0, 130));
        assert_eq!(p.gen_row(1), [0, 0, 2]);
        assert!(p.remove_gen(1, 129) && !p.remove_gen(1, 129));
        assert!(p.join_gen_row(0).is_empty());
        assert!(p.insert_join_gen(2, 64));
        assert_eq!(p.join_gen_row(2), [0, 1, 0]);
        assert_eq!(full_mask(130), 3);
        assert_eq!(ones(&[0b101, 1 << 63]).collect::<Vec<_>>(), [0, 2, 127]);
    }
}
