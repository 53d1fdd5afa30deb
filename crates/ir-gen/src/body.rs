//! One function body under construction: its var pool, its dedicated vars,
//! the entry block, the return block, unreachable blocks, and the phis added
//! at the end.
//!
//! Invariants of every body built here:
//! - **Nothing is read undefined.** The entry block (which has no
//!   predecessors) defines every var of the function before anything else
//!   runs: pool vars get random constants, dedicated vars get 0.
//! - **Pool vars carry no invariant**: random instructions read and write
//!   them freely. The pool holds at least one var of every type, so any
//!   typed operand, guard, call result or `ret` value can be found.
//! - **Dedicated vars** (loop counters `%kN`, the loop test `%kc`, memory
//!   indices `%ix`, offsets `%offN`, sizes `%sz`, the switch value `%sw`) are
//!   written only by the structure that owns them, immediately before the
//!   instruction that relies on their value, and never by random
//!   instructions. That is what bounds every loop and every memory access.
//! - **Blocks are created in layout order**, so block numbers ascend down the
//!   printed function; terminators that name blocks not yet created are
//!   appended once their targets exist.
//! - **Exact block count**: a body built with budget `n` has exactly `n`
//!   blocks (reachable ones plus unreachable ones).
//! - **Deterministic**: every collection is a `Vec` walked in order.

use crate::config::{Knobs, MAX_DEPTH};
use crate::source::{Choices, Source};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Block, FuncId, Function, FunctionBuilder, Guard, Imm, Inst, InstBuilder, Mem, Opcode, Type, Var};

/// The first seven pool vars, one of every type, so every type is present.
pub(crate) const BASE_TYPES: [Type; 7] = [Type::I32, Type::I64, Type::F64, Type::I1, Type::F32, Type::I8, Type::I16];

/// Types of further pool vars and of params, weighted: mostly `i32`, `i64`
/// and `f64`, some predicates, a few `f32`, `i8`, `i16`. The first entry is
/// the answer to a zero choice.
pub(crate) const POOL_TYPES: [Type; 16] = [
    Type::I32,
    Type::I32,
    Type::I32,
    Type::I32,
    Type::I64,
    Type::I64,
    Type::I64,
    Type::I64,
    Type::F64,
    Type::F64,
    Type::F64,
    Type::I1,
    Type::I1,
    Type::F32,
    Type::I8,
    Type::I16,
];

/// Dense index of a type, for per-type tables.
pub(crate) fn ty_index(t: Type) -> usize {
    match t {
        Type::I1 => 0,
        Type::I8 => 1,
        Type::I16 => 2,
        Type::I32 => 3,
        Type::I64 => 4,
        Type::F32 => 5,
        Type::F64 => 6,
    }
}

/// A memory object as the generator sees it.
#[derive(Clone, Debug)]
pub(crate) struct MemInfo {
    pub mem: Mem,
    pub elem: Type,
    /// A power of two, at least 2 (masks and halves rely on it).
    pub len: u64,
}

/// A function the body may call, with its fuel bound.
#[derive(Clone, Debug)]
pub(crate) struct CalleeInfo {
    pub func: FuncId,
    pub params: Vec<Type>,
    pub returns: Vec<Type>,
    pub fuel: u64,
}

/// What a body needs from its module.
#[derive(Debug)]
pub(crate) struct Env<'e> {
    pub knobs: &'e Knobs,
    pub mems: &'e [MemInfo],
    pub callees: &'e [CalleeInfo],
}

/// The roles of dedicated vars (see the module invariants).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Role {
    /// The trip counter of loops and irreducible cycles at this depth.
    Counter(u32),
    /// The `i1` a loop header or cycle block branches on.
    LoopTest,
    /// A scalar `load`/`store` index.
    Index,
    /// The shared size of a tensor instruction's inexact descriptors.
    Size,
    /// The offset of the `n`-th descriptor of a tensor instruction.
    Offset(usize),
    /// The masked value a `switch` dispatches on.
    SwitchValue,
}

const MAX_SLOTS: usize = 4;
const ROLES: usize = MAX_DEPTH as usize + 4 + MAX_SLOTS;

impl Role {
    fn slot(self) -> usize {
        match self {
            Role::Counter(d) => d as usize,
            Role::LoopTest => MAX_DEPTH as usize,
            Role::Index => MAX_DEPTH as usize + 1,
            Role::Size => MAX_DEPTH as usize + 2,
            Role::SwitchValue => MAX_DEPTH as usize + 3,
            Role::Offset(n) => MAX_DEPTH as usize + 4 + n.min(MAX_SLOTS - 1),
        }
    }

    fn name_and_type(self) -> (String, Type) {
        match self {
            Role::Counter(d) => (format!("k{d}"), Type::I64),
            Role::LoopTest => ("kc".into(), Type::I1),
            Role::Index => ("ix".into(), Type::I64),
            Role::Size => ("sz".into(), Type::I64),
            Role::SwitchValue => ("sw".into(), Type::I32),
            Role::Offset(n) => (format!("off{}", n.min(MAX_SLOTS - 1)), Type::I64),
        }
    }
}

/// The state of one body being generated.
pub(crate) struct Body<'f, 'e, S: ?Sized> {
    pub src: &'e mut S,
    pub b: FunctionBuilder<'f>,
    pub env: &'e Env<'e>,
    /// Every pool var, in declaration order.
    pool: Vec<(Var, Type)>,
    /// Pool vars by [`ty_index`].
    by_type: [Vec<Var>; 7],
    /// Dedicated vars by [`Role::slot`], created on first use.
    dedicated: [Option<Var>; ROLES],
    /// Dedicated vars in creation order, for the entry block's definitions.
    dedicated_order: Vec<Var>,
    /// Legal `(conversion, source type)` pairs by destination [`ty_index`].
    pub convs: [Vec<(Opcode, Type)>; 7],
    /// `br` instructions whose successor 0 must become the return block.
    pub early_exits: Vec<Inst>,
    /// Blocks that get phis at the end, and how many.
    pub joins: Vec<(Block, usize)>,
    /// Unreachable blocks to emit after the return block.
    pub unreachable: usize,
    /// The function's block budget.
    pub budget: usize,
}

impl<'f, 'e, S: Source + ?Sized> Body<'f, 'e, S> {
    /// Starts an instruction, guarded when `g` is set.
    pub fn ins(&mut self, g: Option<Guard>) -> InstBuilder<'_, 'f> {
        match g {
            Some(g) => self.b.ins().guard(g),
            None => self.b.ins(),
        }
    }

    /// A random pool var of type `t`.
    pub fn var(&mut self, t: Type) -> Var {
        let vars = &self.by_type[ty_index(t)];
        vars[self.src.below(vars.len())]
    }

    /// A random pool var of any type: uniform over the pool, so each var
    /// gets its share of definitions.
    pub fn any_var(&mut self) -> (Var, Type) {
        self.pool[self.src.below(self.pool.len())]
    }

    /// A random operand of type `t`: an immediate (the zero answer) or a
    /// pool var.
    pub fn arg(&mut self, t: Type) -> Arg {
        if self.src.below(4) == 0 { Arg::Imm(crate::contents::imm(self.src, t)) } else { Arg::Var(self.var(t)) }
    }

    /// The dedicated var for `role`, declared on first use.
    pub fn dedicated(&mut self, role: Role) -> Var {
        if let Some(v) = self.dedicated[role.slot()] {
            return v;
        }
        let (name, ty) = role.name_and_type();
        let v = self.b.var(&name, ty);
        self.dedicated[role.slot()] = Some(v);
        self.dedicated_order.push(v);
        v
    }

    /// Appends `dst = and src, mask` (unguarded) with `src` a random `i64`
    /// pool var: `dst` is then in `[0, mask]` whatever `src` holds.
    pub fn masked(&mut self, role: Role, mask: u64) -> Var {
        let dst = self.dedicated(role);
        let src = self.var(Type::I64);
        self.b.ins().binary(Opcode::And, dst, src, Imm::int(Type::I64, mask as i64));
        dst
    }

    /// Creates a block (after every block so far), decides its phis if it
    /// is a join, and fills it with random instructions. Returns the block
    /// and the cost of what it holds so far (its terminator and anything a
    /// region appends later are counted by that region).
    pub fn begin_block(&mut self, join: bool) -> (Block, u64) {
        let block = self.b.create_block();
        let mut cost = 0;
        if join && self.src.chance(self.env.knobs.phis) {
            let n = 1 + self.src.below(3);
            self.joins.push((block, n));
            cost += n as u64;
        }
        self.b.switch_to_block(block);
        (block, cost.saturating_add(self.contents()))
    }
}

/// Builds the body of `func` (declared, empty) with exactly `budget` blocks
/// and `pool_size` pool vars (at least seven); returns its fuel bound.
pub(crate) fn build<S: Source + ?Sized>(
    func: &mut Function,
    src: &mut S,
    env: &Env<'_>,
    budget: usize,
    pool_size: usize,
) -> u64 {
    let params: Vec<(Var, Type)> = func.params().iter().map(|&p| (p, func.var_type(p).unwrap_or(Type::I64))).collect();
    let mut body = Body {
        src,
        b: FunctionBuilder::new(func),
        env,
        pool: Vec::new(),
        by_type: Default::default(),
        dedicated: [None; ROLES],
        dedicated_order: Vec::new(),
        convs: core::array::from_fn(|i| crate::contents::conversions_into(Type::ALL[i])),
        early_exits: Vec::new(),
        joins: Vec::new(),
        unreachable: 0,
        budget: budget.max(1),
    };
    // Type::ALL is ordered like ty_index; the table above relies on it.
    debug_assert!(Type::ALL.iter().enumerate().all(|(i, &t)| ty_index(t) == i));
    for (v, t) in params {
        body.pool.push((v, t));
        body.by_type[ty_index(t)].push(v);
    }
    let mut fresh = Vec::with_capacity(pool_size);
    for k in 0..pool_size.max(BASE_TYPES.len()) {
        let t = match BASE_TYPES.get(k) {
            Some(&t) => t,
            None => body.src.pick(&POOL_TYPES),
        };
        let v = body.b.var(&format!("v{k}"), t);
        body.pool.push((v, t));
        body.by_type[ty_index(t)].push(v);
        fresh.push((v, t));
    }

    // The entry block: define every pool var that is not a param.
    let entry = body.b.create_block();
    body.b.switch_to_block(entry);
    let mut last_def = None;
    for &(v, t) in &fresh {
        let value = crate::contents::imm(body.src, t);
        last_def = Some(body.b.ins().constant(v, value));
    }
    let mut fuel = fresh.len() as u64;

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

    // Dedicated vars: defined right after the pool, before any region's
    // instruction in the entry block (a loop may set its counter there).
    if !body.dedicated_order.is_empty() {
        let func = body.b.func();
        let before = match last_def {
            Some(d) => func.layout().next_inst(d),
            None => func.layout().first_inst(entry),
        };
        if let Some(before) = before {
            body.b.position_before(before);
            for v in core::mem::take(&mut body.dedicated_order) {
                let ty = body.b.func().var_type(v).unwrap_or(Type::I64);
                body.b.ins().constant(v, Imm::int(ty, 0));
                fuel = fuel.saturating_add(1);
            }
        }
    }
    fuel
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

    /// Inserts the phis decided by [`Body::begin_block`]: one incoming value
    /// per predecessor block, computed now that every terminator exists.
    fn add_phis(&mut self) {
        if self.joins.is_empty() {
            return;
        }
        let func = self.b.func();
        let mut preds: Vec<Vec<Block>> = vec![Vec::new(); func.num_blocks()];
        let blocks: Vec<Block> = func.blocks().collect();
        for &blk in &blocks {
            let succs: Vec<Block> = func.block_successors(blk).collect();
            for (i, &s) in succs.iter().enumerate() {
                // One pair per predecessor block, not per edge.
                if !succs[..i].contains(&s) {
                    preds[s.index()].push(blk);
                }
            }
        }
        for (block, n) in core::mem::take(&mut self.joins) {
            let incoming_blocks = &preds[block.index()];
            if incoming_blocks.is_empty() {
                continue;
            }
            let Some(first) = self.b.func().layout().first_inst(block) else { continue };
            self.b.position_before(first);
            for _ in 0..n {
                let (dst, t) = self.any_var();
                let incoming: Vec<(Block, Arg)> = incoming_blocks.iter().map(|&p| (p, self.arg(t))).collect();
                self.b.ins().phi(dst, &incoming);
            }
        }
    }
}
