//! Bad input is an error, never a panic: malformed code (ids out of range,
//! an instruction in two blocks, a phi after a non-phi, a graph that breaks
//! its contract), analyses handed over with the wrong graph or function,
//! and foreign ids in queries, fed to every var-level entry point of
//! `cfg-dom`, `ssa` and `defuse`, on the toy IR of the `foreign-ir`
//! package (any IR) and on Keel's `Function`.

use cfg_dom::{
    DomTree, DominanceFrontiers, Graph, Idf, Input, InputBuffers, InputError, IteratedFrontiers, Liveness, Mismatch,
    VarCode, check_input,
};
use foreign_ir::keel::from_function as to_toy;
use foreign_ir::{Guard, Stmt, Toy};
use ir_core::{Arg, Function, FunctionBuilder, Signature, Type, Var};
use ir_gen::{GenConfig, generate};
use proptest::prelude::*;
use ssa::{PhiPlacement, Policy, RenameSink, Renamer, VarFacts, Version, VersionDef};

/// A well-formed toy program: a generated Keel function, copied.
fn toy_program(seed: u64) -> (Function, Toy) {
    let config = GenConfig {
        blocks: 24,
        vars: 6,
        predication: 0.3,
        phis: 0.3,
        irreducible: 0.3,
        unreachable: 0.2,
        ..GenConfig::default()
    };
    let g = generate(&config, seed);
    let func = g.module.function(g.main).expect("main").clone();
    let toy = to_toy(&func);
    (func, toy)
}

/// A sink that records nothing.
struct Ignore;

impl RenameSink for Ignore {
    fn define(&mut self, _: Version, _: u32, _: VersionDef, _: Version) {}
    fn use_site(&mut self, _: u32, _: u32, _: u32, _: Version) {}
    fn phi_operand(&mut self, _: Version, _: u32, _: Version) {}
}

/// Every var-level entry point on `g` and `code`: each must return an
/// error (and none may panic, which would fail the test by itself).
fn all_reject(g: &impl Graph, code: &impl VarCode) -> Result<(), TestCaseError> {
    prop_assert!(check_input(g, code).is_err());
    prop_assert!(Input::new(g, code, &mut InputBuffers::default()).is_err());
    prop_assert!(Liveness::of(g, code).is_err());
    prop_assert!(defuse::via_ssa(g, code).is_err());
    prop_assert!(defuse::iterative(g, code).is_err());
    prop_assert!(defuse::oracle(g, code).is_err());
    prop_assert!(defuse::ViaSsa::new().compute(g, code).is_err());
    prop_assert!(defuse::Iterative::new().compute(g, code).is_err());
    Ok(())
}

/// One way to break a well-formed toy program; each is invalid whatever
/// the program (`k` picks where).
#[derive(Copy, Clone, Debug)]
enum Corruption {
    UseOutOfRange,
    DefOutOfRange,
    GuardOutOfRange,
    ParamOutOfRange,
    InstOutOfRange,
    InstTwice,
    PhiAfterNonPhi,
    PhiPredOutOfRange,
    SuccessorOutOfRange,
    PredecessorsDisagree,
}

fn corrupt(toy: &mut Toy, c: Corruption, k: usize) {
    let nv = toy.vars.len() as u32;
    let laid: Vec<u32> = toy.blocks.iter().flat_map(|b| b.0.iter().copied()).collect();
    let some_inst = laid[k % laid.len()] as usize;
    let some_block = k % toy.blocks.len();
    match c {
        Corruption::UseOutOfRange => toy.stmts[some_inst].uses.push(nv + k as u32),
        Corruption::DefOutOfRange => toy.stmts[some_inst].defs.push(nv + k as u32),
        Corruption::GuardOutOfRange => toy.stmts[some_inst].guard = Guard::Var(nv + (k as u32 % 7)),
        Corruption::ParamOutOfRange => toy.params.push(nv + k as u32),
        Corruption::InstOutOfRange => toy.blocks[some_block].0.push((toy.stmts.len() + k) as u32),
        Corruption::InstTwice => toy.blocks[some_block].0.push(some_inst as u32),
        Corruption::PhiAfterNonPhi => {
            // A new non-phi, then a new phi, at the end of a block.
            toy.stmts.push(Stmt::default());
            toy.stmts.push(Stmt { phi: Some(vec![]), ..Stmt::default() });
            let n = toy.stmts.len() as u32;
            toy.blocks[some_block].0.extend([n - 2, n - 1]);
        }
        Corruption::PhiPredOutOfRange => {
            toy.stmts.push(Stmt { phi: Some(vec![(toy.blocks.len() as u32 + k as u32, 0)]), ..Stmt::default() });
            let n = toy.stmts.len() as u32 - 1;
            toy.blocks[some_block].0.insert(0, n);
        }
        Corruption::SuccessorOutOfRange => {
            let far = (toy.blocks.len() + k) as u32;
            toy.blocks[some_block].1.push(far);
        }
        // An edge the successor lists have and the predecessor lists (made
        // by `Toy::new`) do not.
        Corruption::PredecessorsDisagree => toy.blocks[some_block].1.push(0),
    }
}

fn corruption() -> impl Strategy<Value = Corruption> {
    prop_oneof![
        Just(Corruption::UseOutOfRange),
        Just(Corruption::DefOutOfRange),
        Just(Corruption::GuardOutOfRange),
        Just(Corruption::ParamOutOfRange),
        Just(Corruption::InstOutOfRange),
        Just(Corruption::InstTwice),
        Just(Corruption::PhiAfterNonPhi),
        Just(Corruption::PhiPredOutOfRange),
        Just(Corruption::SuccessorOutOfRange),
        Just(Corruption::PredecessorsDisagree),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn malformed_code_is_an_error(seed in 0u64..1000, c in corruption(), k in 0usize..1000) {
        let (_, mut toy) = toy_program(seed);
        prop_assert!(check_input(&toy, &toy).is_ok(), "the program is well formed before");
        corrupt(&mut toy, c, k);
        all_reject(&toy, &toy)?;
    }

    #[test]
    fn analyses_of_another_function_are_errors(a in 0u64..1000, b in 0u64..1000) {
        let (fa, ta) = toy_program(a);
        let (fb, tb) = toy_program(b);
        prop_assume!(fa.num_blocks() != fb.num_blocks() || fa.num_vars() != fb.num_vars());
        let (mut sa, mut sb) = (InputBuffers::default(), InputBuffers::default());
        let ia = Input::new(&ta, &ta, &mut sa).unwrap();
        let ib = Input::new(&tb, &tb, &mut sb).unwrap();
        let (dta, dtb) = (DomTree::of(&ta), DomTree::of(&tb));
        let facts_b = VarFacts::of(&ib, &dtb).unwrap();
        let place_b = PhiPlacement::of(&ib, &dtb, &facts_b, Policy::Minimal, None).unwrap();
        let live_b = Liveness::of(&tb, &tb).unwrap();
        if fa.num_blocks() != fb.num_blocks() {
            // A dominator tree of another graph, anywhere one is taken.
            prop_assert!(DominanceFrontiers::of(&ta, &dtb).is_err());
            prop_assert!(IteratedFrontiers::of(&ta, &dtb).is_err());
            prop_assert!(Idf::of(&ta, &dtb).is_err());
            prop_assert!(VarFacts::of(&ia, &dtb).is_err());
            prop_assert!(PhiPlacement::of(&ia, &dtb, &facts_b, Policy::SemiPruned, None).is_err());
            prop_assert!(Renamer::new().run(&ia, &dtb, &PhiPlacement::new(), &mut Ignore).is_err());
            // A placement of another graph.
            if !place_b.is_empty() {
                prop_assert!(Renamer::new().run(&ia, &dta, &place_b, &mut Ignore).is_err());
            }
            // The code of one function on the graph of another.
            let mixed = defuse::via_ssa(&ta, &tb);
            prop_assert!(matches!(mixed, Err(InputError::Mismatch(Mismatch::Nodes { .. }))), "{:?}", mixed.err());
            prop_assert!(defuse::via_ssa(&fa.cfg(), &fb).is_err());
        }
        // Facts and liveness of another function.
        let mut idf_a = Idf::of(&ta, &dta).unwrap();
        let mut p = PhiPlacement::new();
        prop_assert!(p.place(&ia, &mut idf_a, &facts_b, Policy::SemiPruned, None).is_err());
        let facts_a = VarFacts::of(&ia, &dta).unwrap();
        prop_assert!(p.place(&ia, &mut idf_a, &facts_a, Policy::Pruned, Some(&live_b)).is_err());
        prop_assert!(p.place(&ia, &mut idf_a, &facts_a, Policy::Pruned, None).is_ok());
        // The IDF index of another graph.
        if tb.num_nodes() != ta.num_nodes() {
            let mut idf_b = Idf::of(&tb, &dtb).unwrap();
            prop_assert!(p.place(&ia, &mut idf_b, &facts_a, Policy::SemiPruned, None).is_err());
        }
    }

    #[test]
    fn foreign_ids_in_queries_answer_nothing(seed in 0u64..1000, extra in 0u32..1000) {
        let (func, toy) = toy_program(seed);
        let chains = defuse::via_ssa(&toy, &toy).unwrap();
        let s = chains.sites();
        let (nd, nu, ni) = (s.num_defs() as u32, s.num_uses() as u32, toy.stmts.len() as u32);
        prop_assert_eq!(s.def(nd + extra), None);
        prop_assert_eq!(s.def_var(nd + extra), None);
        prop_assert_eq!(s.use_at(nu + extra), None);
        prop_assert_eq!(s.use_var(nu + extra), None);
        prop_assert_eq!(s.def_id(ni + extra, 0), None);
        prop_assert_eq!(s.use_id(ni + extra, 0), None);
        prop_assert_eq!(s.use_id(0, u32::MAX - extra), None);
        prop_assert!(chains.defs_of(nu + extra).is_empty() && chains.uses_of(nd + extra).is_empty());
        let far = toy.blocks.len() as u32 + extra;
        let dt = DomTree::of(&toy);
        prop_assert!(dt.idom(far).is_none() && !dt.dominates(0, far) && dt.children(far).is_empty());
        let live = Liveness::of(&toy, &toy).unwrap();
        prop_assert!(!live.is_live_in(far, 0) && !live.is_live_out(0, toy.vars.len() as u32 + extra));
        // Keel's accessors: a constant this function never interned.
        let foreign = ir_core::Const::from_u32(u32::MAX - 1 - extra);
        prop_assert_eq!(func.imm(foreign), None);
        prop_assert_eq!(func.arg(ir_core::Operand::constant(foreign)), None);
    }
}

#[test]
fn a_keel_function_naming_a_foreign_var_is_an_error() {
    // The builder does not check vars; every analysis and SSA construction
    // must, instead of indexing out of bounds.
    let mut m = ir_core::Module::new();
    let id = m.add_function("f", Signature::new([Type::I32], [Type::I32]), &["a"]).unwrap();
    let f = m.function_mut(id).unwrap();
    let x = f.add_var("x", Type::I32);
    let foreign = Var::from_u32(40);
    let mut b = FunctionBuilder::new(f);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.ins().copy(x, Arg::Var(foreign));
    b.ins().ret(&[Arg::Var(x)]);
    let f = m.function(id).unwrap();
    let cfg = f.cfg();
    assert!(matches!(defuse::via_ssa(&cfg, f), Err(InputError::VarOutOfRange { var: 40, .. })));
    assert!(defuse::iterative(&cfg, f).is_err() && defuse::oracle(&cfg, f).is_err());
    assert!(Liveness::of(&cfg, f).is_err());
    let before = ir_core::text::print_function(&m, id);
    assert!(ssa::construct(m.function_mut(id).unwrap(), &ssa::Options::default()).is_err());
    assert_eq!(ir_core::text::print_function(&m, id), before, "an error leaves the function unchanged");
}
