//! DU/UD chains by classic reaching definitions: the baseline.
//!
//! The textbook forward may-analysis (Aho, Sethi and Ullman, *Compilers:
//! Principles, Techniques, and Tools*, 1986, §10.5), tuned:
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
//! reads each operand at the end of the matching predecessor. Runs on any
//! [`cfg_dom::VarCode`] and [`cfg_dom::Graph`], checked first.

use crate::chains::{Chains, UdBuilder};
use crate::laps::Laps;
use crate::sites::{DefId, Sites};
use cfg_dom::{
    BitDataflow, Confluence, CsrGraph, Dfs, Direction, Flow, GenKill, Graph, Input, InputBuffers, InputError, Node,
    VarCode, csr,
};
use std::time::Duration;

/// Time spent in each phase of [`iterative_timed`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Phases {
    /// Input check, CFG graph (for Keel functions), reachability,
    /// numbering and gen/kill sets.
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

/// Chains of `code` on its CFG `graph` by iterative reaching definitions
/// (a fresh [`Iterative`]; reuse one across functions to keep its
/// buffers). An error when the input is malformed
/// ([`cfg_dom::check_input`]).
pub fn iterative<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<Chains, InputError> {
    Iterative::new().compute(graph, code)
}

/// [`iterative`], with the time of each phase.
pub fn iterative_timed<G: Graph, C: VarCode>(graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
    Iterative::new().compute_timed(graph, code)
}

/// Bytes of the bit matrices [`Iterative`] allocates for `code`: its gen, kill, in and out sets, each `blocks × ⌈definitions /
/// 64⌉` words of 8 bytes, where definitions are the params plus every
/// var an instruction defines. This is the baseline's dominant cost
/// (quadratic when definitions grow with blocks: a 10^5-block chain that
/// redefines one var per block needs 5 GB), so a caller can refuse a
/// function before allocating. Counting is linear in the code and
/// allocates nothing; ids out of range are simply counted.
pub fn matrix_bytes<C: VarCode>(code: &C) -> u64 {
    let mut defs = code.params().count() as u64;
    for b in 0..code.num_blocks() as Node {
        for inst in code.block_insts(b) {
            defs += code.defs(inst).count() as u64;
        }
    }
    matrix_bytes_for(code.num_blocks() as u64, defs)
}

/// [`matrix_bytes`] from the counts: `4 × blocks × ⌈definitions / 64⌉ × 8`
/// bytes, saturating.
pub fn matrix_bytes_for(blocks: u64, definitions: u64) -> u64 {
    blocks.saturating_mul(definitions.div_ceil(64)).saturating_mul(4 * 8)
}

/// The baseline's working memory: the CFG (for Keel functions), DFS, the
/// gen/kill problem and its solution (the bit matrices), numberings and
/// per-var state, kept across functions so that a warm context neither
/// allocates nor page-faults its matrices again.
///
/// Lifecycle: [`Iterative::new`], then [`Iterative::compute`] (any IR) or
/// [`Iterative::compute_function`] (a Keel function) per function; only
/// the returned [`Chains`] are allocated per call (once warm).
/// [`Iterative::clear`] drops the contents but keeps the capacity.
#[derive(Clone, Debug, Default)]
pub struct Iterative {
    pub(crate) graph: CsrGraph,
    pub(crate) input: InputBuffers,
    pub(crate) core: Core,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Core {
    dfs: Dfs,
    problem: GenKill,
    solution: BitDataflow,
    /// Definitions numbered grouped by var: `bit[d]`, its inverse, and each
    /// var's range `range_start[v]..range_start[v + 1]`.
    range_start: Vec<u32>,
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
        self.input = InputBuffers::default();
        let c = &mut self.core;
        c.dfs.clear();
        c.problem.clear();
        c.solution.clear();
        for v in [&mut c.range_start, &mut c.bit, &mut c.def_of_bit, &mut c.stamp] {
            v.clear();
        }
        c.killed.clear();
        c.local.iter_mut().for_each(Vec::clear);
        c.touched.clear();
        c.pool.clear();
        c.span.clear();
    }

    /// Chains of `code` on its CFG `graph` by iterative reaching
    /// definitions.
    pub fn compute<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<Chains, InputError> {
        self.core.run(graph, code, &mut self.input, &mut Laps::start(false)).map(|(c, _)| c)
    }

    /// [`Iterative::compute`], with the time of each phase (the clock is
    /// read only on the `_timed` paths).
    pub fn compute_timed<G: Graph, C: VarCode>(&mut self, graph: &G, code: &C) -> Result<(Chains, Phases), InputError> {
        self.core.run(graph, code, &mut self.input, &mut Laps::start(true))
    }
}

impl Core {
    pub(crate) fn run<G: Graph, C: VarCode>(
        &mut self,
        graph: &G,
        code: &C,
        buffers: &mut InputBuffers,
        laps: &mut Laps,
    ) -> Result<(Chains, Phases), InputError> {
        let mut phases = Phases::default();
        let input = Input::new(graph, code, buffers)?;
        let Core { dfs, problem, solution, range_start, bit, def_of_bit, stamp, killed, local, touched, pool, span } =
            self;
        dfs.compute(graph);
        let sites = Sites::of(&input);
        let nd = sites.num_defs();
        let nv = code.num_vars();
        let n = graph.num_nodes();
        // Number definitions grouped by var: def_of_bit is the definitions
        // bucketed by var (in id order within a var), bit[d] its inverse.
        csr::bucket_by(nv, (0..nd as DefId).map(|d| (sites.var_of_def(d), d)), range_start, def_of_bit);
        bit.clear();
        bit.resize(nd, 0);
        for (i, &d) in def_of_bit.iter().enumerate() {
            bit[d as usize] = i as u32;
        }
        problem.reset(Flow::new(Direction::Forward, Confluence::May), n, nd);
        for i in 0..input.params().len() as u32 {
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
        for bn in (0..n as Node).filter(|&b| dfs.is_reachable(b)) {
            touched.clear();
            for &inst in input.block_insts(bn) {
                let guarded = input.is_guarded(inst);
                for d in sites.defs_of_inst(inst) {
                    let v = sites.var_of_def(d) as usize;
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
        phases.setup = laps.lap();

        solution.compute(graph, problem);
        phases.solve = laps.lap();

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
        for bn in (0..n as Node).filter(|&b| dfs.is_reachable(b)) {
            let entry = solution.in_words(bn);
            for &inst in input.block_insts(bn) {
                // A phi's incoming values are read at the end of its
                // predecessors (below); only a phi's uses can name a
                // predecessor (the input is checked). Any other use reads
                // what reaches the block's entry, unless a definition of its
                // var earlier in the block killed that, plus the block's own
                // definitions since.
                let phi_uses = if input.is_phi(inst) { input.uses(inst) } else { &[] };
                for (k, u) in sites.uses_of_inst(inst).enumerate() {
                    if phi_uses.get(k).is_some_and(|x| x.pred.is_some()) {
                        continue;
                    }
                    let v = sites.var_of_use(u) as usize;
                    let start = pool.len() as u32;
                    if stamp[v] != bn || !killed[v] {
                        reaching(entry, v, pool);
                    }
                    if stamp[v] == bn {
                        pool.extend_from_slice(&local[v]);
                    }
                    span[u as usize] = (start, pool.len() as u32 - start);
                }
                let guarded = input.is_guarded(inst);
                for d in sites.defs_of_inst(inst) {
                    define(stamp, killed, local, sites.var_of_def(d) as usize, bn, guarded, d);
                }
            }
            // Operands of input phis in successors are read at the end of b.
            let exit = solution.out_words(bn);
            for s in graph.successors(bn) {
                for &phi in input.block_insts(s).iter().take_while(|&&i| input.is_phi(i)) {
                    for (u, use_) in sites.uses_of_inst(phi).zip(input.uses(phi)) {
                        if use_.pred == Some(bn) {
                            let start = pool.len() as u32;
                            reaching(exit, use_.var as usize, pool);
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
        let chains = Chains::from_ud(sites, ud.start, ud.list, code.code_stamp());
        phases.extract = laps.lap();
        Ok((chains, phases))
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
