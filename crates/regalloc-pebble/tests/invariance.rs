//! The same DAG always gets the same allocation, whatever the statement
//! order (digest §004): generated functions, their blocks reshuffled by
//! swaps of independent adjacent statements, get byte-identical
//! allocations (instruction ids do not change, only their order), under
//! every option of the pebble allocator; and on random DAGs renumbered in
//! another topological order, the heuristic plays the same moves. The
//! whole-function sweep's shortcut for blocks entered from one
//! predecessor decides what its register votes decide.

use ir_gen::{GenConfig, generate};
use regalloc_pebble::fuzzing::{Bug, Rng, check_dag, check_dag_with, random_dag, shuffle_statements, with_bug};
use regalloc_pebble::{GlobalStep, LocalRule, Options, Strategy, allocate, check, lower_phis, needs_destruct};

#[test]
fn reshuffled_blocks_get_identical_allocations() {
    let mut rng = Rng::new(0x1a7);
    let mut swapped = 0;
    let mut compared = 0;
    for seed in 0..120u64 {
        let cfg = GenConfig {
            blocks: 20,
            vars: 10,
            functions: 2,
            predication: 0.3,
            memory: 0.2,
            phis: 0.2,
            ..GenConfig::default()
        };
        let g = generate(&cfg, seed);
        for (_, f) in g.module.functions() {
            let mut f = f.clone();
            if needs_destruct(&f) {
                lower_phis(&mut f);
            }
            let mut shuffled = f.clone();
            swapped += shuffle_statements(&mut shuffled, &mut rng, 8);
            let (g1, g2) = (f.cfg(), shuffled.cfg());
            for p in [4, 8] {
                for opts in [
                    Options { strategy: Strategy::Blocks, ..Options::with_regs(p) },
                    Options {
                        global: GlobalStep::Off,
                        carry: false,
                        strategy: Strategy::Blocks,
                        ..Options::with_regs(p)
                    },
                    Options {
                        global: GlobalStep::Lifetime,
                        webs: false,
                        strategy: Strategy::Blocks,
                        ..Options::with_regs(p)
                    },
                    Options { local_rule: LocalRule::Document, strategy: Strategy::Blocks, ..Options::with_regs(p) },
                ] {
                    let (Ok(a1), Ok(a2)) = (allocate(&g1, &f, &opts), allocate(&g2, &shuffled, &opts)) else {
                        continue;
                    };
                    check(&g2, &shuffled, &a2).unwrap();
                    assert_eq!(a1, a2, "seed {seed}, p {p}, {opts:?}");
                    compared += 1;
                }
            }
        }
    }
    assert!(swapped > 1000 && compared > 800, "{swapped} swaps, {compared} comparisons");
}

#[test]
fn renumbered_dags_get_the_same_moves() {
    let mut rng = Rng::new(0xdab);
    for _ in 0..400 {
        let n = 6 + rng.below(25) as usize;
        let d = random_dag(&mut rng, n);
        let p = d.max_demand(regalloc_pebble::RegClass::Scalar) + rng.below(3) as u32;
        check_dag(&d, p, &mut rng).unwrap();
        check_dag_with(&d, p, LocalRule::Document, &mut rng).unwrap();
    }
}

#[test]
fn the_single_predecessor_entry_shortcut_changes_nothing() {
    let mut compared = 0;
    for seed in 0..150u64 {
        let cfg = GenConfig { blocks: 30, vars: 16, predication: 0.3, memory: 0.2, phis: 0.4, ..GenConfig::default() };
        let g = generate(&cfg, seed);
        let mut f = g.module.function(g.main).expect("main").clone();
        lower_phis(&mut f);
        let graph = f.cfg();
        for p in [3, 4, 8, 16] {
            let o = Options::with_regs(p);
            let (Ok(fast), Ok(votes)) =
                (allocate(&graph, &f, &o), with_bug(Bug::NoEntryShortcut, || allocate(&graph, &f, &o)))
            else {
                continue;
            };
            assert_eq!(fast, votes, "seed {seed}, p {p}");
            compared += 1;
        }
    }
    assert!(compared > 400, "{compared} comparisons");
}
