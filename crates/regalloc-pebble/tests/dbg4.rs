use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, lower_phis, needs_destruct, Allocator, GlobalStep};

#[test]
fn speed() {
    for blocks in [1000usize, 10000] {
        let cfg = GenConfig { blocks, vars: 32, functions: 1, ..GenConfig::default() };
        let g = generate(&cfg, 1);
        let mut f = g.module.function(g.main).unwrap().clone();
        if needs_destruct(&f) { lower_phis(&mut f); }
        let c = f.cfg();
        let ninst: usize = f.blocks().map(|b| f.block_insts(b).count()).sum();
        for (name, o) in [("default", Options::with_regs(16)), ("q=8", Options { local_regs: Some(8), ..Options::with_regs(16) }), ("off", Options { global: GlobalStep::Off, ..Options::with_regs(16) }), ("off novar", Options { global: GlobalStep::Off, webs: false, ..Options::with_regs(16) })] {
            let mut ctx = Allocator::new();
            let t = std::time::Instant::now();
            let a = ctx.compute(&c, &f, &o).unwrap();
            let dt = t.elapsed();
            println!("{blocks} blocks {ninst} insts {name}: {:?} = {:.0} inst/s cost {}", dt, ninst as f64 / dt.as_secs_f64(), a.costs.weighted());
        }
        let t = std::time::Instant::now();
        let b = regalloc_pebble::briggs::allocate(&c, &f, regalloc_pebble::Regs::uniform(16), 10).unwrap();
        println!("  briggs {:?} cost {}", t.elapsed(), b.costs.weighted());
    }
}
