//! Generated programs with redundancy for PRE to find (ir-gen's programs
//! rarely repeat an expression): repeated expressions over a small pool,
//! copies of operands (`%y = copy %a` before `%y + %b`), loop invariants,
//! diamonds and counted loops, built through the builder in non-SSA form
//! (the checks put them in SSA form). Deterministic per seed.
//!
//! [`redundant`] draws the general family ([`redundant_with_memory`] adds
//! loads and stores of one array); [`semantic`] the value-redundant
//! family of issue 13 (source document 001's semantic case: `y = a;
//! z = y + b` after `a + b` on one path, and variations through phis and
//! commuted operands).

use ir_core::{Block, FuncId, FunctionBuilder, Imm, IntCC, MemSpace, Module, Opcode, Signature, Type, Var};
use ir_gen::SplitMix64;

const OPS: [Opcode; 5] = [Opcode::Add, Opcode::Mul, Opcode::Xor, Opcode::Sub, Opcode::And];

struct Gen<'a> {
    rng: SplitMix64,
    params: [Var; 3],
    temps: Vec<Var>,
    acc: Var,
    cond: Var,
    counters: Vec<Var>,
    pool: Vec<(Opcode, usize, usize)>,
    /// With memory: the array, the `i64` base every index adds a constant
    /// to (set once, in the entry block), and a scratch index var.
    memory: Option<(ir_core::Mem, Var, Var)>,
    b: FunctionBuilder<'a>,
}

impl Gen<'_> {
    fn pick(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n as u64) as usize
    }

    fn temp(&mut self) -> Var {
        let i = self.pick(self.temps.len());
        self.temps[i]
    }

    fn expr(&mut self) -> (Opcode, usize, usize) {
        let i = self.pick(self.pool.len());
        self.pool[i]
    }

    fn operand(&mut self, i: usize) -> Var {
        if i < 3 { self.params[i] } else { self.temps[(i - 3) % self.temps.len()] }
    }

    fn stmts(&mut self) {
        let n = 1 + self.pick(3);
        for _ in 0..n {
            if let Some((buf, base, ix)) = self.memory
                && self.pick(3) == 0
            {
                self.memory_stmt(buf, base, ix);
                continue;
            }
            let dst = self.temp();
            match self.pick(10) {
                0..=5 => {
                    let (op, x, y) = self.expr();
                    let (x, y) = (self.operand(x), self.operand(y));
                    self.b.ins().binary(op, dst, x, y);
                    let acc = self.acc;
                    self.b.ins().binary(Opcode::Add, acc, acc, dst);
                }
                6 | 7 => {
                    // A copy of an operand, then an expression through it.
                    let (op, x, y) = self.expr();
                    let (x, y) = (self.operand(x), self.operand(y));
                    self.b.ins().copy(dst, x);
                    let t2 = self.temp();
                    if t2 != dst {
                        self.b.ins().binary(op, t2, dst, y);
                        let acc = self.acc;
                        self.b.ins().binary(Opcode::Add, acc, acc, t2);
                    }
                }
                _ => {
                    let x = self.pick(3 + self.temps.len());
                    let x = self.operand(x);
                    self.b.ins().copy(dst, x);
                }
            }
        }
    }

    /// `%ix = add %base, c` (c in 0..8, so the index stays in the 16
    /// elements), then a load folded into the accumulator (two in three)
    /// or a store of a temp.
    fn memory_stmt(&mut self, buf: ir_core::Mem, base: Var, ix: Var) {
        let c = self.pick(8) as i64;
        self.b.ins().binary(Opcode::Add, ix, base, Imm::int(Type::I64, c));
        if self.pick(3) < 2 {
            let t = self.temp();
            self.b.ins().load(t, buf, ix);
            let acc = self.acc;
            self.b.ins().binary(Opcode::Add, acc, acc, t);
        } else {
            let t = self.temp();
            self.b.ins().store(buf, ix, t);
        }
    }

    fn region(&mut self, depth: u32) {
        match self.pick(if depth > 2 { 1 } else { 4 }) {
            0 => self.stmts(),
            1 | 2 => {
                let (l, r, j) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                let (x, y) = (self.pick(6), self.pick(6));
                let (x, y) = (self.operand(x), self.operand(y));
                let cond = self.cond;
                self.b.ins().setp(IntCC::Slt, cond, x, y);
                self.b.ins().br(cond, l, r);
                self.b.switch_to_block(l);
                self.region(depth + 1);
                self.b.ins().jump(j);
                self.b.switch_to_block(r);
                if self.pick(2) == 0 {
                    self.region(depth + 1);
                }
                self.b.ins().jump(j);
                self.b.switch_to_block(j);
                self.stmts();
            }
            _ => {
                let k = self.counters[depth as usize % self.counters.len()];
                let trips = 1 + self.pick(3) as i32;
                self.b.ins().constant(k, trips);
                let (head, body, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                self.b.ins().jump(head);
                self.b.switch_to_block(head);
                let cond = self.cond;
                if self.pick(2) == 0 {
                    self.stmts();
                }
                self.b.ins().setp(IntCC::Sgt, cond, k, 0i32);
                self.b.ins().br(cond, body, exit);
                self.b.switch_to_block(body);
                self.region(depth + 1);
                self.b.ins().binary(Opcode::Sub, k, k, 1i32);
                self.b.ins().jump(head);
                self.b.switch_to_block(exit);
                self.stmts();
            }
        }
    }
}

/// A module whose `@main(a, b, c: i32) -> i32` has about `regions`
/// regions (diamonds, counted loops, straight code) over a pool of
/// expressions drawn from `seed`; it stores and returns an accumulator of
/// every computed value.
pub fn redundant(seed: u64, regions: usize) -> (Module, FuncId) {
    build(seed, regions, false)
}

/// [`redundant`] with memory: an array `@buf: i32[16]` and, in one
/// statement in three, a load of `@buf[%base + c]` (folded into the
/// accumulator) or a store to it, `%base` being `zext %a & 7`, set once.
/// Equal loads with stores and calls-free paths between them: the family
/// that exercises PRE's memory answers (`LazyMemory`'s walk and its
/// same-root rule, and memdep behind it).
pub fn redundant_with_memory(seed: u64, regions: usize) -> (Module, FuncId) {
    build(seed, regions, true)
}

fn build(seed: u64, regions: usize, with_memory: bool) -> (Module, FuncId) {
    let mut m = Module::new();
    let out = m.add_mem("out", Type::I32, 4, MemSpace::Nram).expect("fresh name");
    let buf = with_memory.then(|| m.add_mem("buf", Type::I32, 16, MemSpace::Nram).expect("fresh name"));
    let f = m.add_function("main", Signature::new([Type::I32; 3], [Type::I32]), &["a", "b", "c"]).expect("fresh name");
    let func = m.function_mut(f).expect("just added");
    let mut b = FunctionBuilder::new(func);
    let params = [b.param(0).expect("3 params"), b.param(1).expect("3 params"), b.param(2).expect("3 params")];
    let temps: Vec<Var> = (0..4).map(|i| b.var(&format!("t{i}"), Type::I32)).collect();
    let acc = b.var("acc", Type::I32);
    let cond = b.var("cond", Type::I1);
    let counters: Vec<Var> = (0..3).map(|i| b.var(&format!("k{i}"), Type::I32)).collect();
    let entry: Block = b.create_block();
    b.switch_to_block(entry);
    b.ins().constant(acc, 0i32);
    let memory = buf.map(|buf| {
        let (base, ix) = (b.var("base", Type::I64), b.var("ix", Type::I64));
        b.ins().convert(Opcode::Zext, base, params[0]);
        b.ins().binary(Opcode::And, base, base, Imm::int(Type::I64, 7));
        b.ins().constant(ix, Imm::int(Type::I64, 0));
        (buf, base, ix)
    });
    for (i, &t) in temps.iter().enumerate() {
        b.ins().copy(t, params[i % 3]);
    }
    let mut rng = SplitMix64::new(seed);
    let pool: Vec<(Opcode, usize, usize)> = (0..6)
        .map(|_| (OPS[(rng.next_u64() % 5) as usize], (rng.next_u64() % 5) as usize, (rng.next_u64() % 5) as usize))
        .collect();
    let mut g = Gen { rng, params, temps, acc, cond, counters, pool, memory, b };
    for _ in 0..regions {
        g.region(0);
    }
    let acc = g.acc;
    g.b.ins().store(out, 0i64, acc);
    g.b.ins().ret(&[acc.into()]);
    (m, f)
}

/// One program of the semantic family, variant `v` (any `u64`): on one
/// side of a diamond `x = a op b`, after the join `y` holds `a` (a copy in
/// the join, or copies on both sides merged by a phi), and `z = y op b`
/// (or `b op y` for a commutative `op`), returned with `x` folded in.
pub fn semantic(v: u64) -> (Module, FuncId) {
    let mut m = Module::new();
    let f = m
        .add_function("main", Signature::new([Type::I32, Type::I32, Type::I1], [Type::I32]), &["a", "b", "p"])
        .expect("fresh");
    let func = m.function_mut(f).expect("just added");
    let mut b = FunctionBuilder::new(func);
    let (a, bb, p) = (b.param(0).expect("param"), b.param(1).expect("param"), b.param(2).expect("param"));
    let (x, y, z, r) = (b.var("x", Type::I32), b.var("y", Type::I32), b.var("z", Type::I32), b.var("r", Type::I32));
    let op = OPS[(v % 5) as usize];
    let through_phi = (v / 5) % 2 == 1;
    let commuted = (v / 10) % 2 == 1 && matches!(op, Opcode::Add | Opcode::Mul | Opcode::Xor | Opcode::And);
    let lexical = (v / 20) % 3 == 2; // a lexically equal control case
    let (entry, l, rr, j) = (b.create_block(), b.create_block(), b.create_block(), b.create_block());
    b.switch_to_block(entry);
    b.ins().constant(x, 0i32);
    b.ins().br(p, l, rr);
    b.switch_to_block(l);
    b.ins().binary(op, x, a, bb);
    if through_phi {
        b.ins().copy(y, a);
    }
    b.ins().jump(j);
    b.switch_to_block(rr);
    if through_phi {
        b.ins().copy(y, a);
    }
    b.ins().jump(j);
    b.switch_to_block(j);
    if !through_phi {
        b.ins().copy(y, a);
    }
    let first = if lexical { a } else { y };
    if commuted {
        b.ins().binary(op, z, bb, first);
    } else {
        b.ins().binary(op, z, first, bb);
    }
    b.ins().binary(Opcode::Add, r, z, x);
    b.ins().ret(&[r.into()]);
    (m, f)
}
