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
    for &f in &ids {
        let Some(body) = module.function_mut(f) else { continue };
        let name = crate::out::global(body.name());
        let s = match ssa::construct(body, &Options { policy, cleanup }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("keel: internal error: SSA construction of verified {name} failed: {e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        if let Err(e) = ssa::verify(&module, f) {
            eprintln!("keel: internal error: SSA form of {name} does not verify:\n{e}");
            return Ok(ExitCode::FAILURE);
        }
        if stats {
            eprintln!(
                "; {name}: {} phis placed ({}), {} trivial and {} dead removed, {} versions, {} undef",
                s.phis_placed,
                policy.name(),
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
    out.write_all(text::print_module(&module).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
