//! Generated programs restricted to what the ISA expresses (ir-gen with
//! `mlu_expressible`: loops, branches, switches, predication, phis, calls,
//! scalar memory, tensor maps, `dma`, reductions, `matmul`) compile, and
//! the simulator agrees with the interpreter on every one. Bounded by
//! count, not time.

use ir_gen::fuzzing::{arguments, seed_of};
use ir_gen::{GenConfig, generate};
use mlu_diff::{DiffOptions, Verdict, run};

#[test]
fn a_thousand_generated_programs_run_equal() {
    let configs = mlu_diff::fuzzing::configs();
    let (mut equal, mut skipped, mut tensor_ops) = (0, 0, 0u64);
    for seed in 0..1000u64 {
        let config: &GenConfig = &configs[(seed % configs.len() as u64) as usize];
        let g = generate(config, seed);
        let args = arguments(&g, seed_of(&seed.to_le_bytes()));
        let options = DiffOptions { interp_fuel: g.fuel.max(1), cycles: seed % 4 == 0, ..DiffOptions::default() };
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
    }
    eprintln!("1000 generated programs: {equal} equal, {skipped} skipped; {tensor_ops} with tensor instructions");
    assert_eq!(equal + skipped, 1000);
    assert!(equal >= 990, "{equal}");
}
