//! The compiler on its own (the simulator-side checks are the differential
//! tests beside this file, through `target_mlu::differential`):
//! compiled programs verify and round-trip through text, compiles are
//! deterministic, every construct the ISA cannot express is an error
//! naming it, capacity errors name the objects, the allocator spills when
//! GPRs run short and the checker accepts the result.

use mlu_isa::{MachineConfig, text, verify};
use target_mlu::compile::{AllocatorChoice, CompileOptions, compile};

fn compile_text(src: &str, config: &MachineConfig) -> Result<target_mlu::compile::Compiled, String> {
    let (m, _) = ir_core::text::parse(src).map_err(|d| format!("{d:?}"))?;
    let f = m.function_ids().next().unwrap();
    let options = CompileOptions { check: true, ..CompileOptions::default() };
    compile(&m, f, config, &options).map_err(|e| e.to_string())
}

fn examples() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/examples");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .collect();
    v.sort();
    v.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

#[test]
fn compiled_examples_verify_round_trip_and_are_deterministic() {
    let config = MachineConfig::mlu370();
    let mut n = 0;
    for src in examples() {
        let (m, _) = ir_core::text::parse(&src).unwrap();
        for f in m.function_ids() {
            let Ok(c) = compile(&m, f, &config, &CompileOptions::default()) else { continue };
            verify(&c.program, &config).unwrap_or_else(|e| panic!("{e:?}"));
            let printed = text::print_program(&c.program);
            assert_eq!(text::parse(&printed).unwrap().0, c.program);
            let again = compile(&m, f, &config, &CompileOptions::default()).unwrap();
            assert_eq!(text::print_program(&again.program), printed);
            n += 1;
        }
    }
    assert_eq!(n, 11, "every docs/examples function but @vector2 (it calls externs)");
}

#[test]
fn inexpressible_constructs_are_errors_naming_them() {
    let config = MachineConfig::mlu370();
    let cases = [
        (
            "extern @e(i32) -> i32\n\nfunc @f(%a: i32) -> i32 {\nbb0:\n    %a = call @e(%a)\n    ret %a\n}\n",
            "`call @e`",
        ),
        (
            "func @f() -> i32 {\n    var %x: i32\nbb0:\n    %x = intrinsic \"clock\"()\n    ret %x\n}\n",
            "intrinsic \"clock\"",
        ),
        ("mem @w: i8[64] wram\n\nfunc @f() {\nbb0:\n    store @w[0], 1\n    ret\n}\n", "store @w"),
        (
            "mem @w: f32[64] wram\nmem @n: f32[64] nram\n\nfunc @f() {\nbb0:\n    tadd @n[0, 64], @w[0, 64], 1.0\n    ret\n}\n",
            "WRAM",
        ),
        (
            "mem @w: f32[64] wram\nmem @x: f32[64] dram\n\nfunc @f(%i: i64) {\nbb0:\n    dma @w[%i, 16], @x[0, 16]\n    ret\n}\n",
            "WRAM destination",
        ),
        (
            "mem @w: f32[64] wram\nmem @x: f32[64] dram\n\nfunc @f() {\nbb0:\n    dma @w[4, 16], @x[0, 16]\n    ret\n}\n",
            "aligned to 64 bytes",
        ),
        ("mem @b: i1[64] nram\n\nfunc @f() {\nbb0:\n    tfill @b[0, 64], 1\n    ret\n}\n", "i1"),
        (
            "func @f(%n: i32) -> i32 {\nbb0:\n    %n = call @g(%n)\n    ret %n\n}\n\nfunc @g(%n: i32) -> i32 {\nbb0:\n    %n = call @f(%n)\n    ret %n\n}\n",
            "recursive",
        ),
    ];
    for (src, want) in cases {
        let e = compile_text(src, &config).expect_err(src);
        assert!(e.contains(want), "{src}\n{e}");
        assert!(e.contains("@f, bb0") || e.contains("recursive"), "{e}");
    }
}

#[test]
fn capacity_errors_name_every_object_and_size() {
    let src = "mem @big: f32[150000] nram\nmem @more: f32[50000] nram\n\nfunc @f() {\nbb0:\n    tfill @big[0, 64], 1.0\n    ret\n}\n";
    let e = compile_text(src, &MachineConfig::mlu370()).unwrap_err();
    for want in ["nram overflows", "@big (600000 bytes", "@more (200000 bytes", "786432"] {
        assert!(e.contains(want), "{want}: {e}");
    }
    // Staging buffers shrink to make room before giving up.
    let tight = "mem @big: f32[193000] nram\n\nfunc @f() {\nbb0:\n    tfill @big[0, 64], 1.0\n    ret\n}\n";
    let c = compile_text(tight, &MachineConfig::mlu370()).unwrap();
    assert!(c.report.tile_bytes < 16384, "{}", c.report.tile_bytes);
}

#[test]
fn errors_are_typed_values_naming_the_entity() {
    use target_mlu::compile::{CompileError, Site};
    let config = MachineConfig::mlu370();
    let err = |src: &str, options: &CompileOptions, config: &MachineConfig| -> CompileError {
        let (m, _) = ir_core::text::parse(src).unwrap();
        let f = m.function_ids().next().unwrap();
        compile(&m, f, config, options).expect_err(src)
    };
    let default = CompileOptions::default();
    let src = "extern @e(i32) -> i32\n\nfunc @f(%a: i32) -> i32 {\nbb0:\n    %a = call @e(%a)\n    ret %a\n}\n";
    let CompileError::ExternalCall { at, callee } = err(src, &default, &config) else { panic!("{src}") };
    assert_eq!((at.func.as_str(), at.block, callee.as_str()), ("f", 0, "e"));
    let src = "mem @w: i8[64] wram\n\nfunc @f() {\nbb0:\n    store @w[0], 1\n    ret\n}\n";
    let e = err(src, &default, &config);
    let CompileError::ScalarWram { at: Site { ref func, .. }, op, ref object } = e else { panic!("{e}") };
    assert_eq!((func.as_str(), op, object.as_str()), ("f", ir_core::Opcode::Store, "w"));
    let src = "mem @big: f32[150000] nram\nmem @more: f32[50000] nram\n\nfunc @f() {\nbb0:\n    tfill @big[0, 64], 1.0\n    ret\n}\n";
    let CompileError::SpaceOverflow { space, used, capacity, objects } = err(src, &default, &config) else {
        panic!("{src}")
    };
    assert_eq!((space, capacity), (mlu_isa::Space::Nram, 786_432));
    assert!(used > capacity);
    let names: Vec<&str> = objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(&names[..2], ["big", "more"]);
    let src = "func @f(%a: i64) -> i64 {\nbb0:\n    ret %a\n}\n";
    let e = err(src, &CompileOptions { cores: 6, ..CompileOptions::default() }, &config);
    assert_eq!(e, CompileError::CoreCount { cores: 6, machine: 32 });
    let e = err(src, &CompileOptions { tile_bytes: Some(1000), ..CompileOptions::default() }, &config);
    assert_eq!(e, CompileError::TileSize { bytes: 1000 });
    assert_eq!(e.to_string(), "the tile size must be a multiple of 512 bytes, not 1000");
    let bad = MachineConfig { dram_granule: 48, ..config.clone() };
    let e = err(src, &default, &bad);
    assert_eq!(e, CompileError::Config(mlu_isa::ConfigError::NotPowerOfTwo { key: "dram_granule", value: 48 }));
    let source = std::error::Error::source(&e).map(|s| s.to_string());
    assert_eq!(source.as_deref(), Some("`dram_granule` = 48 must be a power of two"));
    let e = err("func @f() -> i32 {\nbb0:\n    ret\n}\n", &default, &config);
    assert!(matches!(e, CompileError::NotVerified(_)), "{e}");
    assert!(e.to_string().starts_with("the module does not verify:\n"), "{e}");
}

#[test]
fn few_registers_mean_spills_that_the_checker_accepts() {
    // 40 values live at once, more than 16 GPRs hold.
    let src = target_mlu::fuzzing::register_pressure(40);
    let config = MachineConfig::parse("base = mlu370\ngprs = 16\n").unwrap();
    let (m, _) = ir_core::text::parse(&src).unwrap();
    let f = m.function_by_name("f").unwrap();
    for allocator in [AllocatorChoice::Pebble, AllocatorChoice::Home] {
        let options = CompileOptions { allocator, check: true, ..CompileOptions::default() };
        let c = compile(&m, f, &config, &options).unwrap();
        assert!(c.report.spill_slots > 0 && c.report.spill_code > 0, "{allocator:?}: {:?}", c.report);
        verify(&c.program, &config).unwrap();
    }
}

#[test]
fn a_block_longer_than_the_pebble_limit_falls_back_to_homes_and_says_so() {
    // One block of 600 additions over 50 vars: past PebbleAllocator's
    // default limit of 512 virtual instructions per block.
    let mut src = String::from("func @f(%a: i64) -> i64 {\n");
    for i in 0..50 {
        src.push_str(&format!("    var %v{i}: i64\n"));
    }
    src.push_str("bb0:\n");
    for i in 0..600 {
        src.push_str(&format!("    %v{} = add %v{}, %a\n", i % 50, (i * 7 + 3) % 50));
    }
    src.push_str("    ret %v0\n}\n");
    let config = MachineConfig::mlu370();
    let c = compile_text(&src, &config).unwrap();
    assert!(c.report.allocator.starts_with("home: a block of"), "{}", c.report.allocator);
    verify(&c.program, &config).unwrap();
    let small = compile_text("func @f(%a: i64) -> i64 {\nbb0:\n    %a = add %a, 1\n    ret %a\n}\n", &config).unwrap();
    assert_eq!(small.report.allocator, "regalloc-pebble");
    let mut text = Vec::new();
    small.report.write_text(&mut text).unwrap();
    assert!(String::from_utf8(text).unwrap().contains("; registers (regalloc-pebble): "));
}
