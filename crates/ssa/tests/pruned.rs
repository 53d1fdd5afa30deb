//! Pruned placement against its definition, and the phi budget's fallback.
//!
//! - Pruned placement (computed per var over its live range) puts a phi of
//!   `v` at `b` exactly when `b ∈ IDF(defs(v))`, the IDF computed naively
//!   from the dominance frontier sets to a fixpoint, and `v` is live on
//!   entry to `b` by `cfg_dom::Liveness` (the bit-vector dataflow, itself
//!   checked against a path-based oracle in `cfg-dom`).
//! - A placement that passes its budget falls back to pruned placement, and
//!   the def-use chains (the real definitions reaching each use, through
//!   phis and the versions guarded definitions may leave) are the same as
//!   with the full semi-pruned or minimal placement.
//! - The deep nest of issue 30: semi-pruned placement falls back within
//!   the default budget, and pruned placement places no phi.

use cfg_dom::{DomTree, DominanceFrontiers, Graph, Input, Liveness, Node, VarId};
use ir_core::{Function, Module, text};
use ir_gen::fuzzing::analysis_config;
use ir_gen::{Generated, arb_module};
use proptest::prelude::*;
use ssa::{NO_VERSION, PhiPlacement, Policy, RenameSink, Renamer, VarFacts, Version, VersionDef};
use std::collections::{BTreeMap, BTreeSet};

/// The IDF of `defs` by iterating DF to a fixpoint.
fn naive_idf(df: &DominanceFrontiers, dt: &DomTree, defs: &[Node]) -> BTreeSet<Node> {
    let mut idf = BTreeSet::new();
    let mut work: Vec<Node> = defs.iter().copied().filter(|&d| dt.is_reachable(d)).collect();
    let mut seen: BTreeSet<Node> = work.iter().copied().collect();
    while let Some(x) = work.pop() {
        for &y in df.frontier(x) {
            idf.insert(y);
            if seen.insert(y) {
                work.push(y);
            }
        }
    }
    idf
}

fn check_pruned_definition(f: &Function) -> Result<(), TestCaseError> {
    let cfg = f.cfg();
    let mut scratch = cfg_dom::InputBuffers::default();
    let input = Input::new(&cfg, f, &mut scratch).unwrap();
    let dt = DomTree::of(&cfg);
    let facts = VarFacts::of(&input, &dt).unwrap();
    let df = DominanceFrontiers::of(&cfg, &dt).unwrap();
    let live = Liveness::of(&cfg, f).unwrap();
    let pruned = PhiPlacement::of(&input, &dt, &facts, Policy::Pruned, None).unwrap();
    // With a budget of 0, the per-var walks (`pruned.rs`) rather than the
    // minimal phis filtered by a bit-matrix liveness: the same phis.
    let mut sparse = PhiPlacement::new();
    sparse.set_budget(Some(0));
    sparse.compute(&input, &dt, &facts, Policy::Pruned, None).unwrap();
    prop_assert!(sparse.fallback().is_none());
    for v in 0..input.num_vars() as VarId {
        let idf = if facts.is_defined(v) { naive_idf(&df, &dt, facts.def_blocks(v)) } else { BTreeSet::new() };
        for b in 0..cfg.num_nodes() as Node {
            let want = idf.contains(&b) && live.is_live_in(b, v);
            let have = pruned.phis(b).contains(&v);
            prop_assert_eq!(have, want, "var {} at block {}", v, b);
            prop_assert_eq!(sparse.phis(b).contains(&v), want, "sparse: var {} at block {}", v, b);
        }
    }
    // Reusing one placement (and its stamped marks) across functions and
    // through `place` (no dominator tree given) gives the same phis.
    let mut idf = cfg_dom::Idf::of(&cfg, &dt).unwrap();
    let mut again = PhiPlacement::new();
    again.set_budget(Some(0));
    for _ in 0..2 {
        again.place(&input, &mut idf, &facts, Policy::Pruned, None).unwrap();
        for b in 0..cfg.num_nodes() as Node {
            prop_assert_eq!(again.phis(b), pruned.phis(b));
        }
    }
    Ok(())
}

/// The walk's findings, for def-use chains.
#[derive(Default)]
struct Walk {
    defs: BTreeMap<Version, (VersionDef, Version)>,
    uses: Vec<(u32, u32, VarId, Version)>,
    phi_ops: BTreeMap<Version, Vec<Version>>,
}

impl RenameSink for Walk {
    fn define(&mut self, version: Version, _var: VarId, def: VersionDef, prev: Version) {
        self.defs.insert(version, (def, prev));
    }
    fn use_site(&mut self, inst: u32, k: u32, var: VarId, version: Version) {
        self.uses.push((inst, k, var, version));
    }
    fn phi_operand(&mut self, phi: Version, _pred: Node, version: Version) {
        self.phi_ops.entry(phi).or_default().push(version);
    }
}

/// A real definition: a param, an instruction's result, or none (undef).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Real {
    Undef,
    Param(u32),
    Result(u32, u32),
}

impl Walk {
    /// The real definitions version `v` may hold: through phis and the
    /// versions guarded results may leave in place.
    fn reaching(&self, v: Version) -> BTreeSet<Real> {
        let mut out = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut work = vec![v];
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            if v == NO_VERSION {
                out.insert(Real::Undef);
                continue;
            }
            match self.defs[&v] {
                (VersionDef::Param(i), _) => {
                    out.insert(Real::Param(i));
                }
                (VersionDef::Result { inst, index, guarded }, prev) => {
                    out.insert(Real::Result(inst, index));
                    if guarded {
                        work.push(prev);
                    }
                }
                (VersionDef::Phi { .. }, _) => work.extend(self.phi_ops.get(&v).into_iter().flatten().copied()),
            }
        }
        out
    }

    /// Per use, in walk order, the real definitions reaching it.
    fn chains(&self) -> Vec<((u32, u32, VarId), BTreeSet<Real>)> {
        let mut c: Vec<_> = self.uses.iter().map(|&(i, k, var, v)| ((i, k, var), self.reaching(v))).collect();
        c.sort();
        c
    }
}

/// Places under `policy` with `budget` and renames.
fn walk(f: &Function, policy: Policy, budget: Option<u64>) -> (Walk, Option<ssa::Fallback>, usize) {
    let cfg = f.cfg();
    let mut scratch = cfg_dom::InputBuffers::default();
    let input = Input::new(&cfg, f, &mut scratch).unwrap();
    let dt = DomTree::of(&cfg);
    let facts = VarFacts::of(&input, &dt).unwrap();
    let mut p = PhiPlacement::new();
    p.set_budget(budget);
    p.compute(&input, &dt, &facts, policy, None).unwrap();
    let mut w = Walk::default();
    Renamer::new().run(&input, &dt, &p, &mut w).unwrap();
    (w, p.fallback(), p.len())
}

fn check_fallback_keeps_chains(f: &Function) -> Result<(), TestCaseError> {
    let (pruned, none, pruned_len) = walk(f, Policy::Pruned, Some(0));
    prop_assert!(none.is_none(), "pruned placement has no budget");
    for policy in [Policy::SemiPruned, Policy::Minimal] {
        let (full, fb, len) = walk(f, policy, Some(u64::MAX));
        prop_assert!(fb.is_none());
        prop_assert_eq!(full.chains(), pruned.chains(), "{:?}", policy);
        // Any budget the full placement passes falls back to pruned.
        if len > 0 {
            let (fell, fb, fell_len) = walk(f, policy, Some(0));
            let fb = fb.expect("a budget of 0 operands is passed by the first phi");
            prop_assert_eq!((fb.policy, fb.budget), (policy, 0));
            prop_assert!(fb.operands > 0);
            prop_assert_eq!(fell_len, pruned_len);
            prop_assert_eq!(fell.chains(), full.chains());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pruned_is_idf_intersected_with_liveness(g in arb_module(analysis_config())) {
        let g: Generated = g;
        for (_, f) in g.module.functions() {
            check_pruned_definition(f)?;
        }
    }

    #[test]
    fn falling_back_to_pruned_keeps_every_def_use_chain(g in arb_module(analysis_config())) {
        for (_, f) in g.module.functions() {
            check_fallback_keeps_chains(f)?;
        }
    }
}

#[test]
fn the_deep_nest_falls_back_within_the_default_budget() {
    let depth = 2000;
    let m: Module = text::parse(&ir_gen::shapes::nest_of_live_vars(depth)).unwrap_or_else(|d| panic!("{d:?}")).0;
    let f = m.function(m.function_by_name("nest").unwrap()).unwrap();
    // Semi-pruned: about depth²/2 phis of three operands, far over the
    // default budget of this 4,000-block function.
    let (semi, fb, len) = walk(f, Policy::SemiPruned, None);
    let fb = fb.expect("semi-pruned placement passes the default budget");
    assert_eq!(fb.policy, Policy::SemiPruned);
    assert!(fb.operands > fb.budget);
    // Pruned: every %v is dead at every header; %s needs none either (every
    // path to its use passes latch 1's definition), so no phi at all.
    let (pruned, none, pruned_len) = walk(f, Policy::Pruned, None);
    assert!(none.is_none());
    assert_eq!((len, pruned_len), (0, 0));
    assert_eq!(semi.chains(), pruned.chains());
    // A small nest stays within the budget: no fallback, the full phis.
    let m: Module = text::parse(&ir_gen::shapes::nest_of_live_vars(20)).unwrap_or_else(|d| panic!("{d:?}")).0;
    let f = m.function(m.function_by_name("nest").unwrap()).unwrap();
    let (_, fb, len) = walk(f, Policy::SemiPruned, None);
    assert!(fb.is_none());
    // %v<i> at headers 1..=i, %s at every header.
    assert_eq!(len, 20 * 21 / 2 + 20);
}

#[test]
fn construct_reports_the_fallback() {
    let mut m: Module = text::parse(&ir_gen::shapes::nest_of_live_vars(50)).unwrap_or_else(|d| panic!("{d:?}")).0;
    let id = m.function_by_name("nest").unwrap();
    let opts = ssa::Options { phi_budget: Some(100), ..ssa::Options::default() };
    let stats = ssa::construct(m.function_mut(id).unwrap(), &opts).unwrap();
    let fb = stats.fallback.expect("50·51/2 phis pass 100 operands");
    assert_eq!((fb.policy, fb.budget), (Policy::SemiPruned, 100));
    assert_eq!(stats.phis_placed, 0);
    ssa::verify(&m, id).unwrap();
    let mut m2: Module = text::parse(&ir_gen::shapes::nest_of_live_vars(50)).unwrap_or_else(|d| panic!("{d:?}")).0;
    let stats = ssa::construct(m2.function_mut(id).unwrap(), &ssa::Options::default()).unwrap();
    assert!(stats.fallback.is_none());
    assert_eq!(stats.phis_placed, 50 * 51 / 2 + 50);
    // Clean-up removes every one of them: the same function either way.
    assert_eq!(text::print_module(&m2).lines().filter(|l| l.contains("phi(")).count(), 0);
}

/// Vars with one killing definition block, the case pruned placement
/// decides without walking: live only below the definition (no phi), or
/// read in the defining block before the definition, around a loop (a
/// phi there), or read by an input phi.
#[test]
fn one_definition_block_cases_match_the_definition() {
    let src = "func @f(%c: i1, %n: i32) -> i32 {
    var %x: i32, %y: i32, %z: i32, %w: i32
bb0:
    jump bb1
bb1:
    %y = add %x, 1
    %x = add %n, 1
    %z = add %n, 2
    br %c, bb2, bb3
bb2:
    %w = add %z, %y
    jump bb1
bb3:
    %w = phi(bb1: %z)
    ret %w
}
";
    let m: Module = text::parse(src).unwrap_or_else(|d| panic!("{d:?}")).0;
    let f = m.function(m.function_by_name("f").unwrap()).unwrap();
    check_pruned_definition(f).unwrap();
    let cfg = f.cfg();
    let mut scratch = cfg_dom::InputBuffers::default();
    let input = Input::new(&cfg, f, &mut scratch).unwrap();
    let dt = DomTree::of(&cfg);
    let facts = VarFacts::of(&input, &dt).unwrap();
    let p = PhiPlacement::of(&input, &dt, &facts, Policy::Pruned, None).unwrap();
    // %x is read at bb1 before its only definition there, around the loop:
    // a phi at bb1; %z (read below bb1 and by bb3's phi) and %y need none.
    let x = f.var_by_name("x").unwrap().as_u32();
    assert_eq!(p.phis(1), [x]);
    assert_eq!(p.len(), 1);
}
