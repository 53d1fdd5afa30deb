use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Regs, check, lower_phis, needs_destruct};

#[test]
fn dbg() {
    let cfg = GenConfig { blocks: 24, vars: 10, functions: 2, predication: 0.3, memory: 0.2, phis: 0.2, ..GenConfig::default() };
    let g = generate(&cfg, 3);
    for (fid, f) in g.module.functions() {
        let mut f = f.clone();
        if needs_destruct(&f) { lower_phis(&mut f); }
        let cfgg = f.cfg();
        let a = regalloc_pebble::briggs::allocate(&cfgg, &f, Regs::uniform(16), 10).unwrap();
        if let Err(e) = check(&cfgg, &f, &a) {
            println!("{fid}: {e}");
            for b in f.blocks() {
                println!("{b}:");
                for i in f.block_insts(b) {
                    println!("  {:?} {:?} {:?} regs {:?}", i, f.opcode(i), f.uses(i).map(|(_, v)| f.var_name(v).to_string()).collect::<Vec<_>>(), a.allocs(i.as_u32()).iter().map(|r| r.index).collect::<Vec<_>>());
                    println!("     defs {:?}", f.results(i).iter().map(|&v| f.var_name(v).to_string()).collect::<Vec<_>>());
                }
            }
            for (p, e) in a.edits() { println!("{p:?} {e}"); }
            println!("{:?}", a.entry_locs());
        }
    }
}
