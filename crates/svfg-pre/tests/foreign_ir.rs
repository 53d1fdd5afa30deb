//! The trait path on a toy IR that is not Keel's (`foreign_ir::ssa_toy`,
//! shared with the `foreign-ir` package's `pre` example): the exact plan of PRE and GVN on
//! digest §001's semantic case and on a loop invariant, the programs after
//! the toy's adapter applies the plans (printed and interpreted), the SVFG
//! verifier on the trait, and malformed input refused with an error
//! naming the offending instruction, value or block. No Keel IR.

use cfg_dom::CsrGraph;
use foreign_ir::ssa_toy::{Arg, BinOp, Func, Inst, ToyOp, apply, loop_example, run, semantic_example};
use smallvec::smallvec;
use svfg_pre::{
    EdgeSplit, InputError, Insertion, Method, NewValue, PlanArg, PlanBlock, PlanPhi, PlanValue, Replacement,
    ValueNumbers,
};

fn arrays() -> Vec<Vec<i64>> {
    vec![(0..100).map(|i| 10 * i).collect(), (0..100).map(|i| 1000 + i).collect()]
}

/// The computations executed by `f` on `args`, and its result.
fn outcome(f: &Func, args: &[i64]) -> Option<(i64, Vec<Vec<i64>>, u64)> {
    run(f, args, arrays(), 1000).ok().map(|o| (o.result, o.arrays, o.computations))
}

const SEMANTIC_AFTER: &str = "func(v0, v1, v2):
b0:
    v3 = lt v2, 0
    v4 = load A1[v0]
    v5 = load A0[v0]
    br v3, b1, b2
b1:
    v6 = add v0, v1
    store A1[v0] = v6
    jump b3
b2:
    v7 = div v0, v2
    v8 = lt v7, 10
    br v8, b5, b4
b3:
    v18 = phi(b1: v6, b5: v19)
    v9 = v0
    v10 = v18
    v11 = v5
    v12 = load A1[v0]
    v13 = div v0, v2
    v14 = add v10, v11
    v15 = add v14, v12
    v16 = add v15, v13
    v17 = add v16, v4
    ret v17
b4:
    ret v7
b5:
    v19 = add v0, v1
    jump b3
";

#[test]
fn pre_on_the_semantic_case_inserts_on_a_split_edge_and_replaces() {
    let f = semantic_example();
    let cfg = f.cfg();
    let plan = svfg_pre::plan(&cfg, &f, Method::Svfg).unwrap();
    let vns = ValueNumbers::of_code(&cfg, &f).unwrap();
    // `x = a + b` (v6) and `z = y + b` (v10, y a copy of a) share a number.
    let t = vns.of_value(6);
    assert_eq!(vns.of_value(10), t);
    let add = ToyOp::Bin(BinOp::Add);
    assert_eq!(plan.values, [NewValue { op: add, number: t, phi: true }, NewValue { op: add, number: t, phi: false }]);
    // b2 branches, so `a + b` for the edge b2 -> b3 goes on a new block.
    assert_eq!(plan.splits, [EdgeSplit { from: 2, to: 3 }]);
    assert_eq!(
        plan.inserts,
        [Insertion {
            at: PlanBlock::New(0),
            def: PlanValue(1),
            op: add,
            args: smallvec![PlanArg::Value(0), PlanArg::Value(1)],
            number: t,
            counts_for: t,
        }]
    );
    assert_eq!(
        plan.phis,
        [PlanPhi {
            block: 3,
            def: PlanValue(0),
            incoming: vec![
                (PlanBlock::Existing(1), PlanArg::Value(6)),
                (PlanBlock::New(0), PlanArg::New(PlanValue(1)))
            ],
        }]
    );
    // `z` (instruction 8) copies the phi; `A0[a]` in b3 (instruction 9)
    // copies the load of b0 (v5), no store to A0 lying between; `A1[a]`
    // (a store on one side) and `a / c` (may trap: not inserted on the
    // b1 side) stay.
    assert_eq!(
        plan.replacements,
        [Replacement { inst: 8, by: PlanArg::New(PlanValue(0)) }, Replacement { inst: 9, by: PlanArg::Value(5) }]
    );
    let s = &plan.stats;
    assert_eq!(
        (s.removed, s.inserted, s.phis_placed, s.phis_created, s.phis_deleted, s.edges_split, s.extended),
        (2, 1, 2, 1, 1, 1, 0)
    );
    let mut after = f.clone();
    apply(&mut after, &plan);
    assert_eq!(after.to_string(), SEMANTIC_AFTER);
    // Each path: the same result and arrays; 12 -> 10 computations through
    // b1, one fewer through b2 and b3 (the load), the same through b4; a
    // division by zero traps before and after.
    let counts: Vec<Option<(u64, u64)>> = [[3, 4, -2], [3, 4, 1], [90, 4, 3], [3, 4, 0]]
        .iter()
        .map(|args| {
            let (x, y) = (outcome(&f, args), outcome(&after, args));
            assert_eq!(x.as_ref().map(|o| (o.0, &o.1)), y.as_ref().map(|o| (o.0, &o.1)), "{args:?}");
            Some((x?.2, y?.2))
        })
        .collect();
    assert_eq!(counts, [Some((12, 10)), Some((13, 12)), Some((5, 5)), None]);
    // The clean-up on the toy: the program's `y = a` and PRE's two copies
    // forwarded and deleted, the terminator's and the store's reads kept;
    // the same runs after.
    let c = svfg_pre::cleanup(&after.cfg(), &after).unwrap();
    assert_eq!((c.stats.copies_forwarded, c.stats.copies_deleted, c.stats.deleted()), (3, 3, 3));
    let mut clean = after.clone();
    foreign_ir::ssa_toy::apply_cleanup(&mut clean, &c);
    let mut listed = clean.blocks.iter().flat_map(|b| b.insts.iter());
    assert!(listed.all(|&i| !matches!(clean.insts[i as usize], Inst::Copy { .. })), "a copy is left:\n{clean}");
    for args in [[3, 4, -2], [3, 4, 1], [90, 4, 3], [3, 4, 0]] {
        assert_eq!(outcome(&after, &args), outcome(&clean, &args), "{args:?}");
    }
}

#[test]
fn the_svfg_of_the_toy_verifies_and_a_broken_one_does_not() {
    let f = semantic_example();
    let cfg = f.cfg();
    let svfg_pre::Analysis { svfg, vns } = svfg_pre::analyze(&cfg, &f, Method::Svfg).unwrap();
    svfg_pre::verify_svfg_of(&cfg, &f, &vns, &svfg).unwrap();
    // The phi of `a + b` at b3 takes `x` from b1: claiming ζ there is
    // caught (a computation of the value lies on the path).
    let mut broken = svfg.clone();
    let (i, k) = broken
        .phis
        .iter()
        .enumerate()
        .find_map(|(i, p)| p.sources.iter().position(|s| matches!(s, svfg_pre::Source::Real(_))).map(|k| (i, k)))
        .expect("an operand from a computation");
    broken.phis[i].sources[k] = svfg_pre::Source::Bottom;
    let e = svfg_pre::verify_svfg_of(&cfg, &f, &vns, &broken).unwrap_err();
    assert!(e.to_string().contains("condition 3"), "{e}");
    assert!(
        matches!(e, svfg_pre::SvfgError::ZetaBelowDefinition { phi, operand, .. } if phi == i as u32 && operand == k),
        "{e:?}"
    );
}

#[test]
fn a_loop_invariant_is_computed_once_before_the_loop() {
    let f = loop_example();
    let plan = svfg_pre::plan(&f.cfg(), &f, Method::Svfg).unwrap();
    let mul = ToyOp::Bin(BinOp::Mul);
    assert!(plan.splits.is_empty());
    assert_eq!(plan.inserts.len(), 1);
    let ins = &plan.inserts[0];
    assert_eq!((ins.at, ins.def, ins.op), (PlanBlock::Existing(0), PlanValue(1), mul));
    assert_eq!(ins.args.as_slice(), [PlanArg::Value(0), PlanArg::Value(1)]);
    assert_eq!(
        plan.phis,
        [PlanPhi {
            block: 1,
            def: PlanValue(0),
            incoming: vec![
                (PlanBlock::Existing(0), PlanArg::New(PlanValue(1))),
                (PlanBlock::Existing(1), PlanArg::Value(4))
            ],
        }]
    );
    assert_eq!(plan.replacements, [Replacement { inst: 1, by: PlanArg::New(PlanValue(0)) }]);
    let mut after = f.clone();
    apply(&mut after, &plan);
    assert_eq!(
        &after.insts[after.blocks[0].insts[0] as usize],
        &Inst::Bin { dst: 8, op: BinOp::Mul, a: Arg::Val(0), b: Arg::Val(1) }
    );
    // Five trips: 3 computations per trip before; the multiplication once
    // after.
    let (x, y) = (outcome(&f, &[2, 3, 30]).unwrap(), outcome(&after, &[2, 3, 30]).unwrap());
    assert_eq!((x.0, x.2, y.0, y.2), (30, 15, 30, 11));
}

#[test]
fn gvn_only_replaces_dominated_recomputations() {
    let f = semantic_example();
    let plan = svfg_pre::plan(&f.cfg(), &f, Method::Gvn).unwrap();
    assert!(plan.values.is_empty() && plan.splits.is_empty() && plan.inserts.is_empty() && plan.phis.is_empty());
    assert_eq!(plan.replacements, [Replacement { inst: 9, by: PlanArg::Value(5) }]);
    // Without the extension step the semantic case needs none: the same
    // plan as with it.
    let semi = svfg_pre::plan(&f.cfg(), &f, Method::SemiSvfg).unwrap();
    let full = svfg_pre::plan(&f.cfg(), &f, Method::Svfg).unwrap();
    assert_eq!((semi.inserts, semi.phis, semi.replacements), (full.inserts, full.phis, full.replacements));
}

#[test]
fn malformed_input_is_refused_naming_the_culprit() {
    let plan = |f: &Func| svfg_pre::plan(&f.cfg(), f, Method::Svfg).map(|_| ());
    // v9 defined again by instruction 8.
    let mut f = semantic_example();
    f.insts[8] = Inst::Bin { dst: 9, op: BinOp::Add, a: Arg::Val(0), b: Arg::Val(1) };
    assert_eq!(plan(&f), Err(InputError::DefinedTwice { value: 9, inst: Some(8) }));
    // A value past the end.
    let mut f = semantic_example();
    f.insts[3] = Inst::Bin { dst: 6, op: BinOp::Add, a: Arg::Val(0), b: Arg::Val(99) };
    assert_eq!(plan(&f), Err(InputError::ValueOutOfRange { inst: Some(3), value: 99, num_values: 18 }));
    // A phi missing its back-edge operand.
    let mut f = loop_example();
    f.insts[0] = Inst::Phi { dst: 3, incoming: vec![(0, Arg::Int(0))] };
    assert_eq!(plan(&f), Err(InputError::PhiOperands { inst: 0, block: 1 }));
    // A phi naming a block that is no predecessor.
    f.insts[0] = Inst::Phi { dst: 3, incoming: vec![(0, Arg::Int(0)), (2, Arg::Val(5))] };
    assert_eq!(plan(&f), Err(InputError::PhiOperands { inst: 0, block: 1 }));
    // An instruction listed by two blocks.
    let mut f = loop_example();
    f.blocks[2].insts.push(1);
    assert_eq!(plan(&f), Err(InputError::InstListedTwice { inst: 1, block: 2 }));
    // A graph of another function, and one without an entry.
    let f = loop_example();
    let other = CsrGraph::from_successors(&[vec![1], vec![]], Some(0)).unwrap();
    assert!(matches!(svfg_pre::plan(&other, &f, Method::Svfg), Err(InputError::Mismatch(_))));
    let no_entry = CsrGraph::from_successors(&[vec![1], vec![1, 2], vec![]], None).unwrap();
    assert_eq!(svfg_pre::plan(&no_entry, &f, Method::Svfg).map(|_| ()), Err(InputError::NoEntry));
}
