use vectorize::fuzzing::{check_generated, configs};
use vectorize::generate::{SplitMix64, generate};

#[test]
fn one() {
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(23);
    let cfg = &configs()[(seed % 4) as usize];
    let mut s = SplitMix64::new(seed);
    let gn = generate(cfg, &mut s);
    if let Err(e) = check_generated(&gn, &mut s, &[0, 1, 7]) {
        println!("{e}");
        panic!();
    }
}
