//! Test support (feature `fuzzing`): the planted compiler bugs, a Keel
//! function under register pressure, and (with the `sim` feature too) the
//! compiler's fuzz property.
//!
//! - [`Bug`] and [`with_bug`]: a test compiles under a planted bug (Keel's
//!   one mechanism, `test-hooks`) to show that an oracle notices.
//! - [`register_pressure`]: a Keel function the register allocation tests
//!   compile with few GPRs.
//! - `check` (with `sim`), shared by the `mlu_compile` fuzz target and
//!   `tests/fuzz_smoke.rs`: generate a program the ISA expresses (ir-gen
//!   with `mlu_expressible`), compile it (one input in three for four
//!   cores, with every object in shared memory), simulate it, and compare
//!   with the interpreter; it panics on a difference, a compile error or a
//!   simulator refusal. `configs` are the generator settings it draws from.

pub use crate::planted::Bug;
pub use test_hooks::with_bug;

#[cfg(feature = "sim")]
use crate::differential::{DiffOptions, Verdict, run};
#[cfg(feature = "sim")]
use ir_gen::GenConfig;
#[cfg(feature = "sim")]
use ir_gen::fuzzing::{arguments, seed_of};

/// Keel IR of `@f(%a: i64) -> i64`: `values` loads from `@m` then the
/// stores back in reverse order, so all `values` are live at once (memory
/// keeps its order): with fewer GPRs the allocator must spill.
pub fn register_pressure(values: usize) -> String {
    let mut src = format!("mem @m: i64[{}] nram\n\nfunc @f(%a: i64) -> i64 {{\n", values.max(1));
    for i in 0..values {
        src.push_str(&format!("    var %v{i}: i64\n"));
    }
    src.push_str("bb0:\n");
    for i in 0..values {
        src.push_str(&format!("    %v{i} = load @m[{i}]\n"));
    }
    for i in 0..values {
        src.push_str(&format!("    store @m[{i}], %v{}\n", values - 1 - i));
    }
    src.push_str("    ret %a\n}\n");
    src
}

/// The generator settings the property draws from (by the first input byte):
/// loops, branches, switches, predication, phis, calls and memory with
/// tensor ops, `dma`, reductions and `matmul`.
#[cfg(feature = "sim")]
pub fn configs() -> Vec<GenConfig> {
    let base = GenConfig { blocks: 24, vars: 10, mlu_expressible: true, unreachable: 0.1, ..GenConfig::default() };
    vec![
        GenConfig { memory: 0.4, predication: 0.3, ..base.clone() },
        GenConfig { memory: 0.2, phis: 0.4, irreducible: 0.3, functions: 3, ..base.clone() },
        GenConfig { memory: 0.6, max_depth: 2, max_trips: 4, ..base.clone() },
        GenConfig { memory: 0.0, predication: 0.5, phis: 0.3, functions: 2, ..base },
    ]
}

/// The whole property on the program `bytes` decode to.
#[cfg(feature = "sim")]
pub fn check(bytes: &[u8]) {
    let configs = configs();
    let first = usize::from(bytes.first().copied().unwrap_or(0));
    // One input in three: four cores, every object shared (split kernels).
    let cores = if (first / configs.len()) % 3 == 2 { 4 } else { 1 };
    let config = GenConfig { shared_memory: cores > 1, ..configs[first % configs.len()].clone() };
    let g = ir_gen::generate_from_bytes(&config, bytes.get(1..).unwrap_or(&[]));
    let args = arguments(&g, seed_of(bytes));
    // Both allocation checkers run whatever the build (fuzz builds are
    // optimised, without debug assertions).
    let options = DiffOptions {
        interp_fuel: g.fuel.max(1),
        cycles: bytes.len().is_multiple_of(2),
        compile: crate::compile::CompileOptions { check: true, cores, ..Default::default() },
        ..DiffOptions::default()
    };
    match run(&g.module, g.main, &args, &options) {
        Ok(r) => match r.verdict {
            Verdict::Equal | Verdict::Skipped(_) => {}
            Verdict::Differ(d) => panic!(
                "the compiled program differs from the interpreter:\n{}\n{}",
                d.join("\n"),
                ir_core::text::print_module(&g.module)
            ),
        },
        Err(e) => panic!("{e}\n{}", ir_core::text::print_module(&g.module)),
    }
}
