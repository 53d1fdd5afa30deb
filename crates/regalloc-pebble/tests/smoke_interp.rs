use ir_gen::{GenConfig, generate};
use ir_gen::fuzzing::arguments;
use regalloc_pebble::{GlobalStep, KeelError, Method, Options, allocate_module, AllocError};
use ir_core::interp::{Config, run};

#[test]
fn generated_programs_run() {
    let mut ran = 0;
    let mut too_few = 0;
    for seed in 0..200u64 {
        let cfg = GenConfig { blocks: 24, vars: 10, functions: 2, predication: 0.3, memory: 0.2, phis: 0.2, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let args = arguments(&g, seed);
        let want = run(&g.module, g.main, &args, Config { fuel: g.fuel * 2 + 1000, ..Config::default() }).expect("generated programs run");
        for p in [2u32, 4, 8, 16] {
            for (method, global) in [(Method::Briggs, GlobalStep::Off), (Method::Pebble, GlobalStep::Off), (Method::Pebble, GlobalStep::Weighted), (Method::Pebble, GlobalStep::Lifetime)] {
                for carry in [false, true] {
                    let o = Options { global, carry, ..Options::with_regs(p) };
                    let (m, res) = allocate_module(&g.module, method, &o);
                    if res.iter().any(|(_, r)| matches!(r, Err(KeelError::Alloc(AllocError::TooFewRegisters { .. })))) {
                        too_few += 1;
                        continue;
                    }
                    for (_, r) in &res {
                        if let Err(e) = r { panic!("seed {seed} p {p} {method:?}: {e}"); }
                    }
                    if let Err(e) = ir_core::verify_module(&m, &ir_core::VerifyOptions::default()) {
                        panic!("seed {seed} p {p} {method:?} {global:?} {carry}: does not verify: {e:?}\n{}", ir_core::text::print_module(&m));
                    }
                    let got = run(&m, g.main, &args, Config { fuel: g.fuel * 20 + 10000, ..Config::default() });
                    let got = match got { Ok(o) => o, Err(t) => panic!("seed {seed} p {p} {method:?} {global:?} {carry}: trap {}\n{}", t.describe(&m), ir_core::text::print_module(&m)) };
                    assert_eq!(format!("{:?}", got.results), format!("{:?}", want.results), "seed {seed} p {p} {method:?} {global:?} {carry}");
                    for (mem, obj) in g.module.mems() {
                        let (a, b) = (got.memory.elements(mem), want.memory.elements(mem));
                        if a != b {
                            let k = a.iter().zip(&b).position(|(x, y)| x != y).unwrap();
                            panic!("seed {seed} p {p} {method:?} {global:?} {carry}: memory {} differs at {k}: {:?} vs {:?}\n{}\nORIGINAL\n{}", obj.name, a[k], b[k], ir_core::text::print_module(&m), ir_core::text::print_module(&g.module));
                        }
                    }
                    ran += 1;
                }
            }
        }
    }
    println!("ran {ran} too few {too_few}");
}
