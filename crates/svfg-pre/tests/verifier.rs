//! The SVFG verifier can fail: bugs planted in a correct semi-SVFG (a
//! missing phi, a spurious phi, a lost ε, an operand that skips the nearest
//! definition, a ζ where a definition is available, a wrong dn) are each
//! reported, naming the condition they break.

use ir_core::{Function, Module, text};
use svfg_pre::fuzzing::to_ssa;
use svfg_pre::{KeelValueNumbers as ValueNumbers, PhiError, Source, Svfg, SvfgError, build_svfg, verify_svfg};

/// `a + b` on one side of a join and after it; `a * b` in a loop; `i + b`
/// on one side of a diamond in the loop and after it (its dn is the loop
/// header, whose frontier holds an ε).
const SRC: &str = "func @f(%a: i32, %b: i32, %c: i32) -> i32 {
    var %x: i32
    var %y: i32
    var %i: i32
    var %z: i32
    var %w: i32
    var %p: i1
bb0:
    %p = setp.slt %c, 0
    br %p, bb1, bb2
bb1:
    %x = add %a, %b
    jump bb3
bb2:
    jump bb3
bb3:
    %y = add %a, %b
    %i = const 0
    jump bb4
bb4:
    %x = mul %a, %b
    %i = add %i, 1
    %p = setp.slt %i, %c
    br %p, bb6, bb7
bb6:
    %z = add %i, %b
    jump bb8
bb7:
    jump bb8
bb8:
    %w = add %i, %b
    br %p, bb4, bb5
bb5:
    %y = add %y, %x
    ret %y
}
";

fn built() -> (Module, Svfg, ValueNumbers) {
    let (m, _) = text::parse(SRC).unwrap();
    let m = to_ssa(&m).unwrap();
    let f = m.function_by_name("f").unwrap();
    let (svfg, vns) = build_svfg(m.function(f).unwrap(), None).unwrap();
    (m, svfg, vns)
}

fn func(m: &Module) -> &Function {
    m.function(m.function_by_name("f").unwrap()).unwrap()
}

/// The verifier's error for a broken `svfg`, whose message names
/// `condition`.
fn fails(m: &Module, vns: &ValueNumbers, svfg: &Svfg, condition: &str) -> SvfgError {
    let e = verify_svfg(func(m), vns, svfg).expect_err("a planted bug must be caught");
    assert!(e.to_string().contains(condition), "expected {condition:?}, got {e}");
    e
}

#[test]
fn the_built_svfg_verifies() {
    let (m, svfg, vns) = built();
    assert!(!svfg.phis.is_empty());
    verify_svfg(func(&m), &vns, &svfg).unwrap();
}

#[test]
fn a_missing_or_spurious_phi_is_caught() {
    let (m, svfg, vns) = built();
    let mut g = svfg.clone();
    let p = g.phis.len() as u32 - 1;
    let node = g.phis[p as usize].node;
    g.phis.pop();
    g.phis_at[node as usize].retain(|j| *j != p);
    let e = fails(&m, &vns, &g, "construction: the phis of");
    assert!(matches!(e, SvfgError::PhiPlacement { ref want, .. } if want.contains(&node)), "{e:?}");
    let mut g = svfg.clone();
    let mut extra = g.phis[0].clone();
    extra.node = 0;
    g.phis.push(extra);
    let e = fails(&m, &vns, &g, "condition 2");
    assert!(matches!(e, SvfgError::Transfer(_)), "{e:?}");
}

#[test]
fn a_lost_epsilon_is_caught() {
    let (m, svfg, vns) = built();
    let mut g = svfg.clone();
    let n = g.eps_at.iter().position(|e| !e.is_empty()).expect("some ε");
    g.eps_at[n].clear();
    let e = fails(&m, &vns, &g, "construction: ε of");
    assert!(matches!(e, SvfgError::EpsilonPlacement { ref want, .. } if want.contains(&(n as u32))), "{e:?}");
}

#[test]
fn a_zeta_where_a_definition_is_available_is_caught() {
    let (m, svfg, vns) = built();
    let mut g = svfg.clone();
    let (i, k) = g
        .phis
        .iter()
        .enumerate()
        .find_map(|(i, p)| p.sources.iter().position(|s| matches!(s, Source::Real(_))).map(|k| (i, k)))
        .expect("an operand from a real computation");
    g.phis[i].sources[k] = Source::Bottom;
    let e = fails(&m, &vns, &g, "condition 3");
    assert!(
        matches!(e, SvfgError::ZetaBelowDefinition { phi, operand, .. } if phi == i as u32 && operand == k),
        "{e:?}"
    );
}

#[test]
fn a_wrong_dn_is_caught() {
    let (m, svfg, vns) = built();
    let mut g = svfg.clone();
    let t = g.phis[0].value.index();
    g.dn[t] = Some(g.phis[0].node);
    let e = fails(&m, &vns, &g, "condition 2");
    assert!(matches!(e, SvfgError::Transfer(PhiError::Misplaced { phi: 0, .. })), "{e:?}");
}
