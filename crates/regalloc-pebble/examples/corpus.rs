//! The WebAssembly corpus (`docs/corpus.md`, `scripts/fetch-corpus`)
//! allocated at 16 registers by the pebble allocator and the
//! Chaitin-Briggs baseline: every function allocated is checked; the
//! figures per module (functions, instructions, refusals, loads, stores,
//! moves, plain and loop-weighted, time).
//!
//! `cargo run --release -p regalloc-pebble --example corpus [-- REGS]`

use regalloc_pebble::{AllocError, Allocator, Options, Regs, check, lower_phis, needs_destruct};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let regs: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(16);
    let dir = std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus"));
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "wasm")).collect()
        }
        Err(_) => {
            println!("SKIPPED: no corpus at {} (run scripts/fetch-corpus)", dir.display());
            return;
        }
    };
    files.sort();
    println!(
        "| module | functions | instructions | refused (pebble / briggs) | pebble l/s/m | pebble weighted | briggs l/s/m | briggs weighted | pebble time | briggs time |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut ctx = Allocator::new();
    let options = Options { regs: Regs::uniform(regs), ..Options::default() };
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        let imp = wasm_import::import(&bytes, &wasm_import::ImportOptions::default()).expect("a valid module");
        let (mut nf, mut ninst, mut refused_p, mut refused_b) = (0usize, 0usize, 0usize, 0usize);
        let (mut pc, mut bc) = ([0u64; 4], [0u64; 4]);
        let (mut pt, mut bt) = (Duration::ZERO, Duration::ZERO);
        for (_, f) in imp.module.functions() {
            let mut f = f.clone();
            if needs_destruct(&f) {
                lower_phis(&mut f);
            }
            let g = f.cfg();
            nf += 1;
            ninst += f.blocks().map(|b| f.block_insts(b).count()).sum::<usize>();
            let t = Instant::now();
            let a = ctx.compute(&g, &f, &options);
            pt += t.elapsed();
            let t = Instant::now();
            let b = regalloc_pebble::briggs::allocate(&g, &f, &Options::with_regs(regs));
            bt += t.elapsed();
            for (r, acc, refused) in [(a, &mut pc, &mut refused_p), (b, &mut bc, &mut refused_b)] {
                match r {
                    Ok(a) => {
                        check(&g, &f, &a).unwrap_or_else(|e| panic!("{}: @{}: {e}", path.display(), f.name()));
                        let c = a.costs;
                        acc[0] += c.loads;
                        acc[1] += c.stores;
                        acc[2] += c.moves;
                        acc[3] = acc[3].saturating_add(c.weighted());
                    }
                    Err(AllocError::TooFewRegisters { .. }) => *refused += 1,
                    Err(e) => panic!("{}: @{}: {e}", path.display(), f.name()),
                }
            }
        }
        let name = path.file_name().unwrap().to_string_lossy();
        println!(
            "| `{name}` | {nf} | {ninst} | {refused_p} / {refused_b} | {}/{}/{} | {} | {}/{}/{} | {} | {:.2} s | {:.2} s |",
            pc[0],
            pc[1],
            pc[2],
            pc[3],
            bc[0],
            bc[1],
            bc[2],
            bc[3],
            pt.as_secs_f64(),
            bt.as_secs_f64()
        );
    }
}
