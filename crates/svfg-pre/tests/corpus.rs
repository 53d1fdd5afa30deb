//! Real code: PRE, GVN and LCM on every function of the WebAssembly corpus
//! (`docs/corpus.md`, fetched by `scripts/fetch-corpus` into `corpus/`, or
//! `KEEL_CORPUS`); every output verifies (SSA level for PRE and GVN, base
//! level for LCM). Prints the static counts per module (computations
//! removed and inserted, ours vs LCM's) that `docs/benchmarks-svfg-pre.md`
//! quotes. When the corpus is absent the test says so and passes.

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
        verify(&pre, true, "PRE");
        verify(&gvn, true, "GVN");
        verify(&lcm, false, "LCM");
        eprintln!(
            "{name}: {} functions; PRE removed {pre_rm}, inserted {pre_ins} (net {}); GVN removed {gvn_rm}; LCM removed {lcm_rm}, inserted {lcm_ins} (net {})",
            ids.len(),
            pre_rm as i64 - pre_ins as i64,
            lcm_rm as i64 - lcm_ins as i64
        );
    }
}
