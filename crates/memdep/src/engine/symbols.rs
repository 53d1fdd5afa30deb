//! Symbol liveness: per block, the symbols of affine offsets that an
//! access reachable from its entry may still need, as a bitset over the
//! symbols accesses name (dense indices). A backward bitset dataflow
//! (gen: an affine access before any change of its symbol in the block;
//! kill: a change), round robin in postorder to the fixed point. The
//! fixpoint drops the classes of dead symbols on block entry: they can
//! only cost time.

use super::MemDep;
use crate::code::{MemInput, Offset};
use cfg_dom::{Graph, Node};

impl MemDep {
    /// Which symbols each block may still need on entry: used by an access
    /// reachable from there before the symbol takes an unrelated value
    /// (an induction variable advancing along a back edge keeps its
    /// relation, so it stays live through its header). Classes of other
    /// symbols can only cost time, and are dropped on entry. Backward
    /// bitset dataflow, round robin in postorder.
    pub(super) fn symbol_liveness<G: Graph>(&mut self, input: &MemInput<'_, G>) {
        let n = input.num_blocks();
        self.sym_index.clear();
        let mut next = 0u32;
        let mut index = |s: u32, ix: &mut Vec<u32>| -> u32 {
            if ix.len() <= s as usize {
                ix.resize(s as usize + 1, u32::MAX);
            }
            if ix[s as usize] == u32::MAX {
                ix[s as usize] = next;
                next += 1;
            }
            ix[s as usize]
        };
        if !self.options.symbolic {
            self.sym_words = 0;
            self.sym_live.clear();
            return;
        }
        for inst in 0..input.num_insts() as u32 {
            for a in input.accesses(inst) {
                if let Offset::Affine { sym, .. } = a.offset {
                    index(sym, &mut self.sym_index);
                }
            }
        }
        let w = (next as usize).div_ceil(64);
        self.sym_words = w;
        self.sym_live.clear();
        self.sym_live.resize(n * w, 0);
        if w == 0 {
            return;
        }
        let bit = |ix: &[u32], s: u32| ix.get(s as usize).copied().filter(|&i| i != u32::MAX);
        let mut gen_ = vec![0u64; n * w];
        let mut kill = vec![0u64; n * w];
        for b in 0..n as Node {
            let (g, k) = (&mut gen_[b as usize * w..][..w], &mut kill[b as usize * w..][..w]);
            for &s in input.changes_at_entry(b) {
                if let Some(i) = bit(&self.sym_index, s) {
                    k[i as usize / 64] |= 1 << (i % 64);
                }
            }
            for &inst in input.block_insts(b) {
                for a in input.accesses(inst) {
                    if let Offset::Affine { sym, .. } = a.offset
                        && let Some(i) = bit(&self.sym_index, sym)
                        && k[i as usize / 64] & (1 << (i % 64)) == 0
                    {
                        g[i as usize / 64] |= 1 << (i % 64);
                    }
                }
                for &s in input.changes_after(inst) {
                    if let Some(i) = bit(&self.sym_index, s) {
                        k[i as usize / 64] |= 1 << (i % 64);
                    }
                }
            }
        }
        let post: Vec<Node> = self.dfs.postorder().to_vec();
        let graph = input.graph();
        let mut out = vec![0u64; w];
        loop {
            let mut changed = false;
            for &b in &post {
                out.iter_mut().for_each(|x| *x = 0);
                for s in graph.successors(b) {
                    for (o, l) in out.iter_mut().zip(&self.sym_live[s as usize * w..][..w]) {
                        *o |= l;
                    }
                }
                let base = b as usize * w;
                for i in 0..w {
                    let v = gen_[base + i] | (out[i] & !kill[base + i]);
                    if v != self.sym_live[base + i] {
                        self.sym_live[base + i] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// True when `sym` may be needed from the entry of `b` on.
    pub(super) fn sym_live_at(&self, b: Node, sym: u32) -> bool {
        match self.sym_index.get(sym as usize) {
            Some(&i) if i != u32::MAX && self.sym_words > 0 => {
                self.sym_live[b as usize * self.sym_words + i as usize / 64] & (1 << (i % 64)) != 0
            }
            _ => false,
        }
    }
}
