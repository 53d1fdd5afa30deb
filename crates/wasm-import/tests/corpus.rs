//! The acceptance checks on the real WebAssembly corpus (`docs/corpus.md`,
//! fetched by `scripts/fetch-corpus` into `corpus/`, or `KEEL_CORPUS`):
//! every module imports with at least 99% of its functions, every imported
//! function verifies, the printed module parses back to the same text, and
//! both DU-chain methods agree on every function. When the corpus is absent
//! the test says so and passes: CI fetches it when npm is reachable.

use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    std::env::var_os("KEEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus"))
}

/// The modules `scripts/corpus.txt` lists.
fn listed() -> Vec<String> {
    let list = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/corpus.txt"))
        .expect("scripts/corpus.txt");
    list.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|path| path.rsplit('/').next().unwrap_or(path).to_string())
        .collect()
}

#[test]
fn every_corpus_module_imports_verifies_round_trips_and_gets_agreeing_chains() {
    let dir = corpus_dir();
    let modules = listed();
    assert_eq!(modules.len(), 4, "scripts/corpus.txt lists {modules:?}");
    let present: Vec<&String> = modules.iter().filter(|m| dir.join(m).is_file()).collect();
    if present.is_empty() {
        eprintln!("SKIPPED: no corpus in {} (run scripts/fetch-corpus)", dir.display());
        return;
    }
    for name in present {
        let bytes = std::fs::read(dir.join(name)).expect("readable module");
        let imported = wasm_import::import(&bytes, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = &imported.counts;
        assert!(imported.rate() >= 0.99, "{name}: only {} of {} functions imported", c.imported, c.functions);
        if let Err(e) = ir_core::verify_module(&imported.module, &Default::default()) {
            panic!("{name}: the imported module does not verify: {e}");
        }
        let text = ir_core::text::print_module(&imported.module);
        let (again, _) = ir_core::text::parse(&text).unwrap_or_else(|d| panic!("{name}: does not parse back: {d:?}"));
        assert!(ir_core::text::print_module(&again) == text, "{name}: the text does not round-trip");
        for (_, f) in imported.module.functions() {
            let cfg = f.cfg();
            let (ssa, it) =
                (defuse::via_ssa(&cfg, f).expect("valid input"), defuse::iterative(&cfg, f).expect("valid input"));
            assert!(ssa == it, "{name}: @{}: the methods disagree on {} uses", f.name(), ssa.differences(&it).len());
        }
        eprintln!(
            "{name}: {} of {} functions imported, verified, round-tripped, chains agree",
            c.imported, c.functions
        );
    }
}
