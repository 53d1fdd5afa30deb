//! The input trait is the whole interface: generated Keel functions,
//! converted into the toy IR of `examples/foreign_ir_regalloc.rs` (no `ir-core` in
//! it), get exactly the allocation Keel's own implementation gets, under
//! every option and by both allocators; the toy's own example allocates
//! and checks.

#[path = "../examples/foreign_ir_regalloc.rs"]
mod toy;

use cfg_dom::VarCode;
use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, RegClass, RegCode, Regs, allocate, check, lower_phis, needs_destruct};
use toy::{Stmt, Toy};

/// A Keel function as a toy function: the same vars, statements, blocks
/// and answers.
fn to_toy(f: &ir_core::Function) -> Toy {
    let vars = (0..VarCode::num_vars(f) as u32)
        .map(|x| (f.var_name(ir_core::Var::from_u32(x)).to_string(), RegClass::Scalar))
        .collect();
    let stmts = (0..VarCode::num_insts(f) as u32)
        .map(|i| Stmt {
            text: format!("{:?}", f.opcode(ir_core::Inst::from_u32(i))),
            defs: VarCode::defs(f, i).collect(),
            uses: VarCode::uses(f, i).map(|u| u.var).collect(),
            guarded: VarCode::is_guarded(f, i),
            kind: f.inst_kind(i),
            copy: f.is_copy(i),
        })
        .collect();
    let cfg = f.cfg();
    let blocks = (0..VarCode::num_blocks(f) as u32)
        .map(|b| (VarCode::block_insts(f, b).collect(), cfg.succ_slice(b).to_vec()))
        .collect();
    Toy::new(vars, VarCode::params(f).collect(), stmts, blocks)
}

#[test]
fn a_toy_ir_gets_keels_allocation() {
    let mut compared = 0;
    for seed in 0..150u64 {
        let cfg = GenConfig {
            blocks: 16,
            vars: 8,
            predication: 0.3,
            memory: 0.2,
            phis: 0.2,
            functions: 2,
            ..GenConfig::default()
        };
        let g = generate(&cfg, seed);
        for (_, f) in g.module.functions() {
            let mut f = f.clone();
            if needs_destruct(&f) {
                lower_phis(&mut f);
            }
            let t = to_toy(&f);
            let kc = f.cfg();
            for p in [4, 8] {
                for opts in regalloc_pebble::fuzzing::option_grid(p).into_iter().map(|(_, o)| o) {
                    let (k, y) = (allocate(&kc, &f, &opts), allocate(&t, &t, &opts));
                    match (k, y) {
                        (Ok(k), Ok(y)) => {
                            check(&t, &t, &y).unwrap();
                            assert_eq!(k, y, "seed {seed}, {opts:?}");
                            compared += 1;
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b),
                        (a, b) => panic!("Keel {:?} but toy {:?}", a.err(), b.err()),
                    }
                }
                let kb = regalloc_pebble::briggs::allocate(&kc, &f, Regs::uniform(p), 10);
                let yb = regalloc_pebble::briggs::allocate(&t, &t, Regs::uniform(p), 10);
                assert_eq!(kb, yb);
            }
        }
    }
    assert!(compared > 2000, "{compared}");
}

#[test]
fn the_example_allocates_and_checks() {
    let t = toy::example();
    // `c = a + b` reads two vector values at once: one vector register is
    // too few, and the error names it.
    let e = allocate(&t, &t, &Options { regs: Regs::new(3, 1), ..Options::default() }).unwrap_err();
    assert!(
        matches!(
            e,
            regalloc_pebble::AllocError::TooFewRegisters { inst: 7, class: RegClass::Vector, needs: 2, have: 1, .. }
        ),
        "{e:?}"
    );
    for (s, v) in [(2, 2), (3, 2), (4, 4)] {
        let a = allocate(&t, &t, &Options { regs: Regs::new(s, v), ..Options::default() }).unwrap();
        check(&t, &t, &a).unwrap();
        // Vector values only ever sit in vector registers.
        for i in 0..t.stmts.len() as u32 {
            let vars = t.stmts[i as usize].uses.iter().chain(&t.stmts[i as usize].defs);
            for (&x, r) in vars.zip(a.allocs(i)) {
                assert_eq!(r.class, t.class(x));
            }
        }
    }
}
