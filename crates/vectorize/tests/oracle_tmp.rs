use vectorize::fuzzing::{check_generated, configs};
use vectorize::generate::{SplitMix64, generate};

#[test]
fn generated() {
    let n: u64 = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut fails = 0;
    for seed in 0..n {
        let cfg = &configs()[(seed % 4) as usize];
        let mut s = SplitMix64::new(seed);
        let gn = generate(cfg, &mut s);
        if let Err(e) = check_generated(&gn, &mut s, &[0, 1, 7, 64]) {
            fails += 1;
            if fails <= 8 {
                println!("seed {seed}: {}", e.lines().next().unwrap_or(""));
            }
        }
    }
    println!("{fails} failures of {n}");
    assert_eq!(fails, 0);
}
