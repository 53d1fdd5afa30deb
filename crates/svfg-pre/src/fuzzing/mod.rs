//! The transforms judged by the reference interpreter, as a check shared by
//! the `svfg_pre` fuzz target and the tests (feature `fuzzing`).
//!
//! [`check_module`] puts every function of a module in SSA form (the
//! "before"), then applies each method to a copy: SVFG PRE, PRE on the
//! semi-SVFG alone (no extension), plain GVN and LCM. Each result must verify (SSA level for PRE and GVN, base level for
//! LCM, whose temporaries have several definitions), PRE's semi-SVFG must
//! pass [`crate::Svfg::verify`], and each must compute what the SSA form
//! computes on the same arguments: the same results and final memory, or a
//! trap of the same kind. Then the dynamic counts of computations
//! ([`crate::keel::is_computation`]): per value class of the SSA form (an
//! inserted computation counts for the number PRE inserted it for; a class
//! is a number with its phi translations, `Stats::translations`) and per
//! opcode, PRE and GVN never execute more than before on the run; both
//! PREs' totals never more than LCM's.
//!
//! Planted bugs: a test runs the check inside [`with_bug`] with a [`Bug`];
//! the transforms under test see it, the oracle's own reference
//! computations (the numbering of the SSA form, the SVFG the verifier
//! checks) run with none planted.

pub mod programs;

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

use crate::construct::Method;
use crate::keel::{
    KeelValueNumbers, LazyMemory, Stats as PreStats, build_svfg_lazy, can_trap, cleanup_function, is_computation, lcm,
    run_in, verify_svfg,
};
use crate::vn::ValueNumber;
use ir_core::interp::{Config, Memory, Stats, TrapKind, run};
use ir_core::{Format, FuncId, Imm, Module, Opcode, VerifyOptions, text, verify_module};
use std::collections::HashMap;

/// Dynamic computation counts of one checked run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// In the SSA form (before).
    pub before: u64,
    /// After SVFG PRE.
    pub svfg: u64,
    /// After PRE on the semi-SVFG alone (no extension step).
    pub semi: u64,
    /// After plain GVN.
    pub gvn: u64,
    /// After LCM.
    pub lcm: u64,
    /// Whether the run finished (not out of fuel, no trap).
    pub finished: bool,
}

type Outcome = Result<(Vec<Imm>, Memory, Stats), TrapKind>;

/// Two outcomes are the same: the same results and memory, or the same
/// trap.
fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Ok((r0, m0, _)), Ok((r1, m1, _))) => r0 == r1 && m0 == m1,
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

fn outcome(m: &Module, main: FuncId, args: &[Imm], fuel: u64) -> Outcome {
    run(m, main, args, Config { fuel, ..Config::default() }).map(|o| (o.results, o.memory, o.stats)).map_err(|t| t.kind)
}

/// Dynamic computations per opcode (indexed by `Opcode as usize`).
pub fn computations(m: &Module, stats: &Stats) -> Vec<u64> {
    let mut out = vec![0u64; Opcode::ALL.len()];
    for (f, func) in m.functions() {
        for b in func.blocks() {
            for inst in func.block_insts(b) {
                if is_computation(func, inst) {
                    out[func.opcode(inst) as usize] += stats.inst_count(f, inst);
                }
            }
        }
    }
    out
}

/// Each function of `m` in SSA form.
pub fn to_ssa(m: &Module) -> Result<Module, String> {
    each_function(m, |_, f| ssa::construct(f, &ssa::Options::default()).map(|_| ()).map_err(|e| format!("ssa: {e}")))
}

/// Each function of `m` with its top-tested loops rotated
/// ([`crate::rotation_plan`]; `m` not in SSA form), and the loops rotated.
pub fn rotated(m: &Module) -> (Module, usize) {
    let mut n = 0;
    let r = each_function(m, |_, f| {
        n += crate::keel::rotate_loops(f).rotated;
        Ok(())
    });
    (r.expect("rotation refuses nothing"), n)
}

/// A copy of `m` with `edit` applied to each of its functions (the first
/// refusal stops it).
fn each_function(
    m: &Module,
    mut edit: impl FnMut(FuncId, &mut ir_core::Function) -> Result<(), String>,
) -> Result<Module, String> {
    let mut m = m.clone();
    let ids: Vec<FuncId> = m.function_ids().collect();
    for id in ids {
        if let Some(f) = m.function_mut(id) {
            edit(id, f)?;
        }
    }
    Ok(m)
}

/// Rotation's property on `module` (not in SSA form): the rotated module
/// verifies and runs to the same outcome (results, memory, or trap);
/// then [`check_module`] holds on it. Returns the counts of the original
/// and of the rotated module, and the loops rotated.
pub fn check_rotation(
    module: &Module,
    main: FuncId,
    args: &[Imm],
    fuel: u64,
) -> Result<(Counts, Counts, usize), String> {
    let plain = check_module(module, main, args, fuel)?;
    let (r, n) = rotated(module);
    verify_module(&r, &VerifyOptions { ssa: false })
        .map_err(|e| format!("the rotated module does not verify: {e}\n{}", text::print_module(&r)))?;
    let (a, b) = (outcome(module, main, args, fuel), outcome(&r, main, args, fuel.saturating_mul(2)));
    // The original out of fuel: the rotated one may finish or not.
    if !(matches!(a, Err(TrapKind::FuelExhausted)) || same_outcome(&a, &b)) {
        return Err(format!(
            "rotation changes the outcome: {:?} before, {:?} after\nbefore:\n{}\nafter:\n{}",
            a.as_ref().map(|o| &o.0),
            b.as_ref().map(|o| &o.0),
            text::print_module(module),
            text::print_module(&r)
        ));
    }
    // Rotation copies each header onto the entry edge: up to one more
    // header run per loop entry, so the rotated run gets twice the fuel.
    let rot = check_module(&r, main, args, fuel.saturating_mul(2))?;
    Ok((plain, rot, n))
}

/// Runs `f` with no bug planted, whatever the caller planted: the
/// oracle's reference computations.
fn clean<R>(f: impl FnOnce() -> R) -> R {
    #[derive(Copy, Clone, PartialEq)]
    struct NoBug;
    with_bug(NoBug, f)
}

/// Applies `method` (`None`: LCM) to every function of `m` (SSA form).
pub fn transform(m: &Module, method: Option<Method>) -> Result<Module, String> {
    transform_with_stats(m, method).map(|(m, _)| m)
}

/// [`transform`], with each function's [`PreStats`] (PRE and GVN only).
pub fn transform_with_stats(m: &Module, method: Option<Method>) -> Result<(Module, Vec<(FuncId, PreStats)>), String> {
    let mut m = m.clone();
    let mut stats = Vec::new();
    let ids: Vec<FuncId> = m.function_ids().collect();
    for id in ids {
        match method {
            Some(method) => {
                // Loads are numbered as `keel pre` numbers them (walks,
                // then memdep on demand).
                let Some(f) = m.function(id) else { continue };
                if method == Method::Svfg {
                    clean(|| {
                        let memory = LazyMemory::new(&m, f);
                        let (svfg, vns) = build_svfg_lazy(f, &memory).map_err(|e| e.to_string())?;
                        check_svfg(f, &vns, &svfg)
                    })?;
                }
                stats.push((id, run_in(&mut m, id, method).map_err(|e| e.to_string())?));
            }
            None => {
                let Some(f) = m.function_mut(id) else { continue };
                lcm(f, 1 << 30).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok((m, stats))
}

/// Dynamic computations per (function, value number of the SSA form), for
/// the per-value "never worse" check: `before` numbered with memdep as PRE
/// numbers it; in `after`, an instruction that was there before counts for
/// its result's number, an inserted one for the number PRE inserted it
/// for. `Err` names a computation that fits neither.
fn per_value(
    before: &Module,
    after: &Module,
    after_stats: &Stats,
    inserted: &[(FuncId, PreStats)],
) -> Result<Vec<(FuncId, ValueNumber, u64)>, String> {
    let mut out = Vec::new();
    for (f, func) in after.functions() {
        let Some(orig) = before.function(f) else { continue };
        let memory = LazyMemory::new(before, orig);
        let vns = clean(|| KeelValueNumbers::of_with_lazy_memory(orig, &memory)).map_err(|e| e.to_string())?;
        let ins: Vec<(ir_core::Var, ValueNumber)> =
            inserted.iter().filter(|(g, _)| *g == f).flat_map(|(_, s)| s.inserted_values.iter().copied()).collect();
        for b in func.blocks() {
            for inst in func.block_insts(b) {
                if !is_computation(func, inst) {
                    continue;
                }
                let r = func.results(inst)[0];
                let vn = match ins.iter().find(|&&(v, _)| v == r) {
                    Some(&(_, vn)) => vn,
                    None if orig.inst_exists(inst) && orig.results(inst).first() == Some(&r) => vns.of_var(r),
                    None => {
                        return Err(format!("@{}: computation {inst} is neither original nor inserted", func.name()));
                    }
                };
                out.push((f, vn, after_stats.inst_count(f, inst)));
            }
        }
    }
    Ok(summed(out))
}

/// The counts of each (function, value) summed, sorted.
fn summed(mut out: Vec<(FuncId, ValueNumber, u64)>) -> Vec<(FuncId, ValueNumber, u64)> {
    out.sort_unstable_by_key(|&(f, vn, _)| (f, vn));
    let mut merged: Vec<(FuncId, ValueNumber, u64)> = Vec::new();
    for (f, vn, c) in out {
        match merged.last_mut() {
            Some(last) if last.0 == f && last.1 == vn => last.2 += c,
            _ => merged.push((f, vn, c)),
        }
    }
    merged
}

/// The class of each value number that the extension step joined with its
/// phi translations (`Stats::translations`), as its smallest member.
fn translation_classes(stats: &[(FuncId, PreStats)]) -> HashMap<(FuncId, u32), u32> {
    let mut parent: HashMap<(FuncId, u32), u32> = HashMap::new();
    fn find(parent: &HashMap<(FuncId, u32), u32>, f: FuncId, mut v: u32) -> u32 {
        while let Some(&p) = parent.get(&(f, v)) {
            if p == v {
                break;
            }
            v = p;
        }
        v
    }
    for (f, s) in stats {
        for &(t, tk) in &s.translations {
            let (a, b) = (find(&parent, *f, t.0), find(&parent, *f, tk.0));
            let (lo, hi) = (a.min(b), a.max(b));
            parent.insert((*f, hi), lo);
            parent.entry((*f, lo)).or_insert(lo);
        }
    }
    let keys: Vec<(FuncId, u32)> = parent.keys().copied().collect();
    keys.into_iter().map(|(f, v)| ((f, v), find(&parent, f, v))).collect()
}

/// Per-value counts summed by class.
fn by_class(
    values: &[(FuncId, ValueNumber, u64)],
    class: &HashMap<(FuncId, u32), u32>,
) -> Vec<(FuncId, ValueNumber, u64)> {
    summed(
        values.iter().map(|&(f, vn, c)| (f, ValueNumber(class.get(&(f, vn.0)).copied().unwrap_or(vn.0)), c)).collect(),
    )
}

fn check_svfg(f: &ir_core::Function, vns: &KeelValueNumbers, svfg: &crate::Svfg) -> Result<(), String> {
    verify_svfg(f, vns, svfg).map_err(|e| format!("the semi-SVFG of @{} is malformed: {e}", f.name()))
}

/// The whole check (see the module doc) on `module`'s `main` with `args`.
/// Under [`with_bug`], the transforms run with the bug planted (the check
/// must then fail).
pub fn check_module(module: &Module, main: FuncId, args: &[Imm], fuel: u64) -> Result<Counts, String> {
    let before_m = to_ssa(module)?;
    let before = match outcome(&before_m, main, args, fuel) {
        Err(TrapKind::FuelExhausted) => return Ok(Counts::default()),
        r => r,
    };
    let more = fuel.saturating_mul(4).saturating_add(10_000);
    let mut counts = Counts { finished: before.is_ok(), ..Counts::default() };
    let base = before.as_ref().ok().map(|(_, _, s)| computations(&before_m, s));
    counts.before = base.as_ref().map_or(0, |c| c.iter().sum());
    let base_values = match &before {
        Ok((_, _, s)) => Some(per_value(&before_m, &before_m, s, &[])?),
        Err(_) => None,
    };
    for method in [Some(Method::Svfg), Some(Method::SemiSvfg), Some(Method::Gvn), None] {
        let (after_m, fstats) = transform_with_stats(&before_m, method)?;
        let ssa = method.is_some();
        if let Err(e) = verify_module(&after_m, &VerifyOptions { ssa }) {
            return Err(format!("{method:?} output does not verify: {e}\n{}", text::print_module(&after_m)));
        }
        let after = outcome(&after_m, main, args, more);
        if !same_outcome(&before, &after) {
            return Err(format!(
                "{method:?} changes the outcome: {:?} before, {:?} after\nbefore:\n{}\nafter:\n{}",
                before.as_ref().map(|o| &o.0),
                after.as_ref().map(|o| &o.0),
                text::print_module(&before_m),
                text::print_module(&after_m)
            ));
        }
        if method.is_some() {
            check_cleanup(&after_m, main, args, more, &after)?;
        }
        // Never worse per value number, on this run (PRE and GVN). A value
        // and its phi translations (the extension step) form one class:
        // on the path where an inserted `t_k` replaces `t`, it is `t`.
        if let (Some(base_values), Some(_), Ok((_, _, s))) = (&base_values, method, &after) {
            let class = translation_classes(&fstats);
            let base_values = by_class(base_values, &class);
            for (f, vn, c) in by_class(&per_value(&before_m, &after_m, s, &fstats)?, &class) {
                let was = base_values.iter().find(|&&(g, w, _)| g == f && w == vn).map_or(0, |&(_, _, c)| c);
                if c > was {
                    return Err(format!(
                        "{method:?} computes value v{} of function {f} {c} times, {was} before, on this run\nbefore:\n{}\nafter:\n{}",
                        vn.0,
                        text::print_module(&before_m),
                        text::print_module(&after_m)
                    ));
                }
            }
        }
        if let (Some(base), Ok((_, _, s))) = (&base, &after) {
            let c = computations(&after_m, s);
            let total: u64 = c.iter().sum();
            match method {
                Some(Method::Svfg) => counts.svfg = total,
                Some(Method::SemiSvfg) => counts.semi = total,
                Some(Method::Gvn) => counts.gvn = total,
                None => counts.lcm = total,
            }
            if method.is_some()
                && let Some(op) = (0..c.len()).find(|&i| c[i] > base[i])
            {
                return Err(format!(
                    "{method:?} computes more {} than before on this run ({} > {})\nbefore:\n{}\nafter:\n{}",
                    Opcode::ALL[op].name(),
                    c[op],
                    base[op],
                    text::print_module(&before_m),
                    text::print_module(&after_m)
                ));
            }
        }
    }
    if counts.finished && counts.svfg.max(counts.semi) > counts.lcm {
        return Err(format!(
            "PRE computes {} (semi-SVFG: {}) > LCM's {}:\n{}",
            counts.svfg,
            counts.semi,
            counts.lcm,
            text::print_module(&before_m)
        ));
    }
    Ok(counts)
}

/// The clean-up ([`crate::cleanup`]) on `m`, a transform's SSA output
/// whose run gave `outcome`: the cleaned module verifies in SSA form, runs
/// to the same results and memory, computes no more of any opcode, and
/// keeps no phi, copy or pure computation that cannot trap whose result
/// nothing reads (counted here on the IR directly, apart from the pass).
fn check_cleanup(m: &Module, main: FuncId, args: &[Imm], fuel: u64, outcome_before: &Outcome) -> Result<(), String> {
    let c = each_function(m, |id, func| {
        cleanup_function(func).map(|_| ()).map_err(|e| format!("the clean-up refuses {id:?}: {e}"))
    })?;
    let show = || format!("before:\n{}\nafter:\n{}", text::print_module(m), text::print_module(&c));
    verify_module(&c, &VerifyOptions { ssa: true })
        .map_err(|e| format!("the clean-up's output does not verify: {e}\n{}", show()))?;
    let after = outcome(&c, main, args, fuel);
    if !same_outcome(outcome_before, &after) {
        return Err(format!("the clean-up changes the outcome\n{}", show()));
    }
    if let (Ok((_, _, s0)), Ok((_, _, s1))) = (outcome_before, &after) {
        let (b, a) = (computations(m, s0), computations(&c, s1));
        if let Some(op) = (0..a.len()).find(|&i| a[i] > b[i]) {
            return Err(format!("the clean-up computes more {}\n{}", Opcode::ALL[op].name(), show()));
        }
    }
    for (_, func) in c.functions() {
        let mut read = vec![false; func.num_vars()];
        for b in func.blocks() {
            for i in func.block_insts(b) {
                for (_, v) in func.uses(i) {
                    read[v.as_u32() as usize] = true;
                }
            }
        }
        for b in func.blocks() {
            for i in func.block_insts(b) {
                let op = func.opcode(i);
                let pure = matches!(
                    op.format(),
                    Format::Binary | Format::Compare | Format::Convert | Format::Select | Format::Unary
                );
                let removable = func.guard(i).is_none()
                    && (op == Opcode::Phi || op == Opcode::Copy || op == Opcode::Const || (pure && !can_trap(op)));
                let results = func.results(i);
                if removable && !results.is_empty() && results.iter().all(|v| !read[v.as_u32() as usize]) {
                    return Err(format!("the clean-up leaves {i:?} ({}) unused\n{}", op.name(), show()));
                }
            }
        }
    }
    Ok(())
}

/// The fuzz property on the module `bytes` decode to: ir-gen's analysis
/// configuration (predication, memory, irreducible cycles, phis, calls)
/// with loop invariants in more frequent top-tested loops, so that the
/// rotation and the hoisting it allows are exercised, and memory indices
/// sharing a symbolic base (`%sb + c`), so that the memory walk's
/// same-root rule is; arguments from a hash of the bytes. Panics with the
/// failure.
pub fn check_bytes(bytes: &[u8]) -> Counts {
    let config =
        ir_gen::GenConfig { invariants: 0.25, loops: 0.2, symbolic: 0.3, ..ir_gen::fuzzing::analysis_config() };
    let g = ir_gen::generate_from_bytes(&config, bytes);
    let args = ir_gen::fuzzing::arguments(&g, ir_gen::fuzzing::seed_of(bytes));
    // The SSA form's phis cost fuel too: room beyond the generator's bound.
    match check_rotation(&g.module, g.main, &args, g.fuel.saturating_mul(4)) {
        Ok((c, _, _)) => c,
        Err(e) => panic!("{e}"),
    }
}
