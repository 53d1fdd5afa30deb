//! The lowering of control flow and calls: terminators to `br`/`jmp`
//! chains, phi copies on edges, `ret` to the result object or the caller's
//! return label, calls to inlined instances.
//!
//! Invariants: an edge's phi copies are parallel (through temporaries) and
//! sit on the edge itself, so a critical edge gets a stub label of its own;
//! a `switch` compares the canonical case values in table order, then
//! takes the default; each call site gets a fresh instance of its callee,
//! queued (never lowered recursively).

use super::emit::at;
use super::error::CompileError;
use super::lowerer::{Instance, Lowerer, Move, ty};
use ir_core::{Block, Callee, Function, Opcode};
use mlu_isa::{Inst, IntCC, Operand, Space, Ty};

impl Lowerer<'_> {
    pub(crate) fn lower_call(&mut self, inst: &Instance, f: &Function, i: ir_core::Inst) -> Result<(), CompileError> {
        let callee = match f.callee(i) {
            Some(Callee::Func(g)) => g,
            Some(c @ Callee::Ext(_)) => {
                let callee = self.module.callee_name(c).to_string();
                return Err(CompileError::ExternalCall { at: self.here.clone(), callee });
            }
            None => return Err(self.unsupported_op(Opcode::Call)),
        };
        let g = self.module.function(callee).ok_or_else(|| self.unsupported_op(Opcode::Call))?;
        let ret = self.e.label();
        let mut out = Vec::with_capacity(g.signature().returns.len());
        for _ in 0..g.signature().returns.len() {
            out.push(self.e.vreg()?);
        }
        let inst2 = self.instance(callee, Some((ret, out.clone())))?;
        let moves: Vec<Move> = g
            .params()
            .iter()
            .zip(f.operands(i))
            .map(|(&p, &a)| (inst2.vars[p.as_u32() as usize], Self::var_ty(g, p), self.op(inst, f, a)))
            .collect();
        for (d, t, s) in moves {
            self.e.push(Inst::Mov { ty: t, dst: d, src: s })?;
        }
        let entry = g
            .entry_block()
            .map(|b| inst2.blocks[b.as_u32() as usize])
            .ok_or_else(|| self.unsupported_op(Opcode::Call))?;
        self.e.push(Inst::Jump { target: entry })?;
        self.e.bind(ret);
        for (&r, &v) in f.results(i).iter().zip(&out) {
            let d = self.var(inst, r);
            self.e.push(Inst::Mov { ty: Self::var_ty(f, r), dst: d, src: Operand::Reg(v) })?;
        }
        self.queue.push_back(inst2);
        Ok(())
    }

    pub(crate) fn lower_terminator(
        &mut self,
        inst: &Instance,
        f: &Function,
        b: Block,
        i: ir_core::Inst,
    ) -> Result<(), CompileError> {
        let ops = f.operands(i);
        match f.opcode(i) {
            Opcode::Jump => {
                let t = f.successors(i).next().ok_or_else(|| self.unsupported_op(Opcode::Jump))?;
                self.edge(inst, b, t)
            }
            Opcode::Br => {
                let mut s = f.successors(i);
                let (t, e) = (s.next(), s.next());
                let (Some(t), Some(e)) = (t, e) else { return Err(self.unsupported_op(Opcode::Br)) };
                if t == e {
                    return self.edge(inst, b, t);
                }
                let c = ops.first().map(|&o| self.op(inst, f, o)).unwrap_or(Operand::Imm(0));
                let cond = self.e.in_reg(Ty::I1, c)?;
                let stub = self.e.label();
                self.e.push(Inst::Branch { on_zero: false, cond, target: stub })?;
                self.edge(inst, b, e)?;
                self.e.bind(stub);
                self.edge(inst, b, t)
            }
            Opcode::Switch => {
                let table = f.switch_table(i).ok_or_else(|| self.unsupported_op(Opcode::Switch))?.clone();
                let v = ops.first().map(|&o| self.op(inst, f, o)).unwrap_or(Operand::Imm(0));
                let vt = ops.first().and_then(|&o| f.operand_type(o)).map(ty).unwrap_or(Ty::I64);
                let v = self.e.in_reg(vt, v)?;
                let mut stubs = Vec::with_capacity(table.cases.len());
                for &(k, target) in &table.cases {
                    let hit = self.e.vreg()?;
                    self.e.push(Inst::Setp {
                        cc: IntCC::Eq,
                        ty: vt,
                        dst: hit,
                        a: Operand::Reg(v),
                        b: Operand::Imm(vt.canonical(k as u64)),
                    })?;
                    let stub = self.e.label();
                    self.e.push(Inst::Branch { on_zero: false, cond: hit, target: stub })?;
                    stubs.push((stub, target));
                }
                self.edge(inst, b, table.default)?;
                for (stub, target) in stubs {
                    self.e.bind(stub);
                    self.edge(inst, b, target)?;
                }
                Ok(())
            }
            Opcode::Ret => {
                let vals: Vec<Operand> = ops.iter().map(|&o| self.op(inst, f, o)).collect();
                match &inst.ret {
                    None => {
                        // Split code: core 0 writes the results.
                        self.region(true, |s| {
                            for (k, v) in vals.into_iter().enumerate() {
                                let addr = at(Space::Dram, s.ret_mem, None, 8 * k as i64);
                                s.e.push(Inst::Store { ty: Ty::I64, addr, value: v })?;
                            }
                            Ok(())
                        })?;
                        self.e.push(Inst::Exit)
                    }
                    Some((label, regs)) => {
                        let rets = &f.signature().returns;
                        for ((&r, v), &t) in regs.iter().zip(vals).zip(rets) {
                            self.e.push(Inst::Mov { ty: ty(t), dst: r, src: v })?;
                        }
                        self.e.push(Inst::Jump { target: *label })
                    }
                }
            }
            Opcode::Trap => self.e.push(Inst::Trap),
            other => Err(self.unsupported_op(other)),
        }
    }

    /// The edge `from → to`: `to`'s phi copies, then a jump.
    fn edge(&mut self, inst: &Instance, from: Block, to: Block) -> Result<(), CompileError> {
        let moves = self.phi_moves.get(&(from, to)).cloned().unwrap_or_default();
        self.parallel_copy(&moves)?;
        self.e.push(Inst::Jump { target: inst.blocks[to.as_u32() as usize] })
    }
}
