//! The vmap oracle on 10^4 generated graphs (lambdas nested up to three
//! deep, arrays nested two deep and ragged, `map`/`apply`/`if`/`while`,
//! unmapped parameters, batched conditions, user-written lifted operations
//! and masks): for batches of 0, 1, 7 and 64 lanes, `eval(/p/, xs)` equals
//! `[eval(p, x) for x in xs]` bit for bit, or both trap; with and without
//! optimisation rules; after a text round trip; and vectorizing `/p/` again
//! (nested vmap, ragged inner batches) agrees with `/p/` per outer lane.
//! Seeded; two threads; no clock.

use vectorize::fuzzing::{check_generated, configs};
use vectorize::generate::{Features, SplitMix64, generate};

const GRAPHS: u64 = 10_000;
const THREADS: u64 = 2;

fn run(from: u64, to: u64) -> (Features, usize) {
    let mut total = Features::default();
    let mut lanes = 0;
    for seed in from..to {
        let cfg = &configs()[(seed % 4) as usize];
        let mut s = SplitMix64::new(seed);
        let gn = generate(cfg, &mut s);
        total += gn.features;
        match check_generated(&gn, &mut s, &[0, 1, 7, 64]) {
            Ok(n) => lanes += n,
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    (total, lanes)
}

#[test]
fn ten_thousand_generated_graphs_vectorize_exactly() {
    let chunk = GRAPHS / THREADS;
    let handles: Vec<_> = (0..THREADS).map(|t| std::thread::spawn(move || run(t * chunk, (t + 1) * chunk))).collect();
    let mut total = Features::default();
    let mut lanes = 0;
    for h in handles {
        let (f, n) = h.join().expect("a checking thread");
        total += f;
        lanes += n;
    }
    println!("{GRAPHS} graphs, {lanes} lanes compared; features: {total:?}");
    // Every feature is exercised many times.
    for (what, n) in [
        ("map", total.maps),
        ("apply", total.applies),
        ("if", total.ifs),
        ("while", total.whiles),
        ("lifted", total.lifted),
        ("masked", total.masked),
        ("index", total.indexes),
        ("nested arrays", total.nested),
    ] {
        assert!(n > 1000, "only {n} {what}");
    }
}
