//! An executable toy SSA IR that has nothing to do with Keel's, and
//! everything a compiler writes to run `svfg-pre` on its own IR: the input trait
//! ([`svfg_pre::PreCode`], the `impl` block below), and an adapter that
//! applies the returned [`Plan`] ([`apply`]). An interpreter ([`run`])
//! checks the result.
//!
//! The IR: values are dense `u32` ids (the parameters first); an
//! instruction is a binary operation (`add`, `mul`, `div`, `lt`),
//! a copy, a phi, a load `A[i]` or a store `A[i] = x` of an array; each
//! block lists its instructions (phis first) and ends in a terminator
//! (jump, branch, return) that the trait does not see. Division by zero
//! and an index out of range trap.
//!
//! What the trait answers: `add`, `mul`, `div`, `lt` are pure
//! operations keyed by their operator (`add` and `mul` commute; `div` may
//! trap); a load is keyed by its array; a store is `Other`. Two loads of
//! one array at one index read the same value when every store to that
//! array comes before the earlier load on every path (so none can lie
//! between them): a sound rule that asks the [`InstOrder`] svfg-pre hands
//! over, cheap enough for a toy (it scans the stores).
//!
//! It is a second toy IR beside the crate's [`crate::Toy`] because PRE is
//! a transform: checking it takes operations with values, terminators and
//! an interpreter, where the analyses' toy only lists what each statement
//! defines and uses. It depends on nothing of svfg-pre but its public API.

use cfg_dom::{CsrGraph, InstId, Node, Versioned};
use std::fmt;
use svfg_pre::{Cleanup, InstKind, InstOrder, Operand, Plan, PlanArg, PlanBlock, PreCode, ValueId};

/// A binary operator.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    /// `a + b` (wrapping).
    Add,
    /// `a * b` (wrapping).
    Mul,
    /// `a / b`: traps when `b` is 0.
    Div,
    /// `a < b` as 1 or 0.
    Lt,
}

impl BinOp {
    fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Lt => "lt",
        }
    }

    /// The result, or `None` for a trap.
    fn eval(self, a: i64, b: i64) -> Option<i64> {
        match self {
            BinOp::Add => Some(a.wrapping_add(b)),
            BinOp::Mul => Some(a.wrapping_mul(b)),
            BinOp::Div => a.checked_div(b),
            BinOp::Lt => Some(i64::from(a < b)),
        }
    }
}

/// An operand: a value or an integer.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Arg {
    /// A value.
    Val(u32),
    /// An integer.
    Int(i64),
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Val(v) => write!(f, "v{v}"),
            Arg::Int(k) => write!(f, "{k}"),
        }
    }
}

/// An instruction.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Inst {
    /// `dst = op a, b`.
    Bin {
        /// The result.
        dst: u32,
        /// The operator.
        op: BinOp,
        /// The left operand.
        a: Arg,
        /// The right operand.
        b: Arg,
    },
    /// `dst = src`.
    Copy {
        /// The result.
        dst: u32,
        /// What it copies.
        src: Arg,
    },
    /// `dst = phi(pred: value, ...)`.
    Phi {
        /// The result.
        dst: u32,
        /// `(predecessor block, value)` per operand.
        incoming: Vec<(u32, Arg)>,
    },
    /// `dst = load array[index]`.
    Load {
        /// The result.
        dst: u32,
        /// The array read.
        array: u32,
        /// The element.
        index: Arg,
    },
    /// `store array[index] = value`.
    Store {
        /// The array written.
        array: u32,
        /// The element.
        index: Arg,
        /// What it writes.
        value: Arg,
    },
}

impl Inst {
    fn dst(&self) -> Option<u32> {
        match *self {
            Inst::Bin { dst, .. } | Inst::Copy { dst, .. } | Inst::Phi { dst, .. } | Inst::Load { dst, .. } => {
                Some(dst)
            }
            Inst::Store { .. } => None,
        }
    }
}

/// A block's terminator.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Term {
    /// Go to the block.
    Jump(u32),
    /// Go to the first block when the value is not 0, else the second.
    Branch(Arg, u32, u32),
    /// Return the value.
    Return(Arg),
}

/// A block: instruction ids (phis first) and a terminator.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Block {
    /// Its instructions, phis first.
    pub insts: Vec<u32>,
    /// How it ends.
    pub term: Term,
}

/// A function: block 0 is the entry; values `0..params` are the
/// parameters.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Func {
    /// Parameters (values `0..params`).
    pub params: u32,
    /// Values defined so far (parameters included).
    pub num_values: u32,
    /// Instructions by id.
    pub insts: Vec<Inst>,
    /// Blocks by id.
    pub blocks: Vec<Block>,
}

impl Func {
    /// The CFG, for svfg-pre (edges in terminator order).
    pub fn cfg(&self) -> CsrGraph {
        let succs: Vec<Vec<Node>> = self
            .blocks
            .iter()
            .map(|b| match b.term {
                Term::Jump(t) => vec![t],
                Term::Branch(_, t, e) => vec![t, e],
                Term::Return(_) => vec![],
            })
            .collect();
        CsrGraph::from_successors(&succs, Some(0)).expect("the blocks name blocks of the function")
    }
}

/// Builds a function block by block.
#[derive(Debug)]
pub struct Builder {
    f: Func,
    cur: u32,
}

impl Builder {
    /// A function of `params` parameters with an entry block.
    pub fn new(params: u32) -> Builder {
        let f = Func { params, num_values: params, insts: Vec::new(), blocks: Vec::new() };
        let mut b = Builder { f, cur: 0 };
        b.block();
        b
    }

    /// Parameter `i`.
    pub fn param(&self, i: u32) -> Arg {
        Arg::Val(i)
    }

    /// A new, empty block (returning 0 until its terminator is set).
    pub fn block(&mut self) -> u32 {
        self.f.blocks.push(Block { insts: Vec::new(), term: Term::Return(Arg::Int(0)) });
        self.f.blocks.len() as u32 - 1
    }

    /// Appends to block `b` from now on.
    pub fn switch_to(&mut self, b: u32) {
        self.cur = b;
    }

    fn push(&mut self, inst: Inst) -> u32 {
        self.f.insts.push(inst);
        let id = self.f.insts.len() as u32 - 1;
        self.f.blocks[self.cur as usize].insts.push(id);
        id
    }

    fn value(&mut self) -> u32 {
        self.f.num_values += 1;
        self.f.num_values - 1
    }

    /// `op a, b`.
    pub fn bin(&mut self, op: BinOp, a: Arg, b: Arg) -> Arg {
        let dst = self.value();
        self.push(Inst::Bin { dst, op, a, b });
        Arg::Val(dst)
    }

    /// A copy of `src`.
    pub fn copy(&mut self, src: Arg) -> Arg {
        let dst = self.value();
        self.push(Inst::Copy { dst, src });
        Arg::Val(dst)
    }

    /// A phi whose incoming values are set later ([`Builder::set_incoming`]).
    pub fn phi(&mut self) -> (Arg, u32) {
        let dst = self.value();
        let id = self.push(Inst::Phi { dst, incoming: Vec::new() });
        (Arg::Val(dst), id)
    }

    /// Sets the incoming values of the phi `inst`.
    pub fn set_incoming(&mut self, inst: u32, values: Vec<(u32, Arg)>) {
        if let Inst::Phi { incoming, .. } = &mut self.f.insts[inst as usize] {
            *incoming = values;
        }
    }

    /// `load array[index]`.
    pub fn load(&mut self, array: u32, index: Arg) -> Arg {
        let dst = self.value();
        self.push(Inst::Load { dst, array, index });
        Arg::Val(dst)
    }

    /// `store array[index] = value`.
    pub fn store(&mut self, array: u32, index: Arg, value: Arg) {
        self.push(Inst::Store { array, index, value });
    }

    /// Ends the current block.
    pub fn term(&mut self, t: Term) {
        self.f.blocks[self.cur as usize].term = t;
    }

    /// The function.
    pub fn finish(self) -> Func {
        self.f
    }
}

/// The operation key: an operator, or a load of an array.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ToyOp {
    /// A binary operator.
    Bin(BinOp),
    /// A load of this array.
    Load(u32),
}

/// The toy has no versions: its plans are applied right after they are
/// made.
impl Versioned for Func {}

impl PreCode for Func {
    type Op = ToyOp;
    type Imm = i64;

    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    fn num_values(&self) -> usize {
        self.num_values as usize
    }

    fn num_insts(&self) -> usize {
        self.insts.len()
    }

    fn params(&self) -> impl Iterator<Item = ValueId> + '_ {
        0..self.params
    }

    fn block_insts(&self, b: Node) -> impl Iterator<Item = InstId> + '_ {
        self.blocks[b as usize].insts.iter().copied()
    }

    fn kind(&self, inst: InstId) -> InstKind<ToyOp> {
        match self.insts[inst as usize] {
            Inst::Bin { op, .. } => InstKind::Pure(ToyOp::Bin(op)),
            Inst::Copy { .. } => InstKind::Copy,
            Inst::Phi { .. } => InstKind::Phi,
            Inst::Load { array, .. } => InstKind::Load(ToyOp::Load(array)),
            Inst::Store { .. } => InstKind::Other,
        }
    }

    fn results(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        self.insts[inst as usize].dst().into_iter()
    }

    fn operands(&self, inst: InstId) -> impl Iterator<Item = Operand<i64>> + '_ {
        let args: Vec<Arg> = match &self.insts[inst as usize] {
            Inst::Bin { a, b, .. } => vec![*a, *b],
            Inst::Copy { src, .. } => vec![*src],
            Inst::Phi { incoming, .. } => incoming.iter().map(|&(_, a)| a).collect(),
            Inst::Load { index, .. } => vec![*index],
            Inst::Store { .. } => vec![],
        };
        args.into_iter().map(|a| match a {
            Arg::Val(v) => Operand::Value(v),
            Arg::Int(k) => Operand::Imm(k),
        })
    }

    fn reads(&self, inst: InstId) -> impl Iterator<Item = ValueId> + '_ {
        let args: Vec<Arg> = match &self.insts[inst as usize] {
            Inst::Store { index, value, .. } => vec![*index, *value],
            _ => self
                .operands(inst)
                .filter_map(|o| if let Operand::Value(v) = o { Some(Arg::Val(v)) } else { None })
                .collect(),
        };
        args.into_iter().filter_map(|a| if let Arg::Val(v) = a { Some(v) } else { None })
    }

    /// The terminator is no instruction: its condition or returned value.
    fn block_reads(&self, b: Node) -> impl Iterator<Item = ValueId> + '_ {
        let arg = match self.blocks[b as usize].term {
            Term::Jump(_) => None,
            Term::Branch(a, _, _) | Term::Return(a) => Some(a),
        };
        arg.into_iter().filter_map(|a| if let Arg::Val(v) = a { Some(v) } else { None })
    }

    fn phi_preds(&self, inst: InstId) -> impl Iterator<Item = Node> + '_ {
        let incoming: &[(u32, Arg)] = match &self.insts[inst as usize] {
            Inst::Phi { incoming, .. } => incoming,
            _ => &[],
        };
        incoming.iter().map(|&(p, _)| p)
    }

    fn commutes(&self, op: ToyOp) -> bool {
        matches!(op, ToyOp::Bin(BinOp::Add | BinOp::Mul))
    }

    fn may_trap(&self, op: ToyOp) -> bool {
        op == ToyOp::Bin(BinOp::Div)
    }

    fn same_memory(&self, earlier: InstId, later: InstId, order: &InstOrder<'_>) -> bool {
        let Inst::Load { array, .. } = self.insts[later as usize] else { return false };
        self.blocks.iter().flat_map(|b| &b.insts).all(|&s| match self.insts[s as usize] {
            Inst::Store { array: a, .. } if a == array => order.before(s, earlier),
            _ => true,
        })
    }
}

/// Applies `plan` (made for `f` as it is) to `f`, in the plan's order:
/// new values after the existing ones, splits, insertions at block ends,
/// phis at block tops, replacements by copies.
pub fn apply(f: &mut Func, plan: &Plan<ToyOp, i64>) {
    let base = f.num_values;
    f.num_values += plan.values.len() as u32;
    let arg = |a: PlanArg<i64>| match a {
        PlanArg::Value(v) => Arg::Val(v),
        PlanArg::New(p) => Arg::Val(base + p.0),
        PlanArg::Imm(k) => Arg::Int(k),
        PlanArg::Any => Arg::Int(0),
    };
    let mut new_blocks = Vec::new();
    for e in &plan.splits {
        let nb = f.blocks.len() as u32;
        f.blocks.push(Block { insts: Vec::new(), term: Term::Jump(e.to) });
        let retarget = |t: &mut u32| {
            if *t == e.to {
                *t = nb;
            }
        };
        match &mut f.blocks[e.from as usize].term {
            Term::Jump(t) => retarget(t),
            Term::Branch(_, t, u) => {
                retarget(t);
                retarget(u);
            }
            Term::Return(_) => {}
        }
        for &i in &f.blocks[e.to as usize].insts {
            if let Inst::Phi { incoming, .. } = &mut f.insts[i as usize] {
                for (p, _) in incoming.iter_mut().filter(|(p, _)| *p == e.from) {
                    *p = nb;
                }
            }
        }
        new_blocks.push(nb);
    }
    let block = |b: PlanBlock| match b {
        PlanBlock::Existing(n) => n,
        PlanBlock::New(i) => new_blocks[i as usize],
    };
    for ins in &plan.inserts {
        // Only pure operations are inserted; the toy's are all binary.
        let ToyOp::Bin(op) = ins.op else { continue };
        let inst = Inst::Bin { dst: base + ins.def.0, op, a: arg(ins.args[0]), b: arg(ins.args[1]) };
        f.insts.push(inst);
        f.blocks[block(ins.at) as usize].insts.push(f.insts.len() as u32 - 1);
    }
    for phi in &plan.phis {
        let incoming = phi.incoming.iter().map(|&(b, a)| (block(b), arg(a))).collect();
        f.insts.push(Inst::Phi { dst: base + phi.def.0, incoming });
        f.blocks[phi.block as usize].insts.insert(0, f.insts.len() as u32 - 1);
    }
    for r in &plan.replacements {
        let inst = &mut f.insts[r.inst as usize];
        if let Some(dst) = inst.dst() {
            *inst = Inst::Copy { dst, src: arg(r.by) };
        }
    }
}

/// Applies a clean-up ([`svfg_pre::cleanup`]) made for `f`: every read of
/// a forwarded value (operands, phi operands, terminators) reads the copied
/// value, and the deleted instructions leave their blocks (their slots in
/// `insts` stay, unlisted, so that ids do not move).
pub fn apply_cleanup(f: &mut Func, c: &Cleanup) {
    let mut to: Vec<u32> = (0..f.num_values).collect();
    for &(v, s) in &c.forward {
        if let Some(slot) = to.get_mut(v as usize) {
            *slot = s;
        }
    }
    let fix = |a: &mut Arg| {
        if let Arg::Val(v) = a
            && let Some(&s) = to.get(*v as usize)
        {
            *v = s;
        }
    };
    for inst in &mut f.insts {
        match inst {
            Inst::Bin { a, b, .. } => {
                fix(a);
                fix(b);
            }
            Inst::Copy { src, .. } => fix(src),
            Inst::Phi { incoming, .. } => incoming.iter_mut().for_each(|(_, a)| fix(a)),
            Inst::Load { index, .. } => fix(index),
            Inst::Store { index, value, .. } => {
                fix(index);
                fix(value);
            }
        }
    }
    for block in &mut f.blocks {
        match &mut block.term {
            Term::Jump(_) => {}
            Term::Branch(a, _, _) | Term::Return(a) => fix(a),
        }
        block.insts.retain(|i| c.delete.binary_search(i).is_err());
    }
}

/// What a run did: the result, the arrays at the end, and how many
/// computations (binary operations and loads) it executed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// The returned value.
    pub result: i64,
    /// The arrays at the end.
    pub arrays: Vec<Vec<i64>>,
    /// Binary operations and loads executed.
    pub computations: u64,
}

/// A trap: division by zero, an index out of range, or no fuel left.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Trap;

/// Runs `f` on `args` with these arrays, for at most `fuel` blocks.
pub fn run(f: &Func, args: &[i64], mut arrays: Vec<Vec<i64>>, fuel: u64) -> Result<Outcome, Trap> {
    let mut vals: Vec<Option<i64>> = vec![None; f.num_values as usize];
    for (i, &a) in args.iter().enumerate() {
        vals[i] = Some(a);
    }
    let get = |vals: &[Option<i64>], a: Arg| match a {
        Arg::Val(v) => vals[v as usize].ok_or(Trap),
        Arg::Int(k) => Ok(k),
    };
    let (mut cur, mut prev, mut computations) = (0u32, u32::MAX, 0u64);
    for _ in 0..fuel {
        let block = &f.blocks[cur as usize];
        // Phis read their values on entry, all at once.
        let mut phis = Vec::new();
        for &i in &block.insts {
            if let Inst::Phi { dst, incoming } = &f.insts[i as usize] {
                let &(_, a) = incoming.iter().find(|(p, _)| *p == prev).ok_or(Trap)?;
                phis.push((*dst, get(&vals, a)?));
            }
        }
        for (dst, v) in phis {
            vals[dst as usize] = Some(v);
        }
        for &i in &block.insts {
            match f.insts[i as usize] {
                Inst::Bin { dst, op, a, b } => {
                    computations += 1;
                    vals[dst as usize] = Some(op.eval(get(&vals, a)?, get(&vals, b)?).ok_or(Trap)?);
                }
                Inst::Copy { dst, src } => vals[dst as usize] = Some(get(&vals, src)?),
                Inst::Phi { .. } => {}
                Inst::Load { dst, array, index } => {
                    computations += 1;
                    let i = usize::try_from(get(&vals, index)?).map_err(|_| Trap)?;
                    vals[dst as usize] = Some(*arrays[array as usize].get(i).ok_or(Trap)?);
                }
                Inst::Store { array, index, value } => {
                    let i = usize::try_from(get(&vals, index)?).map_err(|_| Trap)?;
                    let v = get(&vals, value)?;
                    *arrays[array as usize].get_mut(i).ok_or(Trap)? = v;
                }
            }
        }
        prev = cur;
        cur = match block.term {
            Term::Jump(t) => t,
            Term::Branch(c, t, e) => {
                if get(&vals, c)? != 0 {
                    t
                } else {
                    e
                }
            }
            Term::Return(a) => return Ok(Outcome { result: get(&vals, a)?, arrays, computations }),
        };
    }
    Err(Trap)
}

impl fmt::Display for ToyOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToyOp::Bin(op) => f.write_str(op.name()),
            ToyOp::Load(array) => write!(f, "load A{array}"),
        }
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inst::Bin { dst, op, a, b } => write!(f, "v{dst} = {} {a}, {b}", op.name()),
            Inst::Copy { dst, src } => write!(f, "v{dst} = {src}"),
            Inst::Phi { dst, incoming } => {
                let ins: Vec<String> = incoming.iter().map(|(p, a)| format!("b{p}: {a}")).collect();
                write!(f, "v{dst} = phi({})", ins.join(", "))
            }
            Inst::Load { dst, array, index } => write!(f, "v{dst} = load A{array}[{index}]"),
            Inst::Store { array, index, value } => write!(f, "store A{array}[{index}] = {value}"),
        }
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = (0..self.params).map(|p| format!("v{p}")).collect();
        writeln!(f, "func({}):", params.join(", "))?;
        for (b, block) in self.blocks.iter().enumerate() {
            writeln!(f, "b{b}:")?;
            for &i in &block.insts {
                writeln!(f, "    {}", self.insts[i as usize])?;
            }
            match &block.term {
                Term::Jump(t) => writeln!(f, "    jump b{t}")?,
                Term::Branch(c, t, e) => writeln!(f, "    br {c}, b{t}, b{e}")?,
                Term::Return(a) => writeln!(f, "    ret {a}")?,
            }
        }
        Ok(())
    }
}

/// The example program, after digest §001's semantic case: `a + b` on one
/// side of a join, then `y = a; z = y + b` after it (a value redundancy
/// lexical PRE cannot see). Around it: a load of `A0[a]` before the branch
/// and again after the join (no store to `A0`: the same value), a load of
/// `A1[a]` before and after (a store to `A1` on one side: not the same),
/// and `a / c` computed on the other side and after the join (partially
/// redundant, but a division may trap, so it is not inserted). The other
/// side branches (`b2` has two successors), so the insertion for the edge
/// `b2 -> b3` needs a block of its own.
///
/// ```text
/// b0: t = c < 0; l0 = A1[a]; l1 = A0[a]; br t, b1, b2
/// b1: x = a + b; A1[a] = x; jump b3
/// b2: q = a / c; u = q < 10; br u, b3, b4
/// b3: y = a; z = y + b; l2 = A0[a]; l3 = A1[a]; d = a / c; return z + l2 + l3 + d + l0
/// b4: return q
/// ```
pub fn semantic_example() -> Func {
    let mut b = Builder::new(3);
    let (a, bb, c) = (b.param(0), b.param(1), b.param(2));
    let (b1, b2, b3, b4) = (b.block(), b.block(), b.block(), b.block());
    let t = b.bin(BinOp::Lt, c, Arg::Int(0));
    let l0 = b.load(1, a);
    b.load(0, a);
    b.term(Term::Branch(t, b1, b2));
    b.switch_to(b1);
    let x = b.bin(BinOp::Add, a, bb);
    b.store(1, a, x);
    b.term(Term::Jump(b3));
    b.switch_to(b2);
    let q = b.bin(BinOp::Div, a, c);
    let u = b.bin(BinOp::Lt, q, Arg::Int(10));
    b.term(Term::Branch(u, b3, b4));
    b.switch_to(b3);
    let y = b.copy(a);
    let z = b.bin(BinOp::Add, y, bb);
    let l2 = b.load(0, a);
    let l3 = b.load(1, a);
    let d = b.bin(BinOp::Div, a, c);
    let s = b.bin(BinOp::Add, z, l2);
    let s = b.bin(BinOp::Add, s, l3);
    let s = b.bin(BinOp::Add, s, d);
    let s = b.bin(BinOp::Add, s, l0);
    b.term(Term::Return(s));
    b.switch_to(b4);
    b.term(Term::Return(q));
    b.finish()
}

/// A loop-invariant `a * b` in a loop that runs at least once (digest
/// §001's second classic case): PRE computes it once, before the loop.
///
/// ```text
/// b0: jump b1
/// b1: i = phi(b0: 0, b1: i2); x = a * b; i2 = i + x; t = i2 < n; br t, b1, b2
/// b2: return i2
/// ```
pub fn loop_example() -> Func {
    let mut b = Builder::new(3);
    let (a, bb, n) = (b.param(0), b.param(1), b.param(2));
    let b1 = b.block();
    let b2 = b.block();
    b.term(Term::Jump(b1));
    b.switch_to(b1);
    let (i, phi) = b.phi();
    let x = b.bin(BinOp::Mul, a, bb);
    let i2 = b.bin(BinOp::Add, i, x);
    let t = b.bin(BinOp::Lt, i2, n);
    b.set_incoming(phi, vec![(0, Arg::Int(0)), (b1, i2)]);
    b.term(Term::Branch(t, b1, b2));
    b.switch_to(b2);
    b.term(Term::Return(i2));
    b.finish()
}
