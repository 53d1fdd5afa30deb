//! How `cfg-dom` sees a Keel function (`src/code.rs`), against the IR read
//! directly: the CFG has exactly the distinct laid-out successors of each
//! laid-out block; `VarCode`'s uses are `Function::uses` with phi operands
//! naming their incoming block; the one-lookup `append_inst` answers exactly
//! as `defs`, `uses` and `is_guarded` do; on generated modules with phis,
//! guards, memory, switches and unreachable blocks.

use cfg_dom::{Graph, Use, VarCode};
use ir_core::{Function, UseSite, block, node};
use ir_gen::{GenConfig, generate};

fn check(func: &Function) {
    let cfg = func.cfg();
    assert_eq!(cfg.num_nodes(), func.num_blocks());
    assert_eq!(cfg.entry(), func.entry_block().map(node));
    for n in 0..cfg.num_nodes() as u32 {
        let b = block(n);
        let mut want: Vec<u32> = Vec::new();
        if func.layout().is_block_inserted(b) {
            for s in func.block_successors(b).filter(|&s| func.layout().is_block_inserted(s)) {
                if !want.contains(&node(s)) {
                    want.push(node(s));
                }
            }
        }
        assert_eq!(cfg.successors(n).collect::<Vec<_>>(), want, "successors of {b}");
        let insts: Vec<u32> = VarCode::block_insts(func, n).collect();
        let laid: Vec<u32> = if func.layout().is_block_inserted(b) {
            func.block_insts(b).map(|i| i.as_u32()).collect()
        } else {
            Vec::new()
        };
        assert_eq!(insts, laid, "instructions of {b}");
        for inst in func.block_insts(b) {
            let i = inst.as_u32();
            let defs: Vec<u32> = VarCode::defs(func, i).collect();
            let uses: Vec<Use> = VarCode::uses(func, i).collect();
            let want_uses: Vec<Use> = func
                .uses(inst)
                .map(|(site, v)| {
                    let pred = match site {
                        UseSite::Operand(k) if func.is_phi(inst) => {
                            func.phi_blocks(inst).get(k as usize).map(|&p| node(p))
                        }
                        _ => None,
                    };
                    Use { var: v.as_u32(), pred }
                })
                .collect();
            assert_eq!(uses, want_uses, "uses of {inst}");
            assert_eq!(defs, func.results(inst).iter().map(|v| v.as_u32()).collect::<Vec<_>>());
            let guarded = func.guard(inst).is_some() && !func.is_phi(inst);
            assert_eq!(VarCode::is_guarded(func, i), guarded);
            let (mut d, mut u) = (vec![7], vec![Use::at(9)]);
            assert_eq!(func.append_inst(i, &mut d, &mut u), guarded, "append_inst's guard of {inst}");
            assert_eq!((d[0], &d[1..]), (7, &defs[..]), "append_inst's defs of {inst}");
            assert_eq!((u[0], &u[1..]), (Use::at(9), &uses[..]), "append_inst's uses of {inst}");
        }
    }
}

#[test]
fn the_cfg_and_the_code_as_cfg_dom_sees_them() {
    let config = GenConfig {
        blocks: 60,
        vars: 10,
        predication: 0.3,
        memory: 0.2,
        irreducible: 0.3,
        unreachable: 0.2,
        phis: 0.4,
        functions: 2,
        ..GenConfig::default()
    };
    let mut phis = 0;
    for seed in 0..200 {
        let g = generate(&config, seed);
        for (_, f) in g.module.functions() {
            check(f);
            phis += f.blocks().flat_map(|b| f.block_insts(b)).filter(|&i| f.is_phi(i)).count();
        }
    }
    assert!(phis > 100, "only {phis} phis");
}
