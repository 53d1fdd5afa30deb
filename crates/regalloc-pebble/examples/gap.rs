//! The heuristic's gap to the exact optimum on random plain DAGs of 8 to 30
//! nodes (the optimum by the exhaustive A* search, which the tests check
//! against the ILP over time-indexed pebble moves on DAGs of at most 10
//! nodes; the ILP itself takes minutes per DAG beyond about 12).
//!
//! `cargo run --release -p regalloc-pebble --example gap --features ilp -- [COUNT] [SEED]`
//! prints one line per DAG size band and the distribution of the relative
//! gap (heuristic / optimum - 1), with the register count at the DAG's
//! demand and one above, for the default rule (`Searched`), with the totals
//! of `Refined` (no search) and `Document` and the mean and max gap of `Refined`.

use regalloc_pebble::exact::exhaustive_limited;
use regalloc_pebble::fuzzing::{Rng, random_dag};
use regalloc_pebble::{LocalRule, Pebbler, RegClass, Regs, Setup};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2024);
    let mut rng = Rng::new(seed);
    let (mut sum_h, mut sum_o) = (0u64, 0u64);
    let mut gaps: Vec<f64> = Vec::new();
    let mut unproven = 0usize;
    let mut bands: Vec<(usize, usize, u64, u64, usize, usize)> =
        vec![(8, 14, 0, 0, 0, 0), (15, 22, 0, 0, 0, 0), (23, 30, 0, 0, 0, 0)];
    let t0 = std::time::Instant::now();
    let mut nodes_total = 0u64;
    let mut doc_total = 0u64;
    let mut refined_total = 0u64;
    let mut refined_gaps: Vec<f64> = Vec::new();
    struct Opt {
        cost: u64,
    }
    for k in 0..count {
        let nodes = 8 + rng.below(23) as usize;
        let d = random_dag(&mut rng, nodes);
        let p = d.max_demand(RegClass::Scalar) + (k % 2) as u32;
        let play = |rule| {
            Pebbler::new()
                .run(&d, &Setup { rule, ..Setup::plain(Regs::new(p, 0)) })
                .expect("p covers the demand")
                .cost()
        };
        let h = play(LocalRule::Searched);
        let hr = play(LocalRule::Refined);
        let hd = play(LocalRule::Document);
        match exhaustive_limited(&d, p, Some(20_000_000)).map(|cost| Opt { cost }) {
            Ok(r) => {
                doc_total += hd;
                refined_total += hr;
                refined_gaps.push(hr as f64 / r.cost.max(1) as f64 - 1.0);
                nodes_total += 1;
                assert!(h >= r.cost, "heuristic below the optimum");
                sum_h += h;
                sum_o += r.cost;
                let g = h as f64 / r.cost.max(1) as f64 - 1.0;
                gaps.push(g);
                for b in &mut bands {
                    if nodes >= b.0 && nodes <= b.1 {
                        b.2 += h;
                        b.3 += r.cost;
                        b.4 += 1;
                        b.5 += usize::from(h == r.cost);
                    }
                }
            }
            Err(_) => unproven += 1,
        }
    }
    gaps.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| gaps[((gaps.len() as f64 - 1.0) * f).round() as usize];
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let optimal = gaps.iter().filter(|&&g| g == 0.0).count();
    println!(
        "DAGs: {} solved to optimality ({nodes_total}), {unproven} not proven within the state limit; {:.1} s",
        gaps.len(),
        t0.elapsed().as_secs_f64()
    );
    println!(
        "loads+stores: searched {sum_h}, refined {refined_total}, document {doc_total}, optimum {sum_o}: ratios {:.4}, {:.4} and {:.4}",
        sum_h as f64 / sum_o as f64,
        refined_total as f64 / sum_o as f64,
        doc_total as f64 / sum_o as f64
    );
    refined_gaps.sort_by(|a, b| a.total_cmp(b));
    println!(
        "refined rule (no search): mean gap {:.2}%, max {:.2}%",
        100.0 * refined_gaps.iter().sum::<f64>() / refined_gaps.len().max(1) as f64,
        100.0 * refined_gaps.last().copied().unwrap_or(0.0)
    );
    println!(
        "relative gap per DAG (searched, the default): mean {:.2}%, median {:.2}%, p90 {:.2}%, p99 {:.2}%, max {:.2}%; optimal on {optimal} ({:.1}%)",
        100.0 * mean,
        100.0 * q(0.5),
        100.0 * q(0.9),
        100.0 * q(0.99),
        100.0 * q(1.0),
        100.0 * optimal as f64 / gaps.len() as f64
    );
    for (lo, hi, h, o, n, opt) in bands {
        println!(
            "  {lo:2}-{hi:2} nodes: {n:4} DAGs, heuristic/optimum {:.4}, optimal on {opt}",
            h as f64 / o.max(1) as f64
        );
    }
}
