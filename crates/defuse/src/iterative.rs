//! DU/UD chains by classic reaching definitions: the baseline.
//!
//! The textbook forward may-analysis (Aho, Sethi, Ullman §10.5), tuned:
//! - the universe is every definition (params, as definitions on entry, and
//!   every result), numbered *grouped by var*, so the definitions of one var
//!   are one contiguous range of bits, a kill is that range set a word at a
//!   time (`GenKill::insert_kill_range`), and "the reaching definitions of
//!   `v`" is a word-wise scan of it (set bits by `trailing_zeros`);
//! - per block, `gen` (the last unguarded definition of each var, plus the
//!   guarded ones after it) and `kill` (the whole range of each var with an
//!   unguarded definition) are precomputed in one pass; a guarded
//!   definition generates but does not kill;
//! - the fixpoint is `cfg_dom::BitDataflow`: one flat `u64` matrix per set
//!   family, a worklist in reverse postorder over reachable blocks, no
//!   allocation inside the loop;
//! - chains are then read off in one pass per block, carrying per-var local
//!   state (stamped, never cleared) from the block's entry set.
//!
//! Invariants: only blocks reachable from the entry take part, as for the
//! SSA method; an input phi defines its result at the top of its block and
//! reads each operand at the end of the matching predecessor.

use crate::chains::{Chains, UdBuilder};
use crate::sites::{DefId, Sites};
use cfg_dom::{BitDataflow, Confluence, CsrGraph, Dfs, Direction, Flow, GenKill, node};
use ir_core::entity::EntityRef;
use ir_core::{Function, Opcode, UseSite};
use std::time::{Duration, Instant};

/// Time spent in each phase of [`iterative_timed`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Phases {
    /// CFG graph, reachability, numbering and gen/kill sets.
    pub setup: Duration,
    /// The fixpoint.
    pub solve: Duration,
    /// Reading the chains off the solution.
    pub extract: Duration,
}

impl Phases {
    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.setup + self.solve + self.extract
    }
}

/// Sums phase by phase (totals over many functions).
impl std::ops::AddAssign for Phases {
    fn add_assign(&mut self, other: Phases) {
        self.setup += other.setup;
        self.solve += other.solve;
        self.extract += other.extract;
    }
}

/// Chains of `func` by iterative reaching definitions (a fresh
/// [`Iterative`]; reuse one across functions to keep its buffers).
pub fn iterative(func: &Function) -> Chains {
    Iterative::new().compute(func)
}

/// [`iterative`], with the time of each phase.
pub fn iterative_timed(func: &Function) -> (Chains, Phases) {
    Iterative::new().compute_timed(func)
}

/// The baseline's working memory: the CFG, DFS, the gen/kill problem and
/// its solution (the bit matrices), numberings and per-var state, kept
/// across functions so that a warm context neither allocates nor
/// page-faults its matrices again.
///
/// Lifecycle: [`Iterative::new`], then [`Iterative::compute`] per
/// function; only the returned [`Chains`] are allocated per call (once
/// warm). [`Iterative::clear`] drops the contents but keeps the capacity.
#[derive(Clone, Debug, Default)]
pub struct Iterative {
    graph: CsrGraph,
    dfs: Dfs,
    problem: GenKill,
    solution: BitDataflow,
    /// Definitions numbered grouped by var: `bit[d]`, its inverse, and each
    /// var's range `range_start[v]..range_start[v + 1]`.
    range_start: Vec<u32>,
    fill: Vec<u32>,
    bit: Vec<u32>,
    def_of_bit: Vec<DefId>,
    /// Per-var state of the block being scanned (stamped by block).
    stamp: Vec<u32>,
    killed: Vec<bool>,
    local: Vec<Vec<DefId>>,
    touched: Vec<usize>,
    /// Each use's reaching definitions: `pool[span[u]]`.
    pool: Vec<DefId>,
    span: Vec<(u32, u32)>,
}

impl Iterative {
    /// A context with empty buffers.
    pub fn new() -> Iterative {
        Iterative::default()
    }

    /// Empties every buffer, keeping its capacity.
    pub fn clear(&mut self) {
        self.graph.clear();
        self.dfs.clear();
        self.problem.clear();
        self.solution.clear();
        for v in [&mut self.range_start, &mut self.fill, &mut self.bit, &mut self.def_of_bit, &mut self.stamp] {
            v.clear();
        }
        self.killed.clear();
        self.local.iter_mut().for_each(Vec::clear);
        self.touched.clear();
        self.pool.clear();
        self.span.clear();
    }

    /// Chains of `func` by iterative reaching definitions.
    pub fn compute(&mut self, func: &Function) -> Chains {
        self.compute_timed(func).0
    }

    /// [`Iterative::compute`], with the time of each phase.
    pub fn compute_timed(&mut self, func: &Function) -> (Chains, Phases) {
        let mut phases = Phases::default();
        let t = Instant::now();
        let Iterative {
            graph,
            dfs,
            problem,
            solution,
            range_start,
            fill,
            bit,
            def_of_bit,
            stamp,
            killed,
            local,
            touched,
            pool,
            span,
        } = self;
        graph.compute_function(func);
        dfs.compute(&*graph);
        let sites = Sites::of(func);
        let nd = sites.num_defs();
        let nv = func.num_vars();
        // Number definitions grouped by var: bit[d], and each var's range.
        range_start.clear();
        range_start.resize(nv + 1, 0);
        for d in 0..nd as DefId {
            range_start[sites.def_var(d).index() + 1] += 1;
        }
        for i in 0..nv {
            range_start[i + 1] += range_start[i];
        }
        fill.clear();
        fill.extend_from_slice(&range_start[..nv]);
        bit.clear();
        bit.resize(nd, 0);
        def_of_bit.clear();
        def_of_bit.resize(nd, 0);
        for d in 0..nd as DefId {
            let v = sites.def_var(d).index();
            bit[d as usize] = fill[v];
            def_of_bit[fill[v] as usize] = d;
            fill[v] += 1;
        }
        let n = func.num_blocks();
        problem.reset(Flow::new(Direction::Forward, Confluence::May), n, nd);
        for i in 0..func.params().len() as u32 {
            if let Some(d) = sites.param_def(i) {
                problem.insert_boundary(bit[d as usize] as usize);
            }
        }
        // Per block: the definitions of each var since its last unguarded one.
        stamp.clear();
        stamp.resize(nv, u32::MAX);
        killed.clear();
        killed.resize(nv, false);
        if local.len() < nv {
            local.resize(nv, Vec::new());
        }
        for b in func.blocks().filter(|&b| dfs.is_reachable(node(b))) {
            let bn = node(b);
            touched.clear();
            for inst in func.block_insts(b) {
                let guarded = func.guard(inst).is_some() && func.opcode(inst) != Opcode::Phi;
                for d in sites.defs_of_inst(inst) {
                    let v = sites.def_var(d).index();
                    if define(stamp, killed, local, v, bn, guarded, d) {
                        touched.push(v);
                    }
                }
            }
            for &v in touched.iter() {
                for &d in &local[v] {
                    problem.insert_gen(bn, bit[d as usize] as usize);
                }
                if killed[v] {
                    problem.insert_kill_range(bn, range_start[v] as usize..range_start[v + 1] as usize);
                }
            }
        }
        phases.setup = t.elapsed();

        let t = Instant::now();
        solution.compute(&*graph, problem);
        phases.solve = t.elapsed();

        let t = Instant::now();
        // Each use's definitions are produced together, in block order; record
        // where each list sits in `pool`, then copy the lists out in use order.
        pool.clear();
        span.clear();
        span.resize(sites.num_uses(), (0, 0));
        // The set bits of `words` in v's range, a word at a time.
        let reaching = |words: &[u64], v: usize, out: &mut Vec<DefId>| {
            let (lo, hi) = (range_start[v] as usize, range_start[v + 1] as usize);
            if lo >= hi {
                return;
            }
            for w in lo / 64..=(hi - 1) / 64 {
                let mut word = words[w];
                if w == lo / 64 {
                    word &= !0u64 << (lo % 64);
                }
                if w == (hi - 1) / 64 {
                    word &= !0u64 >> (63 - (hi - 1) % 64);
                }
                while word != 0 {
                    out.push(def_of_bit[w * 64 + word.trailing_zeros() as usize]);
                    word &= word - 1;
                }
            }
        };
        stamp.iter_mut().for_each(|s| *s = u32::MAX);
        for b in func.blocks().filter(|&b| dfs.is_reachable(node(b))) {
            let bn = node(b);
            let entry = solution.in_words(bn);
            for inst in func.block_insts(b) {
                let is_phi = func.opcode(inst) == Opcode::Phi;
                if !is_phi {
                    for u in sites.uses_of_inst(inst) {
                        let v = sites.use_var(u).index();
                        let start = pool.len() as u32;
                        if stamp[v] != bn || !killed[v] {
                            reaching(entry, v, pool);
                        }
                        if stamp[v] == bn {
                            pool.extend_from_slice(&local[v]);
                        }
                        span[u as usize] = (start, pool.len() as u32 - start);
                    }
                }
                let guarded = func.guard(inst).is_some() && !is_phi;
                for d in sites.defs_of_inst(inst) {
                    define(stamp, killed, local, sites.def_var(d).index(), bn, guarded, d);
                }
            }
            // Operands of input phis in successors are read at the end of b.
            let exit = solution.out_words(bn);
            for &s in graph.succ_slice(bn) {
                for phi in func.block_insts(cfg_dom::block(s)).take_while(|&i| func.opcode(i) == Opcode::Phi) {
                    for (k, pred) in func.phi_blocks(phi).iter().enumerate() {
                        if node(*pred) != bn {
                            continue;
                        }
                        if let Some(u) = sites.use_id(phi, UseSite::Operand(k as u32)) {
                            let start = pool.len() as u32;
                            reaching(exit, sites.use_var(u).index(), pool);
                            span[u as usize] = (start, pool.len() as u32 - start);
                        }
                    }
                }
            }
        }
        let mut ud = UdBuilder::with_capacity(sites.num_uses());
        ud.list.reserve(pool.len());
        for &(s, l) in span.iter() {
            ud.list.extend_from_slice(&pool[s as usize..(s + l) as usize]);
            ud.close();
        }
        let chains = Chains::from_ud(sites, ud.start, ud.list, func.epoch());
        phases.extract = t.elapsed();
        (chains, phases)
    }
}

/// Records definition `d` of var `v` in block `bn` in the per-var block
/// state: `local[v]` is v's definitions since its last unguarded one in the
/// block, `killed[v]` whether there was one, both valid while
/// `stamp[v] == bn`. Returns true on v's first definition in the block.
fn define(
    stamp: &mut [u32],
    killed: &mut [bool],
    local: &mut [Vec<DefId>],
    v: usize,
    bn: u32,
    guarded: bool,
    d: DefId,
) -> bool {
    let first = stamp[v] != bn;
    if first {
        stamp[v] = bn;
        killed[v] = false;
        local[v].clear();
    }
    if !guarded {
        killed[v] = true;
        local[v].clear();
    }
    local[v].push(d);
    first
}
