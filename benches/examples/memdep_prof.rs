//! Profiling aid: memdep on one benchmark kernel, repeated.
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let reps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let anti = std::env::args().nth(3).is_none_or(|s| s != "noanti");
    let m = benches::tensor::kernel(n, 1);
    let f = m.function(m.function_by_name("kernel").unwrap()).unwrap();
    let code = memdep::KeelCode::new(&m, f, None);
    let cfg = f.cfg();
    let mut ctx = memdep::MemDep::with_options(memdep::Options { anti_and_output: anti, ..Default::default() });
    let mut pairs = 0;
    let t = std::time::Instant::now();
    for _ in 0..reps {
        pairs += ctx.compute(&cfg, &code).unwrap().counts().pairs;
    }
    println!("{pairs} in {:?}", t.elapsed() / reps as u32);
}
