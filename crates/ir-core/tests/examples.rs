//! Every bundled example (`docs/examples/*.kir`) parses, verifies, is in
//! canonical form (comments included: printing with its comments gives the
//! file back byte for byte), and satisfies parse→print→parse identity.

mod common;

use common::equal::module_diff;
use common::examples;
use ir_core::text::{Comments, parse, print_module, print_module_with_comments};
use ir_core::{VerifyOptions, verify_module};
use std::path::PathBuf;

/// The text without comments and blank lines, as the printer writes it.
fn strip(text: &str) -> String {
    text.lines()
        .map(|l| l.split(';').next().unwrap_or("").trim_end())
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn examples_verify_and_round_trip() {
    for (path, text) in examples() {
        let name = path.display();
        let (m, smap) = parse(&text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        verify_module(&m, &VerifyOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print_module(&m);
        assert_eq!(strip(&printed), strip(&text), "{name} is not written in canonical form");
        let with_comments = print_module_with_comments(&m, &Comments::collect(&text, &m, &smap));
        assert_eq!(with_comments, text, "{name}: `keel fmt` would change it");
        let (m2, _) = parse(&printed).unwrap_or_else(|d| panic!("{name}: reparse: {d:?}"));
        assert_eq!(module_diff(&m, &m2), None, "{name}");
        assert_eq!(print_module(&m2), printed, "{name}");
    }
}

#[test]
fn du_example_has_the_documents_statements() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/du_chains.kir");
    let text = std::fs::read_to_string(path).expect("readable");
    let (m, _) = parse(&text).expect("parses");
    let f = m.function(m.function_by_name("du_example").expect("defined")).expect("exists");
    let blocks: Vec<_> = f.blocks().map(|b| b.to_string()).collect();
    assert_eq!(blocks, ["bb0", "bb1", "bb2", "bb3", "bb4", "bb5", "bb6"]);
    // Edges as in the digest: entry→bb1, bb1→bb2, bb2→bb3, bb2→bb4, bb3→bb4,
    // bb4→bb5, bb5→bb2, bb5→bb6.
    let mut edges = Vec::new();
    for b in f.blocks() {
        for s in f.block_successors(b) {
            edges.push(format!("{b}->{s}"));
        }
    }
    assert_eq!(edges, ["bb0->bb1", "bb1->bb2", "bb2->bb3", "bb2->bb4", "bb3->bb4", "bb4->bb5", "bb5->bb2", "bb5->bb6"]);
    // s7 and s9 are guarded by %p and define %x without killing it.
    let guarded: Vec<String> = f
        .blocks()
        .flat_map(|b| f.block_insts(b))
        .filter_map(|i| f.guard(i).map(|g| format!("{}:{}", f.var_name(g.var), f.var_name(f.results(i)[0]))))
        .collect();
    assert_eq!(guarded, ["p:x", "p:x"]);
}
