use ir_gen::{GenConfig, generate};
use regalloc_pebble::{GlobalStep, Options, Regs, check, lower_phis, needs_destruct, allocate};

#[test]
fn compare() {
    for p in [2u32, 3, 4, 6, 8, 12, 16] {
        let mut tot = [0u64; 6];
        let mut n = 0;
        for seed in 0..300u64 {
            let cfg = GenConfig { blocks: 40, vars: 16, functions: 1, predication: 0.1, memory: 0.1, ..GenConfig::default() };
            let g = generate(&cfg, seed);
            let mut f = g.module.function(g.main).unwrap().clone();
            if needs_destruct(&f) { lower_phis(&mut f); }
            let c = f.cfg();
            let Ok(b) = regalloc_pebble::briggs::allocate(&c, &f, Regs::uniform(p), 10) else { continue };
            let variants = [
                Options { global: GlobalStep::Weighted, carry: true, webs: false, ..Options::with_regs(p) },
                Options { global: GlobalStep::Weighted, carry: false, ..Options::with_regs(p) },
                Options { global: GlobalStep::Off, carry: true, ..Options::with_regs(p) },
                Options { global: GlobalStep::Weighted, carry: true, ..Options::with_regs(p) },
                Options { global: GlobalStep::Lifetime, carry: true, ..Options::with_regs(p) },
            ];
            let mut res = vec![b.costs.weighted()];
            let mut ok = true;
            for o in &variants {
                match allocate(&c, &f, o) { Ok(a) => { check(&c, &f, &a).unwrap(); res.push(a.costs.weighted()) } Err(_) => { ok = false; break } }
            }
            if !ok { continue }
            for k in 0..6 { tot[k] += res[k]; }
            n += 1;
        }
        println!("P={p:2} n={n:3} briggs {:8} | vars wtd {:8} nocarry wtd {:8} | carry off {:8} wtd {:8} life {:8}", tot[0], tot[1], tot[2], tot[3], tot[4], tot[5]);
    }
}
