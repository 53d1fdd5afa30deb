//! Quick timings of memdep on the benchmark kernels (for development; the
//! figures come from `cargo bench -p benches --bench memdep`).
use std::time::Instant;
fn main() {
    for n in [1000usize, 10_000, 100_000] {
        let m = benches::tensor::kernel(n, 1);
        let f = m.function(m.function_by_name("kernel").unwrap()).unwrap();
        let code = memdep::KeelCode::new(&m, f, None);
        let cfg = f.cfg();
        let mut ctx = memdep::MemDep::new();
        let t = Instant::now();
        let d = ctx.compute(&cfg, &code).unwrap();
        let e = t.elapsed();
        let t = Instant::now();
        let _ = ctx.compute_function(&m, f, None).unwrap();
        let e2 = t.elapsed();
        let c = d.counts();
        println!(
            "n={n} accesses={} blocks={} engine {:?} with adapter {:?} pairs {} ranges {}",
            benches::tensor::accesses(&m),
            f.num_blocks(),
            e,
            e2,
            c.pairs,
            c.ranges
        );
        if n <= 10_000 {
            let t = Instant::now();
            let b = memdep::naive(&cfg, &code).unwrap();
            let eb = t.elapsed();
            let plain = memdep::MemDep::with_options(memdep::Options { symbolic: false, ..Default::default() })
                .compute(&cfg, &code)
                .unwrap();
            println!("   naive {:?} equal-to-nosym {}", eb, plain == b);
        }
    }
}
