//! One function, start to end: the entry block, the regions that fill the
//! block budget, the return block (with the early exits patched to it), the
//! unreachable blocks after it, the phis, and the dedicated vars' defining
//! constants; and the function's fuel bound.
//!
//! Invariants: the function gets exactly its block budget (the entry block,
//! the regions, and the unreachable blocks reserved among them, whose last
//! open tail is the return block); choices are decoded in a fixed order
//! (pool types, pool constants, regions, the return block's phis and
//! values, unreachable blocks, phis), which is what makes the printed
//! module a pure function of the source.

use crate::body::{Body, Env};
use crate::contents::conversions_into;
use crate::source::{Choices, Source};
use ir_core::{Arg, Block, Function, Type};

/// Builds the body of `func` (declared, empty) with exactly `budget` blocks
/// and `pool_size` pool vars (at least seven); returns its fuel bound.
pub(crate) fn build<S: Source + ?Sized>(
    func: &mut Function,
    src: &mut S,
    env: &Env<'_>,
    budget: usize,
    pool_size: usize,
) -> u64 {
    let convs = core::array::from_fn(|i| conversions_into(Type::ALL[i]));
    let mut body = Body::new(func, src, env, budget, pool_size, convs);
    let (entry, mut fuel) = body.entry_block();

    let (ret_block, seq) = body.sequence(0, entry, budget.max(1) - 1, true);
    fuel = fuel.saturating_add(seq);

    // The last region's exit is the return block. It may have phis even if
    // the region did not want them: early exits and unreachable blocks join
    // there.
    if ret_block != entry
        && body.joins.last().is_none_or(|&(b, _)| b != ret_block)
        && body.src.chance(body.env.knobs.phis)
    {
        let n = 1 + body.src.below(3);
        body.joins.push((ret_block, n));
        fuel = fuel.saturating_add(n as u64);
    }
    let returns = body.b.func().signature().returns.clone();
    let values: Vec<Arg> = returns.iter().map(|&t| body.arg(t)).collect();
    body.b.switch_to_block(ret_block);
    body.b.ins().ret(&values);
    fuel = fuel.saturating_add(1);
    for &inst in &body.early_exits {
        body.b.func().set_successor(inst, 0, ret_block);
    }

    body.unreachable_blocks(ret_block);
    body.add_phis();
    fuel.saturating_add(body.define_dedicated())
}

impl<S: Source + ?Sized> Body<'_, '_, S> {
    /// Emits the pending unreachable blocks after the return block. They
    /// hold random instructions and jump to the return block or to each
    /// other; nothing reachable names them.
    fn unreachable_blocks(&mut self, ret_block: Block) {
        let n = self.unreachable;
        if n == 0 {
            return;
        }
        let mut made = Vec::with_capacity(n);
        for _ in 0..n {
            made.push(self.begin_block(true).0);
        }
        for &u in &made {
            let other = made[self.src.below(n)];
            self.b.switch_to_block(u);
            match self.src.below(3) {
                0 => self.b.ins().jump(ret_block),
                1 => self.b.ins().jump(other),
                _ => {
                    let p = self.var(Type::I1);
                    self.b.ins().br(p, other, ret_block)
                }
            };
        }
    }
}
