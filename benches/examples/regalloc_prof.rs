//! Profiling aid: `regalloc-pebble` on the generated function of
//! `regalloc-blocks/N` (vars N / 12), at 16 registers, repeated.
//!
//! `regalloc_prof N REPS [briggs|regalloc2]`; `N = 0`: the 100 functions
//! of `regalloc-generated` (40 blocks, 24 vars); `N` a `.wasm` file: its
//! functions that allocate at 16 registers (`corpus/onigasm.wasm`: the
//! `regalloc-corpus` cell).
use benches::regalloc::{Prepared, machine_env};
use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Allocator, Options, briggs};

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let n: usize = arg.parse().unwrap_or(4000);
    let reps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let peer = std::env::args().nth(3).unwrap_or_default();
    let fs: Vec<Prepared> = if arg.ends_with(".wasm") {
        let bytes = std::fs::read(&arg).expect("a readable module");
        let imp = wasm_import::import(&bytes, &Default::default()).expect("a valid module");
        let mut probe = Allocator::new();
        imp.module
            .functions()
            .map(|(_, f)| Prepared::new(f))
            .filter(|f| probe.compute(&f.cfg, &f.lowered, &Options::with_regs(16)).is_ok())
            .collect()
    } else if n == 0 {
        let cfg = GenConfig { blocks: 40, vars: 24, functions: 1, ..GenConfig::default() };
        (0..100)
            .map(|seed| Prepared::new(generate(&cfg, seed).module.function(generate(&cfg, seed).main).expect("main")))
            .collect()
    } else {
        let cfg = GenConfig { blocks: n, vars: (n / 12).max(24), functions: 1, ..GenConfig::default() };
        let g = generate(&cfg, 1);
        vec![Prepared::new(g.module.function(g.main).expect("main"))]
    };
    let options = Options::with_regs(16);
    let mut ctx = Allocator::new();
    let mut ra2 = regalloc2::Ctx::default();
    let env = machine_env(16);
    let t = std::time::Instant::now();
    let mut total = 0u64;
    for f in (0..reps).flat_map(|_| fs.iter()) {
        total += match peer.as_str() {
            "briggs" => briggs::allocate(&f.cfg, &f.lowered, &options).expect("allocates").costs.weighted(),
            "regalloc2" => regalloc2::run_with_ctx(&f.ra2, &env, &regalloc2::RegallocOptions::default(), &mut ra2)
                .expect("allocates")
                .edits
                .len() as u64,
            _ => ctx.compute(&f.cfg, &f.lowered, &options).expect("allocates").costs.weighted(),
        };
    }
    let insts: usize = fs.iter().map(|f| f.insts).sum();
    println!("{insts} instructions; {total} in {:?} per run", t.elapsed() / reps as u32);
}
