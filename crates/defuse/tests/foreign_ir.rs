//! The foreign-IR claim, checked: generated Keel programs converted to the
//! toy IR of `examples/foreign_ir.rs` (which knows nothing of `ir-core`)
//! get exactly the chains Keel's own `Function` gets, by every method, on
//! 1,000 seeded programs with loops, irreducible regions, guarded
//! definitions, input phis and unreachable blocks (the test counts each
//! feature and fails if the programs lack one).

#[allow(dead_code)]
#[path = "../examples/foreign_ir.rs"]
mod foreign_ir;

use cfg_dom::{Graph, LoopForest, Node};
use foreign_ir::{Stmt, Toy};
use ir_core::{Function, UseSite, node};
use ir_gen::{GenConfig, generate};

/// The toy IR's copy of `func`: the same vars, params, statement ids
/// (instruction ids), blocks (block ids) and CFG edges. Each statement
/// lists its var operands, then its guard, then (for a phi) its incoming
/// values in operand order: `Function::uses` order, so use numbers agree.
fn to_toy(func: &Function) -> Toy {
    let cfg = func.cfg();
    let vars = func.vars().map(|v| func.var_name(v).to_string()).collect();
    let params = func.params().iter().map(|v| v.as_u32()).collect();
    let mut stmts = vec![Stmt::default(); func.num_insts()];
    let mut blocks = vec![(Vec::new(), Vec::new()); func.num_blocks()];
    for b in func.blocks() {
        for inst in func.block_insts(b) {
            assert!(func.fallbacks(inst).is_empty(), "generated programs are not in SSA form");
            let mut s = Stmt { text: format!("{inst}"), ..Stmt::default() };
            s.defs = func.results(inst).iter().map(|v| v.as_u32()).collect();
            if func.is_phi(inst) {
                let preds = func.phi_blocks(inst);
                let incoming = func.uses(inst).map(|(site, v)| match site {
                    UseSite::Operand(k) => (preds[k as usize].as_u32(), v.as_u32()),
                    other => panic!("a verified phi has no {other:?} use"),
                });
                s.phi = Some(incoming.collect());
            } else {
                s.uses = func.operands(inst).iter().filter_map(|o| o.as_var()).map(|v| v.as_u32()).collect();
                s.guard = func.guard(inst).map(|g| g.var.as_u32());
            }
            stmts[inst.as_u32() as usize] = s;
            blocks[b.as_u32() as usize].0.push(inst.as_u32());
        }
    }
    for (n, (_, succs)) in blocks.iter_mut().enumerate() {
        succs.extend(cfg.successors(n as Node));
    }
    Toy::new(vars, params, stmts, blocks)
}

/// What the programs contain, summed.
#[derive(Default, Debug)]
struct Seen {
    functions: usize,
    guarded_defs: usize,
    phis: usize,
    loops: usize,
    irreducible_loops: usize,
    unreachable_blocks: usize,
}

#[test]
fn chains_on_the_toy_ir_equal_chains_on_keel_ir() {
    let config = GenConfig {
        blocks: 40,
        vars: 10,
        predication: 0.3,
        memory: 0.1,
        irreducible: 0.4,
        unreachable: 0.2,
        phis: 0.3,
        functions: 2,
        ..GenConfig::default()
    };
    let mut seen = Seen::default();
    for seed in 0..1000 {
        let g = generate(&config, seed);
        for (_, func) in g.module.functions() {
            let toy = to_toy(func);
            let cfg = func.cfg();
            let keel = defuse::via_ssa(&cfg, func).expect("a generated function is valid input");
            let ours = defuse::via_ssa(&toy, &toy).expect("its toy copy is valid input");
            assert_eq!(ours, keel, "seed {seed}, @{}: via_ssa differs on the toy IR", func.name());
            let it = defuse::iterative(&toy, &toy).expect("valid input");
            assert_eq!(it, keel, "seed {seed}, @{}: iterative differs on the toy IR", func.name());
            if func.num_insts() <= defuse::fuzzing::ORACLE_LIMIT {
                let oracle = defuse::oracle(&toy, &toy).expect("valid input");
                assert_eq!(oracle, keel, "seed {seed}, @{}: the oracle differs on the toy IR", func.name());
            }
            // What this program exercised.
            seen.functions += 1;
            for b in func.blocks() {
                for inst in func.block_insts(b) {
                    seen.guarded_defs += usize::from(func.guard(inst).is_some() && !func.results(inst).is_empty());
                    seen.phis += usize::from(func.is_phi(inst));
                }
            }
            let forest = LoopForest::of(&toy);
            seen.loops += forest.num_loops();
            seen.irreducible_loops += forest.loops().filter(|&l| forest.is_irreducible(l)).count();
            let dfs = cfg_dom::Dfs::of(&toy);
            seen.unreachable_blocks += func.blocks().filter(|&b| !dfs.is_reachable(node(b))).count();
        }
    }
    eprintln!("{seen:?}");
    assert!(seen.functions >= 1000, "{seen:?}");
    assert!(seen.guarded_defs > 1000 && seen.phis > 100, "{seen:?}");
    assert!(seen.loops > 1000 && seen.irreducible_loops > 100 && seen.unreachable_blocks > 100, "{seen:?}");
}

#[test]
fn the_documents_example_in_the_toy_ir() {
    // Table 3 of the DU-chain document: the UD chain of x at s10 is
    // {s4, s7, s9}, and s1 reaches s4, s7 and s9.
    let toy = foreign_ir::document_example();
    let chains = defuse::via_ssa(&toy, &toy).unwrap();
    let s = chains.sites();
    let s10 = 7;
    let x_at_s10 = s.use_id(s10, 0).unwrap();
    let stmts: Vec<&str> = chains
        .defs_of(x_at_s10)
        .iter()
        .map(|&d| match s.def(d) {
            Some(defuse::Def::Result { inst, .. }) => toy.stmts[inst as usize].text.split(':').next().unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(stmts, ["s4", "s7", "s9"]);
    let s1 = s.def_id(0, 0).unwrap();
    let users: Vec<u32> = chains.uses_of(s1).iter().map(|&u| s.use_at(u).unwrap().inst).collect();
    assert_eq!(users, [3, 5, 6]);
}

#[test]
fn a_wrong_adapter_is_caught() {
    // Plant a bug in the adapter: guarded statements report themselves as
    // unguarded (the predicate stays a use, so use numbers still agree).
    // The equality above must notice on some of the same programs.
    let config = GenConfig { blocks: 40, vars: 10, predication: 0.3, ..GenConfig::default() };
    let differing = (0..50)
        .filter(|&seed| {
            let g = generate(&config, seed);
            g.module.functions().any(|(_, func)| {
                let mut toy = to_toy(func);
                for s in &mut toy.stmts {
                    if let Some(g) = s.guard.take() {
                        s.uses.push(g);
                    }
                }
                let keel = defuse::via_ssa(&func.cfg(), func).unwrap();
                defuse::via_ssa(&toy, &toy).unwrap() != keel
            })
        })
        .count();
    assert!(differing > 10, "only {differing} of 50 programs told a wrong adapter apart");
}

/// A foreign CFG may loop back to its entry (Keel's cannot): params then
/// flow in beside what comes back. The toy copies of generated programs,
/// with edges added from some blocks back to the entry, get the same chains
/// from every method, fresh and warm (`defuse::fuzzing::check`).
#[test]
fn edges_back_to_the_entry() {
    let config = GenConfig {
        blocks: 30,
        vars: 8,
        predication: 0.3,
        irreducible: 0.3,
        unreachable: 0.2,
        phis: 0.3,
        ..GenConfig::default()
    };
    let mut looped = 0;
    for seed in 0..300 {
        let g = generate(&config, seed);
        for (_, func) in g.module.functions() {
            let mut toy = to_toy(func);
            let (stmts, vars, params) = (toy.stmts.clone(), toy.vars.clone(), toy.params.clone());
            let mut blocks = toy.blocks.clone();
            let n = blocks.len();
            for (b, (_, succs)) in blocks.iter_mut().enumerate() {
                // Every third block (a fixed choice per seed), exits included.
                if n > 1 && (b as u64 + seed).is_multiple_of(3) && !succs.contains(&0) {
                    succs.push(0);
                }
            }
            toy = Toy::new(vars, params, stmts, blocks);
            looped += usize::from(toy.predecessors(0).next().is_some());
            defuse::fuzzing::check(&toy, &toy);
        }
    }
    assert!(looped > 200, "only {looped} functions loop back to their entry");
}
