//! Building functions without text.
//!
//! [`FunctionBuilder`] is a cursor over a [`Function`]: create blocks, point
//! the cursor at one, and append instructions with [`FunctionBuilder::ins`].
//! Instructions define existing vars (the IR is not SSA by default), so each
//! constructor takes its destination vars explicitly.
//!
//! # Example
//!
//! A loop summing `@a[0..n)` into `%s`, in SSA form with phis, then a
//! tensor op on the same object:
//!
//! ```
//! use ir_core::{Arg, Desc, FunctionBuilder, IntCC, MemSpace, Module, Opcode, Signature, TensorArg, Type};
//! use ir_core::{VerifyOptions, verify_module};
//!
//! let mut m = Module::new();
//! let a = m.add_mem("a", Type::I32, 64, MemSpace::Nram).unwrap();
//! let f = m.add_function("sum", Signature::new([Type::I64], [Type::I32]), &["n"]).unwrap();
//! let mut b = FunctionBuilder::new(m.function_mut(f).unwrap());
//! let n = b.param(0).unwrap();
//! let (i0, i1, i2) = (b.var("i", Type::I64), b.var("i.1", Type::I64), b.var("i.2", Type::I64));
//! let (s0, s1, s2) = (b.var("s", Type::I32), b.var("s.1", Type::I32), b.var("s.2", Type::I32));
//! let (x, more) = (b.var("x", Type::I32), b.var("more", Type::I1));
//! let (entry, head, body, exit) = (b.create_block(), b.create_block(), b.create_block(), b.create_block());
//!
//! b.switch_to_block(entry);
//! b.ins().constant(i0, 0i64);
//! b.ins().constant(s0, 0i32);
//! b.ins().jump(head);
//! b.switch_to_block(head);
//! b.ins().phi(i1, &[(entry, i0.into()), (body, i2.into())]);
//! b.ins().phi(s1, &[(entry, s0.into()), (body, s2.into())]);
//! b.ins().setp(IntCC::Slt, more, i1, n);
//! b.ins().br(more, body, exit);
//! b.switch_to_block(body);
//! b.ins().load(x, a, i1);
//! b.ins().binary(Opcode::Add, s2, s1, x);
//! b.ins().binary(Opcode::Add, i2, i1, 1i64);
//! b.ins().jump(head);
//! b.switch_to_block(exit);
//! // Double every element afterwards: a tensor map with a broadcast scalar.
//! b.ins().tensor(Opcode::Tmul, Desc::new(a, 0i64, 64i64), &[Desc::new(a, 0i64, 64i64).into(), TensorArg::Scalar(2i32.into())]);
//! b.ins().ret(&[Arg::Var(s1)]);
//!
//! verify_module(&m, &VerifyOptions { ssa: true }).unwrap();
//! let text = ir_core::text::print_module(&m);
//! assert!(text.contains("%i.1 = phi(bb0: %i, bb2: %i.2)"));
//! assert!(text.contains("tmul @a[0, 64], @a[0, 64], 2"));
//! ```
//!
//! Invariant: the builder never panics on a client mistake. A wrong opcode
//! for a constructor (say `binary(Opcode::Br, ..)`) or an ill-typed operand
//! still builds an instruction; the verifier reports it. The parser builds
//! through this same API, so text and builder cannot disagree.

use crate::entities::{Block, Inst, Mem, Var};
use crate::function::Function;
use crate::instructions::{Arg, Callee, Extra, Guard, JumpTableData, Operand};
use crate::opcode::{FloatCC, IntCC, Opcode};
use smallvec::SmallVec;

/// A memory descriptor as a client writes it: `@mem[offset, size]`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Desc {
    /// The memory object.
    pub mem: Mem,
    /// First element.
    pub offset: Arg,
    /// Number of elements.
    pub size: Arg,
}

impl Desc {
    /// `@mem[offset, size]`.
    pub fn new(mem: Mem, offset: impl Into<Arg>, size: impl Into<Arg>) -> Desc {
        Desc { mem, offset: offset.into(), size: size.into() }
    }
}

/// A tensor operand as a client writes it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TensorArg {
    /// A memory range.
    Desc(Desc),
    /// A scalar broadcast to every element.
    Scalar(Arg),
}

impl From<Desc> for TensorArg {
    fn from(d: Desc) -> TensorArg {
        TensorArg::Desc(d)
    }
}

#[derive(Copy, Clone, Debug)]
enum Position {
    Nowhere,
    AtEnd(Block),
    Before(Inst),
}

/// A cursor that appends instructions to a function.
#[derive(Debug)]
pub struct FunctionBuilder<'f> {
    func: &'f mut Function,
    pos: Position,
}

impl<'f> FunctionBuilder<'f> {
    /// A builder over `func`, positioned nowhere.
    pub fn new(func: &'f mut Function) -> FunctionBuilder<'f> {
        FunctionBuilder { func, pos: Position::Nowhere }
    }

    /// The function being built.
    pub fn func(&mut self) -> &mut Function {
        self.func
    }

    /// Creates a block and appends it to the layout.
    pub fn create_block(&mut self) -> Block {
        let b = self.func.create_block();
        // A fresh block is never already inserted.
        let _ = self.func.append_block(b);
        b
    }

    /// Moves the cursor to the end of `block`.
    pub fn switch_to_block(&mut self, block: Block) {
        self.pos = Position::AtEnd(block);
    }

    /// Moves the cursor after `inst`: the next instruction goes right after
    /// it, and the ones after that follow in order.
    pub fn position_after(&mut self, inst: Inst) {
        self.pos = match self.func.layout().next_inst(inst) {
            Some(next) => Position::Before(next),
            None => match self.func.layout().inst_block(inst) {
                Some(b) => Position::AtEnd(b),
                None => Position::Nowhere,
            },
        };
    }

    /// Moves the cursor before `inst`: new instructions go right before it.
    pub fn position_before(&mut self, inst: Inst) {
        self.pos = Position::Before(inst);
    }

    /// The block the cursor is in.
    pub fn current_block(&self) -> Option<Block> {
        match self.pos {
            Position::AtEnd(b) => Some(b),
            Position::Before(i) => self.func.layout().inst_block(i),
            Position::Nowhere => None,
        }
    }

    /// The `i`-th param.
    pub fn param(&self, i: usize) -> Option<Var> {
        self.func.params().get(i).copied()
    }

    /// Declares a var (see [`Function::add_var`]).
    pub fn var(&mut self, name: &str, ty: crate::Type) -> Var {
        self.func.add_var(name, ty)
    }

    /// Starts an instruction at the cursor.
    pub fn ins(&mut self) -> InstBuilder<'_, 'f> {
        InstBuilder { b: self, guard: None, fallbacks: SmallVec::new(), replace: None }
    }

    /// Starts an instruction that overwrites `inst` in place (same id and
    /// position, new contents).
    pub fn replace(&mut self, inst: Inst) -> InstBuilder<'_, 'f> {
        InstBuilder { b: self, guard: None, fallbacks: SmallVec::new(), replace: Some(inst) }
    }
}

/// Builds one instruction; finish it with an opcode method.
#[derive(Debug)]
pub struct InstBuilder<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
    guard: Option<Guard>,
    fallbacks: SmallVec<[Arg; 2]>,
    replace: Option<Inst>,
}

impl InstBuilder<'_, '_> {
    /// Guards the instruction with `guard`.
    pub fn guard(mut self, guard: Guard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// Guards the instruction: it executes only when `p` is true (`@%p`).
    pub fn when(self, p: Var) -> Self {
        self.guard(Guard::when(p))
    }

    /// Guards the instruction: it executes only when `p` is false (`@!%p`).
    pub fn unless(self, p: Var) -> Self {
        self.guard(Guard::unless(p))
    }

    /// The values the results keep when the guard fails (SSA form's
    /// `... else %x.2`), one per result.
    pub fn fallback(mut self, values: &[Arg]) -> Self {
        self.fallbacks = values.iter().copied().collect();
        self
    }

    fn finish(self, opcode: Opcode, results: &[Var], args: &[Arg], extra: Extra) -> Inst {
        let func = &mut *self.b.func;
        let ops: SmallVec<[Operand; 8]> = args.iter().map(|&a| func.operand(a)).collect();
        self.finish_ops(opcode, results, &ops, extra)
    }

    fn finish_ops(self, opcode: Opcode, results: &[Var], ops: &[Operand], extra: Extra) -> Inst {
        let func = &mut *self.b.func;
        let fallbacks: SmallVec<[Operand; 2]> = self.fallbacks.iter().map(|&a| func.operand(a)).collect();
        if let Some(inst) = self.replace.filter(|&i| func.inst_exists(i)) {
            func.overwrite_inst(inst, opcode, self.guard, results, ops, extra);
            if !fallbacks.is_empty() {
                func.set_fallbacks(inst, &fallbacks);
            }
            return inst;
        }
        let inst = func.push_inst(opcode, self.guard, results, ops, extra);
        if !fallbacks.is_empty() {
            func.set_fallbacks(inst, &fallbacks);
        }
        // Inserting a fresh instruction can only fail if the cursor points at
        // something that is not in the layout; the instruction then stays
        // detached and the caller still gets its id.
        let _ = match self.b.pos {
            Position::AtEnd(block) => func.append_inst(inst, block),
            Position::Before(before) => func.insert_inst_before(inst, before),
            Position::Nowhere => Ok(()),
        };
        inst
    }

    /// Any instruction from its parts; the parser builds through this.
    pub(crate) fn raw(self, op: Opcode, results: &[Var], args: &[Arg], extra: Extra) -> Inst {
        self.finish(op, results, args, extra)
    }

    /// `dst = const imm`.
    pub fn constant(self, dst: Var, imm: impl Into<crate::Imm>) -> Inst {
        self.finish(Opcode::Const, &[dst], &[Arg::Imm(imm.into())], Extra::None)
    }

    /// `dst = undef`: an undefined value.
    pub fn undef(self, dst: Var) -> Inst {
        self.finish(Opcode::Undef, &[dst], &[], Extra::None)
    }

    /// `dst = copy a`.
    pub fn copy(self, dst: Var, a: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Copy, &[dst], &[a.into()], Extra::None)
    }

    /// `dst = select c, a, b`.
    pub fn select(self, dst: Var, c: impl Into<Arg>, a: impl Into<Arg>, b: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Select, &[dst], &[c.into(), a.into(), b.into()], Extra::None)
    }

    /// `dst = op a` for a unary opcode (`neg`, `fsqrt`, `copy`, ...).
    pub fn unary(self, op: Opcode, dst: Var, a: impl Into<Arg>) -> Inst {
        self.finish(op, &[dst], &[a.into()], Extra::None)
    }

    /// `dst = op a, b` for a binary opcode (`add`, `fmul`, ...).
    pub fn binary(self, op: Opcode, dst: Var, a: impl Into<Arg>, b: impl Into<Arg>) -> Inst {
        self.finish(op, &[dst], &[a.into(), b.into()], Extra::None)
    }

    /// `dst = setp.cc a, b`.
    pub fn setp(self, cc: IntCC, dst: Var, a: impl Into<Arg>, b: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Setp, &[dst], &[a.into(), b.into()], Extra::IntCC(cc))
    }

    /// `dst = fsetp.cc a, b`.
    pub fn fsetp(self, cc: FloatCC, dst: Var, a: impl Into<Arg>, b: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Fsetp, &[dst], &[a.into(), b.into()], Extra::FloatCC(cc))
    }

    /// `dst = op a` for a conversion (`sext`, `fptosi`, ...); `dst`'s type is
    /// the target type.
    pub fn convert(self, op: Opcode, dst: Var, a: impl Into<Arg>) -> Inst {
        self.finish(op, &[dst], &[a.into()], Extra::None)
    }

    /// `results = call callee(args)`.
    pub fn call(self, callee: Callee, results: &[Var], args: &[Arg]) -> Inst {
        self.finish(Opcode::Call, results, args, Extra::Call(callee))
    }

    /// `results = intrinsic "name"(args)`.
    pub fn intrinsic(self, name: &str, results: &[Var], args: &[Arg]) -> Inst {
        let id = self.b.func.intern_intrinsic(name);
        self.finish(Opcode::Intrinsic, results, args, Extra::Intrinsic(id))
    }

    /// `dst = load @mem[index]`.
    pub fn load(self, dst: Var, mem: Mem, index: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Load, &[dst], &[index.into()], Extra::Mem(mem))
    }

    /// `store @mem[index], value`.
    pub fn store(self, mem: Mem, index: impl Into<Arg>, value: impl Into<Arg>) -> Inst {
        self.finish(Opcode::Store, &[], &[index.into(), value.into()], Extra::Mem(mem))
    }

    /// Any tensor instruction from its slots and trailing operands. At most
    /// eight slots are stored as slots; further ones are appended as plain
    /// operands (the verifier then reports the operand count).
    pub(crate) fn tensor_inst(self, op: Opcode, results: &[Var], slots: &[TensorArg], tail: &[Arg]) -> Inst {
        let mut mems = Vec::with_capacity(slots.len());
        let mut args = Vec::with_capacity(slots.len() * 2 + tail.len());
        let mut scalars = 0u8;
        for (i, slot) in slots.iter().enumerate() {
            match *slot {
                TensorArg::Desc(d) if i < 8 => {
                    mems.push(d.mem);
                    args.extend([d.offset, d.size]);
                }
                TensorArg::Desc(d) => args.extend([d.offset, d.size]),
                TensorArg::Scalar(a) => {
                    if i < 8 {
                        scalars |= 1 << i;
                    }
                    args.push(a);
                }
            }
        }
        args.extend_from_slice(tail);
        let mems = self.b.func.make_mem_list(&mems);
        self.finish(op, results, &args, Extra::Tensor { mems, scalars })
    }

    /// A tensor map: `op dst, sources...` (`tadd`, `tfma`, `trelu`, `dma`,
    /// `tfill`, ...). See [`Opcode::tensor_sources`] for each opcode's slots.
    pub fn tensor(self, op: Opcode, dst: Desc, sources: &[TensorArg]) -> Inst {
        let mut slots = Vec::with_capacity(1 + sources.len());
        slots.push(TensorArg::Desc(dst));
        slots.extend_from_slice(sources);
        self.tensor_inst(op, &[], &slots, &[])
    }

    /// A reduction: `dst = op @src[..]` (`tsum`, `tredmax`).
    pub fn reduce(self, op: Opcode, dst: Var, src: Desc) -> Inst {
        self.tensor_inst(op, &[dst], &[TensorArg::Desc(src)], &[])
    }

    /// `matmul c, a, b, m, k, n`: `C[m×n] = A[m×k] · B[k×n]`, row-major.
    pub fn matmul(self, c: Desc, a: Desc, b: Desc, dims: [Arg; 3]) -> Inst {
        let slots = [TensorArg::Desc(c), TensorArg::Desc(a), TensorArg::Desc(b)];
        self.tensor_inst(Opcode::Matmul, &[], &slots, &dims)
    }

    /// `dst = phi(pred: value, ...)`.
    pub fn phi(self, dst: Var, incoming: &[(Block, Arg)]) -> Inst {
        let blocks: Vec<Block> = incoming.iter().map(|p| p.0).collect();
        let args: Vec<Arg> = incoming.iter().map(|p| p.1).collect();
        let list = self.b.func.make_block_list(&blocks);
        self.finish(Opcode::Phi, &[dst], &args, Extra::Phi(list))
    }

    /// `jump target`.
    pub fn jump(self, target: Block) -> Inst {
        self.finish(Opcode::Jump, &[], &[], Extra::Jump(target))
    }

    /// `br c, then, else`.
    pub fn br(self, c: impl Into<Arg>, then_block: Block, else_block: Block) -> Inst {
        self.finish(Opcode::Br, &[], &[c.into()], Extra::Branch([then_block, else_block]))
    }

    /// `switch value, default, [case: target, ...]`.
    ///
    /// Case values are canonicalised to the value's type (for an `i8`, 255
    /// becomes -1), as the parser does.
    pub fn switch(self, value: impl Into<Arg>, default: Block, cases: &[(i64, Block)]) -> Inst {
        let value = value.into();
        let ty = match value {
            Arg::Var(v) => self.b.func.var_type(v),
            Arg::Imm(i) => Some(i.ty()),
        }
        .filter(|t| t.is_int());
        let cases = cases.iter().map(|&(v, b)| (ty.map_or(v, |t| crate::Imm::int(t, v).as_i64()), b)).collect();
        let jt = self.b.func.add_jump_table(JumpTableData { default, cases });
        self.finish(Opcode::Switch, &[], &[value], Extra::Switch(jt))
    }

    /// `ret values...`.
    pub fn ret(self, values: &[Arg]) -> Inst {
        self.finish(Opcode::Ret, &[], values, Extra::None)
    }

    /// `trap`.
    pub fn trap(self) -> Inst {
        self.finish(Opcode::Trap, &[], &[], Extra::None)
    }

    /// Any instruction whose format needs no extra data (const, unary,
    /// binary, select, convert, ret, trap), by opcode. Others get their
    /// format's dedicated method; using this for them builds an instruction
    /// the verifier rejects as malformed.
    pub fn simple(self, op: Opcode, results: &[Var], args: &[Arg]) -> Inst {
        self.finish(op, results, args, Extra::None)
    }
}
