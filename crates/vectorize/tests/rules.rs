//! The rule DSL: the default set covers every primitive, parses, and each
//! check made when a set is built is an error with a line, a column and a
//! caret, never a panic.

use vectorize::text::parse;
use vectorize::{DEFAULT_RULES, Prim, PrimKind, RuleSet, Vectorizer};

fn error(text: &str) -> String {
    match RuleSet::parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.iter().map(|d| d.render("r.rules", text)).collect(),
    }
}

#[test]
fn the_default_rules_cover_every_primitive_once() {
    let set = RuleSet::parse(DEFAULT_RULES).unwrap();
    assert!(set.missing().is_empty());
    let ruled = Prim::all().iter().filter(|p| p.kind() == PrimKind::Ruled).count();
    assert_eq!(set.rules().count(), ruled);
    assert!(set.num_opts() >= 10);
    // One `rule` line per primitive in the file.
    assert_eq!(DEFAULT_RULES.lines().filter(|l| l.starts_with("rule ")).count(), ruled);
}

#[test]
fn the_design_note_lists_the_default_rules_verbatim() {
    let note = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/design/vectorize.md"))
        .expect("docs/design/vectorize.md");
    let from = note.find("**The full default rule set**").expect("the default rule set section");
    let start = from + note[from..].find("```text\n").expect("a text block") + "```text\n".len();
    let end = start + note[start..].find("```\n").expect("the block's end");
    assert!(note[start..end] == *DEFAULT_RULES, "docs/design/vectorize.md differs from src/rules/default.rules");
}

#[test]
fn build_time_checks() {
    let cases: &[(&str, &str, &str)] = &[
        ("rule frob(a) => frob^(a)\n", "unknown primitive `frob`", "r.rules:1:6"),
        ("rule const() => const()\n", "takes no rule", "r.rules:1:6"),
        ("rule fadd(a, b) => fadd^(a, b)\nrule fadd(a, b) => fadd^(b, a)\n", "a second rule for `fadd`", "r.rules:2:6"),
        ("rule fadd(a) => fadd^(a)\n", "takes 2 argument(s)", "r.rules:1:6"),
        ("rule fadd(a, a) => fadd^(a, a)\n", "the variable `a` appears twice", "r.rules:1:14"),
        ("rule fadd(a, b) => fadd^(a, c)\n", "`c` is not a variable of this rule", "r.rules:1:29"),
        ("rule fadd(a, b) => fadd(a, b)\n", "write `fadd^`", "r.rules:1:20"),
        ("rule fadd(a, b) => map^(a, b)\n", "cannot appear in a term", "r.rules:1:20"),
        ("rule sext(a) => zext^(a)\n", "a conversion's target type is known only in its own rule", "r.rules:1:17"),
        ("rule map(f, xs..) => call(f, xs..)\n", "the strategy `call` serves `apply`, not `map`", "r.rules:1:22"),
        ("rule map(f, xs..) => flatten(xs..)\n", "must take exactly the head's variables", "r.rules:1:22"),
        ("rule map(f) => flatten(f)\n", "is variadic", "r.rules:1:6"),
        ("rule if(c, t, xs..) => branch(c, t, xs..)\n", "needs 3 variable(s)", "r.rules:1:6"),
        ("rule fneg(a) => fneg^(a, a)\n", "takes", "r.rules:1:17"),
        ("rule fneg(a) => fneg^(x.y)\n", "not a variable", "r.rules:1:23"),
        ("rule fneg(a) => fneg^(a) junk\n", "unexpected text after the rule", "r.rules:1:26"),
        ("opt x => x\n", "a pattern is an application", "r.rules:1:5"),
        ("opt fneg(fneg(x)) => y\n", "`y` is not a variable of this rule", "r.rules:1:22"),
        ("opt map(x) => x\n", "cannot appear in a pattern", "r.rules:1:5"),
        ("frob\n", "expected `rule` or `opt`", "r.rules:1:1"),
        ("rule fneg(a) => fneg^(a) $\n", "unexpected character `$`", "r.rules:1:26"),
    ];
    for (text, message, location) in cases {
        let r = error(text);
        assert!(r.contains(message), "wanted `{message}`:\n{r}");
        assert!(r.contains(location), "wanted {location}:\n{r}");
        assert!(r.contains('^'), "{r}");
    }
}

#[test]
fn user_rules_are_used() {
    // fsub as fadd of a negation: a user's own (correct) rule.
    let text = DEFAULT_RULES.replace("rule fsub(a, b) => fsub^(a, b)", "rule fsub(a, b) => fadd^(a, fneg^(b))");
    let rules = RuleSet::parse(&text).unwrap();
    let (g, _) = parse("func @f(%a: f32, %b: f32) -> f32 {\n    %r: f32 = fsub %a, %b\n    ret %r\n}\n").unwrap();
    let f = g.function("f").unwrap();
    let v = Vectorizer::new(rules).vectorize(&g, f, &[true, false]).unwrap();
    let out = vectorize::text::print_graph(&v.graph);
    assert!(out.contains("fneg %b") && out.contains("fadd.1 %a, *%"), "{out}");
    // Literals take their type from the other operand.
    let text = DEFAULT_RULES.replace("rule neg(a) => neg^(a)", "rule neg(a) => sub^(0, a)");
    let rules = RuleSet::parse(&text).unwrap();
    let (g, _) = parse("func @f(%a: i16) -> i16 {\n    %r: i16 = neg %a\n    ret %r\n}\n").unwrap();
    let f = g.function("f").unwrap();
    let v = Vectorizer::new(rules).vectorize(&g, f, &[true]).unwrap();
    let out = vectorize::text::print_graph(&v.graph);
    assert!(out.contains("i16 = const 0") && out.contains("sub.1 *%"), "{out}");
}

#[test]
fn an_ill_typed_rule_is_an_error_when_applied() {
    let text = DEFAULT_RULES.replace("rule fneg(a) => fneg^(a)", "rule fneg(a) => sitofp^(a)");
    // Allowed when built? No: a conversion of another primitive is refused.
    assert!(RuleSet::parse(&text).is_err());
    let text = DEFAULT_RULES.replace("rule fneg(a) => fneg^(a)", "rule fneg(a) => setp.eq^(a, a)");
    let rules = RuleSet::parse(&text).unwrap();
    let (g, _) = parse("func @f(%a: f32) -> f32 {\n    %r: f32 = fneg %a\n    ret %r\n}\n").unwrap();
    let f = g.function("f").unwrap();
    let e = Vectorizer::new(rules).vectorize(&g, f, &[true]).unwrap_err();
    let vectorize::VectorizeErrorKind::RuleFailed { rule, why } = &e.kind else { panic!("{e:?}") };
    assert_eq!(rule, "rule fneg(a) => setp.eq^(a, a)");
    let wrong_class = vectorize::TypeError::WrongClass {
        prim: vectorize::Prim::Setp(vectorize::IntCC::Eq),
        ty: vectorize::ScalarTy::F32,
    };
    assert_eq!(why, &vectorize::rules::StageError::Type(wrong_class), "{e}");
    assert!(
        e.to_string().ends_with(": the rule `rule fneg(a) => setp.eq^(a, a)` failed: `setp.eq` does not apply to f32"),
        "{e}"
    );
}

#[test]
fn no_panic_on_any_rule_text() {
    let mut rng = vectorize::generate::SplitMix64::new(11);
    let words = [
        "rule", "opt", "fadd", "map", "(", ")", ",", "^", "=>", "a", "b", "xs..", "flatten", "0", "fneg", "select",
        "-1.5", "\n", ";",
    ];
    for _ in 0..20_000 {
        let n = (rng.next_u64() % 16) as usize;
        let text: String =
            (0..n).map(|_| words[(rng.next_u64() % words.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
        let _ = RuleSet::parse(&text);
    }
    // Deeply nested terms are parsed without recursion.
    let deep = format!("rule fneg(a) => {}a{}\n", "fneg^(".repeat(100_000), ")".repeat(100_000));
    assert!(RuleSet::parse(&deep).is_ok());
}
