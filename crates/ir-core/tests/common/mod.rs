//! Shared test helpers: structural comparison of modules, the example
//! loader, and reading a rendered diagnostic's location. (Builder-made
//! modules come from `ir_gen::plan`.)

#![allow(dead_code)]

pub mod equal;

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

/// `(file, line, column)` of a rendered diagnostic's `--> file:line:col`.
#[track_caller]
pub fn location(rendered: &str) -> (String, usize, usize) {
    let arrow = rendered.lines().find_map(|l| l.trim_start().strip_prefix("--> ")).expect("a `-->` line");
    let mut parts = arrow.rsplitn(3, ':');
    let col = parts.next().and_then(|c| c.parse().ok()).expect("a column");
    let line = parts.next().and_then(|l| l.parse().ok()).expect("a line");
    (parts.next().expect("a file").to_string(), line, col)
}

/// The column (from 1) of the first caret in a rendered diagnostic's last
/// line, counted from the gutter's `| ` (for sources shown as written: no
/// tabs, one column per character).
#[track_caller]
pub fn caret_column(rendered: &str) -> usize {
    let last = rendered.lines().last().expect("a caret line");
    let (_, marks) = last.split_once("| ").expect("a gutter");
    marks.find('^').expect("a caret") + 1
}
