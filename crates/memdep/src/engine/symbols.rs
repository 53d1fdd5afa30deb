//! Symbol liveness: per block, the symbols of affine offsets that an
//! access reachable from its entry may still need (gen: an affine access
//! before any change of its symbol in the block; kill: a change). The
//! fixpoint drops the classes of dead symbols on block entry: they can
//! only cost time.
//!
//! Solved one symbol at a time by path exploration, backward from the
//! blocks that use it (Appel, "Modern Compiler Implementation", §10.1;
//! Brandner et al., "Computing Liveness Sets for SSA-Form Programs",
//! INRIA RR-7503, 2011): a symbol is live on entry to `b` exactly when a
//! path from `b` reaches a block using it without passing a block that
//! changes it, so a walk over predecessors from the using blocks, stopped
//! at the changing ones, visits exactly the blocks where it is live. The
//! work is the size of the answer (each live block once, with its
//! predecessors), where a bitset over all symbols per block costs blocks
//! × symbols / 64 words per round: quadratic on long kernels, where every
//! loop brings its own induction symbols.
//!
//! An induction variable of a loop header is reset along the edges that
//! enter the loop (the fixpoint forgets its classes there), so the walk
//! does not cross them: the variables of a long kernel's loops are live in
//! their loops only, not back to the function's entry.
//!
//! Invariants: the answer is a CSR by block whose rows hold dense symbol
//! indices in increasing order, and also a bitset per block when that
//! takes at most 2 MiB (queries are then O(1), otherwise a bisection of
//! the row); only reachable blocks are walked (an unreachable block's row
//! is empty, and no reachable block's answer depends on one); the walk is
//! an explicit worklist.

use crate::code::{MemInput, Offset};
use cfg_dom::{Dfs, DomTree, Graph, Node};

/// Past this many words (2 MiB), the answer is kept as the CSR alone
/// and a query bisects a row; below, also as a bitset per block, queried
/// in O(1) (a function whose states carry many classes asks once per class
/// per block visit).
const DENSE_WORDS: usize = 1 << 18;

/// Which symbols are live on entry to each block.
#[derive(Clone, Debug, Default)]
pub(super) struct SymbolLiveness {
    /// Dense index of each symbol accesses name (`u32::MAX` for others).
    index: Vec<u32>,
    /// Per block, the dense indices live on entry, sorted (a CSR).
    start: Vec<u32>,
    list: Vec<u32>,
    /// The same as a bitset of `words` words per block, when that is
    /// small (`words` is 0 otherwise).
    words: usize,
    bits: Vec<u64>,
}

impl SymbolLiveness {
    /// Also keeps the answer as a bitset of `words` words per block.
    fn densify(&mut self, n: usize, words: usize) {
        self.words = words;
        self.bits.clear();
        self.bits.resize(n * words, 0);
        for b in 0..n {
            for &i in cfg_dom::csr::row(&self.start, &self.list, b) {
                self.bits[b * words + i as usize / 64] |= 1 << (i % 64);
            }
        }
    }

    /// The dense index of `sym`, if accesses name it.
    fn dense(&self, sym: u32) -> Option<u32> {
        self.index.get(sym as usize).copied().filter(|&i| i != u32::MAX)
    }

    /// True when `sym` may be needed from the entry of `b` on.
    pub(super) fn live_at(&self, b: Node, sym: u32) -> bool {
        let Some(i) = self.dense(sym) else { return false };
        if self.words > 0 {
            return self.bits[b as usize * self.words + i as usize / 64] & (1 << (i % 64)) != 0;
        }
        cfg_dom::csr::row(&self.start, &self.list, b as usize).binary_search(&i).is_ok()
    }
}

/// Per-symbol uses and changes, the input of [`live_in`]: pairs
/// `(symbol, block)`, each at most once.
#[derive(Clone, Debug, Default)]
pub(super) struct UsesAndChanges {
    /// The symbol is used in the block before any change there.
    pub uses: Vec<(u32, Node)>,
    /// The symbol changes in the block (on entry or after an instruction).
    pub changes: Vec<(u32, Node)>,
    /// The symbol is an induction variable of the block, a loop header:
    /// it advances along the back edges and is reset along the others.
    pub inductions: Vec<(u32, Node)>,
}

/// Blocks where each of `symbols` symbols is live on entry, as a CSR by
/// block (`start`, `list`; rows sorted): path exploration backward from
/// each symbol's uses over the predecessors `reachable` accepts, stopped
/// at the blocks that change it and, into a header it is an induction
/// variable of, at the edges that are not back edges (`back(from, to)`).
pub(super) fn live_in<G: Graph>(
    graph: &G,
    reachable: impl Fn(Node) -> bool,
    back: impl Fn(Node, Node) -> bool,
    symbols: usize,
    facts: &UsesAndChanges,
    start: &mut Vec<u32>,
    list: &mut Vec<u32>,
) {
    let n = graph.num_nodes();
    let (mut use_start, mut use_list) = (Vec::new(), Vec::new());
    let (mut change_start, mut change_list) = (Vec::new(), Vec::new());
    let (mut iv_start, mut iv_list) = (Vec::new(), Vec::new());
    cfg_dom::csr::bucket(symbols, &facts.uses, &mut use_start, &mut use_list);
    cfg_dom::csr::bucket(symbols, &facts.changes, &mut change_start, &mut change_list);
    cfg_dom::csr::bucket(symbols, &facts.inductions, &mut iv_start, &mut iv_list);
    // Stamps (symbol + 1) instead of clearing per symbol.
    let mut changes_here = vec![0u32; n];
    let mut induction_here = vec![0u32; n];
    let mut live_here = vec![0u32; n];
    let mut work: Vec<Node> = Vec::new();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for s in 0..symbols as u32 {
        let stamp = s + 1;
        for &b in cfg_dom::csr::row(&change_start, &change_list, s as usize) {
            changes_here[b as usize] = stamp;
        }
        for &h in cfg_dom::csr::row(&iv_start, &iv_list, s as usize) {
            induction_here[h as usize] = stamp;
        }
        for &b in cfg_dom::csr::row(&use_start, &use_list, s as usize) {
            if live_here[b as usize] != stamp {
                live_here[b as usize] = stamp;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            pairs.push((b, s));
            let resets = induction_here[b as usize] == stamp;
            for p in graph.predecessors(b) {
                let p_ix = p as usize;
                if reachable(p) && live_here[p_ix] != stamp && changes_here[p_ix] != stamp && (!resets || back(p, b)) {
                    live_here[p_ix] = stamp;
                    work.push(p);
                }
            }
        }
    }
    // Pairs of one symbol come before those of the next: each block's row
    // is sorted.
    cfg_dom::csr::bucket(n, &pairs, start, list);
}

impl SymbolLiveness {
    /// Which symbols each block may still need on entry: used by an access
    /// reachable from there before the symbol takes an unrelated value
    /// (an induction variable advancing along a back edge keeps its
    /// relation, so it stays live through its header). Classes of other
    /// symbols can only cost time, and are dropped on entry. Nothing is
    /// live when offsets are not `symbolic`.
    pub(super) fn compute<G: Graph>(&mut self, input: &MemInput<'_, G>, dfs: &Dfs, dt: &DomTree, symbolic: bool) {
        self.index.clear();
        self.start.clear();
        self.list.clear();
        self.words = 0;
        self.bits.clear();
        if !symbolic {
            return;
        }
        let mut next = 0u32;
        let index = &mut self.index;
        for inst in 0..input.num_insts() as u32 {
            for a in input.accesses(inst) {
                if let Offset::Affine { sym, .. } = a.offset {
                    if index.len() <= sym as usize {
                        index.resize(sym as usize + 1, u32::MAX);
                    }
                    if index[sym as usize] == u32::MAX {
                        index[sym as usize] = next;
                        next += 1;
                    }
                }
            }
        }
        if next == 0 {
            return;
        }
        let bit = |s: u32| self.dense(s);
        // Per reachable block, the symbols used before a change and the
        // changed ones, each once (stamps: block + 1).
        let mut facts = UsesAndChanges::default();
        let mut changed = vec![0u32; next as usize];
        let mut used = vec![0u32; next as usize];
        for &b in dfs.postorder() {
            let stamp = b + 1;
            let change = |s: u32, changed: &mut [u32], facts: &mut UsesAndChanges| {
                if let Some(i) = bit(s)
                    && changed[i as usize] != stamp
                {
                    changed[i as usize] = stamp;
                    facts.changes.push((i, b));
                }
            };
            for &s in input.changes_at_entry(b) {
                change(s, &mut changed, &mut facts);
            }
            for &(s, _) in input.inductions(b) {
                if let Some(i) = bit(s) {
                    facts.inductions.push((i, b));
                }
            }
            for &inst in input.block_insts(b) {
                for a in input.accesses(inst) {
                    if let Offset::Affine { sym, .. } = a.offset
                        && let Some(i) = bit(sym)
                        && changed[i as usize] != stamp
                        && used[i as usize] != stamp
                    {
                        used[i as usize] = stamp;
                        facts.uses.push((i, b));
                    }
                }
                for &s in input.changes_after(inst) {
                    change(s, &mut changed, &mut facts);
                }
            }
        }
        live_in(
            input.graph(),
            |p| dfs.is_reachable(p),
            |p, h| dt.dominates(h, p),
            next as usize,
            &facts,
            &mut self.start,
            &mut self.list,
        );
        let (n, words) = (input.num_blocks(), (next as usize).div_ceil(64));
        if n.saturating_mul(words) <= DENSE_WORDS {
            self.densify(n, words);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfg_dom::CsrGraph;

    /// Which edges count as back edges in the test: any fixed relation.
    fn back(p: Node, h: Node) -> bool {
        (p * 7 + h * 3) % 5 < 2
    }

    /// The oracle: the textbook equations, a bitset per block, round robin
    /// over every block until nothing changes.
    fn rounds(g: &CsrGraph, dfs: &Dfs, symbols: usize, facts: &UsesAndChanges) -> Vec<Vec<u32>> {
        let n = g.num_nodes();
        let mut gen_ = vec![vec![false; symbols]; n];
        let mut kill = vec![vec![false; symbols]; n];
        let mut iv = vec![vec![false; symbols]; n];
        for &(s, b) in &facts.uses {
            gen_[b as usize][s as usize] = true;
        }
        for &(s, b) in &facts.changes {
            kill[b as usize][s as usize] = true;
        }
        for &(s, b) in &facts.inductions {
            iv[b as usize][s as usize] = true;
        }
        let mut live = vec![vec![false; symbols]; n];
        loop {
            let mut changed = false;
            for b in 0..n as Node {
                if !dfs.is_reachable(b) {
                    continue;
                }
                for s in 0..symbols {
                    let out = g.successors(b).any(|c| live[c as usize][s] && (!iv[c as usize][s] || back(b, c)));
                    let v = gen_[b as usize][s] || (out && !kill[b as usize][s]);
                    if v != live[b as usize][s] {
                        live[b as usize][s] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        live.iter().map(|row| (0..symbols as u32).filter(|&s| row[s as usize]).collect()).collect()
    }

    #[test]
    fn path_exploration_agrees_with_round_robin_bitsets() {
        let mut seed = 0x5eed_u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..300 {
            let n = 1 + rnd(12) as usize;
            let succs: Vec<Vec<Node>> = (0..n).map(|_| (0..rnd(3)).map(|_| rnd(n as u64) as Node).collect()).collect();
            let g = CsrGraph::from_successors(&succs, Some(0)).expect("a valid graph");
            let dfs = Dfs::of(&g);
            let symbols = 1 + rnd(5) as usize;
            let mut facts = UsesAndChanges::default();
            for b in (0..n as Node).filter(|&b| dfs.is_reachable(b)) {
                for s in 0..symbols as u32 {
                    if rnd(3) == 0 {
                        facts.inductions.push((s, b));
                    }
                    match rnd(4) {
                        0 => facts.uses.push((s, b)),
                        1 => facts.changes.push((s, b)),
                        2 => {
                            facts.uses.push((s, b));
                            facts.changes.push((s, b));
                        }
                        _ => {}
                    }
                }
            }
            let (mut start, mut list) = (Vec::new(), Vec::new());
            live_in(&g, |p| dfs.is_reachable(p), back, symbols, &facts, &mut start, &mut list);
            let want = rounds(&g, &dfs, symbols, &facts);
            for (b, row) in want.iter().enumerate() {
                assert_eq!(cfg_dom::csr::row(&start, &list, b), row.as_slice(), "block {b} of {succs:?}");
            }
            // Both forms of the answer agree (symbol ids: the dense
            // indices, reversed).
            let index: Vec<u32> = (0..symbols as u32).rev().collect();
            let sparse = SymbolLiveness { index, start, list, words: 0, bits: Vec::new() };
            let mut dense = sparse.clone();
            dense.densify(n, symbols.div_ceil(64));
            for (b, row) in want.iter().enumerate() {
                for sym in 0..symbols as u32 + 2 {
                    let i = (symbols as u32).wrapping_sub(1).wrapping_sub(sym);
                    let expect = row.contains(&i);
                    assert_eq!(sparse.live_at(b as Node, sym), expect);
                    assert_eq!(dense.live_at(b as Node, sym), expect);
                }
            }
        }
    }
}
