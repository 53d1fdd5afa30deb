//! The quality table of `docs/benchmarks-regalloc.md`: loop-weighted
//! loads, stores and moves of `regalloc-pebble`, its Chaitin-Briggs
//! baseline and regalloc2 0.15.2 on the same functions
//! ([`benches::regalloc`]), every allocation checked (ours by
//! `regalloc_pebble::check`, regalloc2's by its own checker). Counts, not
//! times: the output is the same on every machine.
//!
//! `cargo run --release -p benches --example regalloc_quality [-- generated|corpus|all [N]]`
//!
//! - `generated`: `N` (default 300) `ir-gen` functions of 40 blocks and 24
//!   vars (loops, diamonds, switches, guards, memory, calls), at 4, 6, 8,
//!   12 and 16 registers;
//! - `corpus`: every function of the WebAssembly corpus (`docs/corpus.md`)
//!   at 16 registers.
//!
//! A function counts in a row only when all three allocate it (the
//! refusals, an instruction that reads more vars than there are registers,
//! are listed).
//!
//! Diagnostics on standard error: `KEEL_RA_SPLIT=1` prints each row's
//! plain loads, stores and moves per peer, and the weighted sum of each;
//! `KEEL_RA_WORST=1` names every function (with its index in the row)
//! where pebbling's weighted count exceeds regalloc2's by more than 1,000,
//! with both weighted splits.

use benches::regalloc::{Prepared, Tally, check_ra2, machine_env};
use ir_core::Function;
use ir_gen::{GenConfig, generate};
use regalloc_pebble::{Allocator, Options, briggs, check};
use std::path::PathBuf;

/// Sums over one row.
#[derive(Default)]
struct Row {
    functions: usize,
    refused: [usize; 3],
    tallies: [Tally; 3],
    edit_moves: u64,
}

fn run_row(fs: &[Prepared], p: u32) -> Row {
    let mut row = Row::default();
    let mut ctx = Allocator::new();
    let mut ra2_ctx = regalloc2::Ctx::default();
    let env = machine_env(p);
    let ra2_opts = regalloc2::RegallocOptions { validate_ssa: true, ..Default::default() };
    for (index, f) in fs.iter().enumerate() {
        let a = ctx.compute(&f.cfg, &f.lowered, &Options::with_regs(p));
        let b = briggs::allocate(&f.cfg, &f.lowered, &Options::with_regs(p));
        let c = regalloc2::run_with_ctx(&f.ra2, &env, &ra2_opts, &mut ra2_ctx).cloned();
        let mut ok = true;
        let mut t = [Tally::default(); 3];
        for (k, r) in [a, b].into_iter().enumerate() {
            match r {
                Ok(a) => {
                    check(&f.cfg, &f.lowered, &a).unwrap_or_else(|e| panic!("@{}: {e}", f.name));
                    t[k] = f.tally_keel(&a);
                    if k == 0 {
                        row.edit_moves += a.costs.moves;
                    }
                }
                Err(_) => {
                    row.refused[k] += 1;
                    ok = false;
                }
            }
        }
        match c {
            Ok(out) => {
                check_ra2(&f.ra2, &env, &out).unwrap_or_else(|e| panic!("@{}: regalloc2 checker: {e}", f.name));
                t[2] = f.ra2.tally(&f.ssa, &out);
            }
            Err(_) => {
                row.refused[2] += 1;
                ok = false;
            }
        }
        if ok && std::env::var_os("KEEL_RA_WORST").is_some() && t[0].weighted > t[2].weighted + 1000 {
            eprintln!(
                "  worse: @{} (#{}) pebble {} {:?} regalloc2 {} {:?}",
                f.name, index, t[0].weighted, t[0].weighted_split, t[2].weighted, t[2].weighted_split
            );
        }
        if ok {
            row.functions += 1;
            for (sum, one) in row.tallies.iter_mut().zip(&t) {
                sum.add(one);
            }
        }
    }
    row
}

fn print_header() {
    println!(
        "| workload | P | functions | pebble | Chaitin-Briggs | regalloc2 | pebble / Briggs | pebble / regalloc2 | plain l+s+m (pebble / Briggs / regalloc2) | refused (p / b / r) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
}

fn print_row(name: &str, p: u32, r: &Row) {
    if std::env::var_os("KEEL_RA_SPLIT").is_some() {
        for (k, t) in r.tallies.iter().enumerate() {
            let peer = ["pebble", "Chaitin-Briggs", "regalloc2"][k];
            let [wl, ws, wm] = t.weighted_split;
            eprint!(
                "  {name} P={p} {peer}: loads {} stores {} moves {} (weighted {wl} {ws} {wm})",
                t.loads, t.stores, t.moves
            );
            if k == 0 {
                eprint!(" (inserted moves {}, over every function allocated)", r.edit_moves);
            }
            eprintln!();
        }
    }
    let w = |k: usize| r.tallies[k].weighted;
    let ratio = |a: u64, b: u64| if b == 0 { "-".to_string() } else { format!("{:.3}", a as f64 / b as f64) };
    println!(
        "| {name} | {p} | {} | {} | {} | {} | {} | {} | {} / {} / {} | {} / {} / {} |",
        r.functions,
        w(0),
        w(1),
        w(2),
        ratio(w(0), w(1)),
        ratio(w(0), w(2)),
        r.tallies[0].total(),
        r.tallies[1].total(),
        r.tallies[2].total(),
        r.refused[0],
        r.refused[1],
        r.refused[2],
    );
}

fn generated(n: u64) -> Vec<Prepared> {
    let cfg = GenConfig { blocks: 40, vars: 24, functions: 1, ..GenConfig::default() };
    (0..n)
        .map(|seed| {
            let g = generate(&cfg, seed);
            Prepared::new(g.module.function(g.main).expect("main"))
        })
        .collect()
}

fn corpus() -> Vec<(String, Vec<Prepared>)> {
    let dir = std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"));
    let mut out = Vec::new();
    for name in ["brotli_wasm_bg.wasm", "onigasm.wasm", "sql-wasm.wasm", "web-tree-sitter.wasm"] {
        let Ok(bytes) = std::fs::read(dir.join(name)) else {
            eprintln!("SKIPPED {name}: no corpus at {} (scripts/fetch-corpus)", dir.display());
            continue;
        };
        let imp = wasm_import::import(&bytes, &Default::default()).expect("a valid module");
        let fs: Vec<Function> = imp.module.functions().map(|(_, f)| f.clone()).collect();
        out.push((name.to_string(), fs.iter().map(Prepared::new).collect()));
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("all", String::as_str);
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    print_header();
    if what == "generated" || what == "all" {
        let fs = generated(n);
        for p in [4, 6, 8, 12, 16] {
            print_row("generated", p, &run_row(&fs, p));
        }
    }
    if what == "corpus" || what == "all" {
        let mut all = Row::default();
        for (name, fs) in corpus() {
            let r = run_row(&fs, 16);
            print_row(&format!("`{name}`"), 16, &r);
            all.functions += r.functions;
            for k in 0..3 {
                all.refused[k] += r.refused[k];
                all.tallies[k].add(&r.tallies[k]);
            }
        }
        print_row("corpus", 16, &all);
    }
}
