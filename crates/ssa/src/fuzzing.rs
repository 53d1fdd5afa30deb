//! Construction and destruction judged by the reference interpreter, as a
//! check shared by the `ssa` fuzz target and the proptests.
//!
//! [`check_equivalence`] converts every function of a module to SSA under a
//! policy and back, and requires at each step what the crate promises: the
//! SSA form passes [`crate::verify`], prints and parses back to the same
//! text, and computes what the original computes (results and final
//! memory, or a trap of the same kind); the destructed form passes the base
//! verifier and computes it too.

use crate::{Options, Policy};
use ir_core::interp::{Config, Memory, TrapKind, run};
use ir_core::{FuncId, Imm, Module, text};

/// `Ok` when SSA form and the destructed form of `module` (all functions)
/// compute what `module` computes when `main` runs on `args` with `fuel`;
/// otherwise what went wrong, with the module text.
///
/// SSA conversion adds copies and phis, so the transformed modules get four
/// times the fuel (plus a margin); a run of the original that runs out of
/// fuel proves nothing and is accepted.
pub fn check_equivalence(module: &Module, main: FuncId, args: &[Imm], fuel: u64, policy: Policy) -> Result<(), String> {
    // Where a trap happens differs between the forms; its kind must not.
    let outcome = |m: &Module, fuel: u64| -> Result<(Vec<Imm>, Memory), TrapKind> {
        run(m, main, args, Config { fuel, ..Config::default() }).map(|o| (o.results, o.memory)).map_err(|t| t.kind)
    };
    let before = match outcome(module, fuel) {
        Err(TrapKind::FuelExhausted) => return Ok(()),
        r => r,
    };
    let more = fuel.saturating_mul(4).saturating_add(10_000);
    let mut m = module.clone();
    let mut failed = None;
    for_each_function(&mut m, |f| {
        if let Err(e) = crate::construct(f, &Options { policy, ..Options::default() }) {
            failed.get_or_insert_with(|| format!("construction failed on @{}: {e}", f.name()));
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    for id in m.function_ids() {
        if let Err(e) = crate::verify(&m, id) {
            return Err(format!("SSA form does not verify: {e}\n{}", text::print_module(&m)));
        }
    }
    let printed = text::print_module(&m);
    let reparsed = text::parse(&printed).map_err(|d| format!("SSA form does not parse back: {d:?}\n{printed}"))?.0;
    if text::print_module(&reparsed) != printed {
        return Err(format!("SSA form prints differently after a parse:\n{printed}"));
    }
    let in_ssa = outcome(&m, more);
    if in_ssa != before {
        return Err(format!("SSA form computes {in_ssa:?}, the original {before:?}:\n{printed}"));
    }
    for_each_function(&mut m, |f| {
        crate::destruct(f);
    });
    if let Err(e) = ir_core::verify_module(&m, &Default::default()) {
        return Err(format!("the destructed form does not verify: {e}\n{}", text::print_module(&m)));
    }
    let after = outcome(&m, more);
    if after != before {
        return Err(format!(
            "the destructed form computes {after:?}, the original {before:?}:\n{}",
            text::print_module(&m)
        ));
    }
    Ok(())
}

fn for_each_function(m: &mut Module, mut f: impl FnMut(&mut ir_core::Function)) {
    let ids: Vec<FuncId> = m.function_ids().collect();
    for id in ids {
        if let Some(func) = m.function_mut(id) {
            f(func);
        }
    }
}
