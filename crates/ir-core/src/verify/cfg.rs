//! The verifier's private CFG: predecessors, reverse postorder, dominators.
//!
//! Invariants: built only from blocks in the layout and from successors
//! that are in the layout (unknown targets are reported elsewhere and
//! ignored here). Traversal is an explicit-stack DFS, so a million-block
//! chain needs no deep recursion. Predecessors are built in linear time.
//! Dominators, computed only for the SSA level, use the Cooper–Harvey–Kennedy
//! iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001) over
//! RPO numbers: small and obviously right, which is what a verifier wants,
//! but O(n·depth) in the worst case (a block with many predecessors deep in
//! a long dominator chain). The near-linear, reusable dominator tree is the
//! `cfg-dom` crate's, which ir-core cannot depend on; the `ssa` crate's
//! verifier uses that one.

use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::{EntityRef, SecondaryMap};

const NONE: u32 = u32::MAX;

/// Predecessor sets (each predecessor once) and dominance for one function.
pub(crate) struct Cfg {
    /// Distinct predecessors of each block in CSR form: those of block `b`
    /// are `pred_list[pred_start[b]..pred_start[b + 1]]`, in layout order.
    pred_start: Vec<u32>,
    pred_list: Vec<Block>,
    /// RPO number of each reachable block; `NONE` if unreachable.
    rpo_num: SecondaryMap<Block, u32>,
    /// Immediate dominator, as an RPO number, indexed by RPO number.
    idom: Vec<u32>,
    /// Preorder and postorder numbers in the dominator tree, by RPO number,
    /// for O(1) dominance queries.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Cfg {
    pub(crate) fn new(func: &Function) -> Cfg {
        // Two passes over the edges: count, then fill. All successors of a
        // block are visited together, so remembering the last predecessor
        // recorded for each block deduplicates.
        let n = func.num_blocks();
        let mut last_pred: Vec<u32> = vec![NONE; n];
        let mut pred_start = vec![0u32; n + 1];
        let mut edges = |mut f: Box<dyn FnMut(Block, Block) + '_>| {
            last_pred.iter_mut().for_each(|l| *l = NONE);
            for b in func.blocks() {
                for s in func.block_successors(b) {
                    if func.layout().is_block_inserted(s) && last_pred[s.index()] != b.as_u32() {
                        last_pred[s.index()] = b.as_u32();
                        f(b, s);
                    }
                }
            }
        };
        edges(Box::new(|_, s| pred_start[s.index() + 1] += 1));
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut pred_list = vec![Block::from_u32(0); pred_start[n] as usize];
        edges(Box::new(|b, s| {
            pred_list[fill[s.index()] as usize] = b;
            fill[s.index()] += 1;
        }));
        Cfg {
            pred_start,
            pred_list,
            rpo_num: SecondaryMap::with_default(NONE),
            idom: Vec::new(),
            pre: Vec::new(),
            post: Vec::new(),
        }
    }

    /// Adds reachability and dominance (needed by the SSA level only: the
    /// base level is linear without them).
    pub(crate) fn compute_dominance(&mut self, func: &Function) {
        let rpo = self.reverse_postorder(func);
        for (i, &b) in rpo.iter().enumerate() {
            self.rpo_num[b] = i as u32;
        }
        self.compute_idoms(&rpo);
        self.number_tree();
    }

    fn reverse_postorder(&self, func: &Function) -> Vec<Block> {
        let Some(entry) = func.entry_block() else {
            return Vec::new();
        };
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut post = Vec::new();
        // Each frame is a block and how many of its successors were pushed.
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            match func.block_successors(b).nth(i) {
                Some(s) => {
                    top.1 += 1;
                    if func.layout().is_block_inserted(s) && !visited[s] {
                        visited[s] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        post
    }

    fn compute_idoms(&mut self, rpo: &[Block]) {
        self.idom = vec![NONE; rpo.len()];
        if rpo.is_empty() {
            return;
        }
        self.idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for (i, &b) in rpo.iter().enumerate().skip(1) {
                let mut new = NONE;
                for &p in self.preds(b) {
                    let pn = self.rpo_num[p];
                    if pn == NONE || self.idom[pn as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE { pn } else { self.intersect(pn, new) };
                }
                if self.idom[i] != new {
                    self.idom[i] = new;
                    changed = true;
                }
            }
        }
    }

    fn intersect(&self, mut a: u32, mut b: u32) -> u32 {
        while a != b {
            while a > b {
                a = self.idom[a as usize];
            }
            while b > a {
                b = self.idom[b as usize];
            }
        }
        a
    }

    /// Pre/post numbers of the dominator tree by an explicit-stack DFS over
    /// children lists in CSR form.
    fn number_tree(&mut self) {
        let n = self.idom.len();
        let mut start = vec![0u32; n + 1];
        for i in 1..n {
            start[self.idom[i] as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for i in 1..n {
            let p = self.idom[i] as usize;
            kids[fill[p] as usize] = i as u32;
            fill[p] += 1;
        }
        self.pre = vec![0; n];
        self.post = vec![0; n];
        if n == 0 {
            return;
        }
        let (mut pre, mut post) = (0u32, 0u32);
        let mut stack: Vec<(u32, u32)> = vec![(0, start[0])];
        self.pre[0] = pre;
        pre += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if next < start[node as usize + 1] {
                top.1 += 1;
                let child = kids[next as usize];
                self.pre[child as usize] = pre;
                pre += 1;
                stack.push((child, start[child as usize]));
            } else {
                self.post[node as usize] = post;
                post += 1;
                stack.pop();
            }
        }
    }

    /// The distinct predecessors of `b`.
    pub(crate) fn preds(&self, b: Block) -> &[Block] {
        match (self.pred_start.get(b.index()), self.pred_start.get(b.index() + 1)) {
            (Some(&s), Some(&e)) => &self.pred_list[s as usize..e as usize],
            _ => &[],
        }
    }

    pub(crate) fn reachable(&self, b: Block) -> bool {
        self.rpo_num[b] != NONE
    }

    /// True when `a` dominates `b` (both reachable), in O(1).
    pub(crate) fn dominates(&self, a: Block, b: Block) -> bool {
        let (a, b) = (self.rpo_num[a], self.rpo_num[b]);
        if a == NONE || b == NONE {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}
