//! The naive lowering's simulated figures on `mlu370`, one core: the
//! baseline later slices are measured against (docs/design/target-mlu.md).
//! Simulated cycles are deterministic (no clock is read), so they are
//! pinned; each run is also equal to the interpreter.

use ir_core::Imm;
use mlu_diff::{DiffOptions, run};

fn kernel(name: &str, args: &[Imm]) -> mlu_sim::Stats {
    let path = format!("{}/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
    let (module, _) = ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let f = module.function_ids().next().unwrap();
    let r = run(&module, f, args, &DiffOptions::default()).unwrap();
    assert!(r.verdict.is_equal(), "{:?}", r.verdict);
    r.stats.unwrap()
}

#[test]
fn saxpy_over_a_million_floats() {
    let s = kernel("saxpy_1m.kir", &[Imm::f32(2.0)]);
    let dma = s.roofline("dma").unwrap();
    eprintln!("saxpy 10^6: {} cycles, {:.1}% of the DMA roofline", s.cycles, 100.0 * dma.fraction);
    assert_eq!(s.cycles, 325_002);
    // Single-buffered, a sync after every copy: far from the 80%.
    assert!(dma.fraction < 0.6 && dma.fraction > 0.5, "{}", dma.fraction);
}

#[test]
fn matmul_256_cubed() {
    let s = kernel("matmul_256.kir", &[]);
    let mm = s.roofline("matrix").unwrap();
    eprintln!("matmul 256^3: {} cycles, {:.1}% of the matrix unit's peak", s.cycles, 100.0 * mm.fraction);
    assert_eq!(s.cycles, 78_230);
    assert!(mm.fraction >= 0.70, "{}", mm.fraction);
}

#[test]
fn p_vectorized_over_a_hundred_thousand_floats() {
    let s = kernel("p_vectorized_100k.kir", &[]);
    let dma = s.roofline("dma").unwrap();
    eprintln!("p 10^5: {} cycles, {:.1}% of the DMA roofline", s.cycles, 100.0 * dma.fraction);
    assert_eq!(s.cycles, 65_412);
}

/// Slice 2's register figures over the 1,000 generated programs of
/// `generated.rs`: the code each allocator emits (instructions and static
/// cycles; deterministic, so no clock is read). Compile time is the
/// `mlu_compile` criterion bench. Ignored by default (it compiles every
/// program twice); run by hand:
/// `cargo test --release -p mlu-diff --test figures -- --ignored --nocapture`.
#[test]
#[ignore]
fn register_allocators_on_generated_programs() {
    use target_mlu::compile::{AllocatorChoice, CompileOptions, compile};
    let configs = mlu_diff::fuzzing::configs();
    let config = target_mlu::MachineConfig::mlu370();
    for allocator in [AllocatorChoice::Pebble, AllocatorChoice::Home] {
        let (mut ir, mut mlu, mut cycles) = (0usize, 0usize, 0u64);
        for seed in 0..1000u64 {
            let g = ir_gen::generate(&configs[(seed % configs.len() as u64) as usize], seed);
            let options = CompileOptions { allocator, ..CompileOptions::default() };
            let Ok(c) = compile(&g.module, g.main, &config, &options) else { continue };
            ir += g
                .module
                .functions()
                .map(|(_, f)| f.blocks().map(|b| f.block_insts(b).count()).sum::<usize>())
                .sum::<usize>();
            mlu += c.program.insts.len();
            cycles += c.report.static_cycles;
        }
        eprintln!("{allocator:?}: {ir} IR instructions; {mlu} MLU instructions; static cycles {cycles}");
    }
}
