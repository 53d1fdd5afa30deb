//! One function body under construction ([`Body`]) and what it needs from
//! its module ([`Env`]): its var pool, its dedicated vars, the entry block
//! that defines them all, and the phis added at the end. `contents.rs`,
//! `memory.rs` and `regions.rs` add the methods that emit blocks and
//! instructions; `function.rs` puts a body together.
//!
//! Invariants of every body:
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
//!   The two invariant operands `%inv0`, `%inv1` are the exception that
//!   proves it: written once, in the entry block, so that what reads only
//!   them is invariant in every loop.
//! - **Blocks are created in layout order**, so block numbers ascend down the
//!   printed function; terminators that name blocks not yet created are
//!   appended once their targets exist.
//! - **Exact block count**: a body built with budget `n` has exactly `n`
//!   blocks (reachable ones plus unreachable ones).
//! - **Deterministic**: every collection is a `Vec` walked in order.

use crate::config::{Knobs, MAX_DEPTH};
use crate::source::{Choices, Source};
use crate::types::{BASE_TYPES, POOL_TYPES, imm, ty_index};
use ir_core::{
    Arg, Block, FuncId, Function, FunctionBuilder, Guard, Imm, Inst, InstBuilder, Mem, Opcode, Type, Var, node,
};

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

/// The functions a body may call, in increasing function order, held
/// last-first: the module's builder pushes each callable function as it
/// finishes it (it builds functions from the last one back), so every
/// function shares one list instead of copying its own (linear in the
/// number of functions, not quadratic).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Callees<'e> {
    pub last_first: &'e [CalleeInfo],
}

impl<'e> Callees<'e> {
    /// Number of callable functions.
    pub fn len(&self) -> usize {
        self.last_first.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.last_first.is_empty()
    }

    /// The `k`-th callable function in increasing function order.
    pub fn get(&self, k: usize) -> &'e CalleeInfo {
        &self.last_first[self.last_first.len() - 1 - k]
    }
}

/// What a body needs from its module.
#[derive(Debug)]
pub(crate) struct Env<'e> {
    pub knobs: &'e Knobs,
    pub mems: &'e [MemInfo],
    pub callees: Callees<'e>,
    /// `@ext_touch`, when the module declares it (the `extern_calls` knob).
    pub ext: Option<ir_core::ExtFuncId>,
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
    /// The offset of the `n`-th tile descriptor of an instruction (the
    /// `tiles` knob).
    Tile(usize),
    /// The shared symbolic base (the `symbolic` knob).
    SymBase,
    /// One of the two operands of loop invariants (the `invariants` knob):
    /// a copy of a random `i64` pool var made in the entry block, never
    /// written again.
    Invariant(usize),
}

const MAX_SLOTS: usize = 4;
const ROLES: usize = MAX_DEPTH as usize + 4 + 2 * MAX_SLOTS + 1 + INVARIANT_OPERANDS;

/// Operands of the loop invariants (`%inv0`, `%inv1`).
pub(crate) const INVARIANT_OPERANDS: usize = 2;

impl Role {
    fn slot(self) -> usize {
        match self {
            Role::Counter(d) => d as usize,
            Role::LoopTest => MAX_DEPTH as usize,
            Role::Index => MAX_DEPTH as usize + 1,
            Role::Size => MAX_DEPTH as usize + 2,
            Role::SwitchValue => MAX_DEPTH as usize + 3,
            Role::Offset(n) => MAX_DEPTH as usize + 4 + n.min(MAX_SLOTS - 1),
            Role::Tile(n) => MAX_DEPTH as usize + 4 + MAX_SLOTS + n.min(MAX_SLOTS - 1),
            Role::SymBase => MAX_DEPTH as usize + 4 + 2 * MAX_SLOTS,
            Role::Invariant(n) => MAX_DEPTH as usize + 5 + 2 * MAX_SLOTS + n.min(INVARIANT_OPERANDS - 1),
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
            Role::Tile(n) => (format!("t{}", n.min(MAX_SLOTS - 1)), Type::I64),
            Role::SymBase => ("sb".into(), Type::I64),
            Role::Invariant(n) => (format!("inv{}", n.min(INVARIANT_OPERANDS - 1)), Type::I64),
        }
    }
}

/// The state of one body being generated.
pub(crate) struct Body<'f, 'e, S: ?Sized> {
    pub src: &'e mut S,
    pub b: FunctionBuilder<'f>,
    pub env: &'e Env<'e>,
    /// Every pool var, in declaration order: the params, then fresh vars.
    pool: Vec<(Var, Type)>,
    /// How many of the pool vars are params.
    params: usize,
    /// Pool vars by [`ty_index`].
    by_type: [Vec<Var>; 7],
    /// The entry block and the last constant defining a pool var there,
    /// once [`Body::entry_block`] has made them.
    entry: Option<(Block, Option<Inst>)>,
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
    /// Counters of the natural loops whose body is being generated,
    /// outermost first (tile accesses use them).
    pub loops: Vec<Var>,
}

impl<'f, 'e, S: Source + ?Sized> Body<'f, 'e, S> {
    /// Starts the body of `func` (declared, empty) with a budget of
    /// `budget` blocks: its params join the pool, then `pool_size` fresh
    /// pool vars `%v0..` (at least seven: one of every type, then types
    /// drawn from [`POOL_TYPES`]) are declared. `convs` is the conversion
    /// menu by destination [`ty_index`].
    pub fn new(
        func: &'f mut Function,
        src: &'e mut S,
        env: &'e Env<'e>,
        budget: usize,
        pool_size: usize,
        convs: [Vec<(Opcode, Type)>; 7],
    ) -> Self {
        let params: Vec<(Var, Type)> =
            func.params().iter().map(|&p| (p, func.var_type(p).unwrap_or(Type::I64))).collect();
        let mut body = Body {
            src,
            b: FunctionBuilder::new(func),
            env,
            pool: Vec::with_capacity(params.len() + pool_size),
            params: params.len(),
            by_type: Default::default(),
            entry: None,
            dedicated: [None; ROLES],
            dedicated_order: Vec::new(),
            convs,
            early_exits: Vec::new(),
            joins: Vec::new(),
            unreachable: 0,
            budget: budget.max(1),
            loops: Vec::new(),
        };
        for (v, t) in params {
            body.pool.push((v, t));
            body.by_type[ty_index(t)].push(v);
        }
        for k in 0..pool_size.max(BASE_TYPES.len()) {
            let t = match BASE_TYPES.get(k) {
                Some(&t) => t,
                None => body.src.pick(&POOL_TYPES),
            };
            let v = body.b.var(&format!("v{k}"), t);
            body.pool.push((v, t));
            body.by_type[ty_index(t)].push(v);
        }
        body
    }

    /// Creates the entry block (the first block) and defines there every
    /// pool var that is not a param with a random constant. Returns the
    /// block and the cost of those definitions.
    pub fn entry_block(&mut self) -> (Block, u64) {
        let entry = self.b.create_block();
        self.b.switch_to_block(entry);
        let mut last_def = None;
        for k in self.params..self.pool.len() {
            let (v, t) = self.pool[k];
            let value = imm(self.src, t);
            last_def = Some(self.b.ins().constant(v, value));
        }
        self.entry = Some((entry, last_def));
        (entry, (self.pool.len() - self.params) as u64)
    }

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
        if self.src.below(4) == 0 { Arg::Imm(imm(self.src, t)) } else { Arg::Var(self.var(t)) }
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

    /// Defines every dedicated var in the entry block, right after the
    /// pool's constants and before any region's instruction there (a loop
    /// may set its counter in the entry block): as 0, except the invariant
    /// operands, which copy a random `i64` pool var (a param or a
    /// constant). Call it last, once no more dedicated vars can be
    /// declared; returns the cost.
    pub fn define_dedicated(&mut self) -> u64 {
        let Some((entry, last_def)) = self.entry else { return 0 };
        if self.dedicated_order.is_empty() {
            return 0;
        }
        let func = self.b.func();
        let before = match last_def {
            Some(d) => func.layout().next_inst(d),
            None => func.layout().first_inst(entry),
        };
        let Some(before) = before else { return 0 };
        self.b.position_before(before);
        let mut cost = 0u64;
        let invariant =
            |s: &Self, v: Var| (0..INVARIANT_OPERANDS).any(|n| s.dedicated[Role::Invariant(n).slot()] == Some(v));
        for v in core::mem::take(&mut self.dedicated_order) {
            if invariant(self, v) {
                let x = self.var(Type::I64);
                self.b.ins().copy(v, x);
            } else {
                let ty = self.b.func().var_type(v).unwrap_or(Type::I64);
                self.b.ins().constant(v, Imm::int(ty, 0));
            }
            cost = cost.saturating_add(1);
        }
        cost
    }

    /// Inserts the phis decided by [`Body::begin_block`]: one incoming value
    /// per predecessor block, computed now that every terminator exists.
    pub fn add_phis(&mut self) {
        if self.joins.is_empty() {
            return;
        }
        // One incoming pair per predecessor block, not per edge: the
        // function's own CFG (`cfg-dom`'s one CFG builder) lists each once.
        let cfg = self.b.func().cfg();
        for (block, n) in core::mem::take(&mut self.joins) {
            let incoming_blocks: Vec<Block> = cfg.pred_slice(node(block)).iter().map(|&p| ir_core::block(p)).collect();
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
