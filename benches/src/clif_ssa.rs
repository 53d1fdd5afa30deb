//! Replaying one non-SSA Keel function into two SSA builders, for the
//! `ssa_construction` benchmark:
//!
//! - [`ClifReplay::build`]: through `cranelift-frontend`'s `FunctionBuilder`,
//!   which builds Cranelift IR and SSA form in one pass from a stream of
//!   `declare_var` / `def_var` / `use_var` calls (Braun et al., 2013);
//! - [`keel_replay`]: through `ir-core`'s `FunctionBuilder` into a new
//!   non-SSA function, which `ssa::construct` then converts.
//!
//! Both walk the same source function in layout order and see the same
//! blocks, instructions, vars, definitions and uses, so the SSA problem
//! they solve is the same.
//!
//! # The Cranelift translation
//!
//! Each Keel var is one Cranelift `Variable` of the matching type (`i1`
//! becomes `i8`, Cranelift has no `i1`); each block is one Cranelift block,
//! created up front and laid out in the source's order; params are the entry
//! block's params. Every operand that is a var is a `use_var`, every result
//! a `def_var`. Instructions map to the closest Cranelift instruction, not
//! always with the same semantics (it is never run):
//! - `const` to `iconst`/`f32const`/`f64const`, and an immediate operand to
//!   one such constant per use (Cranelift has no immediate operands here);
//! - `copy` to no instruction at all (`def_var(dst, use_var(src))`), and a
//!   conversion between types Cranelift does not tell apart (`sext i1` to
//!   `i8`, `bitcast` to the same type) likewise;
//! - arithmetic, comparisons, `select` and conversions to their Cranelift
//!   namesakes (`add` to `iadd`, `setp.slt` to `icmp slt`, `fptosi_sat` to
//!   `fcvt_to_sint_sat`, ...);
//! - `jump`, `br` and `ret` to `jump`, `brif` and `return`; `switch` to a
//!   `br_table` indexed by the switch value, with one entry per value up to
//!   the largest case (the default elsewhere): the same successors;
//! - a **guarded definition** `@%p %x = op ...` to the unguarded `op` into a
//!   temporary, then `%x = select %p, tmp, old` (operands swapped for
//!   `@!%p`), where `old` is `use_var(%x)`: Cranelift has no predication.
//!   That `use_var` is the work Keel's construction does to name a guarded
//!   definition's fallback (`... else %x.2`).
//!
//! Input phis, calls, memory and tensor instructions are not translated:
//! the benchmark's programs have none (`crate::programs`), and
//! [`ClifReplay::new`] panics on them.
//!
//! # Sealing
//!
//! Cranelift wants each block sealed once all its predecessors are known
//! ([`Sealing::Asap`]); [`ClifReplay::new`] computes, outside the timed
//! part, after which block of the layout each block can be sealed (what a
//! frontend knows from the structure of its source: a loop header after its
//! latch, a join after its last arm). [`Sealing::AtEnd`] instead calls
//! `seal_all_blocks` once at the end, which is simpler for a frontend and
//! makes every `use_var` in a not-yet-sealed block add a provisional block
//! param.

use cranelift_codegen::ir::condcodes::{FloatCC as ClFloatCC, IntCC as ClIntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{
    self, AbiParam, InstBuilder, JumpTableData as ClJumpTableData, MemFlagsData, TrapCode, UserFuncName, Value, types,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_codegen::settings;
use cranelift_frontend::{FunctionBuilder as ClBuilder, FunctionBuilderContext, Variable};
use ir_core::entity::EntityRef;
use ir_core::{Arg, Block, FloatCC, Format, Function, FunctionBuilder, Imm, Inst, IntCC, Opcode, Operand, Type};
use target_lexicon::PointerWidth;

/// When the Cranelift replay seals blocks.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Sealing {
    /// Each block as soon as all its predecessors are filled.
    Asap,
    /// All blocks at the end (`seal_all_blocks`).
    AtEnd,
}

/// The Cranelift type of a Keel type (`i1` is `i8`).
pub fn clif_type(t: Type) -> ir::Type {
    match t {
        Type::I1 | Type::I8 => types::I8,
        Type::I16 => types::I16,
        Type::I32 => types::I32,
        Type::I64 => types::I64,
        Type::F32 => types::F32,
        Type::F64 => types::F64,
    }
}

fn int_cc(cc: IntCC) -> ClIntCC {
    match cc {
        IntCC::Eq => ClIntCC::Equal,
        IntCC::Ne => ClIntCC::NotEqual,
        IntCC::Slt => ClIntCC::SignedLessThan,
        IntCC::Sle => ClIntCC::SignedLessThanOrEqual,
        IntCC::Sgt => ClIntCC::SignedGreaterThan,
        IntCC::Sge => ClIntCC::SignedGreaterThanOrEqual,
        IntCC::Ult => ClIntCC::UnsignedLessThan,
        IntCC::Ule => ClIntCC::UnsignedLessThanOrEqual,
        IntCC::Ugt => ClIntCC::UnsignedGreaterThan,
        IntCC::Uge => ClIntCC::UnsignedGreaterThanOrEqual,
    }
}

fn float_cc(cc: FloatCC) -> ClFloatCC {
    match cc {
        FloatCC::Eq => ClFloatCC::Equal,
        FloatCC::Ne => ClFloatCC::NotEqual,
        FloatCC::Lt => ClFloatCC::LessThan,
        FloatCC::Le => ClFloatCC::LessThanOrEqual,
        FloatCC::Gt => ClFloatCC::GreaterThan,
        FloatCC::Ge => ClFloatCC::GreaterThanOrEqual,
        FloatCC::Ord => ClFloatCC::Ordered,
        FloatCC::Uno => ClFloatCC::Unordered,
    }
}

/// Runs Cranelift's verifier on `func` (shared flags only, no ISA).
pub fn clif_verify(func: &ir::Function) -> Result<(), String> {
    let flags = settings::Flags::new(settings::builder());
    cranelift_codegen::verify_function(func, &flags).map_err(|e| e.to_string())
}

/// What the Cranelift replay of one source function needs beyond the
/// function itself, computed once outside the timed part.
#[derive(Clone, Debug)]
pub struct ClifReplay {
    sig: ir::Signature,
    /// Cranelift type of each Keel var, by var id.
    var_types: Vec<ir::Type>,
    /// Layout position of each source block, by block id.
    pos: Vec<u32>,
    /// Per layout position: the blocks (by layout position) to seal once
    /// that block is filled.
    seal_after: Vec<Vec<u32>>,
    /// Per layout position: the block has no predecessor (sealed on entry).
    no_preds: Vec<bool>,
}

impl ClifReplay {
    /// Prepares the replay of `src`.
    ///
    /// # Panics
    ///
    /// If `src` holds an instruction the translation does not cover (input
    /// phis, calls, intrinsics, memory or tensor instructions) or a `switch`
    /// with a negative case or one above 4096.
    pub fn new(src: &Function) -> ClifReplay {
        let mut sig = ir::Signature::new(CallConv::SystemV);
        sig.params.extend(src.signature().params.iter().map(|&t| AbiParam::new(clif_type(t))));
        sig.returns.extend(src.signature().returns.iter().map(|&t| AbiParam::new(clif_type(t))));
        let var_types = src.vars().map(|v| clif_type(src.var_type(v).unwrap_or(Type::I64))).collect();
        let layout: Vec<Block> = src.blocks().collect();
        let mut pos = vec![u32::MAX; src.num_blocks()];
        for (i, &b) in layout.iter().enumerate() {
            pos[b.index()] = i as u32;
        }
        // The last predecessor (by layout position) of each block.
        let mut last_pred: Vec<Option<u32>> = vec![None; layout.len()];
        for (i, &b) in layout.iter().enumerate() {
            for inst in src.block_insts(b) {
                let op = src.opcode(inst);
                assert!(
                    matches!(
                        op.format(),
                        Format::Const
                            | Format::Undef
                            | Format::Unary
                            | Format::Binary
                            | Format::Select
                            | Format::Compare
                            | Format::Convert
                            | Format::Jump
                            | Format::Branch
                            | Format::Switch
                            | Format::Ret
                            | Format::Trap
                    ),
                    "the Cranelift replay does not translate `{op}` (block {b})"
                );
                if let Some(t) = src.switch_table(inst) {
                    assert!(
                        t.cases.iter().all(|&(v, _)| (0..=4096).contains(&v)),
                        "the Cranelift replay needs switch cases in 0..=4096 (block {b})"
                    );
                }
            }
            for s in src.block_successors(b) {
                let p = pos[s.index()] as usize;
                last_pred[p] = Some(last_pred[p].map_or(i as u32, |l| l.max(i as u32)));
            }
        }
        let mut seal_after = vec![Vec::new(); layout.len()];
        let mut no_preds = vec![false; layout.len()];
        for (p, last) in last_pred.iter().enumerate() {
            match last {
                Some(l) => seal_after[*l as usize].push(p as u32),
                None => no_preds[p] = true,
            }
        }
        ClifReplay { sig, var_types, pos, seal_after, no_preds }
    }

    /// Builds the Cranelift function for `src` (the function given to
    /// [`ClifReplay::new`]) with `ctx`, sealing blocks as `sealing` says.
    pub fn build(&self, src: &Function, ctx: &mut FunctionBuilderContext, sealing: Sealing) -> ir::Function {
        let mut func = ir::Function::with_name_signature(UserFuncName::default(), self.sig.clone());
        let mut b = ClBuilder::new(&mut func, ctx);
        for &t in &self.var_types {
            b.declare_var(t);
        }
        let blocks: Vec<ir::Block> = (0..self.seal_after.len()).map(|_| b.create_block()).collect();
        let mut r = Replayer { src, b, blocks: &blocks, pos: &self.pos };
        for (i, sb) in src.blocks().enumerate() {
            let cb = blocks[i];
            r.b.switch_to_block(cb);
            if sealing == Sealing::Asap && self.no_preds[i] {
                r.b.seal_block(cb);
            }
            if i == 0 {
                r.b.append_block_params_for_function_params(cb);
                for (k, &p) in src.params().iter().enumerate() {
                    let v = r.b.block_params(cb)[k];
                    r.b.def_var(Variable::new(p.index()), v);
                }
            }
            for inst in src.block_insts(sb) {
                r.inst(inst);
            }
            if sealing == Sealing::Asap {
                for &s in &self.seal_after[i] {
                    r.b.seal_block(blocks[s as usize]);
                }
            }
        }
        if sealing == Sealing::AtEnd {
            r.b.seal_all_blocks();
        }
        r.b.finalize(TargetFrontendConfig {
            default_call_conv: CallConv::SystemV,
            pointer_width: PointerWidth::U64,
            page_size_align_log2: 12,
        });
        func
    }
}

struct Replayer<'s, 'b, 'f> {
    src: &'s Function,
    b: ClBuilder<'f>,
    blocks: &'b [ir::Block],
    pos: &'b [u32],
}

impl Replayer<'_, '_, '_> {
    fn block(&self, b: Block) -> ir::Block {
        self.blocks[self.pos[b.index()] as usize]
    }

    fn constant(&mut self, imm: Imm) -> Value {
        match imm.ty() {
            Type::F32 => self.b.ins().f32const(Ieee32::with_bits(imm.bits() as u32)),
            Type::F64 => self.b.ins().f64const(Ieee64::with_bits(imm.bits())),
            t => self.b.ins().iconst(clif_type(t), imm.as_u64() as i64),
        }
    }

    fn value(&mut self, op: Operand) -> Value {
        match self.src.arg(op).expect("operands of a verified function exist") {
            Arg::Var(v) => self.b.use_var(Variable::new(v.index())),
            Arg::Imm(imm) => self.constant(imm),
        }
    }

    fn operand(&mut self, inst: Inst, i: usize) -> Value {
        let op = self.src.operands(inst)[i];
        self.value(op)
    }

    fn inst(&mut self, inst: Inst) {
        let src = self.src;
        let op = src.opcode(inst);
        let value = match op.format() {
            Format::Const => self.operand(inst, 0),
            Format::Undef => {
                let t = src.var_type(src.results(inst)[0]).unwrap_or(Type::I64);
                self.constant(Imm::int(t, 0))
            }
            Format::Unary => {
                let a = self.operand(inst, 0);
                let ins = self.b.ins();
                match op {
                    Opcode::Copy => a,
                    Opcode::Neg => ins.ineg(a),
                    Opcode::Not => ins.bnot(a),
                    Opcode::Clz => ins.clz(a),
                    Opcode::Ctz => ins.ctz(a),
                    Opcode::Popcnt => ins.popcnt(a),
                    Opcode::Fneg => ins.fneg(a),
                    Opcode::Fabs => ins.fabs(a),
                    Opcode::Fsqrt => ins.sqrt(a),
                    Opcode::Fceil => ins.ceil(a),
                    Opcode::Ffloor => ins.floor(a),
                    Opcode::Ftrunc => ins.trunc(a),
                    Opcode::Fnearest => ins.nearest(a),
                    _ => unreachable!("`{op}` is not a unary opcode"),
                }
            }
            Format::Binary => {
                let (a, c) = (self.operand(inst, 0), self.operand(inst, 1));
                let ins = self.b.ins();
                match op {
                    Opcode::Add => ins.iadd(a, c),
                    Opcode::Sub => ins.isub(a, c),
                    Opcode::Mul => ins.imul(a, c),
                    Opcode::Sdiv => ins.sdiv(a, c),
                    Opcode::Udiv => ins.udiv(a, c),
                    Opcode::Srem => ins.srem(a, c),
                    Opcode::Urem => ins.urem(a, c),
                    Opcode::And => ins.band(a, c),
                    Opcode::Or => ins.bor(a, c),
                    Opcode::Xor => ins.bxor(a, c),
                    Opcode::Shl => ins.ishl(a, c),
                    Opcode::Lshr => ins.ushr(a, c),
                    Opcode::Ashr => ins.sshr(a, c),
                    Opcode::Rotl => ins.rotl(a, c),
                    Opcode::Rotr => ins.rotr(a, c),
                    Opcode::Smin => ins.smin(a, c),
                    Opcode::Smax => ins.smax(a, c),
                    Opcode::Umin => ins.umin(a, c),
                    Opcode::Umax => ins.umax(a, c),
                    Opcode::Fadd => ins.fadd(a, c),
                    Opcode::Fsub => ins.fsub(a, c),
                    Opcode::Fmul => ins.fmul(a, c),
                    Opcode::Fdiv => ins.fdiv(a, c),
                    Opcode::Fmin => ins.fmin(a, c),
                    Opcode::Fmax => ins.fmax(a, c),
                    Opcode::Fcopysign => ins.fcopysign(a, c),
                    _ => unreachable!("`{op}` is not a binary opcode"),
                }
            }
            Format::Select => {
                let (c, a, d) = (self.operand(inst, 0), self.operand(inst, 1), self.operand(inst, 2));
                self.b.ins().select(c, a, d)
            }
            Format::Compare => {
                let (a, c) = (self.operand(inst, 0), self.operand(inst, 1));
                match (src.int_cc(inst), src.float_cc(inst)) {
                    (Some(cc), _) => self.b.ins().icmp(int_cc(cc), a, c),
                    (_, Some(cc)) => self.b.ins().fcmp(float_cc(cc), a, c),
                    _ => unreachable!("a comparison has a condition code"),
                }
            }
            Format::Convert => {
                let a = self.operand(inst, 0);
                let to = clif_type(src.var_type(src.results(inst)[0]).unwrap_or(Type::I64));
                if self.b.func.dfg.value_type(a) == to {
                    a
                } else {
                    let ins = self.b.ins();
                    match op {
                        Opcode::Sext => ins.sextend(to, a),
                        Opcode::Zext => ins.uextend(to, a),
                        Opcode::Trunc => ins.ireduce(to, a),
                        Opcode::Fpext => ins.fpromote(to, a),
                        Opcode::Fptrunc => ins.fdemote(to, a),
                        Opcode::Fptosi => ins.fcvt_to_sint(to, a),
                        Opcode::Fptoui => ins.fcvt_to_uint(to, a),
                        Opcode::FptosiSat => ins.fcvt_to_sint_sat(to, a),
                        Opcode::FptouiSat => ins.fcvt_to_uint_sat(to, a),
                        Opcode::Sitofp => ins.fcvt_from_sint(to, a),
                        Opcode::Uitofp => ins.fcvt_from_uint(to, a),
                        Opcode::Bitcast => ins.bitcast(to, MemFlagsData::new(), a),
                        _ => unreachable!("`{op}` is not a conversion"),
                    }
                }
            }
            Format::Jump => {
                let t = self.block(src.successors(inst).next().expect("a jump has a target"));
                self.b.ins().jump(t, &[]);
                return;
            }
            Format::Branch => {
                let c = self.operand(inst, 0);
                let mut succ = src.successors(inst);
                let (t, f) = (succ.next().expect("then"), succ.next().expect("else"));
                let (t, f) = (self.block(t), self.block(f));
                self.b.ins().brif(c, t, &[], f, &[]);
                return;
            }
            Format::Switch => {
                let x = self.operand(inst, 0);
                let table = src.switch_table(inst).expect("a switch has a table");
                let default = self.block(table.default);
                let len = table.cases.iter().map(|&(v, _)| v as usize + 1).max().unwrap_or(0);
                let mut targets = vec![default; len];
                for &(v, t) in &table.cases {
                    targets[v as usize] = self.block(t);
                }
                let dfg = &mut self.b.func.dfg;
                let calls: Vec<ir::BlockCall> = targets.iter().map(|&t| dfg.block_call(t, &[])).collect();
                let def = dfg.block_call(default, &[]);
                let jt = self.b.create_jump_table(ClJumpTableData::new(def, &calls));
                self.b.ins().br_table(x, jt);
                return;
            }
            Format::Ret => {
                let n = src.operands(inst).len();
                let vals: Vec<Value> = (0..n).map(|i| self.operand(inst, i)).collect();
                self.b.ins().return_(&vals);
                return;
            }
            Format::Trap => {
                self.b.ins().trap(TrapCode::unwrap_user(1));
                return;
            }
            _ => unreachable!("checked by ClifReplay::new"),
        };
        let dst = src.results(inst)[0];
        let var = Variable::new(dst.index());
        let value = match src.guard(inst) {
            None => value,
            Some(g) => {
                let p = self.b.use_var(Variable::new(g.var.index()));
                let old = self.b.use_var(var);
                if g.negated { self.b.ins().select(p, old, value) } else { self.b.ins().select(p, value, old) }
            }
        };
        self.b.def_var(var, value);
    }
}

/// Block params the SSA builder added to `func` (the entry block's, which
/// are the function's params, excluded): Cranelift's phis.
pub fn clif_phis(func: &ir::Function) -> usize {
    let entry = func.layout.entry_block();
    func.layout.blocks().filter(|&b| Some(b) != entry).map(|b| func.dfg.block_params(b).len()).sum()
}

/// A copy of `src` built through `ir-core`'s `FunctionBuilder`, instruction
/// by instruction in layout order: the same vars (same ids, names and
/// types), blocks, instructions, guards and constants.
///
/// # Panics
///
/// On the instructions [`ClifReplay::new`] rejects, except input phis,
/// which are copied.
pub fn keel_replay(src: &Function) -> Function {
    let param_names: Vec<&str> = src.params().iter().map(|&p| src.var_name(p)).collect();
    let mut func = Function::new(src.name(), src.signature().clone(), &param_names);
    for v in src.vars().skip(src.params().len()) {
        func.add_var(src.var_name(v), src.var_type(v).unwrap_or(Type::I64));
    }
    let mut b = FunctionBuilder::new(&mut func);
    let mut map = vec![Block::new(0); src.num_blocks()];
    for sb in src.blocks() {
        map[sb.index()] = b.create_block();
    }
    let arg = |i: Inst, k: usize| src.arg(src.operands(i)[k]).expect("operands of a verified function exist");
    for sb in src.blocks() {
        b.switch_to_block(map[sb.index()]);
        for inst in src.block_insts(sb) {
            let op = src.opcode(inst);
            let mut ins = b.ins();
            if let Some(g) = src.guard(inst) {
                ins = ins.guard(g);
            }
            let dst = || src.results(inst)[0];
            match op.format() {
                Format::Const => match arg(inst, 0) {
                    Arg::Imm(imm) => ins.constant(dst(), imm),
                    a => ins.copy(dst(), a),
                },
                Format::Undef => ins.undef(dst()),
                Format::Unary => ins.unary(op, dst(), arg(inst, 0)),
                Format::Convert => ins.convert(op, dst(), arg(inst, 0)),
                Format::Binary => ins.binary(op, dst(), arg(inst, 0), arg(inst, 1)),
                Format::Select => ins.select(dst(), arg(inst, 0), arg(inst, 1), arg(inst, 2)),
                Format::Compare => match (src.int_cc(inst), src.float_cc(inst)) {
                    (Some(cc), _) => ins.setp(cc, dst(), arg(inst, 0), arg(inst, 1)),
                    (_, Some(cc)) => ins.fsetp(cc, dst(), arg(inst, 0), arg(inst, 1)),
                    _ => unreachable!("a comparison has a condition code"),
                },
                Format::Phi => {
                    let incoming: Vec<(Block, Arg)> =
                        src.phi_incoming(inst).map(|(p, v)| (map[p.index()], src.arg(v).expect("verified"))).collect();
                    ins.phi(dst(), &incoming)
                }
                Format::Jump => ins.jump(map[src.successors(inst).next().expect("a target").index()]),
                Format::Branch => {
                    let mut s = src.successors(inst);
                    let (t, f) = (s.next().expect("then"), s.next().expect("else"));
                    ins.br(arg(inst, 0), map[t.index()], map[f.index()])
                }
                Format::Switch => {
                    let table = src.switch_table(inst).expect("a switch has a table");
                    let cases: Vec<(i64, Block)> = table.cases.iter().map(|&(v, t)| (v, map[t.index()])).collect();
                    ins.switch(arg(inst, 0), map[table.default.index()], &cases)
                }
                Format::Ret => {
                    let vals: Vec<Arg> = src.operands(inst).iter().map(|&o| src.arg(o).expect("verified")).collect();
                    ins.ret(&vals)
                }
                Format::Trap => ins.trap(),
                _ => panic!("keel_replay does not copy `{op}` (block {sb})"),
            };
        }
    }
    func
}
