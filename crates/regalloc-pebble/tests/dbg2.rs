use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, Regs, lower_phis, needs_destruct, allocate};

#[test]
fn worst() {
    let p = 16;
    let mut v = Vec::new();
    for seed in 0..300u64 {
        let cfg = GenConfig { blocks: 40, vars: 16, functions: 1, predication: 0.1, memory: 0.1, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let mut f = g.module.function(g.main).unwrap().clone();
        if needs_destruct(&f) { lower_phis(&mut f); }
        let c = f.cfg();
        let b = regalloc_pebble::briggs::allocate(&c, &f, Regs::uniform(p), 10).unwrap();
        let a = allocate(&c, &f, &Options::with_regs(p)).unwrap();
        v.push((a.costs.weighted() as i64 - b.costs.weighted() as i64, seed, a.costs.weighted(), b.costs.weighted()));
    }
    v.sort();
    for x in v.iter().rev().take(8) { println!("{x:?}"); }
}
