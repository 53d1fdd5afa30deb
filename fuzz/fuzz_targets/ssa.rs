//! SSA construction and destruction: any bytes decode
//! (`ir_gen::fuzzing::analysis_input`) to a module and arguments; its SSA
//! form under the policy the first byte picks, and the destructed form,
//! must verify and compute what it computes (`ssa::fuzzing`).
#![no_main]

use ssa::Policy;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let policy =
        [Policy::SemiPruned, Policy::Minimal, Policy::Pruned][usize::from(data.first().copied().unwrap_or(0)) % 3];
    let (g, args) = ir_gen::fuzzing::analysis_input(data);
    if let Err(e) = ssa::fuzzing::check_equivalence(&g.module, g.main, &args, g.fuel, policy) {
        panic!("{policy:?}: {e}");
    }
});
