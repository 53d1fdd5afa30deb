//! A module: memory objects, function signatures, and the functions built
//! callee first so that every caller knows its callees' fuel bounds; and
//! the public entry points ([`generate`] and its variants) with what they
//! return ([`Generated`]).
//!
//! Invariants:
//! - Function 0 is `@main`; the others are `@f1`, `@f2`, ... Function `i`
//!   calls only functions `j > i`, so the call graph is acyclic and every
//!   call returns.
//! - A callee whose fuel bound exceeds [`CALL_FUEL_CAP`] is never called,
//!   so nested calls cannot multiply run time without limit.
//! - Decoding order: memory objects, signatures, helpers from the last to
//!   the first (they are small), then `main`.
//! - Return types of a signature are distinct, so call results bind to
//!   distinct pool vars.

use crate::body::{CalleeInfo, Callees, Env};
use crate::config::{GenConfig, HELPER_VARS, Knobs};
use crate::source::{ByteSource, Choices, Source, SplitMix64};
use crate::types::{BASE_TYPES, POOL_TYPES};
use crate::{function, memory};
use ir_core::{FuncId, Module, Signature};

/// A generated module.
#[derive(Clone)]
pub struct Generated {
    /// The module: memory objects, then `@main`, then helpers `@f1`, ...
    pub module: Module,
    /// `@main`, the function to run. Its params may take any values.
    pub main: FuncId,
    /// An upper bound on the fuel the reference interpreter charges to run
    /// `main` with any arguments: one per instruction executed (phis,
    /// terminators and guarded-off instructions included) plus the elements
    /// each tensor instruction processes, callees included. Saturates at
    /// `u64::MAX`.
    pub fuel: u64,
}

/// Shows the module as text (what a failing property test should print).
impl core::fmt::Debug for Generated {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "Generated {{ main: {}, fuel: {} }}", self.main, self.fuel)?;
        f.write_str(&ir_core::text::print_module(&self.module))
    }
}

/// Generates a module from a seed (a [`SplitMix64`] stream).
pub fn generate(config: &GenConfig, seed: u64) -> Generated {
    generate_with(config, &mut SplitMix64::new(seed))
}

/// Generates a module from bytes (a [`ByteSource`]); any bytes give a valid
/// module, and short or zero bytes give simple ones.
pub fn generate_from_bytes(config: &GenConfig, bytes: &[u8]) -> Generated {
    generate_with(config, &mut ByteSource::new(bytes))
}

/// Generates a module from any source of choices.
pub fn generate_with<S: Source + ?Sized>(config: &GenConfig, source: &mut S) -> Generated {
    module(config, source)
}

/// Callees with a larger fuel bound are not called.
pub(crate) const CALL_FUEL_CAP: u64 = 1 << 14;

/// Most params of a generated function.
const MAX_PARAMS: usize = 3;

/// A signature: up to three params of pool types, and up to `max_returns`
/// distinct return types.
fn signature<S: Source + ?Sized>(src: &mut S, max_returns: usize) -> Signature {
    let params = (0..src.below(MAX_PARAMS + 1)).map(|_| src.pick(&POOL_TYPES)).collect::<Vec<_>>();
    let mut avail = BASE_TYPES.to_vec();
    let mut returns = Vec::new();
    for _ in 0..src.below(max_returns + 1) {
        returns.push(avail.remove(src.below(avail.len())));
    }
    Signature::new(params, returns)
}

/// Generates a module from `config`, decoding choices from `src`.
fn module<S: Source + ?Sized>(config: &GenConfig, src: &mut S) -> Generated {
    let knobs = Knobs::new(config);
    let mut module = Module::new();
    let mems = if knobs.memory > 0.0 {
        memory::declare(&mut module, src, knobs.mlu_expressible, knobs.shared_memory)
    } else {
        Vec::new()
    };
    let ext = (knobs.extern_calls > 0.0 && !mems.is_empty()).then(|| {
        let sig = Signature::new(vec![ir_core::Type::I64, ir_core::Type::I64], vec![ir_core::Type::I64]);
        module.add_extern(crate::externs::EXT_TOUCH, sig).expect("the generator's names are distinct")
    });

    let n = knobs.functions;
    let sigs: Vec<Signature> = (0..n).map(|i| signature(src, if i == 0 { 3 } else { 2 })).collect();
    let mut ids = Vec::with_capacity(n);
    for (i, sig) in sigs.iter().enumerate() {
        let name = if i == 0 { "main".to_string() } else { format!("f{i}") };
        let names: Vec<String> = (0..sig.params.len()).map(|k| format!("a{k}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        ids.push(module.add_function(&name, sig.clone(), &names).expect("the generator's names are distinct"));
    }

    let mut fuels = vec![0u64; n];
    // Function i may call every j > i whose bound is at most the cap.
    let mut callable: Vec<CalleeInfo> = Vec::new();
    for i in (0..n).rev() {
        if let Some(j) = Some(i + 1).filter(|&j| j < n && fuels[j] <= CALL_FUEL_CAP) {
            callable.push(CalleeInfo {
                func: ids[j],
                params: sigs[j].params.clone(),
                returns: sigs[j].returns.clone(),
                fuel: fuels[j],
            });
        }
        let env = Env { knobs: &knobs, mems: &mems, callees: Callees { last_first: &callable }, ext };
        let (budget, pool) = if i == 0 {
            (knobs.main_blocks(), knobs.vars)
        } else {
            (knobs.helper_blocks(), knobs.vars.min(HELPER_VARS))
        };
        let func = module.function_mut(ids[i]).expect("declared above");
        fuels[i] = function::build(func, src, &env, budget, pool);
    }
    Generated { module, main: ids[0], fuel: fuels[0] }
}
