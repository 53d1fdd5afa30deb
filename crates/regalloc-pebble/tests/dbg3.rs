use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Options, lower_phis, needs_destruct, allocate, Regs};

#[test]
fn one() {
    let p = 16;
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let cfg = GenConfig { blocks: 40, vars: 16, functions: 1, predication: 0.1, memory: 0.1, ..GenConfig::default() };
    let g = generate(&cfg, seed);
    let mut f = g.module.function(g.main).unwrap().clone();
    if needs_destruct(&f) { lower_phis(&mut f); }
    let c = f.cfg();
    let o = Options::with_regs(p);
    let a = allocate(&c, &f, &o).unwrap();
    let b = regalloc_pebble::briggs::allocate(&c, &f, Regs::uniform(p), 10).unwrap();
    let lf = cfg_dom::LoopForest::of(&c);
    println!("q {:?} globals {:?}", a.local_regs, a.globals.iter().map(|(x, r)| format!("{}:{}", f.var_name(ir_core::Var::from_u32(*x)), r)).collect::<Vec<_>>());
    println!("ours {:?}\nbriggs {:?}", a.costs, b.costs);
    for blk in f.blocks() {
        let bn = blk.as_u32();
        println!("{blk} depth {} succs {:?}", lf.loop_depth(bn), c.succ_slice(bn));
        let order = a.order(bn);
        for (k, &i) in order.iter().enumerate() {
            for (_, e) in a.edits_at(regalloc_pebble::ProgPoint::Before { block: bn, index: k as u32 }) {
                println!("    EDIT {e} {}", f.var_name(ir_core::Var::from_u32(e.var)));
            }
            let inst = ir_core::Inst::from_u32(i);
            println!("  {:?} uses {:?} defs {:?} regs {:?}", f.opcode(inst), f.uses(inst).map(|(_, v)| f.var_name(v).to_string()).collect::<Vec<_>>(), f.results(inst).iter().map(|&v| f.var_name(v).to_string()).collect::<Vec<_>>(), a.allocs(i).iter().map(|r| r.index).collect::<Vec<_>>());
        }
    }
    for (pt, e) in a.edits() { if let regalloc_pebble::ProgPoint::OnEdge{..} = pt { println!("{pt:?} {e} {}", f.var_name(ir_core::Var::from_u32(e.var))); } }
    for (pt, e) in b.edits() { println!("BRIGGS {pt:?} {e} {}", f.var_name(ir_core::Var::from_u32(e.var))); }
}
