//! Bad input is an error, never a panic: malformed code (vars out of
//! range, phis, a misplaced terminator, a graph whose lists disagree),
//! instructions needing more registers than there are, malformed DAG
//! descriptions, and damaged allocations handed to the checker.

use foreign_ir::{Kind, Stmt, Toy, Var};
use regalloc_pebble::fuzzing::{Rng, mutate};
use regalloc_pebble::{
    AllocError, CodeError, Dag, DagError, InstKind, OpKind, Options, Output, RegClass, allocate, check,
};

fn stmt(defs: &[u32], uses: &[u32], kind: InstKind) -> Stmt {
    let kind = match kind {
        InstKind::Pure => Kind::Pure,
        InstKind::Effect => Kind::Effect,
        InstKind::Terminator => Kind::Terminator,
    };
    Stmt { kind, ..Stmt::new("", defs, uses) }
}

fn vars(n: usize) -> Vec<Var> {
    (0..n).map(|i| Var { name: format!("v{i}"), vector: false }).collect()
}

#[test]
fn malformed_code_is_an_error() {
    let o = Options::with_regs(4);
    // A var out of range.
    let t = Toy::new(vars(2), vec![0], vec![stmt(&[1], &[7], InstKind::Pure)], vec![(vec![0], vec![])]);
    assert!(matches!(allocate(&t, &t, &o), Err(AllocError::Input(_))));
    // A terminator before the end of its block.
    let t = Toy::new(
        vars(2),
        vec![0],
        vec![stmt(&[], &[0], InstKind::Terminator), stmt(&[1], &[0], InstKind::Pure)],
        vec![(vec![0, 1], vec![])],
    );
    assert_eq!(allocate(&t, &t, &o), Err(AllocError::Code(CodeError::BadTerminator { inst: 0 })));
    // An instruction listed by two blocks.
    let t =
        Toy::new(vars(2), vec![0], vec![stmt(&[1], &[0], InstKind::Pure)], vec![(vec![0], vec![1]), (vec![0], vec![])]);
    assert!(matches!(allocate(&t, &t, &o), Err(AllocError::Input(_))));
    // A successor out of range.
    let mut t = Toy::new(vars(2), vec![0], vec![stmt(&[1], &[0], InstKind::Pure)], vec![(vec![0], vec![])]);
    t.blocks[0].1.push(5);
    assert!(matches!(allocate(&t, &t, &o), Err(AllocError::Input(_))));
    // An instruction reading more values than there are registers.
    let t =
        Toy::new(vars(5), vec![0, 1, 2, 3], vec![stmt(&[4], &[0, 1, 2, 3], InstKind::Pure)], vec![(vec![0], vec![])]);
    for p in [1, 2, 3] {
        let e = allocate(&t, &t, &Options::with_regs(p)).unwrap_err();
        assert!(matches!(e, AllocError::TooFewRegisters { inst: 0, needs: 4, .. }), "{e:?}");
        assert!(regalloc_pebble::briggs::allocate(&t, &t, &Options::with_regs(p)).is_err());
    }
    assert!(allocate(&t, &t, &Options::with_regs(4)).is_ok());
}

#[test]
fn phis_are_refused() {
    let src = "func @f(%c: i1, %a: i32) -> i32 {\n    var %x: i32\nbb0:\n    br %c, bb1, bb2\nbb1:\n    jump bb3\nbb2:\n    jump bb3\nbb3:\n    %x = phi(bb1: %a, bb2: 5)\n    ret %x\n}\n";
    let (m, _) = ir_core::text::parse(src).unwrap();
    let f = m.function(m.function_by_name("f").unwrap()).unwrap();
    for webs in [true, false] {
        let e = allocate(&f.cfg(), f, &Options { webs, ..Options::with_regs(4) }).unwrap_err();
        assert!(matches!(e, AllocError::Code(CodeError::Phi { .. })), "{e:?}");
    }
    // The Keel entry points lower them first.
    let (am, res) = regalloc_pebble::allocate_module(&m, regalloc_pebble::Method::Pebble, &Options::with_regs(4));
    assert!(res.iter().all(|(_, r)| r.is_ok()));
    ir_core::verify_module(&am, &ir_core::VerifyOptions::default()).unwrap();
}

#[test]
fn malformed_dags_are_errors() {
    let s = RegClass::Scalar;
    let mut b = Dag::builder();
    let x = b.source(s);
    b.op(OpKind::Pure, &[x, 9], &[Output::new(s)]);
    assert!(matches!(b.build(), Err(DagError::UnknownInput { value: 9, .. })));
    let mut b = Dag::builder();
    let x = b.source(s);
    let y = b.source(s);
    b.op(OpKind::Pure, &[x], &[Output::tied(s, y)]);
    assert!(matches!(b.build(), Err(DagError::BadTie { .. })));
    let mut b = Dag::builder();
    let x = b.source(s);
    b.op(OpKind::Terminator, &[x], &[]);
    b.op(OpKind::Terminator, &[x], &[]);
    assert!(matches!(b.build(), Err(DagError::BadTerminator { op: 1 })));
    let mut b = Dag::builder();
    b.source(s);
    b.set_ranks(vec![3], vec![]);
    assert_eq!(b.build().unwrap_err(), DagError::BadRanks);
    let mut b = Dag::builder();
    b.sink(4);
    assert!(matches!(b.build(), Err(DagError::UnknownSink { value: 4 })));
}

#[test]
fn damaged_allocations_are_errors_never_panics() {
    use ir_gen::{GenConfig, generate};
    let mut rng = Rng::new(0xbad);
    let (mut damaged, mut caught) = (0, 0);
    for seed in 0..80u64 {
        let g = generate(&GenConfig { blocks: 14, vars: 8, ..GenConfig::default() }, seed);
        let mut f = g.module.function(g.main).unwrap().clone();
        regalloc_pebble::lower_phis(&mut f);
        let cfg = f.cfg();
        let Ok(a) = allocate(&cfg, &f, &Options::with_regs(4)) else { continue };
        for _ in 0..25 {
            let mut bad = a.clone();
            mutate(&mut bad, &mut rng);
            damaged += 1;
            caught += usize::from(check(&cfg, &f, &bad).is_err());
        }
        // Another function's allocation.
        let other = generate(&GenConfig { blocks: 5, vars: 3, ..GenConfig::default() }, seed + 1000);
        let mut of = other.module.function(other.main).unwrap().clone();
        regalloc_pebble::lower_phis(&mut of);
        if let Ok(oa) = allocate(&of.cfg(), &of, &Options::with_regs(4)) {
            assert!(check(&cfg, &f, &oa).is_err());
        }
    }
    assert!(damaged > 1500 && caught * 3 > damaged * 2, "{caught} of {damaged} damaged allocations caught");
}

#[test]
fn functions_over_the_liveness_budget_are_refused() {
    let t = Toy::new(vars(2), vec![0], vec![stmt(&[1], &[0], InstKind::Pure)], vec![(vec![0], vec![])]);
    for webs in [true, false] {
        let o = Options { webs, max_memory: 0, ..Options::with_regs(4) };
        let e = allocate(&t, &t, &o).unwrap_err();
        assert!(matches!(e, AllocError::TooLarge { blocks: 1, limit: 0, .. }), "{e:?}");
        assert!(e.to_string().contains("too large to allocate"), "{e}");
        assert!(allocate(&t, &t, &Options { webs, ..Options::with_regs(4) }).is_ok());
    }
}
