//! Fused tensor DAGs (`target-mlu`'s `fuse`) against the interpreter:
//! random runs of two to six maps over a few objects, each object at one
//! offset, with random operations, sources, scalars and contents, at two
//! tile sizes and on one and four cores. A planted bug (short result
//! tiles) in the fused path is caught.

use ir_core::Imm;
use ir_gen::{Source, SplitMix64};
use target_mlu::compile::CompileOptions;
use target_mlu::differential::{DiffOptions, Verdict, run};
use target_mlu::fuzzing::{Bug, with_bug};

const BINARY: [&str; 6] = ["tadd", "tsub", "tmul", "tmin", "tmax", "tdiv"];
const UNARY: [&str; 3] = ["tneg", "tabs", "trelu"];

/// A random fusable run as Keel IR text; `shared` keeps every object in
/// DRAM (for four cores).
fn program(rng: &mut SplitMix64, shared: bool) -> String {
    let len = [100u64, 700, 5000][rng.choose(3) as usize];
    let n = 1 + rng.choose(len / 2);
    let objects = 2 + rng.choose(3) as usize;
    let mut text = String::new();
    let mut descs = Vec::new();
    for k in 0..objects {
        let space = if !shared && rng.choose(4) == 0 { "nram" } else { "dram" };
        let values: Vec<String> =
            (0..rng.choose(40)).map(|_| format!("{:.2}", rng.choose(2000) as f64 / 100.0 - 10.0)).collect();
        let init = if values.is_empty() { String::new() } else { format!(" = [{}]", values.join(", ")) };
        text.push_str(&format!("mem @o{k}: f32[{len}] {space}{init}\n"));
        descs.push(format!("@o{k}[{}, {n}]", rng.choose(len - n + 1)));
    }
    text.push_str("\nfunc @f(%a: f32) -> f32 {\n    var %s: f32\nbb0:\n");
    for _ in 0..2 + rng.choose(5) {
        let dst = descs[rng.choose(objects as u64) as usize].clone();
        let a = descs[rng.choose(objects as u64) as usize].clone();
        let (b, c) = (source(rng, &descs), source(rng, &descs));
        let line = match rng.choose(10) {
            0..=5 => format!("{} {dst}, {a}, {b}", BINARY[rng.choose(6) as usize]),
            6 | 7 => format!("{} {dst}, {a}", UNARY[rng.choose(3) as usize]),
            8 => format!("tfma {dst}, {a}, {b}, {c}"),
            _ => format!("tfill {dst}, {}", if rng.choose(2) == 0 { "%a".to_string() } else { "2.5".to_string() }),
        };
        text.push_str(&format!("    {line}\n"));
    }
    text.push_str(&format!("    %s = tsum {}\n    ret %s\n}}\n", descs[0]));
    text
}

/// A source operand: a descriptor, the parameter or a constant.
fn source(rng: &mut SplitMix64, descs: &[String]) -> String {
    match rng.choose(5) {
        0 => "%a".into(),
        1 => format!("{:.1}", rng.choose(40) as f64 / 4.0 - 5.0),
        _ => descs[rng.choose(descs.len() as u64) as usize].clone(),
    }
}

/// Runs `count` programs; returns (fused, differ) counts.
fn sweep(count: u64, cores: u32, plant: Option<Bug>) -> (u64, u64) {
    let (mut fused, mut differ) = (0, 0);
    let mut rng = SplitMix64::new(11 + u64::from(cores));
    for seed in 0..count {
        let src = program(&mut rng, cores > 1);
        let (module, _) = ir_core::text::parse(&src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
        let f = module.function_by_name("f").unwrap();
        let tile_bytes = if seed % 2 == 0 { Some(512) } else { None };
        let compile = CompileOptions { tile_bytes, cores, check: true, ..CompileOptions::default() };
        let options = DiffOptions { compile, cycles: seed % 8 == 0, ..DiffOptions::default() };
        let r = match plant {
            Some(bug) => with_bug(bug, || run(&module, f, &[Imm::f32(1.25)], &options)),
            None => run(&module, f, &[Imm::f32(1.25)], &options),
        };
        let r = r.unwrap_or_else(|e| panic!("{e}\n{src}"));
        fused += u64::from(r.compiled.report.buffering.iter().any(|b| b.contains("fused")));
        match r.verdict {
            Verdict::Equal => {}
            Verdict::Differ(d) if plant.is_some() => differ += u64::from(!d.is_empty()),
            v => panic!("{v:?}\n{src}"),
        }
    }
    (fused, differ)
}

#[test]
fn fused_runs_of_maps_run_equal_on_one_core() {
    let (fused, _) = sweep(150, 1, None);
    eprintln!("150 random map runs on one core: {fused} fused, all equal");
    assert!(fused >= 100, "{fused}");
}

#[test]
fn fused_runs_of_maps_run_equal_on_four_cores() {
    let (fused, _) = sweep(100, 4, None);
    eprintln!("100 random map runs on four cores: {fused} fused, all equal");
    assert!(fused >= 70, "{fused}");
}

#[test]
fn a_short_result_tile_in_the_fused_path_is_caught() {
    let (fused, differ) = sweep(40, 1, Some(Bug::ShortResultTile));
    eprintln!("short result tiles: {differ} of 40 fused-map programs differ ({fused} fused)");
    assert!(differ >= 10, "{differ}");
}
