//! A 10^6-block function prints, parses and verifies (both levels) on a
//! thread with a 2 MiB stack: nothing in ir-core recurses on input size.

use ir_core::text::{parse, print_module};
use ir_core::{Arg, FunctionBuilder, IntCC, Module, Opcode, Signature, Type, VerifyOptions, verify_module};

const BLOCKS: usize = 1_000_000;

/// A chain of `BLOCKS` blocks, every fourth a loop back to its predecessor,
/// each block updating vars, some under a guard.
fn chain() -> Module {
    let mut m = Module::new();
    let f = m.add_function("chain", Signature::new([Type::I64], [Type::I64]), &["n"]).expect("fresh");
    let func = m.function_mut(f).expect("exists");
    let mut b = FunctionBuilder::new(func);
    let n = b.param(0).expect("param");
    let x = b.var("x", Type::I64);
    let p = b.var("p", Type::I1);
    let blocks: Vec<_> = (0..BLOCKS).map(|_| b.create_block()).collect();
    for (i, &blk) in blocks.iter().enumerate() {
        b.switch_to_block(blk);
        if i == 0 {
            b.ins().copy(x, n);
        }
        b.ins().setp(IntCC::Slt, p, x, i as i64);
        b.ins().when(p).binary(Opcode::Add, x, x, 1i64);
        match blocks.get(i + 1) {
            Some(&next) if i % 4 == 3 => b.ins().br(p, blocks[i - 1], next),
            Some(&next) => b.ins().jump(next),
            None => b.ins().ret(&[Arg::Var(x)]),
        };
    }
    m
}

#[test]
fn million_block_chain_on_a_small_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let m = chain();
            verify_module(&m, &VerifyOptions::default()).expect("valid");
            // Not SSA (x and p have many definitions); the SSA level must
            // still finish and report that, not overflow.
            let errs = verify_module(&m, &VerifyOptions { ssa: true }).expect_err("not SSA");
            let count = |k| errs.0.iter().filter(|e| e.kind == k).count();
            assert_eq!(count(ir_core::ErrorKind::MultipleDefinitions), 2);
            // Every guarded definition lacks the fallback SSA form needs.
            assert_eq!(count(ir_core::ErrorKind::MissingFallback), BLOCKS);
            let text = print_module(&m);
            let (m2, smap) = parse(&text).expect("parses");
            assert_eq!(m2.function(m2.function_ids().next().expect("one")).expect("f").layout().num_blocks(), BLOCKS);
            verify_module(&m2, &VerifyOptions::default()).expect("valid");
            assert_eq!(print_module(&m2), text);
            drop(smap);
        })
        .expect("spawn");
    worker.join().expect("no stack overflow or panic");
}
