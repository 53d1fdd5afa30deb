//! The input trait is the whole interface: generated Keel functions,
//! converted into the toy IR of the `foreign-ir` package (no `ir-core` in
//! it), get exactly the allocation Keel's own implementation gets, under
//! every option and by both allocators; the toy's own example allocates
//! and checks.

use foreign_ir::keel::from_function as to_toy;
use foreign_ir::programs::pebble_block;
use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, RegClass, RegCode, Regs, allocate, check, lower_phis, needs_destruct};

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
                let kb = regalloc_pebble::briggs::allocate(&kc, &f, &Options::with_regs(p));
                let yb = regalloc_pebble::briggs::allocate(&t, &t, &Options::with_regs(p));
                assert_eq!(kb, yb);
            }
        }
    }
    assert!(compared > 2000, "{compared}");
}

#[test]
fn the_example_allocates_and_checks() {
    let t = pebble_block();
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
