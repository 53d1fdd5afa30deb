//! `keel ssa`: print a module in SSA form (and optionally back out of it).

use crate::input::{Input, Loaded};
use crate::select::{Scope, select};
use ir_core::text;
use ssa::{Options, Policy};
use std::io::Write;
use std::process::ExitCode;

pub(crate) fn ssa(
    file: &str,
    func: Option<&str>,
    policy: Policy,
    cleanup: bool,
    destruct: bool,
    stats: bool,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(file) else { return Ok(ExitCode::FAILURE) };
    let Some(Loaded { mut module, .. }) = input.load("") else { return Ok(ExitCode::FAILURE) };
    let ids = match select(&module, func, Scope::All) {
        Ok(ids) => ids,
        Err(e) => {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    };
    // The first function whose phis passed the budget, and how many did.
    let mut fell_back: Option<(String, ssa::Fallback)> = None;
    let mut fallbacks = 0usize;
    for &f in &ids {
        let Some(body) = module.function_mut(f) else { continue };
        let name = crate::out::global(body.name());
        let s = match ssa::construct(body, &Options { policy, cleanup, ..Options::default() }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("keel: internal error: SSA construction of verified {name} failed: {e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        if let Some(fb) = s.fallback {
            fallbacks += 1;
            fell_back.get_or_insert((name.clone(), fb));
        }
        if let Err(e) = ssa::verify(&module, f) {
            eprintln!("keel: internal error: SSA form of {name} does not verify:\n{e}");
            return Ok(ExitCode::FAILURE);
        }
        if stats {
            eprintln!(
                "; {name}: {} phis placed ({}), {} trivial and {} dead removed, {} versions, {} undef",
                s.phis_placed,
                if s.fallback.is_some() { "pruned: over the phi budget" } else { policy.name() },
                s.phis_trivial,
                s.phis_dead,
                s.versions,
                s.undefs
            );
        }
        if destruct && let Some(body) = module.function_mut(f) {
            let d = ssa::destruct(body);
            if stats {
                eprintln!(
                    "; {name}: out of SSA: {} edges split, {} copies, {} temporaries",
                    d.edges_split, d.copies, d.temporaries
                );
            }
        }
    }
    if let Some((name, fb)) = fell_back {
        let more = match fallbacks {
            1 => String::new(),
            k => format!(" (and in {} more functions)", k - 1),
        };
        eprintln!("{}", fallback_note(&name, &fb, &more));
    }
    out.write_all(text::print_module(&module).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The note printed once when a placement passed its phi budget.
pub(crate) fn fallback_note(name: &str, fb: &ssa::Fallback, more: &str) -> String {
    format!(
        "keel: note: {name}: {} placement passed its budget of {} phi operands (at {} already); placed pruned phis instead{more} (the dead phis left out change no def-use chain)",
        fb.policy.name(),
        fb.budget,
        fb.operands
    )
}
