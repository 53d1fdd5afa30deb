//! The SSA method's warm path does no heap allocation: a context and a
//! `Chains` that have seen a set of functions compute them all again
//! without a single call to the allocator (`allocation-counter`'s
//! counting global allocator).

use defuse::{Chains, ViaSsa};
use ir_gen::{GenConfig, generate};

/// Allocations (and reallocations) made by `f` on this thread
/// (`allocation-counter`'s counting global allocator).
fn allocations(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

#[test]
fn a_warm_context_computes_without_allocating() {
    // Loops, irreducible parts, unreachable blocks, guarded definitions,
    // memory, several sizes (small graphs take the bitset placement, large
    // ones `cfg_dom::Idf`).
    let mut funcs = Vec::new();
    for (seed, blocks, vars, predication) in [(1, 8, 4, 0.0), (2, 40, 12, 0.3), (3, 300, 40, 0.2), (4, 1200, 64, 0.1)] {
        let config = GenConfig { blocks, vars, predication, ..GenConfig::default() };
        let g = generate(&config, seed);
        funcs.extend(g.module.functions().map(|(_, f)| f.clone()));
    }
    let (mut ctx, mut chains) = (ViaSsa::new(), Chains::new());
    let mut expected = Vec::new();
    for f in &funcs {
        ctx.compute_function_into(f, &mut chains).unwrap();
        expected.push(chains.clone());
    }
    for (f, want) in funcs.iter().zip(&expected) {
        let n = allocations(|| {
            ctx.compute_function_into(f, &mut chains).unwrap();
        });
        assert_eq!(n, 0, "a warm compute_function_into allocated {n} times");
        assert_eq!(&chains, want);
    }
    // The counter works: a fresh context allocates.
    assert!(allocations(|| drop(ViaSsa::new().compute_function(&funcs[0]).unwrap())) > 0);
}
