//! The ISA reference's examples: every `mlu` code block of
//! `docs/mlu-isa.md` parses, verifies for `mlu370` and round-trips; every
//! bundled kernel in `docs/examples/mlu/` does too.

use mlu_isa::{MachineConfig, text, verify};
use std::path::Path;

fn check(what: &str, src: &str) {
    let (p, _) = text::parse(src).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    verify(&p, &MachineConfig::mlu370()).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let printed = text::print_program(&p);
    assert_eq!(text::parse(&printed).unwrap().0, p, "{what}");
}

#[test]
fn reference_examples_are_valid_programs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/mlu-isa.md")).unwrap();
    let mut blocks = 0;
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```mlu\n") {
        let body = &rest[start + 7..];
        let end = body.find("```").expect("closed block");
        check(&format!("docs/mlu-isa.md block {blocks}"), &body[..end]);
        blocks += 1;
        rest = &body[end..];
    }
    assert!(blocks >= 1);
    let mut kernels = 0;
    for e in std::fs::read_dir(root.join("docs/examples/mlu")).unwrap() {
        let path = e.unwrap().path();
        check(&path.display().to_string(), &std::fs::read_to_string(&path).unwrap());
        kernels += 1;
    }
    assert!(kernels >= 6);
}
