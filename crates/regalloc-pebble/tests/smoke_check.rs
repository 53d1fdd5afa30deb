use ir_gen::{GenConfig, generate};
use regalloc_pebble::{AllocError, GlobalStep, Options, allocate, check};

#[test]
fn generated_programs_check() {
    let mut ok = 0;
    let mut too_few = 0;
    for seed in 0..300u64 {
        let cfg = GenConfig { blocks: 24, vars: 10, functions: 2, predication: 0.3, memory: 0.2, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        for (fid, f) in g.module.functions() {
            let mut f = f.clone();
            ssa::destruct(&mut f);
            let cfg = f.cfg();
            for p in [2u32, 3, 4, 8, 16] {
                for global in [GlobalStep::Off, GlobalStep::Weighted, GlobalStep::Lifetime] {
                    for carry in [false, true] {
                        let o = Options { global, carry, ..Options::with_regs(p) };
                        match allocate(&cfg, &f, &o) {
                            Ok(a) => {
                                if let Err(e) = check(&cfg, &f, &a) {
                                    panic!("seed {seed} p {p} {global:?} carry {carry}: {e}\n{}", ir_core::text::print_function(&g.module, fid));
                                }
                                ok += 1;
                            }
                            Err(AllocError::TooFewRegisters { .. }) => too_few += 1,
                            Err(e) => panic!("seed {seed}: {e}"),
                        }
                    }
                }
            }
        }
    }
    println!("ok {ok} too few {too_few}");
}
