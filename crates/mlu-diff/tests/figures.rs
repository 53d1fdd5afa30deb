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
