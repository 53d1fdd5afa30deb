//! Allocating a whole function: the local pebble game on every block's DAG,
//! values carried in registers across edges, fix-ups on edges, and the
//! document's global step.
//!
//! **Per block** (in reverse postorder, then unreachable blocks by id): the
//! block's DAG ([`crate::BlockDag`]) is played by [`crate::Pebbler`] with
//! the block's local registers. Its sources start where the block's *entry
//! state* says: in memory (their var's home slot) or in a register.
//!
//! **Across edges** (`Options::carry`, on by default; off gives the
//! document's model, where every value crosses a block boundary in
//! memory): a block with one processed predecessor starts with the values
//! that predecessor left in registers; a join takes, var by var, the
//! location that costs its processed predecessors the least edge work
//! (weighted by loop depth), keeping a value in a register only when the
//! block (or, at a loop header, the loop) reads it. A sink must end in
//! memory when an already processed successor wants it there, and may stay
//! in a register otherwise. Every edge then gets a *fix-up*: a parallel
//! move from where the predecessor left each live value to where the
//! successor expects it ([`crate::parallel_move`]): moves, loads and
//! stores, at the predecessor's end when it has one successor (and its
//! terminator reads nothing the fix-up writes), at the successor's start
//! when it has one predecessor, else on the edge (the client splits it).
//! A var in different registers at a loop's bottom and top is exactly such
//! a fix-up on the back edge (the Keel rewrite can unroll instead:
//! [`crate::rewrite`]).
//!
//! **The global step** (digest §004): the local allocation uses `q` of the
//! `P` registers per class; the `P − q` left go to variables chosen
//! greedily by their local loads + stores (+ fix-up moves) weighted by
//! `loop_weight^depth` ([`GlobalStep::Weighted`]), or by lifetime with
//! ties broken by use count and depth ([`GlobalStep::Lifetime`], the
//! document's variant), until registers or candidates run out. A global
//! var owns its register in every block where it is live or referenced
//! (two globals whose blocks are disjoint share a register — our
//! extension); in the other blocks the register is lent to the local
//! allocation. `q` is searched ([`Options::local_regs`] `None`): every
//! `P − g` for `g` in 0, 1, 2, 4, … down to the largest instruction
//! demand, keeping the cheapest weighted allocation.
//!
//! Params arrive free (the entry convention, like an ABI): in registers, in
//! order, while local registers last, and in their home slots after that.
//! Vars read before any definition are undefined there; their home slot
//! stands for them.
//!
//! Invariant: the result passes [`crate::check`] (every test and fuzz run
//! checks it), and it is a pure function of the code and the options.

use crate::block_dag::{BlockDag, CodeError};
use crate::class::{Loc, PReg, RegClass, Regs};
use crate::dag::{NONE, ValueId};
use crate::game::{Move, Setup, SinkNeed, Start};
use crate::input::RegCode;
use crate::output::{Allocation, Costs, Edit, ProgPoint, SlotInfo};
use crate::parallel_move::{Want, sequence};
use crate::pebble::{PebbleError, Pebbler};
use cfg_dom::{Dfs, Graph, Input, InputBuffers, InputError, InstId, Liveness, LoopForest, Node, VarId};
use core::fmt;

/// How the registers left after local allocation are given out.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum GlobalStep {
    /// No global step: every register is local.
    Off,
    /// Greedily by local loads + stores weighted by loop depth (default).
    #[default]
    Weighted,
    /// Greedily by lifetime (blocks where live), ties by use count, then
    /// loop depth (the document's variant).
    Lifetime,
}

/// Allocation options.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Options {
    /// Registers per class (`P`).
    pub regs: Regs,
    /// The global step.
    pub global: GlobalStep,
    /// `q`, the registers per class the local allocation uses when the
    /// global step runs; `None` searches it.
    pub local_regs: Option<u32>,
    /// Keep values in registers across edges (fix-ups on edges); `false`
    /// is the document's model: block boundaries in memory.
    pub carry: bool,
    /// The weight of one loop level: a block at depth `d` counts
    /// `loop_weight^d`.
    pub loop_weight: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { regs: Regs::new(16, 16), global: GlobalStep::Weighted, local_regs: None, carry: true, loop_weight: 10 }
    }
}

impl Options {
    /// `p` scalar and `p` vector registers, defaults otherwise.
    pub fn with_regs(p: u32) -> Options {
        Options { regs: Regs::uniform(p), ..Options::default() }
    }
}

/// Why a function cannot be allocated.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AllocError {
    /// The graph and code are malformed (`cfg_dom::check_input`).
    Input(InputError),
    /// The code has a shape the allocator does not take (a phi, a
    /// misplaced terminator).
    Code(CodeError),
    /// An instruction needs more registers of a class at once than there
    /// are.
    TooFewRegisters {
        /// Its block.
        block: Node,
        /// The instruction.
        inst: InstId,
        /// The class.
        class: RegClass,
        /// Registers it needs.
        needs: u32,
        /// Registers there are.
        have: u32,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::Input(e) => e.fmt(f),
            AllocError::Code(e) => e.fmt(f),
            AllocError::TooFewRegisters { block, inst, class, needs, have } => write!(
                f,
                "instruction {inst} of block {block} needs {needs} {} registers at once, but there are {have}",
                match class {
                    RegClass::Scalar => "scalar",
                    RegClass::Vector => "vector",
                }
            ),
        }
    }
}

impl std::error::Error for AllocError {}

impl From<InputError> for AllocError {
    fn from(e: InputError) -> AllocError {
        AllocError::Input(e)
    }
}

impl From<CodeError> for AllocError {
    fn from(e: CodeError) -> AllocError {
        AllocError::Code(e)
    }
}

/// Allocates `code` on its CFG `graph` (a fresh [`Allocator`]).
pub fn allocate<G: Graph, C: RegCode>(graph: &G, code: &C, options: &Options) -> Result<Allocation, AllocError> {
    Allocator::new().compute(graph, code, options)
}

/// A reusable allocation context: keeps its buffers between functions.
#[derive(Debug, Default)]
pub struct Allocator {
    input: InputBuffers,
    liveness: Liveness,
    loops: LoopForest,
    bd: BlockDag,
    pebbler: Pebbler,
}

impl Allocator {
    /// A fresh context.
    pub fn new() -> Allocator {
        Allocator::default()
    }

    /// Allocates `code` on `graph` with `options`.
    pub fn compute<G: Graph, C: RegCode>(&mut self, graph: &G, code: &C, options: &Options) -> Result<Allocation, AllocError> {
        let input = Input::new(graph, code, &mut self.input)?;
        self.liveness.compute_input(&input);
        self.loops.compute(graph);
        let fx = Facts::new(&input, &self.liveness, &self.loops, options);
        let mut work = Work { bd: &mut self.bd, pebbler: &mut self.pebbler };
        let p = options.regs;
        let none = GlobalAssign::none(fx.nvars);
        let base = work.pass(&fx, &input, &self.liveness, [p.get(RegClass::Scalar), p.get(RegClass::Vector)], &none)?;
        if options.global == GlobalStep::Off {
            return Ok(base.into_allocation(&fx, &input, None, &none));
        }
        let demand = base.demand;
        let mut best: (Pass, Option<u32>, GlobalAssign) = (base, None, none);
        let qs: Vec<u32> = match options.local_regs {
            Some(q) => vec![q],
            None => {
                let pmax = p.get(RegClass::Scalar).max(p.get(RegClass::Vector));
                let mut gs = vec![1u32];
                while gs.last().is_some_and(|&g| g * 2 < pmax) {
                    let g = gs.last().copied().unwrap_or(1) * 2;
                    gs.push(g);
                }
                gs.into_iter().filter(|&g| g <= pmax).map(|g| pmax - g).collect()
            }
        };
        for q in qs {
            let qc = [q.min(p.get(RegClass::Scalar)), q.min(p.get(RegClass::Vector))];
            // Below the largest demand the local game cannot play (a fixed
            // `q` then reports the instruction).
            if options.local_regs.is_none() && (qc[0] < demand[0] || qc[1] < demand[1]) {
                continue;
            }
            let local = GlobalAssign::none(fx.nvars);
            let counted = work.pass(&fx, &input, &self.liveness, qc, &local)?;
            let globals = GlobalAssign::choose(&fx, &counted.var_cost, qc, p, options.global);
            let res = work.pass(&fx, &input, &self.liveness, qc, &globals)?;
            if res.costs.weighted() < best.0.costs.weighted() {
                best = (res, Some(q), globals);
            }
        }
        let (pass, q, globals) = best;
        Ok(pass.into_allocation(&fx, &input, q, &globals))
    }
}

/// What the passes share about the function.
struct Facts {
    nblocks: usize,
    nvars: usize,
    /// Reachable blocks in reverse postorder, then the rest by id.
    order: Vec<Node>,
    weight: Vec<u64>,
    /// Per block: vars read before written (CSR).
    reads_start: Vec<u32>,
    reads: Vec<VarId>,
    /// Per block: the blocks of the loop it heads (CSR, empty for
    /// non-headers).
    loop_start: Vec<u32>,
    loop_blocks: Vec<Node>,
    carry: bool,
    params: Vec<VarId>,
    /// Per param: live into the entry.
    param_live: Vec<bool>,
    /// Vars live into the entry block.
    entry_live: Vec<VarId>,
    /// Per var: its class.
    class: Vec<RegClass>,
    /// Per var: blocks where it is live in, live out or referenced (CSR).
    span_start: Vec<u32>,
    span: Vec<Node>,
    /// Per var: static uses.
    uses: Vec<u32>,
}

impl Facts {
    fn new<G: Graph, C: RegCode>(input: &Input<'_, G, C>, liveness: &Liveness, loops: &LoopForest, o: &Options) -> Facts {
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
        let mut written = vec![u32::MAX; nvars];
        let mut read_mark = vec![u32::MAX; nvars];
        let mut span_pairs: Vec<(u32, Node)> = Vec::new();
        let mut uses = vec![0u32; nvars];
        for b in 0..n as Node {
            for &i in input.block_insts(b) {
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
                    written[d as usize] = b;
                }
            }
            reads_start.push(reads.len() as u32);
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
        }
    }

    fn reads(&self, b: Node) -> &[VarId] {
        cfg_dom::csr::row(&self.reads_start, &self.reads, b as usize)
    }

    fn loop_of_header(&self, b: Node) -> &[Node] {
        cfg_dom::csr::row(&self.loop_start, &self.loop_blocks, b as usize)
    }

    fn span(&self, x: VarId) -> &[Node] {
        cfg_dom::csr::row(&self.span_start, &self.span, x as usize)
    }
}

/// Which vars hold global registers.
#[derive(Clone, Debug)]
struct GlobalAssign {
    /// Per var: its global register index, or `NONE`.
    reg: Vec<u32>,
    /// Per class, per register index: the blocks where it is taken
    /// (one bit per block).
    taken: [Vec<Vec<u64>>; 2],
    list: Vec<(VarId, PReg)>,
}

impl GlobalAssign {
    fn none(nvars: usize) -> GlobalAssign {
        GlobalAssign { reg: vec![NONE; nvars], taken: [Vec::new(), Vec::new()], list: Vec::new() }
    }

    fn is_taken(&self, c: RegClass, r: u32, b: Node) -> bool {
        self.taken[c.index()].get(r as usize).is_some_and(|bits| bits[b as usize / 64] >> (b % 64) & 1 == 1)
    }

    /// The document's greedy choice for the registers `q..P` of each class.
    fn choose(fx: &Facts, var_cost: &[u64], q: [u32; 2], p: Regs, step: GlobalStep) -> GlobalAssign {
        let mut ga = GlobalAssign::none(fx.nvars);
        let words = fx.nblocks.div_ceil(64).max(1);
        for c in RegClass::ALL {
            ga.taken[c.index()] = vec![vec![0u64; words]; p.get(c) as usize];
        }
        let mut cands: Vec<VarId> = match step {
            GlobalStep::Weighted => (0..fx.nvars as VarId).filter(|&x| var_cost[x as usize] > 0).collect(),
            _ => (0..fx.nvars as VarId).filter(|&x| fx.span(x).len() > 1).collect(),
        };
        match step {
            GlobalStep::Lifetime => {
                let depth = |x: VarId| fx.span(x).iter().map(|&b| fx.weight[b as usize]).max().unwrap_or(0);
                cands.sort_by_key(|&x| {
                    (core::cmp::Reverse(fx.span(x).len()), core::cmp::Reverse(fx.uses[x as usize]), core::cmp::Reverse(depth(x)), x)
                });
            }
            _ => cands.sort_by_key(|&x| (core::cmp::Reverse(var_cost[x as usize]), x)),
        }
        for x in cands {
            let c = fx.class[x as usize];
            let span = fx.span(x);
            let free = (q[c.index()]..p.get(c)).find(|&r| span.iter().all(|&b| !ga.is_taken(c, r, b)));
            if let Some(r) = free {
                for &b in span {
                    ga.taken[c.index()][r as usize][b as usize / 64] |= 1 << (b % 64);
                }
                ga.reg[x as usize] = r;
                ga.list.push((x, PReg::new(c, r)));
            }
        }
        ga.list.sort_unstable();
        ga
    }
}

/// Where a var is at a block boundary.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Here {
    reg: u32,
    /// Entry: the value is not also in memory. Exit: see `home`.
    dirty: bool,
}

/// An item of a block's new code.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Item {
    Inst(InstId),
    Edit(Edit),
}

/// One pass's result.
struct Pass {
    /// Per block: entry registers (var, where), sorted by var.
    entry: Vec<Vec<(VarId, Here)>>,
    /// Per block: exit state of its carried vars (var, register, home
    /// current), sorted by var.
    exit: Vec<Vec<(VarId, u32, bool)>>,
    items: Vec<Vec<Item>>,
    /// Fix-ups: (point, edit), points at block starts/ends or edges.
    fixups: Vec<(Fix, Edit)>,
    alloc_start: Vec<u32>,
    allocs: Vec<PReg>,
    home: Vec<u32>,
    slots: Vec<SlotInfo>,
    costs: Costs,
    var_cost: Vec<u64>,
    demand: [u32; 2],
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Fix {
    Start(Node),
    End(Node),
    Edge(Node, Node),
}

struct Work<'w> {
    bd: &'w mut BlockDag,
    pebbler: &'w mut Pebbler,
}

impl Work<'_> {
    /// One allocation of the whole function with `q` local registers per
    /// class and `ga`'s globals.
    fn pass<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        q: [u32; 2],
        ga: &GlobalAssign,
    ) -> Result<Pass, AllocError> {
        let g = input.graph();
        let n = fx.nblocks;
        let ni = input.num_insts();
        let mut alloc_start = Vec::with_capacity(ni + 1);
        let mut total = 0u32;
        for i in 0..ni as InstId {
            alloc_start.push(total);
            total += (input.uses(i).len() + input.defs(i).len()) as u32;
        }
        alloc_start.push(total);
        let mut pass = Pass {
            entry: vec![Vec::new(); n],
            exit: vec![Vec::new(); n],
            items: vec![Vec::new(); n],
            fixups: Vec::new(),
            alloc_start,
            allocs: vec![PReg::scalar(0); total as usize],
            home: vec![NONE; fx.nvars],
            slots: Vec::new(),
            costs: Costs::default(),
            var_cost: vec![0; fx.nvars],
            demand: [0, 0],
        };
        let mut done = vec![false; n];
        let mut setup = Setup::default();
        let mut temp_pool: Vec<u32> = Vec::new();
        for &b in &fx.order {
            let avail = local_regs(ga, q, b);
            pass.entry[b as usize] = self.entry_state(fx, input, liveness, &pass, &done, ga, &avail, b);
            let entry = &pass.entry[b as usize];
            let red = |x: VarId| entry.binary_search_by_key(&x, |&(y, _)| y).is_ok();
            self.bd.build(input, liveness, b, &ga.reg, red)?;
            let bd = &*self.bd;
            let nv = bd.dag.num_values();
            setup.available = avail.clone();
            setup.start.clear();
            setup.start.resize(nv, Start::Blue);
            setup.pinned.clear();
            setup.pinned.resize(nv, None);
            setup.sink_need.clear();
            setup.sink_need.resize(nv, SinkNeed::Memory);
            for v in 0..nv as ValueId {
                let x = bd.value_var[v as usize];
                if ga.reg[x as usize] != NONE {
                    setup.pinned[v as usize] = Some(ga.reg[x as usize]);
                }
            }
            for &(x, v) in &bd.sources {
                if let Ok(k) = entry.binary_search_by_key(&x, |&(y, _)| y) {
                    let h = entry[k].1;
                    setup.start[v as usize] = Start::Red { reg: h.reg, dirty: h.dirty };
                }
            }
            for &(x, v) in &bd.exits {
                setup.sink_need[v as usize] = if wants_memory(fx, g, &pass, &done, b, x) { SinkNeed::Memory } else { SinkNeed::Anywhere };
            }
            for c in RegClass::ALL {
                pass.demand[c.index()] = pass.demand[c.index()].max(bd.dag.max_demand(c));
            }
            let sched = match self.pebbler.run(&bd.dag, &setup) {
                Ok(s) => s,
                Err(PebbleError::TooFewRegisters { op, class, needs, have }) => {
                    return Err(AllocError::TooFewRegisters { block: b, inst: bd.op_inst[op as usize], class, needs, have });
                }
                Err(PebbleError::Setup(e)) => unreachable!("the driver's setups are consistent: {e}"),
            };
            // Translate the game into code and edits.
            let w = fx.weight[b as usize];
            let mut cur: Vec<u32> = vec![NONE; nv];
            let mut temp: Vec<u32> = vec![NONE; nv];
            let mut is_exit = vec![false; nv];
            for &(_, v) in &bd.exits {
                is_exit[v as usize] = true;
            }
            for v in 0..nv as ValueId {
                cur[v as usize] = match (setup.pinned[v as usize], setup.start[v as usize]) {
                    (Some(r), _) => r,
                    (None, Start::Red { reg, .. }) if bd.is_source(v) => reg,
                    _ => NONE,
                };
            }
            let mut used_temps: Vec<u32> = Vec::new();
            let items = &mut pass.items[b as usize];
            for m in &sched.moves {
                match *m {
                    Move::Load { value, reg } => {
                        let x = bd.value_var[value as usize];
                        let slot = if bd.is_source(value) || is_exit[value as usize] {
                            home_slot(&mut pass.home, &mut pass.slots, x)
                        } else {
                            temp[value as usize]
                        };
                        debug_assert_ne!(slot, NONE, "a load from a slot never written");
                        let e = Edit { from: Loc::Slot(slot), to: Loc::Reg(reg), var: x };
                        pass.costs.add(e.kind(), w);
                        pass.var_cost[x as usize] += w;
                        items.push(Item::Edit(e));
                        cur[value as usize] = reg.index;
                    }
                    Move::Store { value } => {
                        let x = bd.value_var[value as usize];
                        let slot = if bd.is_source(value) || is_exit[value as usize] {
                            home_slot(&mut pass.home, &mut pass.slots, x)
                        } else {
                            let t = temp_pool.pop().unwrap_or_else(|| {
                                pass.slots.push(SlotInfo::default());
                                pass.slots.len() as u32 - 1
                            });
                            used_temps.push(t);
                            temp[value as usize] = t;
                            t
                        };
                        note_var(&mut pass.slots[slot as usize], x);
                        let reg = PReg::new(bd.dag.class(value), cur[value as usize]);
                        let e = Edit { from: Loc::Reg(reg), to: Loc::Slot(slot), var: x };
                        pass.costs.add(e.kind(), w);
                        pass.var_cost[x as usize] += w;
                        items.push(Item::Edit(e));
                    }
                    Move::Compute { op } => {
                        let inst = bd.op_inst[op as usize];
                        let at = pass.alloc_start[inst as usize] as usize;
                        let uses = &bd.use_vals[bd.use_start[op as usize] as usize..bd.use_start[op as usize + 1] as usize];
                        for (k, &u) in uses.iter().enumerate() {
                            pass.allocs[at + k] = PReg::new(bd.dag.class(u), cur[u as usize]);
                        }
                        let defs = &bd.def_vals[bd.def_start[op as usize] as usize..bd.def_start[op as usize + 1] as usize];
                        for (k, &d) in defs.iter().enumerate() {
                            let r = sched.reg_of(d).expect("every output has a register");
                            pass.allocs[at + uses.len() + k] = r;
                            cur[d as usize] = r.index;
                        }
                        items.push(Item::Inst(inst));
                    }
                }
            }
            temp_pool.extend(used_temps);
            // The exit state of the carried vars.
            let exit = &mut pass.exit[b as usize];
            exit.clear();
            for &(x, v) in &bd.exits {
                let reg = sched.final_red[v as usize].map_or(NONE, |r| r.index);
                let home = sched.final_blue[v as usize];
                exit.push((x, reg, home));
            }
            done[b as usize] = true;
        }
        self.fixups(fx, input, liveness, ga, q, &mut pass);
        Ok(pass)
    }

    /// Chooses where block `b`'s live-in vars start (module doc).
    #[allow(clippy::too_many_arguments)]
    fn entry_state<G: Graph, C: RegCode>(
        &self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        pass: &Pass,
        done: &[bool],
        ga: &GlobalAssign,
        avail: &[Vec<u32>; 2],
        b: Node,
    ) -> Vec<(VarId, Here)> {
        let g = input.graph();
        let mut out: Vec<(VarId, Here)> = Vec::new();
        if !fx.carry {
            return out;
        }
        if g.entry() == Some(b) {
            let mut next = [0usize; 2];
            for &x in &fx.params {
                if ga.reg[x as usize] != NONE || !liveness.is_live_in(b, x) || out.iter().any(|&(y, _)| y == x) {
                    continue;
                }
                let c = fx.class[x as usize].index();
                if let Some(&r) = avail[c].get(next[c]) {
                    next[c] += 1;
                    out.push((x, Here { reg: r, dirty: true }));
                }
            }
            out.sort_unstable_by_key(|&(x, _)| x);
            return out;
        }
        let preds: Vec<Node> = g.predecessors(b).filter(|&p| done[p as usize]).collect();
        if preds.is_empty() {
            return out;
        }
        let wb = fx.weight[b as usize];
        let mut read_here: Vec<VarId> = fx.reads(b).to_vec();
        for &l in fx.loop_of_header(b) {
            read_here.extend_from_slice(fx.reads(l));
        }
        read_here.sort_unstable();
        read_here.dedup();
        // Per var: (gain, candidate registers with their costs).
        let mut wish: Vec<(u64, VarId, Vec<(u64, u32)>, bool)> = Vec::new();
        for x in liveness.live_in(b) {
            if ga.reg[x as usize] != NONE {
                continue;
            }
            let c = fx.class[x as usize].index();
            let mut mem_cost = 0u64;
            let mut regs: Vec<(u32, u64)> = Vec::new();
            let mut any_dirty = false;
            let mut load_cost = 0u64;
            for &p in &preds {
                let we = fx.weight[p as usize].min(wb);
                let (reg, home) = exit_of(pass, p, x);
                if !home {
                    mem_cost += we;
                    any_dirty = true;
                }
                if reg == NONE {
                    load_cost += we;
                } else if let Some(e) = regs.iter_mut().find(|(r, _)| *r == reg) {
                    e.1 += we;
                } else {
                    regs.push((reg, we));
                }
            }
            let total_pred: u64 = preds.iter().map(|&p| fx.weight[p as usize].min(wb)).sum();
            let benefit = if read_here.binary_search(&x).is_ok() { wb } else { 0 };
            // Cost of expecting x in r: every predecessor not already there
            // needs a move or a load; minus the load b saves.
            let mut cands: Vec<(u64, u32)> = regs
                .iter()
                .filter(|&&(r, _)| avail[c].contains(&r))
                .map(|&(r, here)| (total_pred - here, r))
                .collect();
            let _ = load_cost;
            cands.sort_unstable();
            let Some(&(best, _)) = cands.first() else { continue };
            let reg_cost = best as i128 - benefit as i128;
            if reg_cost < mem_cost as i128 {
                let gain = (mem_cost as i128 - reg_cost) as u64;
                wish.push((gain, x, cands.into_iter().map(|(k, r)| (k, r)).collect(), any_dirty));
            }
        }
        wish.sort_unstable_by_key(|w| (core::cmp::Reverse(w.0), w.1));
        let mut taken: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        for (_, x, cands, dirty) in wish {
            let c = fx.class[x as usize].index();
            if let Some(&(_, r)) = cands.iter().find(|&&(_, r)| !taken[c].contains(&r)) {
                taken[c].push(r);
                out.push((x, Here { reg: r, dirty }));
            }
        }
        out.sort_unstable_by_key(|&(x, _)| x);
        out
    }

    /// The parallel move on every edge.
    fn fixups<G: Graph, C: RegCode>(
        &mut self,
        fx: &Facts,
        input: &Input<'_, G, C>,
        liveness: &Liveness,
        ga: &GlobalAssign,
        q: [u32; 2],
        pass: &mut Pass,
    ) {
        let g = input.graph();
        let mut wants: Vec<Want> = Vec::new();
        let mut edits: Vec<Edit> = Vec::new();
        for p in 0..fx.nblocks as Node {
            let nsucc = g.successors(p).count();
            for s in g.successors(p) {
                wants.clear();
                let mut stays: Vec<PReg> = Vec::new();
                for x in liveness.live_in(s) {
                    if ga.reg[x as usize] != NONE {
                        continue;
                    }
                    let c = fx.class[x as usize];
                    let (reg, home) = exit_of(pass, p, x);
                    if reg != NONE {
                        stays.push(PReg::new(c, reg));
                    }
                    let want = pass.entry[s as usize].binary_search_by_key(&x, |&(y, _)| y).ok().map(|k| pass.entry[s as usize][k].1);
                    let from_reg = (reg != NONE).then(|| Loc::Reg(PReg::new(c, reg)));
                    match want {
                        None => {
                            if !home {
                                let slot = home_slot(&mut pass.home, &mut pass.slots, x);
                                note_var(&mut pass.slots[slot as usize], x);
                                wants.push(Want { from: from_reg.expect("a value is somewhere"), to: Loc::Slot(slot), var: x });
                            }
                        }
                        Some(h) => {
                            let to = Loc::Reg(PReg::new(c, h.reg));
                            if !h.dirty && !home {
                                let slot = home_slot(&mut pass.home, &mut pass.slots, x);
                                note_var(&mut pass.slots[slot as usize], x);
                                wants.push(Want { from: from_reg.expect("a value is somewhere"), to: Loc::Slot(slot), var: x });
                            }
                            match from_reg {
                                Some(f) => wants.push(Want { from: f, to, var: x }),
                                None => {
                                    let slot = home_slot(&mut pass.home, &mut pass.slots, x);
                                    wants.push(Want { from: Loc::Slot(slot), to, var: x });
                                }
                            }
                        }
                    }
                }
                if wants.iter().all(|w| w.from == w.to) {
                    continue;
                }
                // Where: the predecessor's end, the successor's start, or
                // the edge itself.
                let term_reads: Vec<PReg> = terminator_regs(input, pass, p);
                let writes: Vec<Loc> = wants.iter().map(|w| w.to).collect();
                let at = if nsucc == 1 && !term_reads.iter().any(|&r| writes.contains(&Loc::Reg(r))) {
                    Fix::End(p)
                } else if g.predecessors(s).count() == 1 {
                    Fix::Start(s)
                } else {
                    Fix::Edge(p, s)
                };
                let mut scratch: Vec<PReg> = Vec::new();
                let (ap, as_) = (local_regs(ga, q, p), local_regs(ga, q, s));
                for c in RegClass::ALL {
                    for &r in &ap[c.index()] {
                        let pr = PReg::new(c, r);
                        if as_[c.index()].contains(&r)
                            && !stays.contains(&pr)
                            && !writes.contains(&Loc::Reg(pr))
                            && !(matches!(at, Fix::End(_)) && term_reads.contains(&pr))
                        {
                            scratch.push(pr);
                        }
                    }
                }
                let home = &pass.home;
                let homes_current: Vec<VarId> = wants
                    .iter()
                    .filter(|w| matches!(w.from, Loc::Slot(_)) || exit_of(pass, p, w.var).1)
                    .map(|w| w.var)
                    .collect();
                edits.clear();
                // A var broken out of a cycle through memory needs a home.
                let need_home: core::cell::RefCell<Vec<VarId>> = core::cell::RefCell::new(Vec::new());
                sequence(
                    &wants,
                    |x| {
                        let h = home[x as usize];
                        if h == NONE {
                            need_home.borrow_mut().push(x);
                        }
                        h
                    },
                    |x| homes_current.contains(&x),
                    &scratch,
                    &mut edits,
                );
                let need_home = need_home.into_inner();
                if !need_home.is_empty() {
                    for &x in &need_home {
                        home_slot(&mut pass.home, &mut pass.slots, x);
                    }
                    edits.clear();
                    let home = &pass.home;
                    sequence(&wants, |x| home[x as usize], |x| homes_current.contains(&x), &scratch, &mut edits);
                }
                let we = fx.weight[p as usize].min(fx.weight[s as usize]);
                for &e in &edits {
                    if let Loc::Slot(sl) = e.to {
                        note_var(&mut pass.slots[sl as usize], e.var);
                    }
                    pass.costs.add(e.kind(), we);
                    pass.var_cost[e.var as usize] += we;
                    pass.fixups.push((at, e));
                }
            }
        }
    }
}

/// Whether block `b` must leave var `x` in memory: without carrying always;
/// otherwise when an already allocated successor expects it there.
fn wants_memory<G: Graph>(fx: &Facts, g: &G, pass: &Pass, done: &[bool], b: Node, x: VarId) -> bool {
    if !fx.carry {
        return true;
    }
    g.successors(b).any(|s| {
        done[s as usize] && {
            let e = &pass.entry[s as usize];
            match e.binary_search_by_key(&x, |&(y, _)| y) {
                Ok(k) => !e[k].1.dirty,
                Err(_) => true,
            }
        }
    })
}

/// Var `x` at the end of block `p`: (register or `NONE`, home current).
fn exit_of(pass: &Pass, p: Node, x: VarId) -> (u32, bool) {
    let e = &pass.exit[p as usize];
    match e.binary_search_by_key(&x, |&(y, _, _)| y) {
        Ok(k) => (e[k].1, e[k].2),
        Err(_) => (NONE, true),
    }
}

/// The registers block `p`'s terminator reads.
fn terminator_regs<G: Graph, C: RegCode>(input: &Input<'_, G, C>, pass: &Pass, p: Node) -> Vec<PReg> {
    let Some(&last) = input.block_insts(p).last() else { return Vec::new() };
    if input.code().inst_kind(last) != crate::input::InstKind::Terminator {
        return Vec::new();
    }
    let at = pass.alloc_start[last as usize] as usize;
    pass.allocs[at..at + input.uses(last).len()].to_vec()
}

/// The registers the local allocation may use in block `b`: `0..q` and the
/// global registers no global holds there.
fn local_regs(ga: &GlobalAssign, q: [u32; 2], b: Node) -> [Vec<u32>; 2] {
    let mut out: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    for c in RegClass::ALL {
        let top = ga.taken[c.index()].len() as u32;
        let list = &mut out[c.index()];
        list.extend(0..q[c.index()]);
        list.extend((q[c.index()]..top).filter(|&r| !ga.is_taken(c, r, b)));
    }
    out
}

/// Var `x`'s home slot, made on first use.
fn home_slot(home: &mut [u32], slots: &mut Vec<SlotInfo>, x: VarId) -> u32 {
    if home[x as usize] == NONE {
        slots.push(SlotInfo { home_of: Some(x), vars: vec![x] });
        home[x as usize] = slots.len() as u32 - 1;
    }
    home[x as usize]
}

fn note_var(s: &mut SlotInfo, x: VarId) {
    if let Err(k) = s.vars.binary_search(&x) {
        s.vars.insert(k, x);
    }
}

impl Pass {
    fn into_allocation<G: Graph, C: RegCode>(mut self, fx: &Facts, input: &Input<'_, G, C>, q: Option<u32>, ga: &GlobalAssign) -> Allocation {
        let n = fx.nblocks;
        let mut order_start = Vec::with_capacity(n + 1);
        let mut order = Vec::new();
        let mut edits: Vec<(ProgPoint, Edit)> = Vec::new();
        self.fixups.sort_by_key(|&(f, _)| f);
        let fix_at = |f: Fix| {
            let lo = self.fixups.partition_point(|&(g, _)| g < f);
            let hi = self.fixups.partition_point(|&(g, _)| g <= f);
            &self.fixups[lo..hi]
        };
        for b in 0..n as Node {
            order_start.push(order.len() as u32);
            let first = order.len();
            for &(_, e) in fix_at(Fix::Start(b)) {
                edits.push((ProgPoint::Before { block: b, index: 0 }, e));
            }
            let items = &self.items[b as usize];
            let has_term = input
                .block_insts(b)
                .last()
                .is_some_and(|&i| input.code().inst_kind(i) == crate::input::InstKind::Terminator);
            for (k, item) in items.iter().enumerate() {
                let index = (order.len() - first) as u32;
                match *item {
                    Item::Edit(e) => edits.push((ProgPoint::Before { block: b, index }, e)),
                    Item::Inst(i) => {
                        let last = k + 1 == items.len();
                        if last && has_term {
                            for &(_, e) in fix_at(Fix::End(b)) {
                                edits.push((ProgPoint::Before { block: b, index }, e));
                            }
                        }
                        order.push(i);
                    }
                }
            }
            if !has_term {
                let index = (order.len() - first) as u32;
                for &(_, e) in fix_at(Fix::End(b)) {
                    edits.push((ProgPoint::Before { block: b, index }, e));
                }
            }
        }
        order_start.push(order.len() as u32);
        for &(f, e) in &self.fixups {
            if let Fix::Edge(p, s) = f {
                edits.push((ProgPoint::OnEdge { from: p, to: s }, e));
            }
        }
        edits.sort_by_key(|&(p, _)| p);
        // Params: the entry state, the global registers, else home slots.
        let entry = input.graph().entry();
        let mut param_locs: Vec<Option<Loc>> = Vec::new();
        for (k, &x) in fx.params.iter().enumerate() {
            let c = fx.class[x as usize];
            let live = fx.param_live[k];
            let loc = if ga.reg[x as usize] != NONE {
                Some(Loc::Reg(PReg::new(c, ga.reg[x as usize])))
            } else if let Some(e) = entry
                && let Some(&(_, h)) = self.entry[e as usize].iter().find(|&&(y, _)| y == x)
            {
                Some(Loc::Reg(PReg::new(c, h.reg)))
            } else if live {
                Some(Loc::Slot(home_slot(&mut self.home, &mut self.slots, x)))
            } else {
                None
            };
            let _ = &ga;
            param_locs.push(loc);
        }
        let mut entry_locs: Vec<(VarId, Loc)> = Vec::new();
        for &x in &fx.entry_live {
            let c = fx.class[x as usize];
            let loc = if ga.reg[x as usize] != NONE {
                Loc::Reg(PReg::new(c, ga.reg[x as usize]))
            } else if let Some(e) = entry
                && let Some(&(_, h)) = self.entry[e as usize].iter().find(|&&(y, _)| y == x)
            {
                Loc::Reg(PReg::new(c, h.reg))
            } else {
                Loc::Slot(home_slot(&mut self.home, &mut self.slots, x))
            };
            entry_locs.push((x, loc));
        }
        let mut regs_used = [0u32; 2];
        let mut see = |r: PReg| {
            let u = &mut regs_used[r.class.index()];
            *u = (*u).max(r.index + 1);
        };
        for &r in &self.allocs {
            see(r);
        }
        for (_, e) in &edits {
            for l in [e.from, e.to] {
                if let Loc::Reg(r) = l {
                    see(r);
                }
            }
        }
        for l in param_locs.iter().flatten() {
            if let Loc::Reg(r) = *l {
                see(r);
            }
        }
        Allocation {
            order_start,
            order,
            alloc_start: self.alloc_start,
            allocs: self.allocs,
            edits,
            param_locs,
            entry_locs,
            slots: self.slots,
            regs_used,
            costs: self.costs,
            globals: ga.list.clone(),
            local_regs: q,
        }
    }
}
