//! Shared program shapes for Keel's criterion benchmarks.
//!
//! The benchmarks themselves live in `benches/benches/*.rs`; run one with
//! `cargo bench -p benches --bench NAME`. Shapes are deterministic so that
//! runs compare like with like.

#![deny(missing_docs)]

use ir_core::{Arg, Function, FunctionBuilder, IntCC, Module, Opcode, Signature, Type};

/// A function of `blocks` blocks shaped as a ladder: a chain of diamonds,
/// each rung a conditional branch, two arms and a join with a phi-free
/// update of a handful of vars (the shape long straight-line code with
/// branches has after inlining). Every block has a few instructions.
pub fn ladder(module: &mut Module, name: &str, blocks: usize) -> ir_core::FuncId {
    let f = module
        .add_function(name, Signature::new([Type::I64, Type::I1], [Type::I64]), &["n", "q"])
        .expect("fresh module name");
    let func: &mut Function = module.function_mut(f).expect("just added");
    let mut b = FunctionBuilder::new(func);
    let (n, q) = (b.param(0).expect("param"), b.param(1).expect("param"));
    let x = b.var("x", Type::I64);
    let y = b.var("y", Type::I64);
    let p = b.var("p", Type::I1);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.ins().copy(x, n);
    b.ins().constant(y, 1i64);
    let rungs = blocks.saturating_sub(2) / 3;
    let mut cur = entry;
    for i in 0..rungs {
        let (left, right, join) = (b.create_block(), b.create_block(), b.create_block());
        b.switch_to_block(cur);
        b.ins().setp(IntCC::Slt, p, x, i as i64);
        b.ins().br(q, left, right);
        b.switch_to_block(left);
        b.ins().binary(Opcode::Add, x, x, y);
        b.ins().when(p).binary(Opcode::Mul, y, y, 3i64);
        b.ins().jump(join);
        b.switch_to_block(right);
        b.ins().binary(Opcode::Sub, y, y, x);
        b.ins().jump(join);
        b.switch_to_block(join);
        b.ins().binary(Opcode::Xor, x, x, y);
        cur = join;
    }
    let exit = b.create_block();
    b.switch_to_block(cur);
    b.ins().jump(exit);
    b.switch_to_block(exit);
    b.ins().ret(&[Arg::Var(x)]);
    f
}
