//! Real code: the analysis on every function of the WebAssembly corpus
//! (`docs/corpus.md`, fetched by `scripts/fetch-corpus` into `corpus/`, or
//! `KEEL_CORPUS`), with call summaries, without an error; the flow sets
//! equal the naive baseline's on the smaller functions, the DU side is the
//! transpose of the flow sets on all but the largest; edge counts per
//! module, in each form. When the corpus is absent the test says so and
//! passes.

use memdep::{EdgeCounts, KeelCode, MemDep, Options, Summaries};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus"))
}

const MODULES: [&str; 4] = ["sql-wasm.wasm", "onigasm.wasm", "brotli_wasm_bg.wasm", "web-tree-sitter.wasm"];

/// Functions with up to this many flow pairs have their DU side checked
/// against the expanded flow pairs.
const DU_PAIRS: u64 = 200_000;

/// Functions up to this many instructions are compared with the baseline.
const BASELINE_INSTS: usize = 300;

#[test]
fn every_corpus_function_is_analysed() {
    let dir = corpus_dir();
    let present: Vec<&str> = MODULES.iter().copied().filter(|m| dir.join(m).is_file()).collect();
    if present.is_empty() {
        eprintln!("SKIPPED: no corpus in {} (run scripts/fetch-corpus)", dir.display());
        return;
    }
    let mut ctx = MemDep::new();
    let mut plain = MemDep::with_options(Options { symbolic: false, ..Options::default() });
    for name in present {
        let bytes = std::fs::read(dir.join(name)).expect("readable module");
        let imported = wasm_import::import(&bytes, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = &imported.module;
        let summaries = Summaries::of(module);
        let mut total = EdgeCounts::default();
        let (mut functions, mut compared, mut du_checked) = (0, 0, 0);
        for (_, f) in module.functions() {
            let deps = ctx
                .compute_function(module, f, Some(&summaries))
                .unwrap_or_else(|e| panic!("{name}: @{}: {e}", f.name()));
            let c = deps.counts();
            for (t, x) in [
                (&mut total.uses, c.uses),
                (&mut total.defs, c.defs),
                (&mut total.pairs, c.pairs),
                (&mut total.distinct_sets, c.distinct_sets),
                (&mut total.grouped, c.grouped),
                (&mut total.ranges, c.ranges),
                (&mut total.output_pairs, c.output_pairs),
                (&mut total.anti_pairs, c.anti_pairs),
            ] {
                *t += x;
            }
            functions += 1;
            if c.pairs <= DU_PAIRS {
                assert_eq!(memdep::fuzzing::du_mismatch(&deps), None, "{name}: @{}", f.name());
                du_checked += 1;
            }
            if f.num_insts() <= BASELINE_INSTS {
                let code = KeelCode::new(module, f, Some(&summaries));
                let cfg = f.cfg();
                let ours = plain.compute(&cfg, &code).unwrap();
                assert!(
                    ours == memdep::naive(&cfg, &code).unwrap(),
                    "{name}: @{}: differs from the baseline",
                    f.name()
                );
                compared += 1;
            }
        }
        eprintln!(
            "{name}: {functions} functions ({compared} compared with the baseline, {du_checked} DU sides checked); {} uses, {} defs; flow pairs {}, grouped {}, ranges {} ({} distinct sets); output pairs {}, anti pairs {}",
            total.uses,
            total.defs,
            total.pairs,
            total.grouped,
            total.ranges,
            total.distinct_sets,
            total.output_pairs,
            total.anti_pairs
        );
        assert!(functions > 100 && total.uses > 1000);
    }
}
