//! The plain entry points: seeded modules verify, round-trip and are
//! deterministic; an empty input gives the simplest program; nothing that
//! can trap is ever emitted; and a 200 000-block module generates on a
//! 2 MiB stack (no recursion per block).

mod common;

use common::{all_insts, assert_verifies, round_trip};
use ir_core::text::print_module;
use ir_core::{Arg, Callee, Format, Opcode, Slot};
use ir_gen::{GenConfig, Generated, generate, generate_from_bytes};

fn configs() -> Vec<GenConfig> {
    vec![
        GenConfig::default(),
        GenConfig { blocks: 1, ..GenConfig::default() },
        GenConfig { blocks: 2, vars: 1, functions: 3, ..GenConfig::default() },
        GenConfig {
            blocks: 300,
            vars: 60,
            functions: 5,
            memory: 0.5,
            predication: 0.5,
            phis: 0.5,
            ..GenConfig::default()
        },
        GenConfig {
            blocks: 120,
            max_depth: 6,
            max_trips: 5,
            irreducible: 0.5,
            unreachable: 0.3,
            ..GenConfig::default()
        },
        GenConfig {
            blocks: 50,
            max_depth: 0,
            max_trips: 0,
            memory: 1.0,
            predication: 1.0,
            phis: 1.0,
            ..GenConfig::default()
        },
        GenConfig {
            blocks: 40,
            vars: 0,
            defs_per_var: f64::NAN,
            predication: -1.0,
            memory: 2.0,
            irreducible: f64::INFINITY,
            functions: 0,
            max_depth: 99,
            max_trips: 1,
            unreachable: 1.0,
            phis: 0.5,
            exact_memory: false,
            tiles: f64::NAN,
            symbolic: -3.0,
            extern_calls: 0.0,
            mlu_expressible: false,
            shared_memory: false,
            invariants: 0.0,
            loops: 0.0,
        },
    ]
}

fn blocks(g: &Generated) -> usize {
    g.module.functions().map(|(_, f)| f.layout().num_blocks()).sum()
}

#[test]
fn seeded_modules_verify_round_trip_and_repeat() {
    for config in configs() {
        for seed in [0, 1, 2, 3, 42, u64::MAX] {
            let g = generate(&config, seed);
            assert_verifies(&g);
            let text = round_trip(&g.module);
            let again = generate(&config, seed);
            assert_eq!(print_module(&again.module), text, "seed {seed} is not deterministic");
            assert_eq!(again.fuel, g.fuel);
            assert_eq!(blocks(&g), config.blocks.max(config.functions).max(1), "{config:?}");
        }
        // Different seeds give different programs.
        let a = print_module(&generate(&config, 5).module);
        let b = print_module(&generate(&config, 6).module);
        assert!(config.blocks <= 2 || a != b);
    }
}

#[test]
fn empty_input_gives_the_simplest_program() {
    let config = GenConfig { blocks: 10, vars: 8, ..GenConfig::default() };
    let g = generate_from_bytes(&config, &[]);
    assert_verifies(&g);
    assert_eq!(generate_from_bytes(&config, &[0; 4096]).fuel, g.fuel);
    let text = print_module(&g.module);
    // Straight-line: no branches, guards, phis or memory instructions; no params, no results.
    for word in ["br ", "switch", "@%", "@!", "phi", "load", "store", "call"] {
        assert!(!text.contains(word), "{word} in\n{text}");
    }
    assert!(text.contains("func @main() {"), "{text}");
    assert!(text.contains("    %v7 = const 0\n    jump bb1\nbb1:\n    %v0 = const 0\n    jump bb2\n"), "{text}");
    // Eight definitions, nine blocks of (one instruction + jump), one `ret`.
    assert_eq!(g.fuel, 8 + 2 * 9 + 1);
}

/// Static half of trap-freedom: only total operations are emitted.
#[test]
fn nothing_that_can_trap_is_emitted() {
    let config = GenConfig {
        blocks: 400,
        vars: 40,
        functions: 4,
        memory: 0.6,
        predication: 0.3,
        irreducible: 0.3,
        unreachable: 0.2,
        phis: 0.3,
        ..GenConfig::default()
    };
    for seed in 0..8 {
        let g = generate(&config, seed);
        let ids: Vec<_> = g.module.function_ids().collect();
        for (f, inst) in all_insts(&g.module) {
            let op = f.opcode(inst);
            assert!(!matches!(op, Opcode::Fptosi | Opcode::Fptoui | Opcode::Intrinsic | Opcode::Trap), "{op} emitted");
            if matches!(op, Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem) {
                let Some(Arg::Imm(d)) = f.arg(f.operands(inst)[1]) else { panic!("{op} by a var") };
                assert!(!matches!(d.as_i64(), 0 | -1), "{op} by {}", d.as_i64());
            }
            if op == Opcode::Tdiv {
                let elem = f.tensor_slots(inst).iter().find_map(|s| match s {
                    Slot::Desc(d) => g.module.mem(d.mem).map(|o| o.elem),
                    Slot::Scalar(_) => None,
                });
                assert!(elem.is_some_and(|t| t.is_float()), "integer tdiv");
            }
            if op.format() == Format::Call {
                let Some(Callee::Func(callee)) = f.callee(inst) else { panic!("call to an extern") };
                let caller = ids.iter().position(|&id| g.module.function(id).is_some_and(|h| h.name() == f.name()));
                let callee = ids.iter().position(|&id| id == callee);
                assert!(callee > caller, "call from function {caller:?} to {callee:?}");
            }
        }
        assert_eq!(g.module.externs().len(), 0);
    }
}

#[test]
fn two_hundred_thousand_blocks_on_a_small_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let config = GenConfig { blocks: 200_000, vars: 1000, functions: 3, ..GenConfig::default() };
            let g = generate(&config, 2024);
            assert_eq!(blocks(&g), 200_000);
            ir_core::verify_module(&g.module, &ir_core::VerifyOptions::default()).expect("valid");
            g.fuel
        })
        .expect("spawn");
    let fuel = worker.join().expect("no stack overflow or panic");
    assert!(fuel >= 200_000);
}
