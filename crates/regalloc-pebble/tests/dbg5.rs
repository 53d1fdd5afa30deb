use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, lower_phis, needs_destruct, Allocator, GlobalStep};

#[test]
fn prof() {
    let cfg = GenConfig { blocks: 10000, vars: 32, functions: 1, ..GenConfig::default() };
    let g = generate(&cfg, 1);
    let mut f = g.module.function(g.main).unwrap().clone();
    if needs_destruct(&f) { lower_phis(&mut f); }
    let c = f.cfg();
    let mode = std::env::var("MODE").unwrap_or_default();
    let o = match mode.as_str() {
        "off" => Options { global: GlobalStep::Off, ..Options::with_regs(16) },
        "offnoweb" => Options { global: GlobalStep::Off, webs: false, ..Options::with_regs(16) },
        "none" => return,
        _ => Options::with_regs(16),
    };
    let mut ctx = Allocator::new();
    for _ in 0..3 { ctx.compute(&c, &f, &o).unwrap(); }
}
