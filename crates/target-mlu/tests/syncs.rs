//! The sync-removal oracle on every kernel: the compiled code is race-free
//! (the simulator's race detector, error mode), and removing any one of
//! the syncs placed from `memdep`'s dependences makes the detector fire on
//! at least one argument set — no sync is redundant. The naive policy's
//! syncs are counted beside them (many of those are redundant).

use ir_core::{Imm, Type};
use mlu_isa::MachineConfig;
use target_mlu::compile::{CompileOptions, compile};
use target_mlu::differential::{DiffOptions, SyncRemoval, run, sync_removals};

/// What the sync-removal oracle found for one compile.
struct Found {
    syncs: usize,
    executed: usize,
    needed: usize,
    /// Executed syncs whose removal never fires, with their code.
    unneeded: Vec<String>,
}

/// Every sync of `src`'s first function, compiled with `options`, removed
/// in turn on every argument set.
fn removals(src: &str, argsets: &[Vec<Imm>], options: &CompileOptions) -> Found {
    let (module, _) = ir_core::text::parse(src).unwrap_or_else(|d| panic!("{d:?}"));
    let f = module.function_ids().next().unwrap();
    let config = MachineConfig::mlu370();
    let compiled = compile(&module, f, &config, options).unwrap();
    let mut fired: Vec<SyncRemoval> = Vec::new();
    for args in argsets {
        // The unmodified program is equal to the interpreter and race-free.
        let diff = DiffOptions { compile: options.clone(), cycles: false, ..DiffOptions::default() };
        let r = run(&module, f, args, &diff).unwrap();
        assert!(r.verdict.is_equal(), "{args:?}: {:?}", r.verdict);
        let got = sync_removals(&compiled, args, &config, 1_000_000_000).unwrap();
        if fired.is_empty() {
            fired = got;
        } else {
            for (f, g) in fired.iter_mut().zip(got) {
                f.executed |= g.executed;
                f.fired |= g.fired;
            }
        }
    }
    let p = &compiled.program;
    let window = |k: usize| {
        let mut text = format!("--- sync at {k}:\n");
        for j in k.saturating_sub(8)..(k + 3).min(p.insts.len()) {
            text.push_str(&format!("{j:>6}  {}\n", mlu_isa::text::inst_text(p, &p.insts[j])));
        }
        text
    };
    Found {
        syncs: fired.len(),
        executed: fired.iter().filter(|f| f.executed).count(),
        needed: fired.iter().filter(|f| f.fired).count(),
        unneeded: fired.iter().filter(|f| f.executed && !f.fired).map(|f| window(f.at)).collect(),
    }
}

/// Both policies on one kernel: the memdep-placed syncs the inputs execute
/// are all needed but `conservative` of them (which the path-insensitive
/// placement keeps; see the callers). Returns both findings.
fn both(name: &str, src: &str, argsets: &[Vec<Imm>], tile_bytes: Option<u64>, conservative: usize) -> (Found, Found) {
    let dep = CompileOptions { tile_bytes, check: true, ..CompileOptions::default() };
    let naive = CompileOptions { tile_bytes, check: true, ..CompileOptions::naive() };
    let d = removals(src, argsets, &dep);
    let n = removals(src, argsets, &naive);
    eprintln!(
        "{name}: memdep-placed: {} syncs, {} executed, {} needed; naive: {} syncs, {} executed, {} needed",
        d.syncs, d.executed, d.needed, n.syncs, n.executed, n.needed
    );
    assert_eq!(d.unneeded.len(), conservative, "executed syncs never needed:\n{}", d.unneeded.concat());
    (d, n)
}

fn kernel(name: &str) -> String {
    std::fs::read_to_string(format!("{}/kernels/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn every_sync_of_the_figure_kernels_is_needed() {
    let (d, n) = both("saxpy_1m", &kernel("saxpy_1m.kir"), &[vec![Imm::f32(2.0)]], None, 0);
    assert!(n.needed < n.executed && d.needed == d.executed);
    both("matmul_256", &kernel("matmul_256.kir"), &[vec![]], None, 0);
    both("p_vectorized_100k", &kernel("p_vectorized_100k.kir"), &[vec![]], None, 0);
}

#[test]
fn every_sync_of_the_tensor_corner_cases_is_needed_but_three() {
    let mut sets = Vec::new();
    for (off, n) in [(1, 499), (7, 300), (200, 200), (0, 500)] {
        sets.push(vec![Imm::int(Type::I64, off), Imm::int(Type::I64, n), Imm::f32(0.75)]);
    }
    let src = kernel("tensor_corners.kir");
    // Three syncs are conservative: `tadd @x[%off, %n], ...` copies its
    // overlapping source and runs its tiles only when %n is not 0; the
    // path-insensitive placement also sees the path that skips the copy
    // (%n = 0) and then runs the tiles, or the later copy loops over %n
    // elements, with the preceding `tfill`'s last SRAM copy still in
    // flight from the buffer they write. No input makes them needed. (512-byte tiles: every loop
    // runs several tiles, so the syncs of its back edges execute too.)
    both("tensor_corners (512-byte tiles)", &src, &sets, Some(512), 3);
}
#[test]
fn every_sync_of_a_mixed_scalar_and_tensor_kernel_is_needed() {
    // Scalar loads and stores of objects that copies write and read.
    let src = "\
mem @x: f32[4096] dram = [1.0, 2.0, 3.0, -4.0]
mem @y: f32[4096] dram = [0.5, 0.25]
mem @z: i32[512] nram = [5, 6, 7]

func @k(%a: f32, %i: i64) -> f32, i32 {
    var %s: f32
    var %e: f32
    var %w: i32
bb0:
    tfma @y[0, 4096], @x[0, 4096], %a, @y[0, 4096]
    %e = load @y[%i]
    store @x[%i], %e
    %s = tsum @x[0, 4096]
    tadd @z[0, 512], @z[0, 512], 3
    %w = load @z[%i]
    ret %s, %w
}
";
    let sets: Vec<Vec<Imm>> = [0, 3, 511, 4095].iter().map(|&i| vec![Imm::f32(1.5), Imm::int(Type::I64, i)]).collect();
    both("mixed", src, &sets, Some(4096), 0);
}

#[test]
fn a_long_run_of_independent_copies_is_bounded_and_race_free() {
    // 80 copies into distinct NRAM objects, then reads of each: the pass
    // syncs the IO pipe once 64 copies are in flight (before the 65th),
    // and again before the first read of a copy still in flight (the
    // 65th's). Without the first, the read of the first copy races.
    let mut src = String::from("mem @x: f32[64] dram = [1.0, 2.0, 3.0]\n");
    for k in 0..80 {
        src.push_str(&format!("mem @n{k}: f32[64] nram\n"));
    }
    src.push_str("\nfunc @f() -> f32 {\n    var %s: f32\n    var %t: f32\nbb0:\n");
    for k in 0..80 {
        src.push_str(&format!("    dma @n{k}[0, 64], @x[0, 64]\n"));
    }
    src.push_str("    %s = const 0.0\n");
    for k in 0..80 {
        src.push_str(&format!("    %t = load @n{k}[{}]\n    %s = fadd %s, %t\n", k % 3));
    }
    src.push_str("    ret %s\n}\n");
    let (d, _) = both("80 copies", &src, &[vec![]], None, 0);
    assert_eq!((d.syncs, d.needed), (2, 2));
}

/// `removals` for a kernel split over `cores` cores: syncs and barriers.
fn split_removals(name: &str, src: &str, argsets: &[Vec<Imm>], cores: u32, conservative: usize) -> Found {
    let options = CompileOptions { cores, check: true, ..CompileOptions::default() };
    let d = removals(src, argsets, &options);
    eprintln!("{name} on {cores} cores: {} syncs and barriers, {} executed, {} needed", d.syncs, d.executed, d.needed);
    assert_eq!(d.unneeded.len(), conservative, "executed syncs never needed:\n{}", d.unneeded.concat());
    d
}

#[test]
fn every_sync_and_barrier_of_split_kernels_is_needed() {
    split_removals("saxpy_1m", &kernel("saxpy_1m.kir"), &[vec![Imm::f32(2.0)]], 4, 0);
    // A map, a reduction over what it wrote (a barrier, then partials
    // through SRAM and a barrier), a scalar load of a mapped element (a
    // barrier), a scalar store (core 0's) and a map reading it (a barrier).
    let src = "\
mem @x: f32[8192] dram = [1.0, 2.0, 3.0, -4.0]
mem @y: i32[8192] dram = [5, 6, 7]

func @k(%a: f32, %i: i64) -> f32, i32, i32 {
    var %e: f32
    var %m: i32
    var %s: i32
bb0:
    tmul @x[0, 8192], @x[0, 8192], %a
    tadd @y[0, 8192], @y[0, 8192], 3
    %m = tredmax @y[0, 8192]
    %e = load @x[%i]
    store @y[%i], i32 -9
    tadd @y[0, 8192], @y[0, 8192], 1
    %s = tsum @y[0, 8192]
    ret %e, %m, %s
}
";
    let sets: Vec<Vec<Imm>> = [0, 4100, 8191].iter().map(|&i| vec![Imm::f32(1.5), Imm::int(Type::I64, i)]).collect();
    let d = split_removals("split mix", src, &sets, 4, 0);
    assert!(d.needed >= 6, "{}", d.needed);
    // Two clusters: global barriers, partials in DRAM.
    let d = split_removals("split mix", src, &sets, 8, 0);
    assert!(d.needed >= 6, "{}", d.needed);
}
