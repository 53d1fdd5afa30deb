//! The allocator's properties as checks, shared by the `regalloc` fuzz
//! target, `cargo test` smoke runs and the benchmarks (feature `fuzzing`).
//!
//! - [`check_program`]: a generated module, allocated at a register count
//!   by every method and option, passes the symbolic checker, verifies, and
//!   the reference interpreter gives the same results and memory.
//! - [`random_dag`]: a seeded random plain DAG (the heuristic's gap to the
//!   exact optimum is measured on these), and [`check_dag`]: the heuristic
//!   plays a legal game on it, no cheaper than the lower bound, the same
//!   whatever the numbering.
//! - [`Bug`] and [`with_bug`]: the planted bugs that prove the checker can
//!   fail.

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

use crate::class::{RegClass, Regs};
use crate::dag::{Dag, DagBuilder, ValueId};
use crate::error::AllocError;
use crate::game::{LocalRule, Setup, replay};
use crate::keel::{KeelError, Method, allocate_module};
use crate::options::{GlobalStep, Options, Strategy};
use ir_core::interp::{Config, run};
use ir_core::{Imm, Module, VerifyOptions, verify_module};

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A random plain DAG with `nodes` values: about a quarter sources, the
/// rest pure operations reading one to three earlier values (recent ones
/// more often), every value read by nothing a sink, and a fifth of the
/// others sinks too.
pub fn random_dag(rng: &mut Rng, nodes: usize) -> Dag {
    let nodes = nodes.max(3);
    let nsrc = (nodes / 4).max(2).min(nodes - 1);
    let mut b = DagBuilder::new();
    let mut vals: Vec<ValueId> = (0..nsrc).map(|_| b.source(RegClass::Scalar)).collect();
    let mut read = vec![false; nodes];
    while vals.len() < nodes {
        let k = 1 + rng.below(3) as usize;
        let mut ins: Vec<ValueId> = Vec::new();
        for _ in 0..k {
            let n = vals.len() as u64;
            // Recent values more often: the max of two draws.
            let i = rng.below(n).max(rng.below(n)) as usize;
            if !ins.contains(&vals[i]) {
                ins.push(vals[i]);
            }
        }
        for &v in &ins {
            read[v as usize] = true;
        }
        vals.push(b.node(RegClass::Scalar, &ins));
    }
    for &v in &vals[nsrc..] {
        if !read[v as usize] || rng.below(5) == 0 {
            b.sink(v);
        }
    }
    b.build().expect("well formed by construction")
}

/// The same DAG with its values and operations renumbered by a random
/// topological order (the canonical ranks follow the values, so the
/// heuristic's play is the same up to the renaming); returns the DAG and
/// the new id of each old value.
pub fn renumbered(rng: &mut Rng, dag: &Dag) -> (Dag, Vec<ValueId>) {
    let n = dag.num_values();
    // A random topological order of the values: repeatedly take a random
    // value whose inputs are all placed.
    let mut placed = vec![false; n];
    let mut order: Vec<ValueId> = Vec::with_capacity(n);
    while order.len() < n {
        let ready: Vec<ValueId> = (0..n as ValueId)
            .filter(|&v| {
                !placed[v as usize] && dag.def_op(v).is_none_or(|o| dag.inputs(o).iter().all(|&u| placed[u as usize]))
            })
            .collect();
        let v = ready[rng.below(ready.len() as u64) as usize];
        placed[v as usize] = true;
        order.push(v);
    }
    let mut new_id = vec![0u32; n];
    let mut b = DagBuilder::new();
    let mut value_rank = Vec::with_capacity(n);
    let mut op_rank = Vec::new();
    for &v in &order {
        let id = match dag.def_op(v) {
            None => b.source(dag.class(v)),
            Some(o) => {
                let ins: Vec<ValueId> = dag.inputs(o).iter().map(|&u| new_id[u as usize]).collect();
                op_rank.push(dag.op_rank(o));
                b.node(dag.class(v), &ins)
            }
        };
        new_id[v as usize] = id;
        value_rank.push(dag.value_rank(v));
        if dag.is_sink(v) {
            b.sink(id);
        }
    }
    b.set_ranks(value_rank, op_rank);
    (b.build().expect("a renumbering of a valid DAG"), new_id)
}

/// The heuristic (the default rule, `Searched`) on `dag` with `p` registers: a legal game, at least the
/// lower bound, and the same loads and stores (and the same moves, up to
/// the renaming) on a renumbering. Panics otherwise. Returns the cost, or
/// `None` when `p` is below the DAG's demand.
pub fn check_dag(dag: &Dag, p: u32, rng: &mut Rng) -> Option<u64> {
    check_dag_with(dag, p, LocalRule::Searched, rng)
}

/// [`check_dag`] under the local rule `rule`.
pub fn check_dag_with(dag: &Dag, p: u32, rule: LocalRule, rng: &mut Rng) -> Option<u64> {
    let regs = Regs::new(p, 0);
    let setup = Setup { rule, ..Setup::plain(regs) };
    let mut pebbler = crate::Pebbler::new();
    let s = pebbler.run(dag, &setup).ok()?;
    let (l, st) = replay(dag, &setup, &s).expect("the heuristic plays a legal game");
    assert_eq!((l, st), (s.loads, s.stores));
    assert!(s.cost() >= dag.lower_bound(), "cost {} below the lower bound {}", s.cost(), dag.lower_bound());
    let (d2, map) = renumbered(rng, dag);
    let s2 = pebbler.run(&d2, &setup).expect("the same demand");
    assert_eq!(s2.cost(), s.cost(), "a renumbering changes the cost");
    let moves = |s: &crate::game::Schedule, d: &Dag, map: Option<&[ValueId]>| -> Vec<(u8, u32, Option<u32>)> {
        let id = |v: ValueId| map.map_or(v, |m| m[v as usize]);
        s.moves
            .iter()
            .map(|m| match *m {
                crate::game::Move::Load { value, reg } => (0, id(value), Some(reg.index)),
                crate::game::Move::Store { value } => (1, id(value), None),
                crate::game::Move::Compute { op } => {
                    let v = d.outputs(op)[0];
                    (2, id(v), s.reg_of(v).map(|r| r.index))
                }
            })
            .collect()
    };
    assert_eq!(moves(&s, dag, Some(&map)), moves(&s2, &d2, None), "a renumbering changes the moves");
    Some(s.cost())
}

/// Every method and option the allocator has, at `p` registers.
pub fn option_grid(p: u32) -> Vec<(Method, Options)> {
    let mut v = vec![(Method::Briggs, Options::with_regs(p))];
    // The whole-function allocator (the default).
    v.push((Method::Pebble, Options::with_regs(p)));
    v.push((Method::Pebble, Options { webs: false, ..Options::with_regs(p) }));
    v.push((Method::Pebble, Options { unroll: 3, ..Options::with_regs(p) }));
    // Block games with a global step.
    let blocks = Options { strategy: Strategy::Blocks, ..Options::with_regs(p) };
    for global in [GlobalStep::Off, GlobalStep::Weighted, GlobalStep::Lifetime] {
        for carry in [false, true] {
            v.push((Method::Pebble, Options { global, carry, ..blocks.clone() }));
        }
    }
    v.push((Method::Pebble, Options { webs: false, ..blocks.clone() }));
    v.push((Method::Pebble, Options { local_rule: LocalRule::Document, ..blocks.clone() }));
    v.push((Method::Pebble, Options { local_rule: LocalRule::Refined, ..blocks.clone() }));
    v.push((Method::Pebble, Options { unroll: 3, ..blocks }));
    v
}

/// What [`check_program`] saw.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct ProgramCheck {
    /// Allocations checked and run.
    pub ran: usize,
    /// Allocations refused because an instruction needs more registers.
    pub too_few: usize,
}

/// Allocates `module` (whose `main` runs on `args` within `fuel`) with
/// every method and option at `p` registers ([`option_grid`]); see
/// [`check_program_with`].
pub fn check_program(module: &Module, main: ir_core::FuncId, args: &[Imm], fuel: u64, p: u32) -> ProgramCheck {
    check_program_with(module, main, args, fuel, &option_grid(p))
}

/// Allocates `module` (whose `main` runs on `args` within `fuel`) with each
/// of `grid`; each allocation must pass the checker (inside
/// `allocate_module`), verify, and interpret to the same results and
/// memory; a refusal for too few registers must name an instruction that
/// needs more than there are. Panics otherwise.
pub fn check_program_with(
    module: &Module,
    main: ir_core::FuncId,
    args: &[Imm],
    fuel: u64,
    grid: &[(Method, Options)],
) -> ProgramCheck {
    let config = Config { fuel, ..Config::default() };
    let want = run(module, main, args, config).expect("the original runs");
    let mut out = ProgramCheck::default();
    for &(method, ref options) in grid {
        let (m, results) = allocate_module(module, method, options);
        let refused = results.iter().find_map(|(_, r)| match r {
            Err(KeelError::Alloc(AllocError::TooFewRegisters { needs, have, .. })) => Some((*needs, *have)),
            _ => None,
        });
        if let Some((needs, have)) = refused {
            assert!(needs > have, "{method:?}: refused with {needs} needed and {have} there");
            out.too_few += 1;
            continue;
        }
        for (f, r) in &results {
            if let Err(e) = r {
                panic!("{method:?} {options:?}: function {f}: {e}");
            }
        }
        if let Err(e) = verify_module(&m, &VerifyOptions::default()) {
            panic!("{method:?} {options:?}: the allocated module does not verify: {e:?}");
        }
        // Spill code runs too: generous fuel.
        let got = run(&m, main, args, Config { fuel: fuel.saturating_mul(20).saturating_add(10_000), ..config })
            .unwrap_or_else(|t| panic!("{method:?} {options:?}: the allocated module traps: {}", t.describe(&m)));
        assert_eq!(got.results, want.results, "{method:?} {options:?}: results differ");
        for (mem, obj) in module.mems() {
            assert_eq!(
                got.memory.elements(mem),
                want.memory.elements(mem),
                "{method:?} {options:?}: memory {} differs",
                obj.name
            );
        }
        out.ran += 1;
    }
    out
}

/// Shuffles the statements of every block of `func` by random swaps of
/// adjacent independent instructions (no var read or written by one is
/// written by the other, not both effects, never the terminator): another
/// statement order of the same block DAGs. Returns the swaps made.
pub fn shuffle_statements(func: &mut ir_core::Function, rng: &mut Rng, rounds: usize) -> usize {
    use crate::input::{InstKind, RegCode};
    use cfg_dom::VarCode;
    let reads = |f: &ir_core::Function, i: ir_core::Inst| -> Vec<u32> {
        let mut v: Vec<u32> = VarCode::uses(f, i.as_u32()).map(|u| u.var).collect();
        if VarCode::is_guarded(f, i.as_u32()) {
            v.extend(VarCode::defs(f, i.as_u32()));
        }
        v
    };
    let writes = |f: &ir_core::Function, i: ir_core::Inst| -> Vec<u32> { VarCode::defs(f, i.as_u32()).collect() };
    let mut swaps = 0;
    let blocks: Vec<ir_core::Block> = func.blocks().collect();
    for _ in 0..rounds {
        for &b in &blocks {
            let insts: Vec<ir_core::Inst> = func.block_insts(b).collect();
            if insts.len() < 2 {
                continue;
            }
            let k = rng.below(insts.len() as u64 - 1) as usize;
            let (a, c) = (insts[k], insts[k + 1]);
            let (ka, kc) = (func.inst_kind(a.as_u32()), func.inst_kind(c.as_u32()));
            if ka == InstKind::Terminator
                || kc == InstKind::Terminator
                || (ka == InstKind::Effect && kc == InstKind::Effect)
            {
                continue;
            }
            let (ra, wa, rc, wc) = (reads(func, a), writes(func, a), reads(func, c), writes(func, c));
            let clash = wa.iter().any(|x| rc.contains(x) || wc.contains(x)) || ra.iter().any(|x| wc.contains(x));
            if clash {
                continue;
            }
            let _ = func.remove_inst(c);
            let _ = func.insert_inst_before(c, a);
            swaps += 1;
        }
    }
    swaps
}

/// Damages `alloc` at random (a register swapped, an edit dropped or
/// redirected, two instructions of a block swapped, a param moved, an
/// operand list shortened): what a buggy allocator or a corrupted file
/// could hand the checker, which must answer with an error or `Ok`, never
/// a panic.
pub fn mutate(alloc: &mut crate::output::Allocation, rng: &mut Rng) {
    use crate::class::{Loc, PReg};
    let nregs = alloc.regs_used[0].max(1) + 1;
    match rng.below(7) {
        0 if !alloc.allocs.is_empty() => {
            let k = rng.below(alloc.allocs.len() as u64) as usize;
            alloc.allocs[k] = PReg::new(alloc.allocs[k].class, rng.below(u64::from(nregs)) as u32);
        }
        1 if !alloc.edits.is_empty() => {
            let k = rng.below(alloc.edits.len() as u64) as usize;
            alloc.edits.remove(k);
        }
        2 if !alloc.edits.is_empty() => {
            let k = rng.below(alloc.edits.len() as u64) as usize;
            alloc.edits[k].1.to = Loc::Reg(PReg::scalar(rng.below(u64::from(nregs) + 3) as u32));
        }
        3 if alloc.order.len() > 1 => {
            let k = rng.below(alloc.order.len() as u64 - 1) as usize;
            alloc.order.swap(k, k + 1);
        }
        4 if !alloc.entry_locs.is_empty() => {
            let k = rng.below(alloc.entry_locs.len() as u64) as usize;
            alloc.entry_locs[k].1 = Loc::Slot(rng.below(alloc.slots.len() as u64 + 2) as u32);
        }
        5 if alloc.alloc_start.len() > 2 => {
            let k = 1 + rng.below(alloc.alloc_start.len() as u64 - 2) as usize;
            alloc.alloc_start[k] = alloc.alloc_start[k].saturating_sub(1);
        }
        _ => {
            if let Some(e) = alloc.edits.first_mut() {
                e.1.from = Loc::Slot(u32::MAX);
            }
        }
    }
}

/// The fuzz target's check: `bytes` decode (through `ir-gen`'s analysis
/// configuration) to a module and arguments; its first byte picks the
/// register count (2, 3, 4, 8 or 16) and an option of the grid; the module
/// is allocated by the pebble allocator (default options and the picked
/// one) and by the Chaitin-Briggs baseline, checked, verified and run to
/// the original's results and memory. A random DAG seeded by the bytes is
/// played too ([`check_dag`]). Panics on any failure.
pub fn check(bytes: &[u8]) {
    let (g, args) = ir_gen::fuzzing::analysis_input(bytes);
    let first = bytes.first().copied().unwrap_or(0);
    let p = [2u32, 3, 4, 8, 16][usize::from(first % 5)];
    let grid = option_grid(p);
    let picked = grid[usize::from(first / 5) % grid.len()].clone();
    let runs = [(Method::Pebble, Options::with_regs(p)), (Method::Briggs, Options::with_regs(p)), picked];
    check_program_with(&g.module, g.main, &args, g.fuel.saturating_add(1000), &runs);
    let seed = ir_gen::fuzzing::seed_of(bytes);
    let mut rng = Rng::new(seed);
    let dag = random_dag(&mut rng, 4 + (seed % 40) as usize);
    let demand = dag.max_demand(RegClass::Scalar);
    check_dag(&dag, demand + (seed >> 8) as u32 % 3, &mut rng);
}
