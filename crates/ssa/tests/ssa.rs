//! SSA construction and destruction, judged by the reference interpreter.
//!
//! - The DU-chain document's example exactly: phis for `x` at bb2 and bb4
//!   only (plus the loop counter our version of the program adds), the
//!   versions `x1`..`x5` and the predicated links "x5 may leave x2", "x4 may
//!   leave x3".
//! - On generated programs (loops, irreducible regions, unreachable blocks,
//!   predication, input phis, memory, calls), under every policy: the SSA
//!   form verifies (`ssa::verify`), prints and parses back, and computes
//!   what the original computes; the destructed form verifies and computes
//!   it too.
//! - The swap and lost-copy problems, phi clean-up, and the policies'
//!   inclusions (pruned ⊆ semi-pruned ⊆ minimal).

use cfg_dom::{DomTree, Input};
use ir_core::interp::{Config, run};
use ir_core::{FuncId, Imm, Module, Opcode, text};
use ir_gen::fuzzing::{analysis_config, arguments};
use ir_gen::{Generated, arb_module};
use proptest::prelude::*;
use ssa::{Options, PhiPlacement, Policy, VarFacts};

fn parse(src: &str) -> Module {
    text::parse(src).unwrap_or_else(|d| panic!("{d:?}")).0
}

fn du_example() -> Module {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir");
    parse(&std::fs::read_to_string(path).expect("the example exists"))
}

fn body(m: &Module, f: FuncId) -> Vec<String> {
    let func = m.function(f).unwrap();
    func.blocks()
        .flat_map(|b| {
            let mut v = vec![format!("{b}:")];
            v.extend(func.block_insts(b).map(|i| text::DisplayInst { module: m, func, inst: i }.to_string()));
            v
        })
        .collect()
}

#[test]
fn the_documents_example_exactly() {
    let mut m = du_example();
    let f = m.function_by_name("du_example").unwrap();
    let stats = ssa::construct(m.function_mut(f).unwrap(), &Options::default()).unwrap();
    ssa::verify(&m, f).unwrap();
    // Digest §000: phis only for x, at bb2 and bb4 (a, b, p get none); our
    // program's loop counter %i needs one at the loop header bb2.
    assert_eq!(stats.phis_placed, 3);
    let lines = body(&m, f);
    let phis: Vec<&String> = lines.iter().filter(|l| l.contains("= phi(")).collect();
    assert_eq!(
        phis,
        ["%x.2 = phi(bb1: %x.1, bb5: %x.4)", "%i.2 = phi(bb1: %i.1, bb5: %i.3)", "%x.3 = phi(bb2: %x.2, bb3: %x.5)"]
    );
    for want in [
        "%x.1 = add %a.1, %c.1",
        // x5 may leave x2; x4 may leave x3.
        "@%p.1 %x.5 = add %a.1, %b.1 else %x.2",
        "@%p.1 %x.4 = sub %a.1, %b.1 else %x.3",
        "%y.1 = copy %x.4",
    ] {
        assert!(lines.iter().any(|l| l == want), "missing `{want}` in\n{}", lines.join("\n"));
    }
    let func = m.function(f).unwrap();
    let x5 = func.var_by_name("x.5").unwrap();
    assert_eq!(func.var_data(x5).unwrap().origin(), func.var_by_name("x"));
}

#[test]
fn phi_counts_by_policy_on_the_example() {
    let m = du_example();
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let g = f.cfg();
    let mut scratch = cfg_dom::InputBuffers::default();
    let input = Input::new(&g, f, &mut scratch).unwrap();
    let dt = DomTree::of(&g);
    let facts = VarFacts::of(&input, &dt).unwrap();
    let x = f.var_by_name("x").unwrap().as_u32();
    for policy in [Policy::Minimal, Policy::SemiPruned, Policy::Pruned] {
        let p = PhiPlacement::of(&input, &dt, &facts, policy, None).unwrap();
        let blocks_of_x: Vec<u32> = (0..7).filter(|&b| p.phis(b).contains(&x)).collect();
        assert_eq!(blocks_of_x, [2, 4], "{policy:?}");
        for name in ["a", "b", "c", "p", "y"] {
            let v = f.var_by_name(name).unwrap().as_u32();
            assert!((0..7).all(|b| !p.phis(b).contains(&v)), "{policy:?}: a phi for %{name}");
        }
    }
    let a = f.var_by_name("a").unwrap().as_u32();
    let c = f.var_by_name("c").unwrap().as_u32();
    // global_prs = {a, b, x, p} (plus the counter); c is used only where defined.
    assert!(facts.is_non_local(a) && !facts.is_non_local(c));
}

/// Runs `main` of a module on `args`: results and final memory.
fn outcome(m: &Module, main: FuncId, args: &[Imm], fuel: u64) -> Result<(Vec<Imm>, ir_core::interp::Memory), String> {
    run(m, main, args, Config { fuel, ..Config::default() }).map(|o| (o.results, o.memory)).map_err(|t| t.describe(m))
}

fn equivalence(g: &Generated, seed: u64, policy: Policy) -> Result<(), TestCaseError> {
    let args = arguments(g, seed);
    ssa::fuzzing::check_equivalence(&g.module, g.main, &args, g.fuel, policy).map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn semi_pruned_ssa_and_back_compute_the_same(g in arb_module(analysis_config()), seed in any::<u64>()) {
        equivalence(&g, seed, Policy::SemiPruned)?;
    }

    #[test]
    fn minimal_ssa_and_back_compute_the_same(g in arb_module(analysis_config()), seed in any::<u64>()) {
        equivalence(&g, seed, Policy::Minimal)?;
    }

    #[test]
    fn pruned_ssa_and_back_compute_the_same(g in arb_module(analysis_config()), seed in any::<u64>()) {
        equivalence(&g, seed, Policy::Pruned)?;
    }

    #[test]
    fn pruned_within_semi_pruned_within_minimal(g in arb_module(analysis_config())) {
        for (_, f) in g.module.functions() {
            let cfg = f.cfg();
            let mut scratch = cfg_dom::InputBuffers::default();
            let input = Input::new(&cfg, f, &mut scratch).unwrap();
            let dt = DomTree::of(&cfg);
            let facts = VarFacts::of(&input, &dt).unwrap();
            let place = |p| PhiPlacement::of(&input, &dt, &facts, p, None).unwrap();
            let (min, semi, pruned) = (place(Policy::Minimal), place(Policy::SemiPruned), place(Policy::Pruned));
            // A var live into a reachable block is read before any killing
            // definition in some reachable block: it is non-local. So pruned
            // placement is within semi-pruned, with no exception.
            for b in 0..f.num_blocks() as u32 {
                prop_assert!(pruned.phis(b).iter().all(|v| semi.phis(b).contains(v)));
                prop_assert!(semi.phis(b).iter().all(|v| min.phis(b).contains(v)));
                prop_assert!(pruned.phis(b).iter().all(|v| min.phis(b).contains(v)));
            }
        }
    }
}

#[test]
fn swap_and_lost_copy_problems() {
    // The swap problem: a and b exchanged around a loop, in SSA form.
    let swap = "func @swap(%n: i32) -> i32, i32 {\n    var %a: i32, %b: i32, %a.1: i32, %b.1: i32, %i: i32, %i.1: i32, %i.2: i32, %go: i1\nbb0:\n    %a = const 1\n    %b = const 2\n    %i = const 0\n    jump bb1\nbb1:\n    %a.1 = phi(bb0: %a, bb1: %b.1)\n    %b.1 = phi(bb0: %b, bb1: %a.1)\n    %i.1 = phi(bb0: %i, bb1: %i.2)\n    %i.2 = add %i.1, 1\n    %go = setp.slt %i.2, %n\n    br %go, bb1, bb2\nbb2:\n    ret %a.1, %b.1\n}\n";
    // The lost-copy problem: the phi's old value is still needed after the loop.
    let lost = "func @lost(%n: i32) -> i32 {\n    var %x: i32, %x.1: i32, %x.2: i32, %go: i1\nbb0:\n    %x = const 1\n    jump bb1\nbb1:\n    %x.1 = phi(bb0: %x, bb1: %x.2)\n    %x.2 = add %x.1, 1\n    %go = setp.slt %x.2, %n\n    br %go, bb1, bb2\nbb2:\n    ret %x.1\n}\n";
    for (src, name, cases) in [(swap, "swap", vec![1, 2, 3, 4]), (lost, "lost", vec![1, 2, 5])] {
        let m = parse(src);
        let f = m.function_by_name(name).unwrap();
        ssa::verify(&m, f).unwrap();
        let mut d = m.clone();
        let stats = ssa::destruct(d.function_mut(f).unwrap());
        ir_core::verify_module(&d, &Default::default()).unwrap();
        assert!(stats.edges_split >= 1, "{name}: the back edge from a two-way branch is critical");
        if name == "swap" {
            assert_eq!(stats.temporaries, 1, "one cycle, one temporary");
        }
        for n in cases {
            let args = [Imm::from(n)];
            assert_eq!(outcome(&m, f, &args, 10_000), outcome(&d, f, &args, 10_000), "{name}({n})");
        }
    }
}

#[test]
fn construction_removes_dead_phis() {
    // x is non-local (read in bb1 before its definition there), defined in
    // both arms, and never read after the join: its phi at bb3 is dead.
    let src = "func @f(%c: i1) -> i32 {\n    var %x: i32, %t: i32\nbb0:\n    %x = const 0\n    br %c, bb1, bb2\nbb1:\n    %t = copy %x\n    %x = const 1\n    jump bb3\nbb2:\n    %x = const 2\n    jump bb3\nbb3:\n    ret 0\n}\n";
    let mut m = parse(src);
    let f = m.function_by_name("f").unwrap();
    let stats = ssa::construct(m.function_mut(f).unwrap(), &Options::default()).unwrap();
    assert_eq!((stats.phis_placed, stats.phis_dead), (1, 1), "{stats:?}");
    ssa::verify(&m, f).unwrap();
    let func = m.function(f).unwrap();
    assert!(func.blocks().flat_map(|b| func.block_insts(b)).all(|i| func.opcode(i) != Opcode::Phi));
}

#[test]
fn cleanup_removes_trivial_phis_to_a_fixpoint() {
    // %y.2 sees %y.1 from both sides; %y.3 then sees %y.2 or itself, which
    // becomes %y.1 once %y.2 goes: both are trivial, in that order.
    let src = "func @f(%c: i1, %n: i32) -> i32 {\n    var %y.1: i32, %y.2: i32, %y.3: i32, %i: i32, %i.2: i32, %i.3: i32, %go: i1\nbb0:\n    %y.1 = const 7\n    %i = const 0\n    br %c, bb1, bb2\nbb1:\n    jump bb3\nbb2:\n    jump bb3\nbb3:\n    %y.2 = phi(bb1: %y.1, bb2: %y.1)\n    jump bb4\nbb4:\n    %y.3 = phi(bb3: %y.2, bb4: %y.3)\n    %i.2 = phi(bb3: %i, bb4: %i.3)\n    %i.3 = add %i.2, 1\n    %go = setp.slt %i.3, %n\n    br %go, bb4, bb5\nbb5:\n    ret %y.3\n}\n";
    let mut m = parse(src);
    let f = m.function_by_name("f").unwrap();
    ssa::verify(&m, f).unwrap();
    let func = m.function(f).unwrap();
    let phis: Vec<_> =
        func.blocks().flat_map(|b| func.block_insts(b)).filter(|&i| func.opcode(i) == Opcode::Phi).collect();
    let before = text::print_module(&m);
    let (trivial, dead) = ssa::cleanup_phis(m.function_mut(f).unwrap(), &phis);
    assert_eq!((trivial, dead), (2, 0), "the counter's phi stays");
    ssa::verify(&m, f).unwrap();
    let lines = body(&m, f);
    assert!(lines.iter().any(|l| l == "ret %y.1"), "{}", lines.join("\n"));
    for n in [0, 4] {
        for c in [false, true] {
            let args = [Imm::from(c), Imm::from(n)];
            assert_eq!(outcome(&m, f, &args, 1000), outcome(&parse(&before), f, &args, 1000));
        }
    }
}

#[test]
fn uses_no_definition_reaches_read_undef() {
    // y is defined on one path only, then copied (copies pass undefined values).
    let src = "func @f(%c: i1) -> i32 {\n    var %y: i32, %z: i32\nbb0:\n    br %c, bb1, bb2\nbb1:\n    %y = const 5\n    jump bb2\nbb2:\n    %z = copy %y\n    ret 1\n}\n";
    let mut m = parse(src);
    let f = m.function_by_name("f").unwrap();
    let stats = ssa::construct(m.function_mut(f).unwrap(), &Options::default()).unwrap();
    assert_eq!(stats.undefs, 1);
    ssa::verify(&m, f).unwrap();
    let printed = text::print_module(&m);
    assert!(printed.contains("= undef"), "{printed}");
    for c in [false, true] {
        assert_eq!(outcome(&m, f, &[Imm::from(c)], 100).unwrap().0, vec![Imm::from(1i32)]);
    }
}
