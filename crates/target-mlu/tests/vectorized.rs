//! `vectorize`'s own output compiles and runs equal on the MLU: the
//! digest's `p(a, b, c) = a + b * c` vmapped over 10^5 lanes, and `mean`
//! over a nested array (1,000 ragged rows), each with its inputs written
//! into the lowered module's objects, at one core and at four.

use ir_core::{Imm, Module, Type};
use target_mlu::compile::CompileOptions;
use target_mlu::differential::{DiffOptions, run};
use vectorize::import::import_function;
use vectorize::lower::{DEFAULT_ON_CHIP, Lanes, LowerOptions, LoweredParam, lower};

fn examples() -> Module {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples/vectorize_examples.kir");
    ir_core::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap().0
}

/// A deterministic stream of small floats (ir-gen's SplitMix64).
struct Floats(ir_gen::SplitMix64);

impl Floats {
    fn new(seed: u64) -> Floats {
        Floats(ir_gen::SplitMix64::new(seed))
    }

    fn next(&mut self) -> f32 {
        use ir_gen::Source;
        (self.0.choose(1 << 24) as f32 / (1u64 << 24) as f32 - 0.5) * 64.0
    }
}

/// Runs the lowered function on `cores` cores; returns cycles and the
/// report's cores line.
fn run_on(module: &Module, func: ir_core::FuncId, args: &[Imm], cores: u32) -> (u64, String) {
    let options =
        DiffOptions { compile: CompileOptions { cores, ..CompileOptions::default() }, ..DiffOptions::default() };
    let r = run(module, func, args, &options).unwrap();
    assert!(r.verdict.is_equal(), "{cores} cores: {:?}", r.verdict);
    assert!(r.interpreted.is_ok(), "{:?}", r.interpreted);
    (r.stats.unwrap().cycles, r.compiled.report.cores.clone())
}

#[test]
fn p_vectorized_over_a_hundred_thousand_lanes_runs_equal() {
    let m = examples();
    let imp = import_function(&m, m.function_by_name("p").unwrap()).unwrap();
    let v = vectorize::vectorize(&imp.graph, imp.func, &[true, true, true]).unwrap();
    let options = LowerOptions { lanes: Lanes::Fixed(100_000), elements: 0, on_chip_bytes: DEFAULT_ON_CHIP };
    let mut l = lower(&v.graph, v.func, options).unwrap();
    let mut rng = Floats::new(17);
    for p in l.params.clone() {
        let LoweredParam::Lanes(mem) = p else { panic!("p takes three arrays") };
        let values: Vec<Imm> = (0..100_000).map(|_| Imm::f32(rng.next())).collect();
        l.module.set_mem_init(mem, values);
    }
    let (one, why1) = run_on(&l.module, l.func, &[], 1);
    let (four, why4) = run_on(&l.module, l.func, &[], 4);
    eprintln!("p over 10^5 lanes: {one} cycles on one core ({why1}), {four} on four ({why4})");
    assert!(why4.starts_with("4 cores"), "{why4}");
    assert!(four < one);
}

#[test]
fn mean_over_a_nested_array_runs_equal() {
    let m = examples();
    let imp = import_function(&m, m.function_by_name("mean").unwrap()).unwrap();
    let v = vectorize::vectorize(&imp.graph, imp.func, &[true]).unwrap();
    let options =
        LowerOptions { lanes: Lanes::Dynamic { capacity: 1024 }, elements: 65_536, on_chip_bytes: DEFAULT_ON_CHIP };
    let mut l = lower(&v.graph, v.func, options).unwrap();
    // 1,000 rows of 0 to 64 elements (an empty row's mean is 0 / 0).
    let mut rng = Floats::new(5);
    let (mut data, mut offsets) = (Vec::new(), vec![Imm::int(Type::I64, 0)]);
    for _ in 0..1000 {
        let len = (rng.next().abs() as usize) % 65;
        data.extend((0..len).map(|_| Imm::f32(rng.next())));
        offsets.push(Imm::int(Type::I64, data.len() as i64));
    }
    let Some(&LoweredParam::Rows { data: d, offsets: o }) = l.params.first() else { panic!("mean takes rows") };
    l.module.set_mem_init(d, data);
    l.module.set_mem_init(o, offsets);
    let lanes = [Imm::int(Type::I64, 1000)];
    let (one, _) = run_on(&l.module, l.func, &lanes, 1);
    let (four, why4) = run_on(&l.module, l.func, &lanes, 4);
    eprintln!("mean over 1000 rows: {one} cycles on one core, {four} on four ({why4})");
}
