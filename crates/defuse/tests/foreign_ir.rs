//! The foreign-IR claim, checked: generated Keel programs converted to the
//! toy IR of the `foreign-ir` package (which knows nothing of `ir-core`)
//! get exactly the chains Keel's own `Function` gets, by every method, on
//! 1,000 seeded programs with loops, irreducible regions, guarded
//! definitions, input phis and unreachable blocks (the test counts each
//! feature and fails if the programs lack one).

use cfg_dom::{Graph, LoopForest};
use foreign_ir::Guard;
use foreign_ir::keel::from_function as to_toy;
use ir_core::node;
use ir_gen::{GenConfig, generate};

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
    let toy = foreign_ir::programs::du_chains();
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
                    if let Guard::Var(g) = std::mem::take(&mut s.guard) {
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
            let n = toy.blocks.len();
            for (b, (_, succs)) in toy.blocks.iter_mut().enumerate() {
                // Every third block (a fixed choice per seed), exits included.
                if n > 1 && (b as u64 + seed).is_multiple_of(3) && !succs.contains(&0) {
                    succs.push(0);
                }
            }
            toy.derive_preds();
            looped += usize::from(toy.predecessors(0).next().is_some());
            defuse::fuzzing::check(&toy, &toy);
        }
    }
    assert!(looped > 200, "only {looped} functions loop back to their entry");
}
