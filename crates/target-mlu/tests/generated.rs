//! Generated programs restricted to what the ISA expresses (ir-gen with
//! `mlu_expressible`: loops, branches, switches, predication, phis, calls,
//! scalar memory, tensor maps, `dma`, reductions, `matmul`) compile, and
//! the simulator agrees with the interpreter on every one. Bounded by
//! count, not time.

use ir_gen::fuzzing::{arguments, seed_of};
use ir_gen::{GenConfig, generate};
use target_mlu::compile::CompileOptions;
use target_mlu::differential::{DiffOptions, Verdict, run};

/// Runs the 1,000 programs on `cores` cores (with `shared`, their NRAM
/// objects in DRAM, as split kernels need); returns how many were split.
fn thousand(cores: u32, shared: bool) -> u64 {
    let configs: Vec<GenConfig> =
        target_mlu::fuzzing::configs().into_iter().map(|c| GenConfig { shared_memory: shared, ..c }).collect();
    let (mut equal, mut skipped, mut tensor_ops, mut split, mut fused) = (0, 0, 0u64, 0u64, 0u64);
    for seed in 0..1000u64 {
        let config: &GenConfig = &configs[(seed % configs.len() as u64) as usize];
        let g = generate(config, seed);
        let args = arguments(&g, seed_of(&seed.to_le_bytes()));
        let compile = CompileOptions { cores, ..CompileOptions::default() };
        let options =
            DiffOptions { interp_fuel: g.fuel.max(1), cycles: seed % 4 == 0, compile, ..DiffOptions::default() };
        let r = run(&g.module, g.main, &args, &options)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", ir_core::text::print_module(&g.module)));
        match r.verdict {
            Verdict::Equal => equal += 1,
            Verdict::Skipped(_) => skipped += 1,
            Verdict::Differ(d) => {
                panic!("seed {seed}: {}\n{}", d.join("\n"), ir_core::text::print_module(&g.module))
            }
        }
        let has_tensor = g.module.functions().any(|(_, f)| {
            f.blocks().flat_map(|b| f.block_insts(b)).any(|i| {
                use ir_core::Format as F;
                matches!(f.opcode(i).format(), F::TensorMap | F::TensorReduce | F::Matmul)
            })
        });
        tensor_ops += u64::from(has_tensor);
        split += u64::from(r.compiled.cores > 1);
        fused += u64::from(r.compiled.report.buffering.iter().any(|b| b.contains("fused")));
    }
    eprintln!(
        "1000 generated programs on {cores} core(s) (shared memory: {shared}): {equal} equal, {skipped} skipped; {tensor_ops} with tensor instructions; {split} split; {fused} with fused maps"
    );
    assert_eq!(equal + skipped, 1000);
    assert!(equal >= 990, "{equal}");
    split
}

#[test]
fn a_thousand_generated_programs_run_equal() {
    assert_eq!(thousand(1, false), 0);
}

#[test]
fn a_thousand_generated_programs_run_equal_on_four_cores() {
    let split = thousand(4, true);
    assert!(split >= 500, "{split}");
}
