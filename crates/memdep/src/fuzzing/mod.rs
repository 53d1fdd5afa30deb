//! `memdep`'s oracles as checks (feature `fuzzing`), shared by the fuzz
//! target and the tests:
//!
//! - [`byte_oracle`]: the static, element-granular reaching definitions,
//!   one element at a time (slow, obviously correct). On programs whose
//!   offsets are exact or unknown it gives *exactly* the analysis's
//!   answer, and so does the tuned [`crate::naive`] baseline; with affine
//!   offsets the analysis may only be more precise.
//! - [`check_run`]: the dynamic last-writer oracle. The interpreter reports
//!   every element each instruction reads and writes (`ir_core::interp`'s
//!   observer); per element the oracle keeps the last writer and the
//!   reads since; every observed (reader ← last writer), (writer ← last
//!   writer) and (writer ← reads since) pair, at every level of the call
//!   stack where both happened in one activation of a function, must be a
//!   dependence of that function's result; and when both happened directly
//!   in one activation inside a loop, in different iterations, the loop's
//!   carried answer must allow that distance.
//! - [`check_affine`]: the carried answers of affine accesses against an
//!   exhaustive enumeration of small trip counts.
//! - [`check_module`]: all of them on a module and several argument sets;
//!   [`check_bytes`]: on the module and arguments that fuzz bytes decode to
//!   ([`configs`]), what the `memdep` fuzz target and `tests/fuzz_smoke.rs`
//!   run.
//!
//! [`with_bug`] runs the analysis with a known [`Bug`] planted on this
//! thread, so tests can prove each oracle catches it.

mod dynamic;

pub use crate::planted::Bug;
pub use dynamic::{Analyses, DynamicReport, ExternEffects, ExternFn, check_run};
pub use test_hooks::with_bug;

use crate::overlap::Answer;
use crate::{InputError, KeelCode, MemCode, MemDep, MemDeps, MemQueries, Naive, Offset, Options, Summaries};
use cfg_dom::Graph;
use ir_core::{FuncId, Imm, Module};

/// The generator configurations the oracles run on: exact descriptors;
/// symbolic offsets and tiles; deep loops of tiles. All with predication,
/// calls (module functions and `@ext_touch`), irreducible regions, input
/// phis and unreachable blocks, and several objects in four spaces.
pub fn configs() -> Vec<ir_gen::GenConfig> {
    let base = ir_gen::GenConfig {
        blocks: 30,
        vars: 10,
        memory: 0.5,
        predication: 0.3,
        functions: 2,
        phis: 0.2,
        irreducible: 0.2,
        unreachable: 0.1,
        extern_calls: 0.04,
        max_trips: 4,
        ..ir_gen::GenConfig::default()
    };
    vec![
        ir_gen::GenConfig { exact_memory: true, ..base.clone() },
        ir_gen::GenConfig { symbolic: 0.3, tiles: 0.4, functions: 3, ..base.clone() },
        ir_gen::GenConfig { tiles: 0.6, symbolic: 0.2, max_depth: 4, max_trips: 5, irreducible: 0.1, ..base },
    ]
}

/// `ir_gen::ext_touch` in the shape [`check_run`] takes.
pub fn ext_touch(
    name: &str,
    args: &[Imm],
    memory: &mut ir_core::interp::Memory,
) -> Result<ExternEffects, ir_core::interp::ExternError> {
    let (r, t) = ir_gen::ext_touch(name, args, memory)?;
    Ok((r, t.iter().map(|t| (t.write, t.mem, t.index)).collect()))
}

/// Argument sets per module in [`check_bytes`].
pub const RUNS_PER_MODULE: u64 = 3;

/// Every check on the module `bytes` decode to: the first byte picks one
/// of [`configs`], the rest is the generator's input, and arguments for
/// [`RUNS_PER_MODULE`] runs of `@main` come from a hash of the bytes.
/// Panics on any failure.
pub fn check_bytes(bytes: &[u8]) -> Report {
    let configs = configs();
    let config = &configs[usize::from(bytes.first().copied().unwrap_or(0)) % configs.len()];
    let g = ir_gen::generate_from_bytes(config, bytes.get(1..).unwrap_or(&[]));
    let seed = ir_gen::fuzzing::seed_of(bytes);
    let runs: Vec<Vec<Imm>> =
        (0..RUNS_PER_MODULE).map(|k| ir_gen::fuzzing::arguments(&g, seed.wrapping_add(k))).collect();
    check(&g.module, g.main, &runs, g.fuel, Some(ext_touch))
}

/// Dependences by the element-granular oracle: every site's elements, one
/// at a time, searched backward along every path (see `naive.rs`).
pub fn byte_oracle<G: Graph, C: MemCode>(graph: &G, code: &C) -> Result<MemDeps, InputError> {
    Naive::new().run(graph, code, true)
}

/// Functions with at most this many instructions, in modules with at most
/// [`ORACLE_ELEMENTS`] memory elements in all, are also checked against
/// the byte oracle.
pub const ORACLE_INSTS: usize = 400;

/// See [`ORACLE_INSTS`].
pub const ORACLE_ELEMENTS: u64 = 4096;

/// What [`check_module`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Functions analysed.
    pub functions: u64,
    /// Functions also compared with the byte oracle.
    pub oracle_functions: u64,
    /// Flow edges of the analysis (without symbols), summed.
    pub flow_edges: u64,
    /// The dynamic checks, summed over runs.
    pub dynamic: DynamicReport,
    /// Affine pairs compared with the exhaustive enumeration.
    pub affine_pairs: u64,
    /// Affine pairs whose answer was `May` (not compared).
    pub affine_unknown: u64,
    /// Everything that failed (empty: all passed).
    pub failures: Vec<String>,
}

/// Every check on `module` (see the module doc), running `entry` once per
/// argument set with `fuel`; `externs` handles external calls (and says
/// what they touched).
pub fn check_module(module: &Module, entry: FuncId, runs: &[Vec<Imm>], fuel: u64, externs: Option<ExternFn>) -> Report {
    let mut r = Report::default();
    let summaries = Summaries::of(module);
    let elements: u64 = module.mems().map(|(_, m)| m.len).sum();
    let mut plain = MemDep::with_options(Options { symbolic: false, ..Options::default() });
    let mut full = MemDep::with_options(Options { loop_carried: true, ..Options::default() });
    for (_, f) in module.functions() {
        r.functions += 1;
        let code = KeelCode::new(module, f, Some(&summaries));
        let cfg = f.cfg();
        let name = f.name();
        let (Ok(exact), Ok(sym)) = (plain.compute(&cfg, &code), full.compute(&cfg, &code)) else {
            r.failures.push(format!("@{name}: the analysis rejected a verified function"));
            continue;
        };
        r.flow_edges += exact.counts().pairs;
        match crate::naive(&cfg, &code) {
            Ok(base) if base == exact => {}
            Ok(base) => {
                r.failures.push(differ(name, "the analysis without symbols", &exact, "the naive baseline", &base))
            }
            Err(e) => r.failures.push(format!("@{name}: the baseline rejected the input: {e}")),
        }
        if f.num_insts() <= ORACLE_INSTS && elements <= ORACLE_ELEMENTS {
            r.oracle_functions += 1;
            match byte_oracle(&cfg, &code) {
                Ok(o) if o == exact => {}
                Ok(o) => r.failures.push(differ(name, "the analysis without symbols", &exact, "the byte oracle", &o)),
                Err(e) => r.failures.push(format!("@{name}: the oracle rejected the input: {e}")),
            }
        }
        // Without affine offsets, symbols change nothing: the default
        // analysis is then the one compared with the oracles.
        let affine = f
            .blocks()
            .flat_map(|b| f.block_insts(b))
            .any(|i| code.insts_accesses(i.as_u32()).iter().any(|a| matches!(a.offset, Offset::Affine { .. })));
        if !affine && sym != exact {
            r.failures.push(differ(name, "the analysis", &sym, "the analysis without symbols", &exact));
        }
        for (what, deps) in [("without symbols", &exact), ("with symbols", &sym)] {
            if let Some(e) = du_mismatch(deps) {
                r.failures.push(format!("@{name}: {what}: {e}"));
            }
        }
        // Carried definitions are reaching definitions.
        for &(h, u, s) in &sym.carried {
            if let Some(d) = sym.sets.get(s).iter().flat_map(|&(a, b)| a..b).find(|&d| !sym.reaches(d, u)) {
                r.failures
                    .push(format!("@{name}: definition {d} is carried to use {u} around bb{h} but does not reach it"));
                break;
            }
        }
        // Symbols only ever remove dependences.
        for u in 0..exact.sites().num_uses() as u32 {
            if let Some(d) = sym.defs_of_iter(u).find(|&d| !exact.reaches(d, u)) {
                r.failures.push(format!("@{name}: with symbols, use {u} gains definition {d}"));
                break;
            }
        }
        match MemQueries::new(&cfg, &code) {
            Ok(q) => check_affine(&q, name, &mut r),
            Err(e) => r.failures.push(format!("@{name}: queries rejected the input: {e}")),
        }
    }
    let analyses = Analyses::of(module, Some(&summaries));
    for args in runs {
        let d = check_run(module, &analyses, entry, args, fuel, externs);
        r.failures.extend(d.failures.iter().cloned());
        r.dynamic.add(&d);
    }
    r
}

impl Report {
    /// Adds another report's counts (and failures).
    pub fn add(&mut self, r: &Report) {
        self.functions += r.functions;
        self.oracle_functions += r.oracle_functions;
        self.flow_edges += r.flow_edges;
        self.dynamic.add(&r.dynamic);
        self.affine_pairs += r.affine_pairs;
        self.affine_unknown += r.affine_unknown;
        self.failures.extend(r.failures.iter().cloned());
    }
}

/// Panics with the failures of [`check_module`], if any.
pub fn check(module: &Module, entry: FuncId, runs: &[Vec<Imm>], fuel: u64, externs: Option<ExternFn>) -> Report {
    let r = check_module(module, entry, runs, fuel, externs);
    if let Some(first) = r.failures.first() {
        panic!("{} failures; the first: {first}\n{}", r.failures.len(), ir_core::text::print_module(module));
    }
    r
}

/// The DU side checked against its definition: definition `d` reaches
/// use `u` in [`MemDeps::uses_of`] exactly when `d` is in `u`'s flow set
/// (the pairs expanded one by one). `None` when they agree, else the
/// first definition whose uses differ.
pub fn du_mismatch(deps: &MemDeps) -> Option<String> {
    let mut expected: Vec<Vec<u32>> = vec![Vec::new(); deps.sites().num_defs()];
    for u in 0..deps.sites().num_uses() as u32 {
        for d in deps.defs_of_iter(u) {
            expected[d as usize].push(u);
        }
    }
    expected.iter().enumerate().find_map(|(d, want)| {
        let got: Vec<u32> = deps.uses_of_iter(d as u32).collect();
        (got != *want).then(|| format!("definition {d} reaches uses {got:?} in the DU side, {want:?} by the flow sets"))
    })
}

fn differ(func: &str, a: &str, x: &MemDeps, b: &str, y: &MemDeps) -> String {
    if let Some((u, p, q)) = x.differences(y).first() {
        return format!("@{func}: {a} and {b} differ on use {u} ({:?}): {p:?} vs {q:?}", x.sites().use_site(*u));
    }
    for d in 0..x.sites().num_defs() as u32 {
        if x.output_of(d) != y.output_of(d) || x.anti_of(d) != y.anti_of(d) {
            return format!(
                "@{func}: {a} and {b} differ on definition {d} ({:?}): output {:?} vs {:?}, anti {:?} vs {:?}",
                x.sites().def_site(d),
                x.output_of(d),
                y.output_of(d),
                x.anti_of(d),
                y.anti_of(d)
            );
        }
    }
    format!("@{func}: {a} and {b} number their sites differently")
}

/// Iterations enumerated by [`check_affine`].
pub const AFFINE_TRIPS: i64 = 8;

/// For every loop and every pair of its accesses on one object, at least
/// one a write, both affine in the loop's induction variable with one
/// scale and known sizes, or both exact: the distances at which the
/// descriptors overlap over [`AFFINE_TRIPS`] iterations (and two start
/// values of the variable) must be exactly those the carried answer
/// gives. Counts into `r`.
pub fn check_affine(q: &MemQueries, func: &str, r: &mut Report) {
    let loops = q.loops();
    for l in loops.loops() {
        for p in q.carried_pairs(l).into_iter().chain(independent_pairs(q, l)) {
            let (Some(a), Some(b)) =
                (q.access(p.earlier.inst, p.earlier.access), q.access(p.later.inst, p.later.access))
            else {
                continue;
            };
            let (Some(za), Some(zb)) = (a.size, b.size) else { continue };
            let offsets = |x: Offset, t: i128| -> Option<i128> {
                match x {
                    Offset::Exact(o) => Some(o as i128),
                    Offset::Affine { sym, scale, add } => {
                        let step = q.induction_step(l, sym)?;
                        Some(scale as i128 * (t * step as i128) + add as i128)
                    }
                    Offset::Unknown => None,
                }
            };
            if let Answer::May(_) = p.answer {
                r.affine_unknown += 1;
                continue;
            }
            let mut seen: Vec<u64> = Vec::new();
            let mut ok = true;
            for t0 in [0i128, 3] {
                for i in 0..AFFINE_TRIPS as i128 {
                    for j in i + 1..AFFINE_TRIPS as i128 {
                        let (Some(oa), Some(ob)) = (offsets(a.offset, t0 + i), offsets(b.offset, t0 + j)) else {
                            ok = false;
                            continue;
                        };
                        if za > 0 && zb > 0 && oa < ob + zb as i128 && ob < oa + za as i128 {
                            seen.push((j - i) as u64);
                        }
                    }
                }
            }
            if !ok {
                continue;
            }
            seen.sort_unstable();
            seen.dedup();
            let claimed: Vec<u64> = match p.answer {
                Answer::Must(d) => (1..AFFINE_TRIPS as u64).filter(|&k| d.contains(k)).collect(),
                _ => Vec::new(),
            };
            r.affine_pairs += 1;
            if claimed != seen {
                r.failures.push(format!(
                    "@{func}: loop at block {}: {:?} then {:?}: answer {:?}, but over {AFFINE_TRIPS} trips the distances are {seen:?} ({a:?} / {b:?})",
                    loops.header(l),
                    p.earlier,
                    p.later,
                    p.answer
                ));
            }
        }
    }
}

/// Pairs of a loop that [`MemQueries::carried_pairs`] leaves out because
/// they are independent: same object, at least one write.
fn independent_pairs(q: &MemQueries, l: cfg_dom::LoopId) -> Vec<crate::CarriedPair> {
    let mut sites = Vec::new();
    for &b in q.loops().body(l) {
        for &i in q.block_insts(b) {
            for k in 0..q.accesses(i).len() as u32 {
                sites.push(crate::Site { inst: i, access: k });
            }
        }
    }
    let mut out = Vec::new();
    for &x in &sites {
        for &y in &sites {
            let (Some(a), Some(b)) = (q.access(x.inst, x.access), q.access(y.inst, y.access)) else { continue };
            if a.object != b.object || !(a.write || b.write) {
                continue;
            }
            let answer = q.loop_carried(l, x, y);
            if answer == Answer::NoDep {
                out.push(crate::CarriedPair { earlier: x, later: y, answer });
            }
        }
    }
    out
}
