//! `keel fmt` keeps comments (`text::Comments`): on generated modules with
//! comments inserted at random lines, own-line and trailing, printing with
//! comments keeps every comment, in order, is idempotent, and is the plain
//! canonical print once the comments are removed.

use ir_core::text::{Comments, parse, print_module, print_module_with_comments};
use proptest::prelude::*;

/// Formats `text` keeping its comments.
fn fmt(text: &str) -> String {
    let (m, smap) = parse(text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
    print_module_with_comments(&m, &Comments::collect(text, &m, &smap))
}

/// The comments of `text`, in order, as written from `;` (trailing blanks
/// trimmed). Generated modules have no quoted names, so `;` starts a
/// comment wherever it appears.
fn comments(text: &str) -> Vec<String> {
    text.lines().filter_map(|l| l.find(';').map(|i| l[i..].trim_end().to_string())).collect()
}

/// The text without comments and blank lines.
fn strip(text: &str) -> String {
    text.lines()
        .map(|l| l.split(';').next().unwrap_or("").trim_end())
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l))
        .collect()
}

#[test]
fn every_place_a_comment_can_be() {
    let src = "\n; header\n\n\n; second paragraph\nmem @a: i32[4] dram   ; trailing mem\n; before b\nmem @b: i32[4] dram\n\
               extern @e(i32)    ; ext\n\n; about f\nfunc @f(%x: i32) -> i32 {   ; header trailing\n    ; about v\n    \
               var %v: i32 ; v\nbb0:  ; label\n    ; before inst\n\n    %v = add %x, 1  ; trailing\n    ret %v\n    \
               ; before end\n}  ; end trailing\n; final\n\n\n; really final\n";
    let want = "; header\n\n; second paragraph\nmem @a: i32[4] dram             ; trailing mem\n; before b\n\
                mem @b: i32[4] dram\n\nextern @e(i32)                  ; ext\n\n; about f\n\
                func @f(%x: i32) -> i32 {       ; header trailing\n    ; about v\n    var %v: i32                 ; v\n\
                bb0:                            ; label\n    ; before inst\n\n    %v = add %x, 1              ; trailing\n    \
                ret %v\n    ; before end\n}                               ; end trailing\n; final\n\n; really final\n";
    assert_eq!(fmt(src), want);
    assert_eq!(fmt(want), want);
    // A trailing comment after a line of 31 characters or more keeps two blanks.
    let long =
        "func @f(%a_rather_long_variable_name: i32) -> i32 {\nbb0:\n    ret %a_rather_long_variable_name ; x\n}\n";
    assert_eq!(
        fmt(long),
        "func @f(%a_rather_long_variable_name: i32) -> i32 {\nbb0:\n    ret %a_rather_long_variable_name  ; x\n}\n"
    );
}

#[test]
fn no_comments_prints_as_before() {
    let src = "func @f(%a: i32) -> i32 {\nbb0:\n    ret %a\n}\n";
    let (m, smap) = parse(src).expect("parses");
    let c = Comments::collect(src, &m, &smap);
    assert!(c.is_empty());
    assert_eq!(print_module_with_comments(&m, &c), print_module(&m));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn comments_survive_fmt(seed in 0u64..1_000_000, picks in proptest::collection::vec((0usize..10_000, any::<bool>(), any::<bool>()), 0..12)) {
        let config = ir_gen::GenConfig { blocks: 24, functions: 2, memory: 0.3, ..Default::default() };
        let base = print_module(&ir_gen::generate(&config, seed).module);
        let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
        for (k, (at, trailing, blank)) in picks.iter().enumerate() {
            let i = at % (lines.len() + 1);
            if *trailing && i < lines.len() && !lines[i].trim().is_empty() && !lines[i].contains(';') {
                lines[i] = format!("{} ; note {k}", lines[i]);
            } else {
                lines.insert(i, format!("{}; comment {k}", if *blank { "\n" } else { "  " }));
            }
        }
        let text = lines.join("\n") + "\n";
        let once = fmt(&text);
        prop_assert_eq!(comments(&once), comments(&text), "comments lost or reordered");
        prop_assert_eq!(fmt(&once), once.clone(), "not idempotent");
        prop_assert_eq!(strip(&once), strip(&base));
    }
}
