//! Liveness: hand cases for each rule (straight line, loops, guarded
//! definitions, guards, phis, use before definition, unreachable blocks),
//! the DU-chain document's example in both its forms, staleness, and
//! property tests against the path-based oracle on generated modules, plain
//! and mutated into unverified shapes.

use cfg_dom::{Liveness, Stale, oracle};
use ir_core::entity::EntityRef;
use ir_core::{Block, Function, Guard, Module, Operand, Type, Var, node};
use ir_gen::{GenConfig, generate};
use proptest::prelude::*;

fn parse(src: &str) -> Module {
    match ir_core::text::parse(src) {
        Ok((m, _)) => {
            ir_core::verify_module(&m, &ir_core::VerifyOptions::default()).expect("the test's IR verifies");
            m
        }
        Err(e) => panic!("parse error: {e:?}"),
    }
}

fn only(m: &Module) -> &Function {
    m.functions().next().expect("one function").1
}

fn bb(n: u32) -> Block {
    Block::from_u32(n)
}

/// `cfg_dom::Liveness` of a Keel function on its CFG, asked in blocks and
/// vars instead of ids.
#[derive(Default)]
struct Live(Liveness);

impl Live {
    fn new() -> Live {
        Live::default()
    }

    fn of(f: &Function) -> Live {
        Live(Liveness::of(&f.cfg(), f).expect("a Keel function is valid input"))
    }

    fn compute(&mut self, f: &Function) {
        self.0.compute(&f.cfg(), f).expect("a Keel function is valid input");
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn live_in(&self, b: Block) -> impl Iterator<Item = Var> + '_ {
        self.0.live_in(node(b)).map(Var::from_u32)
    }

    fn live_out(&self, b: Block) -> impl Iterator<Item = Var> + '_ {
        self.0.live_out(node(b)).map(Var::from_u32)
    }

    fn is_live_in(&self, b: Block, v: Var) -> bool {
        self.0.is_live_in(node(b), v.as_u32())
    }

    fn is_live_out(&self, b: Block, v: Var) -> bool {
        self.0.is_live_out(node(b), v.as_u32())
    }

    fn check(&self, f: &Function) -> Result<(), Stale> {
        self.0.check(f)
    }

    fn stamp(&self) -> Option<u64> {
        self.0.stamp()
    }

    fn num_blocks(&self) -> usize {
        self.0.num_blocks()
    }

    fn num_vars(&self) -> usize {
        self.0.num_vars()
    }

    fn visits(&self) -> u64 {
        self.0.visits()
    }
}

/// The oracle's live-in, in blocks and vars.
fn oracle_in(f: &Function, b: Block, v: Var) -> bool {
    oracle::live_in(&f.cfg(), f, node(b), v.as_u32())
}

/// The oracle's live-out, in blocks and vars.
fn oracle_out(f: &Function, b: Block, v: Var) -> bool {
    oracle::live_out(&f.cfg(), f, node(b), v.as_u32())
}

/// Names of a set of vars, sorted.
fn names(func: &Function, vars: impl Iterator<Item = Var>) -> Vec<String> {
    let mut v: Vec<String> = vars.map(|v| func.var_name(v).to_string()).collect();
    v.sort();
    v
}

fn sorted(expected: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Checks every block's live-in and live-out sets (by name), and that the
/// oracle agrees on every (block, var).
fn expect(func: &Function, table: &[(u32, &[&str], &[&str])]) {
    let live = Live::of(func);
    for &(b, live_in, live_out) in table {
        assert_eq!(names(func, live.live_in(bb(b))), sorted(live_in), "live-in of bb{b}");
        assert_eq!(names(func, live.live_out(bb(b))), sorted(live_out), "live-out of bb{b}");
    }
    agree(func, &live);
}

/// `live` equals the oracle for every block ever created and every var.
fn agree(func: &Function, live: &Live) {
    for b in 0..func.num_blocks() as u32 {
        for v in func.vars() {
            let (b, name) = (bb(b), func.var_name(v));
            assert_eq!(live.is_live_in(b, v), oracle_in(func, b, v), "live-in of {name} at {b}");
            assert_eq!(live.is_live_out(b, v), oracle_out(func, b, v), "live-out of {name} at {b}");
            assert_eq!(live.live_in(b).any(|x| x == v), live.is_live_in(b, v));
            assert_eq!(live.live_out(b).any(|x| x == v), live.is_live_out(b, v));
        }
    }
}

#[test]
fn straight_line() {
    let m = parse(
        "func @f(%a: i32, %b: i32) -> i32 {
    var %x: i32
    var %y: i32
bb0:
    %x = add %a, 1
    jump bb1
bb1:
    %y = mul %x, %x
    %x = add %y, %b
    jump bb2
bb2:
    ret %x
}
",
    );
    expect(only(&m), &[(0, &["a", "b"], &["x", "b"]), (1, &["x", "b"], &["x"]), (2, &["x"], &[])]);
}

#[test]
fn a_loop_carries_its_vars() {
    // docs/ir.md §1.
    let m = parse(
        "func @sum_to(%n: i32) -> i32 {
    var %s: i32
    var %i: i32
    var %more: i1
bb0:
    %s = const 0
    %i = const 0
    jump bb1
bb1:
    %more = setp.slt %i, %n
    br %more, bb2, bb3
bb2:
    %s = add %s, %i
    %i = add %i, 1
    jump bb1
bb3:
    ret %s
}
",
    );
    let sin = ["s", "i", "n"];
    expect(only(&m), &[(0, &["n"], &sin), (1, &sin, &sin), (2, &sin, &sin), (3, &["s"], &[])]);
}

#[test]
fn a_guarded_definition_does_not_kill() {
    let m = parse(
        "func @f(%a: i32, %b: i32, %p: i1) -> i32 {
    var %x: i32
bb0:
    %x = const 0
    jump bb1
bb1:
    @%p %x = add %a, %b
    jump bb2
bb2:
    @!%p %x = sub %x, %b
    ret %x
}
",
    );
    // %x survives both guarded definitions, so it is live above them; the
    // unguarded `const` kills it at the top.
    let all = ["a", "b", "p", "x"];
    expect(only(&m), &[(0, &["a", "b", "p"], &all), (1, &all, &["b", "p", "x"]), (2, &["b", "p", "x"], &[])]);
    // The same program with the guard of bb1 removed: now it kills.
    let mut m = m;
    let id = m.function_ids().next().expect("f");
    let f = m.function_mut(id).expect("f");
    let guarded = f.block_insts(bb(1)).next().expect("the add");
    assert!(f.set_guard(guarded, None));
    expect(f, &[(0, &["a", "b", "p"], &["a", "b", "p"]), (1, &["a", "b", "p"], &["b", "p", "x"])]);
}

#[test]
fn a_guard_keeps_its_predicate_live() {
    let m = parse(
        "func @f(%a: i32) -> i32 {
    var %x: i32
    var %p: i1
    var %q: i1
bb0:
    %x = copy %a
    %p = setp.sgt %a, 0
    %q = setp.slt %a, 9
    jump bb1
bb1:
    @%p %x = add %x, 1
    jump bb2
bb2:
    @!%q %x = add %x, 2
    ret %x
}
",
    );
    let f = only(&m);
    expect(f, &[(0, &["a"], &["p", "q", "x"]), (1, &["p", "q", "x"], &["q", "x"]), (2, &["q", "x"], &[])]);
}

#[test]
fn phi_operands_are_live_out_of_their_predecessor_only() {
    let m = parse(
        "func @f(%c: i1, %a: i32, %b: i32) -> i32 {
    var %x: i32
    var %u: i32
    var %v: i32
bb0:
    br %c, bb1, bb2
bb1:
    %u = add %a, 1
    jump bb3
bb2:
    %v = add %b, 2
    jump bb3
bb3:
    %x = phi(bb1: %u, bb2: %v)
    ret %x
}
",
    );
    expect(only(&m), &[(0, &["a", "b", "c"], &["a", "b"]), (1, &["a"], &["u"]), (2, &["b"], &["v"]), (3, &[], &[])]);
}

#[test]
fn phis_read_in_parallel_along_a_back_edge() {
    // The two phis swap %x and %y each time round: both are live out of the
    // latch, neither is live into the header (they are defined at its top).
    let m = parse(
        "func @f(%a: i32, %b: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %m: i1
bb0:
    jump bb1
bb1:
    %x = phi(bb0: %a, bb2: %y)
    %y = phi(bb0: %b, bb2: %x)
    %m = setp.slt %x, %y
    br %m, bb2, bb3
bb2:
    jump bb1
bb3:
    ret %x
}
",
    );
    expect(
        only(&m),
        &[(0, &["a", "b"], &["a", "b"]), (1, &[], &["x", "y"]), (2, &["x", "y"], &["x", "y"]), (3, &["x"], &[])],
    );
}

#[test]
fn a_phi_operand_defined_in_its_predecessor_is_live_out_not_in() {
    // bb1 defines %u and feeds it to the phi of bb2; a param feeds the other
    // incoming edge, so it is live out of bb0 but not of bb1.
    let m = parse(
        "func @f(%a: i32, %c: i1) -> i32 {
    var %u: i32
    var %x: i32
bb0:
    br %c, bb1, bb2
bb1:
    %u = add %a, 1
    jump bb2
bb2:
    %x = phi(bb0: %a, bb1: %u)
    ret %x
}
",
    );
    expect(only(&m), &[(0, &["a", "c"], &["a"]), (1, &["a"], &["u"]), (2, &[], &[])]);
}

#[test]
fn a_var_used_before_any_definition_is_live_into_the_entry() {
    let m = parse(
        "func @f(%n: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %c: i1
bb0:
    jump bb1
bb1:
    %y = add %x, 1
    %x = copy %y
    %c = setp.slt %y, %n
    br %c, bb1, bb2
bb2:
    ret %y
}
",
    );
    expect(only(&m), &[(0, &["n", "x"], &["n", "x"]), (1, &["n", "x"], &["n", "x", "y"]), (2, &["y"], &[])]);
}

#[test]
fn unreachable_blocks_have_live_sets_of_their_own() {
    // bb1 and bb2 are unreachable; bb1 jumps into the reachable bb3, whose
    // live-in it inherits, but it cannot add to the reachable blocks' sets.
    let m = parse(
        "func @f(%a: i32, %b: i32) -> i32 {
    var %y: i32
    var %z: i32
bb0:
    %z = copy %a
    jump bb3
bb1:
    %y = add %b, 1
    jump bb2
bb2:
    %z = copy %y
    jump bb3
bb3:
    ret %z
}
",
    );
    expect(only(&m), &[(0, &["a"], &["z"]), (1, &["b"], &["y"]), (2, &["y"], &["z"]), (3, &["z"], &[])]);
}

const SSA_DU: &str = "func @du_example(%n: i32, %q: i32, %s: i1) -> i32 {
    var %a: i32
    var %b: i32
    var %c: i32
    var %x: i32
    var %p: i1
    var %y: i32
    var %i: i32
    var %more: i1
    var %i.1: i32
    var %a.1: i32
    var %b.1: i32
    var %c.1: i32
    var %x.1: i32
    var %p.1: i1
    var %x.2: i32
    var %i.2: i32
    var %x.5: i32
    var %x.3: i32
    var %x.4: i32
    var %i.3: i32
    var %more.1: i1
    var %y.1: i32
bb0:
    %i.1 = copy %n
    jump bb1
bb1:
    %a.1 = const 3
    %b.1 = const 4
    %c.1 = const 5
    %x.1 = add %a.1, %c.1
    %p.1 = setp.ne %q, 0
    jump bb2
bb2:
    %x.2 = phi(bb1: %x.1, bb5: %x.4)
    %i.2 = phi(bb1: %i.1, bb5: %i.3)
    br %s, bb3, bb4
bb3:
    @%p.1 %x.5 = add %a.1, %b.1
    jump bb4
bb4:
    %x.3 = phi(bb2: %x.2, bb3: %x.5)
    @%p.1 %x.4 = sub %a.1, %b.1
    jump bb5
bb5:
    %i.3 = sub %i.2, 1
    %more.1 = setp.sgt %i.3, 0
    br %more.1, bb2, bb6
bb6:
    %y.1 = copy %x.4
    ret %y.1
}
";

#[test]
fn the_du_chain_documents_example() {
    // docs/examples/du_chains.kir. Worked out by hand: in bb6 `%y = copy
    // %x` makes %x live-in; the guarded s7 and s9 do not kill %x, so it is
    // live all round the loop bb2..bb5 and out of bb1, where s4 kills it.
    // %c dies inside bb1; %y and %more never cross a block boundary; %i is
    // the loop counter, %s the loop's branch condition.
    let m = parse(include_str!("../../../docs/examples/du_chains.kir"));
    let f = only(&m);
    let body = ["a", "b", "p", "x", "i", "s"];
    expect(
        f,
        &[
            (0, &["n", "q", "s"], &["q", "i", "s"]),
            (1, &["q", "i", "s"], &body),
            (2, &body, &body),
            (3, &body, &body),
            (4, &body, &body),
            (5, &body, &body),
            (6, &["x"], &[]),
        ],
    );
}

#[test]
fn the_du_chain_documents_example_in_ssa_form() {
    // docs/ir.md §13.1. Phi operands are live out of their predecessor
    // only (%x.1 and %i.1 out of bb1, %x.2 out of bb2, %x.5 out of bb3,
    // %x.4 and %i.3 out of bb5). The guarded %x.5 and %x.4 do not kill, so
    // the IR alone makes them live above their definitions, up to the entry:
    // the "x5 may leave x2" link that would say otherwise is not in the IR.
    let m = parse(SSA_DU);
    let f = only(&m);
    let loop_in = ["s", "x.5", "p.1", "a.1", "b.1", "x.4"];
    let body = ["i.2", "x.4", "s", "x.5", "p.1", "a.1", "b.1"];
    expect(
        f,
        &[
            (0, &["n", "q", "s", "x.5", "x.4"], &["q", "s", "x.5", "x.4", "i.1"]),
            (1, &["q", "s", "x.5", "x.4", "i.1"], &["s", "x.5", "p.1", "a.1", "b.1", "x.4", "x.1", "i.1"]),
            (2, &loop_in, &["p.1", "a.1", "b.1", "i.2", "x.4", "s", "x.5", "x.2"]),
            (3, &body, &body),
            (4, &body, &body),
            (5, &body, &["s", "x.5", "p.1", "a.1", "b.1", "x.4", "i.3"]),
            (6, &["x.4"], &[]),
        ],
    );
}

#[test]
fn stale_after_an_operand_changes_and_fresh_after_recomputing() {
    let mut m = parse(SSA_DU);
    let id = m.function_ids().next().expect("f");
    let f = m.function_mut(id).expect("f");
    let mut live = Live::of(f);
    assert_eq!(live.stamp(), Some(f.epoch().as_u64()));
    live.check(f).expect("fresh");
    // bb6: `%y.1 = copy %x.4` becomes `%y.1 = copy %x.3`.
    let copy = f.block_insts(bb(6)).next().expect("the copy");
    let x3 = f.var_by_name("x.3").expect("x.3");
    let cfg_epoch = f.cfg_epoch();
    assert!(f.set_operand(copy, 0, Operand::var(x3)));
    assert_eq!(f.cfg_epoch(), cfg_epoch, "a CFG analysis would still be fresh");
    assert!(matches!(live.check(f), Err(Stale::Changed { .. })));
    live.compute(f);
    live.check(f).expect("fresh again");
    assert!(live.is_live_in(bb(6), x3));
    agree(f, &live);
    // Another function, even a clone, is not the one computed on.
    assert!(live.check(&f.clone()).is_err());
    assert_eq!(Live::new().check(f), Err(Stale::Unstamped));
    live.clear();
    assert_eq!((live.num_blocks(), live.stamp()), (0, None));
    assert!(!live.is_live_in(bb(6), x3));
}

#[test]
fn queries_out_of_range_are_not_live() {
    let m = parse(SSA_DU);
    let f = only(&m);
    let live = Live::of(f);
    let far = Var::new(f.num_vars() + 5);
    assert!(!live.is_live_in(bb(0), far) && !live.is_live_out(bb(1), far));
    assert!(!oracle_in(f, bb(0), far) && !oracle_out(f, bb(1), far));
    assert_eq!(live.live_in(bb(99)).count(), 0);
    assert!(!oracle_in(f, bb(99), Var::new(0)));
    assert_eq!((live.num_blocks(), live.num_vars()), (f.num_blocks(), f.num_vars()));
    assert!(live.visits() >= 7);
}

/// The small generated modules of the property tests.
fn small(blocks: usize) -> GenConfig {
    GenConfig {
        blocks,
        vars: 8,
        predication: 0.4,
        phis: 0.3,
        irreducible: 0.3,
        unreachable: 0.2,
        memory: 0.1,
        functions: 2,
        ..GenConfig::default()
    }
}

/// A small deterministic generator for the mutations.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Rewrites `func` into shapes the verifier would reject, which liveness
/// must still handle consistently: instructions removed (uses before any
/// definition), guards added anywhere (phis included) or dropped,
/// branches redirected (phis naming non-predecessors, blocks without a
/// phi pair), blocks taken out of the layout.
fn mutate(func: &mut Function, seed: u64) {
    let mut rng = Rng(seed);
    let preds: Vec<Var> = func.vars().filter(|&v| func.var_type(v) == Some(Type::I1)).collect();
    let blocks: Vec<Block> = func.blocks().collect();
    for &b in &blocks {
        let insts: Vec<_> = func.block_insts(b).collect();
        for i in insts {
            let term = func.opcode(i).is_terminator();
            match rng.below(10) {
                0 if !term => {
                    let _ = func.remove_inst(i);
                }
                1 if !term && !preds.is_empty() => {
                    let p = preds[rng.below(preds.len())];
                    let g = if rng.below(2) == 0 { Guard::when(p) } else { Guard::unless(p) };
                    func.set_guard(i, Some(g));
                }
                2 if !term => {
                    func.set_guard(i, None);
                }
                3 if term => {
                    let target = Block::new(rng.below(func.num_blocks()));
                    func.set_successor(i, 0, target);
                }
                _ => {}
            }
        }
    }
    if blocks.len() > 2 && rng.below(3) == 0 {
        let _ = func.remove_block(blocks[1 + rng.below(blocks.len() - 1)]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn liveness_equals_the_oracle(seed in any::<u64>(), blocks in 1usize..40) {
        let g = generate(&small(blocks), seed);
        let mut live = Live::new();
        for (_, f) in g.module.functions() {
            live.compute(f);
            agree(f, &live);
            live.check(f).expect("fresh");
        }
    }

    #[test]
    fn liveness_equals_the_oracle_on_unverified_functions(seed in any::<u64>(), blocks in 1usize..30) {
        let mut m = generate(&small(blocks), seed).module;
        let ids: Vec<_> = m.function_ids().collect();
        for id in ids {
            let f = m.function_mut(id).expect("exists");
            mutate(f, seed ^ u64::from(id.as_u32()));
            agree(f, &Live::of(f));
        }
    }
}

#[test]
fn the_property_tests_see_every_feature() {
    // Across a few seeds the generated modules have guarded definitions,
    // phis, unreachable blocks, and vars live into an unreachable block.
    let (mut guarded, mut phis, mut unreachable, mut live_unreachable) = (0, 0, 0, 0);
    for seed in 0..40 {
        let g = generate(&small(24), seed);
        for (_, f) in g.module.functions() {
            let live = Live::of(f);
            let cfg = f.cfg();
            let dfs = cfg_dom::Dfs::of(&cfg);
            for b in f.blocks() {
                for i in f.block_insts(b) {
                    guarded += usize::from(f.guard(i).is_some() && !f.results(i).is_empty());
                    phis += usize::from(f.opcode(i) == ir_core::Opcode::Phi);
                }
                if !dfs.is_reachable(ir_core::node(b)) {
                    unreachable += 1;
                    live_unreachable += usize::from(live.live_in(b).next().is_some());
                }
            }
        }
    }
    assert!(
        guarded > 50 && phis > 20 && unreachable > 10 && live_unreachable > 5,
        "{guarded} {phis} {unreachable} {live_unreachable}"
    );
}

#[test]
fn a_million_blocks() {
    // On a 2 MiB stack: nothing recurses.
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let config = GenConfig { blocks: 1_000_000, vars: 200, ..GenConfig::default() };
            let g = generate(&config, 1);
            let f = g.module.function(g.main).expect("main");
            let mut live = Live::of(f);
            live.compute(f);
            live.check(f).expect("fresh");
            assert!(live.num_blocks() >= 999_000);
            // The entry defines every var, so only params are live into it.
            let entry = f.entry_block().expect("entry");
            assert!(live.live_in(entry).all(|v| f.params().contains(&v)));
        })
        .expect("spawn");
    worker.join().expect("no stack overflow or panic");
}
