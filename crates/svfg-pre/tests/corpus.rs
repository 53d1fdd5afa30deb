//! Real code: PRE, GVN and LCM on every function of the WebAssembly corpus
//! (`docs/corpus.md`, fetched by `scripts/fetch-corpus` into `corpus/`, or
//! `KEEL_CORPUS`); every output verifies (SSA level for PRE and GVN, base
//! level for LCM). Prints the static counts per module (computations
//! removed and inserted, ours vs LCM's), then the clean-up after each and
//! the static instruction and computation counts it leaves (the clean-up
//! must delete instructions and add no computation), that
//! `docs/benchmarks-svfg-pre.md` quotes. When the corpus is absent the test
//! says so and passes.

use ir_core::{Module, VerifyOptions, verify_module};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus"))
}

const MODULES: [&str; 4] = ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"];

#[test]
fn every_corpus_function_is_transformed_and_verifies() {
    let dir = corpus_dir();
    let present: Vec<&str> = MODULES.iter().copied().filter(|m| dir.join(m).is_file()).collect();
    if present.is_empty() {
        eprintln!("SKIPPED: no corpus in {} (run scripts/fetch-corpus)", dir.display());
        return;
    }
    for name in present {
        let bytes = std::fs::read(dir.join(name)).expect("readable module");
        let imported = wasm_import::import(&bytes, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ssa = svfg_pre::fuzzing::to_ssa(&imported.module).unwrap();
        let ids: Vec<_> = ssa.function_ids().collect();
        let (mut pre, mut gvn, mut lcm) = (ssa.clone(), ssa.clone(), ssa.clone());
        let (mut pre_rm, mut pre_ins, mut gvn_rm, mut lcm_rm, mut lcm_ins) = (0, 0, 0, 0, 0);
        for &f in &ids {
            let s = svfg_pre::svfg_pre_in(&mut pre, f).unwrap_or_else(|e| panic!("{name}: {e}"));
            pre_rm += s.removed;
            pre_ins += s.inserted;
            gvn_rm += svfg_pre::gvn(gvn.function_mut(f).unwrap()).unwrap().removed;
            let l = svfg_pre::lcm(lcm.function_mut(f).unwrap(), u64::MAX).unwrap();
            lcm_rm += l.removed;
            lcm_ins += l.inserted;
        }
        let verify = |m: &Module, ssa: bool, what: &str| {
            if let Err(e) = verify_module(m, &VerifyOptions { ssa }) {
                panic!("{name}: {what} output does not verify: {e}");
            }
        };
        // How PRE's memory questions were answered (the plans again, on
        // the SSA input: what `svfg_pre_in` asked above).
        let mut asked = svfg_pre::MemoryCounts::default();
        let mut memdep_ran = 0;
        for &f in &ids {
            let (_, c) = svfg_pre::plan_in(&ssa, ssa.function(f).unwrap(), svfg_pre::Method::Svfg).unwrap();
            memdep_ran += usize::from(c.from_memdep > 0);
            asked += c;
        }
        eprintln!(
            "{name}: memory questions {}: walk yes {}, walk no {}, memdep {} (yes {}), memdep run on {memdep_ran} functions",
            asked.questions, asked.walked, asked.clobbered, asked.from_memdep, asked.memdep_yes
        );
        verify(&pre, true, "PRE");
        verify(&gvn, true, "GVN");
        verify(&lcm, false, "LCM");
        eprintln!(
            "{name}: {} functions; PRE removed {pre_rm}, inserted {pre_ins} (net {}); GVN removed {gvn_rm}; LCM removed {lcm_rm}, inserted {lcm_ins} (net {})",
            ids.len(),
            pre_rm as i64 - pre_ins as i64,
            lcm_rm as i64 - lcm_ins as i64
        );
        // The clean-up after each (as `keel pre` does; LCM's output is
        // taken out of SSA and back in first, its temporaries being plain
        // vars), and the static counts it leaves.
        let (mut pre_c, mut lcm_c) = (pre.clone(), lcm.clone());
        for &f in &ids {
            svfg_pre::cleanup_function(pre_c.function_mut(f).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let body = lcm_c.function_mut(f).unwrap();
            ssa::destruct(body);
            ssa::construct(body, &ssa::Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            svfg_pre::cleanup_function(body).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        verify(&pre_c, true, "PRE + clean-up");
        verify(&lcm_c, true, "LCM + clean-up");
        let [input, after_pre, cleaned, after_lcm, lcm_cleaned] = [&ssa, &pre, &pre_c, &lcm, &lcm_c].map(static_counts);
        eprintln!(
            "{name}: instructions / computations: SSA input {} / {}; PRE {} / {}; PRE + clean-up {} / {}; LCM {} / {}; LCM + clean-up {} / {}",
            input.0,
            input.1,
            after_pre.0,
            after_pre.1,
            cleaned.0,
            cleaned.1,
            after_lcm.0,
            after_lcm.1,
            lcm_cleaned.0,
            lcm_cleaned.1
        );
        assert!(cleaned.0 < after_pre.0, "{name}: the clean-up deletes instructions");
        assert!(cleaned.1 <= after_pre.1, "{name}: the clean-up adds no computation");
    }
}

/// Instructions in blocks, and of those the computations (pure operations
/// and loads, unguarded: `svfg_pre::is_computation`), over a module.
fn static_counts(m: &Module) -> (usize, usize) {
    let (mut insts, mut computations) = (0, 0);
    for (_, func) in m.functions() {
        for b in func.blocks() {
            for i in func.block_insts(b) {
                insts += 1;
                computations += usize::from(svfg_pre::is_computation(func, i));
            }
        }
    }
    (insts, computations)
}
