//! Every `docs/examples` program the ISA expresses compiles, and the
//! simulator gives the interpreter's results and final memory, on several
//! argument sets per function.

use ir_core::{Imm, Module, Type};
use target_mlu::differential::{DiffOptions, Verdict, run};

fn examples() -> Vec<(String, Module)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let (m, _) = ir_core::text::parse(&text).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), m)
        })
        .collect()
}

/// Small integers (so loops and sizes stay in range), varied floats.
fn args(module: &Module, f: ir_core::FuncId, seed: u64) -> Vec<Imm> {
    let sig = module.function(f).unwrap().signature().params.clone();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
    sig.iter()
        .map(|&t| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match t {
                Type::F32 => Imm::f32((x % 2001) as f32 / 8.0 - 125.0),
                Type::F64 => Imm::f64((x % 2001) as f64 / 8.0 - 125.0),
                Type::I1 => Imm::bool(x.is_multiple_of(2)),
                t => Imm::int(t, (x % 70) as i64),
            }
        })
        .collect()
}

#[test]
fn every_expressible_example_runs_equal() {
    let mut compiled = 0;
    let mut refused = Vec::new();
    let mut equal_runs = 0;
    for (file, module) in examples() {
        for (f, func) in module.functions() {
            let name = format!("{file}:@{}", func.name());
            for seed in 0..6 {
                let a = args(&module, f, seed);
                match run(&module, f, &a, &DiffOptions::default()) {
                    Ok(r) => {
                        assert!(!matches!(r.verdict, Verdict::Differ(_)), "{name} on {a:?}: {:?}", r.verdict);
                        if r.verdict.is_equal() {
                            equal_runs += 1;
                        }
                        if seed == 0 {
                            compiled += 1;
                        }
                    }
                    Err(e) => {
                        if seed == 0 {
                            refused.push(format!("{name}: {e}"));
                        }
                    }
                }
            }
        }
    }
    eprintln!("{compiled} example functions compile; {equal_runs} runs equal; refused: {refused:#?}");
    // memdep_vector2.kir calls externs, which no machine runs; the rest compiles.
    assert!(refused.iter().all(|r| r.contains("external")), "{refused:#?}");
    // 12 functions in 11 files: all but @vector2 compile.
    assert_eq!((compiled, refused.len()), (11, 1), "{refused:#?}");
    assert!(equal_runs >= 40, "{equal_runs}");
}
