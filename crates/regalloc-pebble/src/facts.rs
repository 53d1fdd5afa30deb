//! What every allocation pass needs to know about a function, computed
//! once: block order (reverse postorder, then unreachable blocks), loop
//! weights, per block the vars read before written, per loop header its
//! loop's blocks, per var its class, span (blocks where it is live or
//! referenced) and static uses.

use crate::class::RegClass;
use crate::input::RegCode;
use crate::options::{Options, Strategy};
use cfg_dom::{Dfs, Graph, Input, Liveness, LoopForest, Node, VarId};

/// What the passes share about the function.
pub(crate) struct Facts {
    pub(crate) nblocks: usize,
    pub(crate) nvars: usize,
    /// Reachable blocks in reverse postorder, then the rest by id.
    pub(crate) order: Vec<Node>,
    pub(crate) weight: Vec<u64>,
    /// Per block: vars read before written (CSR).
    pub(crate) reads_start: Vec<u32>,
    pub(crate) reads: Vec<VarId>,
    /// Per block: vars written (CSR).
    pub(crate) writes_start: Vec<u32>,
    pub(crate) writes: Vec<VarId>,
    /// Per block: the blocks of the loop it heads (CSR, empty for
    /// non-headers).
    pub(crate) loop_start: Vec<u32>,
    pub(crate) loop_blocks: Vec<Node>,
    pub(crate) carry: bool,
    pub(crate) params: Vec<VarId>,
    /// Per param: live into the entry.
    pub(crate) param_live: Vec<bool>,
    /// Vars live into the entry block.
    pub(crate) entry_live: Vec<VarId>,
    /// Per var: its class.
    pub(crate) class: Vec<RegClass>,
    /// Per var: blocks where it is live in, live out or referenced (CSR;
    /// empty for [`Strategy::Global`], which does not read it).
    pub(crate) span_start: Vec<u32>,
    pub(crate) span: Vec<Node>,
    /// Per var: static uses.
    pub(crate) uses: Vec<u32>,
    /// Per block, per class: the most registers one instruction needs.
    pub(crate) demand: Vec<[u32; 2]>,
}

impl Facts {
    pub(crate) fn new<G: Graph, C: RegCode>(
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        loops: &LoopForest,
        o: &Options,
    ) -> Facts {
        let g = input.graph();
        let n = g.num_nodes();
        let nvars = input.num_vars();
        let dfs = Dfs::of(g);
        let mut order: Vec<Node> = dfs.reverse_postorder().collect();
        let mut seen = vec![false; n];
        for &b in &order {
            seen[b as usize] = true;
        }
        order.extend((0..n as Node).filter(|&b| !seen[b as usize]));
        let w = o.loop_weight.max(1);
        let weight: Vec<u64> = (0..n as Node).map(|b| w.saturating_pow(loops.loop_depth(b).min(18))).collect();
        // Reads before writes, and per-var spans.
        let mut reads_start = vec![0u32];
        let mut reads = Vec::new();
        let mut writes_start = vec![0u32];
        let mut demand: Vec<[u32; 2]> = vec![[0, 0]; n];
        let mut writes = Vec::new();
        let mut written = vec![u32::MAX; nvars];
        let mut read_mark = vec![u32::MAX; nvars];
        let mut span_pairs: Vec<(u32, Node)> = Vec::new();
        let mut uses = vec![0u32; nvars];
        for b in 0..n as Node {
            for &i in input.block_insts(b) {
                let mut ins: Vec<VarId> = input.uses(i).iter().map(|u| u.var).collect();
                if input.is_guarded(i) {
                    ins.extend_from_slice(input.defs(i));
                }
                ins.sort_unstable();
                ins.dedup();
                for c in RegClass::ALL {
                    let nin = ins.iter().filter(|&&x| input.code().class(x) == c).count() as u32;
                    let nout = input.defs(i).iter().filter(|&&x| input.code().class(x) == c).count() as u32;
                    let d = &mut demand[b as usize][c.index()];
                    *d = (*d).max(nin.max(nout));
                }
                for u in input.uses(i) {
                    uses[u.var as usize] += 1;
                    if written[u.var as usize] != b && read_mark[u.var as usize] != b {
                        read_mark[u.var as usize] = b;
                        reads.push(u.var);
                    }
                }
                if input.is_guarded(i) {
                    for &d in input.defs(i) {
                        if written[d as usize] != b && read_mark[d as usize] != b {
                            read_mark[d as usize] = b;
                            reads.push(d);
                        }
                    }
                }
                for &d in input.defs(i) {
                    if written[d as usize] != b {
                        writes.push(d);
                    }
                    written[d as usize] = b;
                }
            }
            reads_start.push(reads.len() as u32);
            writes_start.push(writes.len() as u32);
            // Spans are for the block games' global step only.
            if o.strategy == Strategy::Global {
                continue;
            }
            let mut here: Vec<VarId> = Vec::new();
            here.extend(liveness.live_in(b));
            here.extend(liveness.live_out(b));
            for &i in input.block_insts(b) {
                here.extend(input.uses(i).iter().map(|u| u.var));
                here.extend_from_slice(input.defs(i));
            }
            here.sort_unstable();
            here.dedup();
            span_pairs.extend(here.into_iter().map(|x| (x, b)));
        }
        let (mut span_start, mut span) = (Vec::new(), Vec::new());
        cfg_dom::csr::bucket(nvars, &span_pairs, &mut span_start, &mut span);
        let mut loop_pairs: Vec<(u32, Node)> = Vec::new();
        for l in loops.loops() {
            let h = loops.header(l);
            loop_pairs.extend(loops.body(l).iter().map(|&b| (h, b)));
        }
        let (mut loop_start, mut loop_blocks) = (Vec::new(), Vec::new());
        cfg_dom::csr::bucket(n, &loop_pairs, &mut loop_start, &mut loop_blocks);
        Facts {
            nblocks: n,
            nvars,
            order,
            weight,
            reads_start,
            reads,
            writes_start,
            writes,
            loop_start,
            loop_blocks,
            carry: o.carry,
            params: input.params().to_vec(),
            param_live: input.params().iter().map(|&x| g.entry().is_some_and(|e| liveness.is_live_in(e, x))).collect(),
            entry_live: g.entry().map(|e| liveness.live_in(e).collect()).unwrap_or_default(),
            class: (0..nvars as VarId).map(|x| input.code().class(x)).collect(),
            span_start,
            span,
            uses,
            demand,
        }
    }

    pub(crate) fn writes(&self, b: Node) -> &[VarId] {
        cfg_dom::csr::row(&self.writes_start, &self.writes, b as usize)
    }

    pub(crate) fn reads(&self, b: Node) -> &[VarId] {
        cfg_dom::csr::row(&self.reads_start, &self.reads, b as usize)
    }

    pub(crate) fn loop_of_header(&self, b: Node) -> &[Node] {
        cfg_dom::csr::row(&self.loop_start, &self.loop_blocks, b as usize)
    }

    pub(crate) fn span(&self, x: VarId) -> &[Node] {
        cfg_dom::csr::row(&self.span_start, &self.span, x as usize)
    }
}
