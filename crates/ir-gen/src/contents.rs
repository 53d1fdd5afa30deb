//! Contents: new blocks, the random straight-line instructions that fill
//! them, and the menu of non-trapping conversions.
//!
//! Invariants: every instruction emitted here is well typed and **cannot
//! trap** whatever the values of its operands, because the menu only holds
//! operations that are total:
//! - integer division and remainder only by an immediate that is neither 0
//!   nor -1 (and never on `i1`, whose only nonzero value is -1);
//! - float-to-int conversions only in their saturating forms;
//! - shifts and rotates take their amount modulo the width;
//! - calls go to functions later in the module (acyclic), with arguments
//!   and results of the callee's types, all defined;
//! - memory instructions are in `memory.rs` and keep every access in bounds.
//!
//! Each instruction returns its fuel cost: 1, plus the callee's bound for a
//! call, plus the elements a tensor instruction processes.

use crate::body::{Body, Role};
use crate::source::{Choices, Source};
use crate::types::{COMPARE_TYPES, imm, ty_index};
use ir_core::{Arg, Block, Callee, FloatCC, Guard, Imm, IntCC, Opcode, Type};

/// Integer unary operations (total on every value).
pub(crate) const INT_UNARY: [Opcode; 5] = [Opcode::Neg, Opcode::Not, Opcode::Clz, Opcode::Ctz, Opcode::Popcnt];
/// Integer binary operations that are total (divisions are apart).
pub(crate) const INT_BINARY: [Opcode; 15] = [
    Opcode::Add,
    Opcode::Sub,
    Opcode::Mul,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Shl,
    Opcode::Lshr,
    Opcode::Ashr,
    Opcode::Rotl,
    Opcode::Rotr,
    Opcode::Smin,
    Opcode::Smax,
    Opcode::Umin,
    Opcode::Umax,
];
/// Integer divisions and remainders: total only by a divisor other than 0 and -1.
pub(crate) const DIVISIONS: [Opcode; 4] = [Opcode::Sdiv, Opcode::Udiv, Opcode::Srem, Opcode::Urem];
/// Float unary operations (IEEE, total).
pub(crate) const FLOAT_UNARY: [Opcode; 7] =
    [Opcode::Fneg, Opcode::Fabs, Opcode::Fsqrt, Opcode::Fceil, Opcode::Ffloor, Opcode::Ftrunc, Opcode::Fnearest];
/// Float binary operations (IEEE, total).
pub(crate) const FLOAT_BINARY: [Opcode; 7] =
    [Opcode::Fadd, Opcode::Fsub, Opcode::Fmul, Opcode::Fdiv, Opcode::Fmin, Opcode::Fmax, Opcode::Fcopysign];
/// Small divisors; any value but 0 and -1 would do.
const DIVISORS: [i64; 10] = [1, 2, 3, 5, 7, 8, 16, -2, -3, -7];

/// One random instruction in sixteen is a call, when there is a callee.
const CALL_ODDS: usize = 16;

/// Every conversion into `dst` that cannot trap, with its source type:
/// `fptosi`/`fptoui` are left out (they trap on NaN and out-of-range
/// values); their saturating forms are in.
pub(crate) fn conversions_into(dst: Type) -> Vec<(Opcode, Type)> {
    let mut out = Vec::new();
    for src in Type::ALL {
        if dst.is_int() {
            if src.is_int() && src.bits() < dst.bits() {
                out.extend([(Opcode::Sext, src), (Opcode::Zext, src)]);
            }
            if src.is_int() && src.bits() > dst.bits() {
                out.push((Opcode::Trunc, src));
            }
            if src.is_float() && dst != Type::I1 {
                out.extend([(Opcode::FptosiSat, src), (Opcode::FptouiSat, src)]);
            }
        } else {
            if src.is_int() {
                out.extend([(Opcode::Sitofp, src), (Opcode::Uitofp, src)]);
            }
            if (src, dst) == (Type::F32, Type::F64) {
                out.push((Opcode::Fpext, src));
            }
            if (src, dst) == (Type::F64, Type::F32) {
                out.push((Opcode::Fptrunc, src));
            }
        }
        if src.bits() == dst.bits() {
            out.push((Opcode::Bitcast, src));
        }
    }
    out
}

impl<S: Source + ?Sized> Body<'_, '_, S> {
    /// Creates a block (after every block so far), decides its phis if it
    /// is a join, and fills it with random instructions. Returns the block
    /// and the cost of what it holds so far (its terminator and anything a
    /// region appends later are counted by that region).
    pub(crate) fn begin_block(&mut self, join: bool) -> (Block, u64) {
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

    /// Fills the current block with random instructions: at least one, and
    /// on average the configured density. Returns their cost.
    fn contents(&mut self) -> u64 {
        // Mean 1 + extra, so the module gets about vars * defs_per_var.
        let extra = (self.env.knobs.insts_per_block - 1.0).clamp(0.0, 4096.0).round() as usize;
        let n = 1 + self.src.below(2 * extra + 1);
        let mut cost = 0u64;
        for _ in 0..n {
            cost = cost.saturating_add(self.random_inst());
        }
        cost
    }

    /// One random instruction, maybe guarded: a memory instruction at the
    /// `memory` rate, sometimes a call, otherwise a scalar definition.
    fn random_inst(&mut self) -> u64 {
        let guard = self.guard();
        if !self.env.mems.is_empty() && self.src.chance(self.env.knobs.memory) {
            return self.memory_inst(guard);
        }
        if let Some(ext) = self.env.ext
            && self.src.chance(self.env.knobs.extern_calls)
        {
            let (a, b) = (self.arg(Type::I64), self.arg(Type::I64));
            let r = self.var(Type::I64);
            self.ins(guard).call(Callee::Ext(ext), &[r], &[a, b]);
            return 1;
        }
        if !self.loops.is_empty() && self.src.chance(self.env.knobs.invariants) {
            self.loop_invariant();
            return 1;
        }
        if !self.env.callees.is_empty() && self.src.below(CALL_ODDS) == CALL_ODDS - 1 {
            return self.call(guard);
        }
        self.scalar_def(guard);
        1
    }

    /// A guard at the `predication` rate: `@%p` or `@!%p` on a pool
    /// predicate (always defined, so reading it cannot trap).
    pub(crate) fn guard(&mut self) -> Option<Guard> {
        if !self.src.chance(self.env.knobs.predication) {
            return None;
        }
        let p = self.var(Type::I1);
        Some(Guard { var: p, negated: self.src.below(2) == 1 })
    }

    /// Defines a uniformly chosen pool var with an operation of its type.
    fn scalar_def(&mut self, g: Option<Guard>) {
        let (dst, t) = self.any_var();
        let float = t.is_float();
        let (unary, binary): (&[Opcode], &[Opcode]) =
            if float { (&FLOAT_UNARY, &FLOAT_BINARY) } else { (&INT_UNARY, &INT_BINARY) };
        // Floats: the first six kinds; integers add divisions, and `i1`
        // (which has no division) integer and float comparisons instead.
        let kinds = if float {
            6
        } else if t == Type::I1 {
            8
        } else {
            7
        };
        match self.src.below(kinds) {
            0 => {
                let v = imm(self.src, t);
                self.ins(g).constant(dst, v)
            }
            1 => {
                let a = self.arg(t);
                self.ins(g).copy(dst, a)
            }
            2 => {
                let (op, a) = (self.src.pick(unary), self.arg(t));
                self.ins(g).unary(op, dst, a)
            }
            3 => {
                let (op, a, b) = (self.src.pick(binary), self.arg(t), self.arg(t));
                self.ins(g).binary(op, dst, a, b)
            }
            4 => self.select(g, dst, t),
            5 => self.convert(g, dst, t),
            6 if t != Type::I1 => {
                let (op, a, d) = (self.src.pick(&DIVISIONS), self.arg(t), self.divisor(t));
                self.ins(g).binary(op, dst, a, d)
            }
            6 => {
                let s = self.src.pick(&COMPARE_TYPES);
                let (cc, a, b) = (self.src.pick(IntCC::ALL), self.arg(s), self.arg(s));
                self.ins(g).setp(cc, dst, a, b)
            }
            _ => {
                let s = self.src.pick(&[Type::F64, Type::F32]);
                let (cc, a, b) = (self.src.pick(FloatCC::ALL), self.arg(s), self.arg(s));
                self.ins(g).fsetp(cc, dst, a, b)
            }
        };
    }

    /// `%vN = op %inv0, %inv1`, unguarded, into a random `i64` pool var:
    /// the same value on every trip of every loop (the `invariants` knob).
    fn loop_invariant(&mut self) {
        let (a, b) = (self.dedicated(Role::Invariant(0)), self.dedicated(Role::Invariant(1)));
        let (op, dst) = (self.src.pick(&INT_BINARY), self.var(Type::I64));
        self.ins(None).binary(op, dst, a, b);
    }

    fn select(&mut self, g: Option<Guard>, dst: ir_core::Var, t: Type) -> ir_core::Inst {
        let (c, a, b) = (self.var(Type::I1), self.arg(t), self.arg(t));
        self.ins(g).select(dst, c, a, b)
    }

    fn convert(&mut self, g: Option<Guard>, dst: ir_core::Var, t: Type) -> ir_core::Inst {
        let menu = &self.convs[ty_index(t)];
        let (op, from) = menu[self.src.below(menu.len())];
        let a = self.arg(from);
        self.ins(g).convert(op, dst, a)
    }

    /// An immediate divisor of type `t` (not `i1`) that is neither 0 nor -1,
    /// so `sdiv`, `udiv`, `srem` and `urem` cannot trap.
    fn divisor(&mut self, t: Type) -> Imm {
        let raw = if self.src.below(2) == 0 { self.src.pick(&DIVISORS) } else { self.src.choose(u64::MAX) as i64 };
        let d = Imm::int(t, raw);
        if matches!(d.as_i64(), 0 | -1) { Imm::int(t, 3) } else { d }
    }

    /// A call to a later function: arguments of its parameter types, results
    /// bound to pool vars of its return types (distinct, since a signature's
    /// return types are distinct). Costs 1 plus the callee's bound.
    fn call(&mut self, g: Option<Guard>) -> u64 {
        let env = self.env;
        let callee = env.callees.get(self.src.below(env.callees.len()));
        let args: Vec<Arg> = callee.params.iter().map(|&t| self.arg(t)).collect();
        let results: Vec<ir_core::Var> = callee.returns.iter().map(|&t| self.var(t)).collect();
        self.ins(g).call(Callee::Func(callee.func), &results, &args);
        callee.fuel.saturating_add(1)
    }
}
