//! Control flow for the lowering: lambda bodies inlined from an explicit
//! stack of frames; `apply` inlined, an `if` on a value the same in every
//! lane as a diamond, `while` as a loop, with the state in vars and
//! memory objects (copied through temporaries when a result is another
//! state component, so the copy is parallel).

use super::emit::{Frame, LVal, Lower, R, Then, err};
use super::error::{LowerError, LowerErrorKind};
use crate::graph::Sym;
use crate::ops::Op;
use ir_core::{Opcode, TensorArg, Type};

impl Lower<'_> {
    /// Storage for values of these lowered forms (fresh vars and objects).
    fn storage(&mut self, like: &[LVal]) -> R<Vec<LVal>> {
        like.iter()
            .map(|v| match v {
                LVal::Scalar(x) => Ok(LVal::Scalar(self.var(self.f.var_type(*x).unwrap_or(Type::I64)))),
                LVal::Lanes(m) => Ok(LVal::Lanes(self.temp(self.elem(*m))?)),
                _ => err(None, LowerErrorKind::StateForm),
            })
            .collect()
    }

    /// Copies `from` into `to` (all read before any is written).
    fn assign(&mut self, to: &[LVal], from: &[LVal]) -> R<()> {
        // Through temporaries when a source is also a destination.
        let clash =
            from.iter().enumerate().any(|(i, f)| to.iter().enumerate().any(|(j, t)| i != j && same_storage(f, t)));
        let from: Vec<LVal> = if clash {
            let tmp = self.storage(from)?;
            self.copy_all(&tmp, from)?;
            tmp
        } else {
            from.to_vec()
        };
        self.copy_all(to, &from)
    }

    fn copy_all(&mut self, to: &[LVal], from: &[LVal]) -> R<()> {
        for (t, f) in to.iter().zip(from) {
            match (t, f) {
                (LVal::Scalar(a), LVal::Scalar(b)) if a != b => {
                    self.fb().ins().copy(*a, *b);
                }
                (LVal::Lanes(a), LVal::Lanes(b)) if a != b => {
                    let (d, s) = (self.all(*a), self.all(*b));
                    self.fb().ins().tensor(Opcode::Dma, d, &[TensorArg::Desc(s)]);
                }
                (LVal::Scalar(_), LVal::Scalar(_)) | (LVal::Lanes(_), LVal::Lanes(_)) => {}
                _ => return err(None, LowerErrorKind::FormMismatch),
            }
        }
        Ok(())
    }

    fn bind(&mut self, lam: Sym, args: &[LVal]) -> R<()> {
        let params = self.g.lambda(lam).map_or_else(Vec::new, |l| l.params.clone());
        if params.len() != args.len() {
            return err(Some(lam), LowerErrorKind::CallArity);
        }
        for (p, a) in params.into_iter().zip(args) {
            self.vals.insert(p, a.clone());
        }
        Ok(())
    }

    fn results(&self, lam: Sym) -> R<Vec<LVal>> {
        let rs = self.g.lambda(lam).map_or_else(Vec::new, |l| l.results.clone());
        rs.iter().map(|&r| self.val(r)).collect()
    }

    pub(super) fn run(&mut self, func: Sym) -> R<Vec<LVal>> {
        let g = self.g;
        let mut frames = vec![Frame { lam: func, pos: 0, then: Then::Top }];
        loop {
            let Some(top) = frames.last_mut() else { return err(None, LowerErrorKind::NoFrame) };
            let body = self.sched.body(g, top.lam);
            let Some(&node) = body.get(top.pos) else {
                let frame = frames.pop().expect("a frame");
                let results = self.results(frame.lam)?;
                match frame.then {
                    Then::Top => return Ok(results),
                    Then::Apply { node } => {
                        self.vals.insert(node, pack(results));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                    Then::BranchTaken { node, store, else_lam, args, else_block, join } => {
                        self.assign(&store, &results)?;
                        self.fb().ins().jump(join);
                        self.block = else_block;
                        self.bind(else_lam, &args)?;
                        frames.push(Frame { lam: else_lam, pos: 0, then: Then::OtherBranch { node, store, join } });
                    }
                    Then::OtherBranch { node, store, join } => {
                        self.assign(&store, &results)?;
                        self.fb().ins().jump(join);
                        self.block = join;
                        self.vals.insert(node, pack(store));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                    Then::LoopTest { node, state, body_lam, header, body, exit } => {
                        let Some(LVal::Scalar(c)) = results.first() else {
                            return err(Some(node), LowerErrorKind::ConditionNotScalar);
                        };
                        self.fb().ins().br(*c, body, exit);
                        self.block = body;
                        self.bind(body_lam, &state)?;
                        frames.push(Frame {
                            lam: body_lam,
                            pos: 0,
                            then: Then::LoopBody { node, state, header, exit },
                        });
                    }
                    Then::LoopBody { node, state, header, exit } => {
                        self.assign(&state, &results)?;
                        self.fb().ins().jump(header);
                        self.block = exit;
                        self.vals.insert(node, pack(state));
                        frames.last_mut().expect("the caller").pos += 1;
                    }
                }
                continue;
            };
            let n = g.data(node);
            let args = g.args(node);
            match n.op {
                Op::Lambda(_) | Op::Param(_) => {}
                Op::Get(i) => {
                    let v = match self.val(args[0])? {
                        LVal::Tuple(t) => t.get(i as usize).cloned(),
                        _ => None,
                    };
                    let v = v.ok_or(LowerError { sym: Some(node), kind: LowerErrorKind::GetOfNonTuple })?;
                    self.vals.insert(node, v);
                }
                Op::Apply => {
                    let vals: Vec<LVal> = args[1..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    self.bind(args[0], &vals)?;
                    frames.push(Frame { lam: args[0], pos: 0, then: Then::Apply { node } });
                    continue;
                }
                Op::If => {
                    let c = self.scalar(args[0])?;
                    let vals: Vec<LVal> = args[3..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    let like = self.result_forms(node, args[1])?;
                    let store = self.storage(&like)?;
                    let (then_b, else_b, join) = (self.new_block(), self.new_block(), self.new_block());
                    self.fb().ins().br(c, then_b, else_b);
                    self.block = then_b;
                    self.bind(args[1], &vals)?;
                    let then =
                        Then::BranchTaken { node, store, else_lam: args[2], args: vals, else_block: else_b, join };
                    frames.push(Frame { lam: args[1], pos: 0, then });
                    continue;
                }
                Op::While => {
                    let init: Vec<LVal> = args[2..].iter().map(|&a| self.val(a)).collect::<R<_>>()?;
                    let state = self.storage(&init)?;
                    self.copy_all(&state, &init)?;
                    let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
                    self.fb().ins().jump(header);
                    self.block = header;
                    self.bind(args[0], &state)?;
                    let then = Then::LoopTest { node, state, body_lam: args[1], header, body, exit };
                    frames.push(Frame { lam: args[0], pos: 0, then });
                    continue;
                }
                _ if self.fused.contains(&node) => {}
                _ => {
                    let v = self.first_order(node)?;
                    self.vals.insert(node, v);
                }
            }
            frames.last_mut().expect("a frame").pos += 1;
        }
    }

    /// The forms of a lambda's results, from their types.
    fn result_forms(&mut self, node: Sym, lam: Sym) -> R<Vec<LVal>> {
        let tys = self.g.result_types(lam);
        tys.iter()
            .map(|t| match t.depth {
                0 => Ok(LVal::Scalar(self.var(t.scalar.into()))),
                1 => Ok(LVal::Lanes(self.temp(t.scalar.into())?)),
                _ => err(Some(node), LowerErrorKind::BranchResultForm),
            })
            .collect()
    }
}

fn same_storage(a: &LVal, b: &LVal) -> bool {
    match (a, b) {
        (LVal::Scalar(x), LVal::Scalar(y)) => x == y,
        (LVal::Lanes(x), LVal::Lanes(y)) => x == y,
        _ => false,
    }
}

fn pack(mut v: Vec<LVal>) -> LVal {
    if v.len() == 1 { v.pop().expect("one value") } else { LVal::Tuple(v) }
}
