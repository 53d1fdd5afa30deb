//! Issue 33's speed item: PRE with memory answers (walks, memdep on
//! demand) against LCM on the corpus's largest functions, per phase
//! (memdep's dependences when some walk was unsure, value numbering with
//! the walks, the SVFG, planning and rewriting, the clean-up; the total is
//! the wall time of all of it, CFG builds included), best of `REPS` runs
//! of each (a fresh copy of the SSA function each time). The loads column
//! says how PRE's memory questions were answered.
//!
//! `cargo run --release -p benches --example pre_phases [-- N [REPS]]`
//! (default: the 20 largest functions, 5 runs), the corpus in `corpus/`
//! or `KEEL_CORPUS`. Prints a markdown table.

use ir_core::{FuncId, Module};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use svfg_pre::Method;

const MODULES: [&str; 4] = ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"];

/// The best of `reps` runs of `f`, which returns its own phase times.
fn best<const K: usize>(reps: usize, mut f: impl FnMut() -> [Duration; K]) -> [Duration; K] {
    let mut out: Option<[Duration; K]> = None;
    for _ in 0..reps.max(1) {
        let t = f();
        if out.is_none_or(|o| t.iter().sum::<Duration>() < o.iter().sum()) {
            out = Some(t);
        }
    }
    out.expect("at least one run")
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let reps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let dir = std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus"));
    let mut modules: Vec<(&str, Module)> = Vec::new();
    for name in MODULES {
        let Ok(bytes) = std::fs::read(dir.join(name)) else { continue };
        let m = wasm_import::import(&bytes, &Default::default()).expect("a corpus module imports").module;
        modules.push((name, svfg_pre::fuzzing::to_ssa(&m).expect("SSA")));
    }
    assert!(!modules.is_empty(), "no corpus in {} (run scripts/fetch-corpus)", dir.display());
    // (instructions, module index, function)
    let mut all: Vec<(usize, usize, FuncId)> = Vec::new();
    for (k, (_, m)) in modules.iter().enumerate() {
        for (f, func) in m.functions() {
            let insts = func.blocks().map(|b| func.block_insts(b).count()).sum();
            all.push((insts, k, f));
        }
    }
    all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    println!(
        "| function | instructions | loads asked: walk yes / walk no / memdep | memdep | value numbering | SVFG | plan + rewrite | clean-up | PRE total | LCM | LCM + clean-up | PRE / LCM |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut sum_pre, mut sum_lcm) = (Duration::ZERO, Duration::ZERO);
    for &(insts, k, f) in all.iter().take(n) {
        let (name, m) = &modules[k];
        let fname = m.function(f).expect("a function").name().to_string();
        let mut counts = svfg_pre::MemoryCounts::default();
        let pre = best(reps, || {
            // What `svfg_pre::run_in` does (the plan with memory answers on
            // demand, then the rewrite), on a copy of the function.
            let mut func = m.function(f).expect("a function").clone();
            let wall = Instant::now();
            let (plan, c) = svfg_pre::plan_in(m, &func, Method::Svfg).expect("PRE takes it");
            counts = c;
            let s = svfg_pre::apply(&mut func, &plan).expect("a fresh plan");
            let t = Instant::now();
            svfg_pre::cleanup_function(&mut func).expect("the clean-up takes it");
            let vn = s.time_vn.saturating_sub(c.memdep_time);
            let cleanup = t.elapsed();
            // The whole of it.
            [c.memdep_time, vn, s.time_svfg, s.time_rewrite, cleanup, wall.elapsed()]
        });
        let lcm = best(reps, || {
            let mut func = m.function(f).expect("a function").clone();
            let t = Instant::now();
            svfg_pre::lcm(&mut func, u64::MAX).expect("LCM takes it");
            let t_lcm = t.elapsed();
            let t = Instant::now();
            ssa::destruct(&mut func);
            ssa::construct(&mut func, &ssa::Options::default()).expect("SSA again");
            svfg_pre::cleanup_function(&mut func).expect("the clean-up takes it");
            [t_lcm, t.elapsed()]
        });
        let total = pre[5];
        sum_pre += total;
        sum_lcm += lcm[0];
        println!(
            "| `{}` {fname} | {insts} | {} / {} / {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
            name.trim_end_matches(".wasm"),
            counts.walked,
            counts.clobbered,
            counts.from_memdep,
            ms(pre[0]),
            ms(pre[1]),
            ms(pre[2]),
            ms(pre[3]),
            ms(pre[4]),
            ms(total),
            ms(lcm[0]),
            ms(lcm[0] + lcm[1]),
            total.as_secs_f64() / lcm[0].as_secs_f64()
        );
    }
    println!(
        "\nsum over the {n} functions: PRE {} ms, LCM {} ms, PRE / LCM {:.2}",
        ms(sum_pre),
        ms(sum_lcm),
        sum_pre.as_secs_f64() / sum_lcm.as_secs_f64()
    );
}
