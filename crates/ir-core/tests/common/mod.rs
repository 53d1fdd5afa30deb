//! Shared test helpers: structural comparison of modules and a generator of
//! builder-made functions.

#![allow(dead_code)]

pub mod equal;
pub mod gen_fn;

use std::path::PathBuf;

/// Every `docs/examples/*.kir`, sorted by path, with its text.
pub fn examples() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples");
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("example is readable UTF-8");
            (p, text)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 8, "expected the digest's examples and the kernels in {}", dir.display());
    out
}
