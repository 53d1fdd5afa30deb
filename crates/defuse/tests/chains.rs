//! DU/UD chains: the document's table 3, the edge cases the methods must
//! agree on, and `via_ssa == iterative == oracle` on generated programs.

use defuse::{Chains, Def, UseId, fuzzing::check_function};
use ir_core::{Function, Inst, Module, UseSite, Var, text};
use ir_gen::{GenConfig, arb_module};
use proptest::prelude::*;

/// Each method on a Keel function and its CFG.
fn via_ssa(f: &Function) -> Chains {
    defuse::via_ssa(&f.cfg(), f).expect("a parsed function is valid input")
}

fn iterative(f: &Function) -> Chains {
    defuse::iterative(&f.cfg(), f).expect("a parsed function is valid input")
}

fn oracle(f: &Function) -> Chains {
    defuse::oracle(&f.cfg(), f).expect("a parsed function is valid input")
}

/// The use id of `site` of `inst`.
fn use_id(f: &Function, c: &Chains, inst: Inst, site: UseSite) -> Option<UseId> {
    c.sites().use_id(inst.as_u32(), f.use_number(inst, site)?)
}

fn parse(src: &str) -> Module {
    text::parse(src).unwrap_or_else(|d| panic!("{d:?}")).0
}

fn only(m: &Module) -> &Function {
    m.functions().next().expect("a function").1
}

/// The instruction whose printed text is `text`.
fn inst(m: &Module, f: &Function, text: &str) -> Inst {
    f.blocks()
        .flat_map(|b| f.block_insts(b))
        .find(|&i| ir_core::text::DisplayInst { module: m, func: f, inst: i }.to_string() == text)
        .unwrap_or_else(|| panic!("no `{text}`"))
}

/// The instructions defining each use of `inst` (in use order), as texts.
fn ud(m: &Module, f: &Function, c: &Chains, inst: Inst) -> Vec<(String, Vec<String>)> {
    let s = c.sites();
    s.uses_of_inst(inst.as_u32())
        .map(|u| {
            let defs = c
                .defs_of(u)
                .iter()
                .map(|&d| match s.def(d).expect("a definition of these sites") {
                    Def::Param(i) => format!("param{i}"),
                    Def::Result { inst, .. } => {
                        ir_core::text::DisplayInst { module: m, func: f, inst: Inst::from_u32(inst) }.to_string()
                    }
                })
                .collect();
            (f.var_name(Var::from_u32(s.use_var(u).expect("a use of these sites"))).to_string(), defs)
        })
        .collect()
}

#[test]
fn the_documents_table_3() {
    let src =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir")).unwrap();
    let m = parse(&src);
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let c = via_ssa(f);
    assert_eq!(c, iterative(f));
    assert_eq!(c, oracle(f));
    // The document's statements s1..s10 (s6, s8 are SSA's phis).
    let s = [
        ("s1", "%a = const 3"),
        ("s2", "%b = const 4"),
        ("s3", "%c = const 5"),
        ("s4", "%x = add %a, %c"),
        ("s5", "%p = setp.ne %q, 0"),
        ("s7", "@%p %x = add %a, %b"),
        ("s9", "@%p %x = sub %a, %b"),
        ("s10", "%y = copy %x"),
    ];
    let id = |name: &str| inst(&m, f, s.iter().find(|r| r.0 == name).unwrap().1);
    let name_of = |i: Inst| s.iter().find(|r| inst(&m, f, r.1) == i).map(|r| r.0);
    // DU rows, restricted to uses in the document's statements (our program
    // also returns y and counts loop iterations, outside its rows).
    let du = |row: &str| -> Vec<&str> {
        let sites = c.sites();
        let mut v: Vec<&str> = sites
            .defs_of_inst(id(row).as_u32())
            .flat_map(|d| c.uses_of(d).iter().filter_map(|&u| name_of(Inst::from_u32(sites.use_at(u)?.inst))))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert_eq!(du("s1"), ["s4", "s7", "s9"]);
    assert_eq!(du("s2"), ["s7", "s9"]);
    assert_eq!(du("s3"), ["s4"]);
    assert_eq!(du("s5"), ["s7", "s9"], "p is used as the predicate");
    assert_eq!(du("s4"), ["s10"]);
    assert_eq!(du("s7"), ["s10"]);
    assert_eq!(du("s9"), ["s10"]);
    assert_eq!(du("s10"), [] as [&str; 0]);
    // UD of x at s10 = {s4, s7, s9}.
    let x_at_s10 = use_id(f, &c, id("s10"), UseSite::Operand(0)).unwrap();
    let mut defs: Vec<&str> = c
        .defs_of(x_at_s10)
        .iter()
        .map(|&d| match c.sites().def(d).unwrap() {
            Def::Result { inst, .. } => name_of(Inst::from_u32(inst)).unwrap(),
            Def::Param(_) => "param",
        })
        .collect();
    defs.sort_unstable();
    assert_eq!(defs, ["s4", "s7", "s9"]);
    // The predicate's own use by the guard is a use (UseSite::Guard).
    let g = use_id(f, &c, id("s7"), UseSite::Guard).unwrap();
    assert_eq!(c.defs_of(g).len(), 1);
}

#[test]
fn predication_ignored_would_give_s9_alone() {
    // The same program without guards: s9 kills, so only it reaches s10.
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/du_chains.kir"))
        .unwrap()
        .replace("@%p ", "");
    let m = parse(&src);
    let f = m.function(m.function_by_name("du_example").unwrap()).unwrap();
    let c = via_ssa(f);
    assert_eq!(c, iterative(f));
    let s10 = inst(&m, f, "%y = copy %x");
    assert_eq!(ud(&m, f, &c, s10), [("x".to_string(), vec!["%x = sub %a, %b".to_string()])]);
}

#[test]
fn edge_cases() {
    // Params, a use no definition reaches on one path, a guarded use and
    // guard, an input phi, and an unreachable block.
    let src = "func @f(%a: i32, %c: i1) -> i32 {\n    var %x: i32, %y: i32, %z: i32\nbb0:\n    br %c, bb1, bb2\nbb1:\n    %x = const 1\n    @%c %y = add %a, %x\n    jump bb3\nbb2:\n    %z = const 2\n    jump bb3\nbb3:\n    %y = phi(bb1: %x, bb2: %z)\n    %z = add %y, %x\n    ret %z\nbb4:\n    %x = const 9\n    %y = add %x, %a\n    jump bb3\n}\n";
    let m = parse(src);
    let f = only(&m);
    let c = via_ssa(f);
    assert_eq!(c, iterative(f));
    assert_eq!(c, oracle(f));
    let guarded = inst(&m, f, "@%c %y = add %a, %x");
    assert_eq!(
        ud(&m, f, &c, guarded),
        [
            ("a".into(), vec!["param0".into()]),
            ("x".into(), vec!["%x = const 1".into()]),
            ("c".into(), vec!["param1".into()])
        ]
    );
    // x after the join: defined on one path only (bb1); bb4 is unreachable.
    let after = inst(&m, f, "%z = add %y, %x");
    assert_eq!(
        ud(&m, f, &c, after),
        [("y".into(), vec!["%y = phi(bb1: %x, bb2: %z)".into()]), ("x".into(), vec!["%x = const 1".into()])]
    );
    // The input phi's operands: each from its own predecessor.
    let phi = inst(&m, f, "%y = phi(bb1: %x, bb2: %z)");
    assert_eq!(
        ud(&m, f, &c, phi),
        [("x".into(), vec!["%x = const 1".into()]), ("z".into(), vec!["%z = const 2".into()])]
    );
    // Unreachable code: no chains either way.
    let dead = inst(&m, f, "%y = add %x, %a");
    assert!(ud(&m, f, &c, dead).iter().all(|(_, d)| d.is_empty()));
    let dead_def = c.sites().def_id(inst(&m, f, "%x = const 9").as_u32(), 0).unwrap();
    assert!(c.uses_of(dead_def).is_empty());
}

#[test]
fn stale_chains_are_caught() {
    let src = "func @f(%a: i32) -> i32 {\nbb0:\n    ret %a\n}\n";
    let mut m = parse(src);
    let id = m.function_by_name("f").unwrap();
    let c = via_ssa(m.function(id).unwrap());
    c.check(m.function(id).unwrap()).unwrap();
    let f = m.function_mut(id).unwrap();
    let r = f.blocks().flat_map(|b| f.block_insts(b)).next().unwrap();
    let one = f.operand(ir_core::Arg::Imm(ir_core::Imm::from(1i32)));
    f.set_operand(r, 0, one);
    assert!(c.check(m.function(id).unwrap()).is_err());
}

fn config(blocks: usize) -> GenConfig {
    GenConfig {
        blocks,
        vars: 8,
        predication: 0.35,
        memory: 0.15,
        irreducible: 0.3,
        unreachable: 0.25,
        phis: 0.3,
        functions: 2,
        ..GenConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn all_three_methods_agree(g in arb_module(config(32))) {
        for (_, f) in g.module.functions() {
            check_function(f);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ssa_and_iterative_agree_on_larger_programs(g in arb_module(GenConfig { vars: 40, defs_per_var: 6.0, ..config(400) })) {
        for (_, f) in g.module.functions() {
            prop_assert_eq!(via_ssa(f), iterative(f));
        }
    }
}
