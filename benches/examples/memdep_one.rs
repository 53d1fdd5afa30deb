//! Profiling aid: memdep on one corpus function, repeated.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, func) = (&args[1], &args[2]);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let bytes = std::fs::read(file).unwrap();
    let m = wasm_import::import(&bytes, &Default::default()).unwrap().module;
    let f = m.function(m.function_by_name(func).unwrap()).unwrap();
    let s = memdep::Summaries::of(&m);
    let code = memdep::KeelCode::new(&m, f, Some(&s));
    let cfg = f.cfg();
    let mut ctx = memdep::MemDep::new();
    let t = std::time::Instant::now();
    let mut last = None;
    for _ in 0..reps {
        last = Some(ctx.compute(&cfg, &code).unwrap());
    }
    println!("{:?}", t.elapsed() / reps as u32);
    let d = last.unwrap();
    let du: usize = (0..d.sites().num_defs() as u32).map(|x| d.uses_of(x).len()).sum();
    println!("{:?} du ranges {du}", d.counts());
}
