use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, Regs, lower_phis, needs_destruct, allocate};

#[test]
fn compare() {
    for p in [4u32, 6, 8, 12, 16] {
        let mut tot = [0u64; 2];
        let mut n = 0;
        for seed in 0..300u64 {
            let cfg = GenConfig { blocks: 40, vars: 16, functions: 1, predication: 0.1, memory: 0.1, ..GenConfig::default() };
            let g = generate(&cfg, seed);
            let mut f = g.module.function(g.main).unwrap().clone();
            if needs_destruct(&f) { lower_phis(&mut f); }
            let c = f.cfg();
            let Ok(b) = regalloc_pebble::briggs::allocate(&c, &f, Regs::uniform(p), 10) else { continue };
            let Ok(a) = allocate(&c, &f, &Options::with_regs(p)) else { continue };
            tot[0] += b.costs.weighted(); tot[1] += a.costs.weighted(); n += 1;
        }
        println!("P={p:2} n={n} briggs {} pebble {} ratio {:.3}", tot[0], tot[1], tot[1] as f64 / tot[0] as f64);
    }
}
