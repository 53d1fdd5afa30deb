//! Template instantiation (source document 003's staged functions, its
//! figure 9; `docs/references.md`):
//! a compiled rule runs against a [`Tpl`], which builds each lifted
//! application after aligning its arguments with what the primitive
//! accepts (mapped, the same in every lane, broadcast to the lanes, or
//! spread along a mapped argument's levels), types the literals, and puts
//! the node's masks on what may trap.
//!
//! Invariant: a template's root has the node's type one level deeper (or,
//! built from unbatched values, the node's own type); anything else is the
//! rule's error, naming it.

use super::engine::{Engine, Mode, R, VSym};
use super::error::VectorizeErrorKind;
use super::stage::literal_type;
use crate::graph::{Arg, Sym};
use crate::ops::{Op, Prim};
use crate::rules::{Slot, StageError, StagedFn, Stager};
use crate::scalar::{Imm, ScalarTy};
use smallvec::SmallVec;

impl Engine<'_> {
    /// The mask a template's trapping nodes carry: the node's own mask
    /// (lifted) and, in a masked frame, the frame's mask if the node may
    /// trap.
    fn template_mask(&mut self, node: Sym) -> R<Option<Sym>> {
        let src = self.src;
        let n = src.data(node);
        let own = match n.mask {
            None => None,
            Some(m) => {
                // A mask the same in every lane becomes one per lane: a
                // scalar mask on a lifted node would blank the whole value.
                let v = self.vsym(m);
                Some(if v.batched { v.sym } else { self.materialize(v.sym)? })
            }
        };
        let frame_mask = if self.frame().key.mode == Mode::Masked && self.purity.node_may_trap(src, node) {
            self.frame().mask
        } else {
            None
        };
        Ok(match (own, frame_mask) {
            (None, None) => None,
            (Some(x), None) => Some(x),
            (None, Some(m)) => Some(m),
            (Some(x), Some(m)) => {
                let j = self.st.g.val_ty(x).map_or(0, |t| t.depth);
                if j == 0 {
                    Some(self.and(m, x, 1)?)
                } else {
                    let spread = self.spread(m, x, j - 1)?;
                    Some(self.and(x, spread, j)?)
                }
            }
        })
    }

    pub(super) fn template(&mut self, node: Sym, f: &StagedFn, prim: Prim) -> R<()> {
        let mask = self.template_mask(node)?;
        let k = self.src.data(node).depth;
        let mut t = Tpl { eng: self, node, k, mask, slots: SmallVec::new() };
        let out = f(&mut t).and_then(|slot| t.result(slot));
        let v = out.map_err(|why| {
            let rule = self.rules.rule(prim).map_or_else(String::new, |r| r.text.clone());
            self.error(VectorizeErrorKind::RuleFailed { rule, why }, Some(node))
        })?;
        self.set(node, v);
        Ok(())
    }
}

/// A value on a template's stack.
#[derive(Clone, Debug)]
enum TVal {
    /// The rule's variable `i`: the node's argument `i`, vectorized.
    Orig(usize),
    /// A node the template built (batched).
    Lifted(Sym),
    /// A node the template built from values the same in every lane: not
    /// lifted (JAX does not batch a primitive with no batched input).
    Same(Sym),
    /// A literal, typed where it is used.
    Lit(String),
}

/// Runs a template for one node.
struct Tpl<'e, 'a> {
    eng: &'e mut Engine<'a>,
    node: Sym,
    k: u32,
    mask: Option<Sym>,
    slots: SmallVec<[TVal; 4]>,
}

/// An argument after alignment.
enum Aligned {
    Mapped(Sym),
    Same(Sym),
    Spread(Sym),
}

impl Tpl<'_, '_> {
    fn push(&mut self, v: TVal) -> Slot {
        self.slots.push(v);
        Slot(self.slots.len() as u32 - 1)
    }

    /// Aligns argument `j` of the original node for its lifted version.
    fn align(&mut self, j: usize) -> Result<Aligned, StageError> {
        let src = self.eng.src;
        let n = src.data(self.node);
        let a = *src.args(self.node).get(j).ok_or(StageError::NoSuchArgument(j))?;
        let same = self.k > 0 && n.is_bcast(j);
        let v = self.eng.vsym(a);
        Ok(match (v.batched, same) {
            (true, false) => Aligned::Mapped(v.sym),
            (true, true) => Aligned::Spread(v.sym),
            (false, true) => Aligned::Same(v.sym),
            (false, false) if self.k == 0 => Aligned::Same(v.sym),
            (false, false) => Aligned::Mapped(self.eng.materialize(v.sym)?),
        })
    }

    fn result(&mut self, slot: Slot) -> Result<VSym, StageError> {
        let src = self.eng.src;
        let want = src.data(self.node).ty.val().ok_or(StageError::NotAValue)?;
        let (v, ok) = match self.slots.get(slot.0 as usize).cloned() {
            Some(TVal::Lifted(s)) => {
                let t = self.eng.st.g.val_ty(s);
                (VSym { sym: s, batched: true }, t == Some(want.array_of()))
            }
            Some(TVal::Orig(j)) => {
                let v = self.eng.vsym(src.args(self.node)[j]);
                let t = self.eng.st.g.val_ty(v.sym);
                (v, t == Some(if v.batched { want.array_of() } else { want }))
            }
            Some(TVal::Same(s)) => {
                let t = self.eng.st.g.val_ty(s);
                (VSym { sym: s, batched: false }, t == Some(want))
            }
            _ => return Err(StageError::LiteralResult),
        };
        if !ok {
            return Err(StageError::WrongType { got: self.eng.st.g.val_ty(v.sym), want: want.array_of() });
        }
        Ok(v)
    }
}

impl Tpl<'_, '_> {
    /// `op` at the node's own depth on values the same in every lane
    /// (guarded if it may trap).
    fn unlifted(&mut self, op: Op, prim: Prim, args: &[Slot], target: Option<ScalarTy>) -> Result<Slot, StageError> {
        let src = self.eng.src;
        let n = src.data(self.node);
        let scalars: Vec<Option<ScalarTy>> = args
            .iter()
            .map(|s| match &self.slots[s.0 as usize] {
                TVal::Orig(j) => self.eng.st.g.val_ty(self.eng.vsym(src.args(self.node)[*j]).sym).map(|t| t.scalar),
                TVal::Same(x) | TVal::Lifted(x) => self.eng.st.g.val_ty(*x).map(|t| t.scalar),
                TVal::Lit(_) => None,
            })
            .collect();
        let mut built = Vec::with_capacity(args.len());
        for (i, s) in args.iter().enumerate() {
            built.push(match self.slots[s.0 as usize].clone() {
                TVal::Orig(j) => {
                    Arg { sym: self.eng.vsym(src.args(self.node)[j]).sym, bcast: self.k > 0 && n.is_bcast(j) }
                }
                TVal::Same(x) | TVal::Lifted(x) => Arg::mapped(x),
                TVal::Lit(text) => {
                    let Some(t) = literal_type(prim, i, &scalars) else { return Err(StageError::UntypedLiteral(text)) };
                    let imm = Imm::parse(&text, t).map_err(StageError::Literal)?;
                    let c = self.eng.constant(imm)?;
                    Arg { sym: c, bcast: self.k > 0 }
                }
            });
        }
        let mask = if op.traps() && op.maskable() { self.eng.guard()? } else { None };
        let scope = self.eng.frame().out;
        let s = self.eng.st.build(scope, op, self.k, &built, mask, target)?;
        Ok(self.push(TVal::Same(s)))
    }
}

impl Stager for Tpl<'_, '_> {
    fn var(&mut self, i: usize) -> Result<Slot, StageError> {
        Ok(self.push(TVal::Orig(i)))
    }

    fn literal(&mut self, text: &str) -> Result<Slot, StageError> {
        Ok(self.push(TVal::Lit(text.to_string())))
    }

    fn apply(&mut self, prim: Prim, lift: bool, args: &[Slot], root: bool) -> Result<Slot, StageError> {
        if !lift {
            return Err(StageError::Unlifted(prim));
        }
        let src = self.eng.src;
        let n = src.data(self.node);
        let op = if prim == n.op.prim() { n.op } else { prim.op().ok_or(StageError::NotBuildable(prim))? };
        let target = match op {
            Op::Convert(_) => n.ty.val().map(|t| t.scalar),
            _ => None,
        };
        // No batched input: build it unlifted (unless the node is batched
        // only through its mask, which its root must then carry).
        let batched = |t: &TVal, e: &Engine<'_>| match t {
            TVal::Orig(j) => e.vsym(src.args(self.node)[*j]).batched,
            TVal::Lifted(_) => true,
            TVal::Same(_) | TVal::Lit(_) => false,
        };
        let mask_batched = n.mask.is_some_and(|m| self.eng.vsym(m).batched);
        if !(args.iter().any(|s| batched(&self.slots[s.0 as usize], self.eng)) || root && mask_batched) {
            return self.unlifted(op, prim, args, target);
        }
        let mut aligned: SmallVec<[Option<Aligned>; 4]> = SmallVec::new();
        for s in args {
            aligned.push(match self.slots[s.0 as usize].clone() {
                TVal::Orig(j) => Some(self.align(j)?),
                TVal::Lifted(x) => Some(Aligned::Mapped(x)),
                TVal::Same(x) if self.k == 0 => Some(Aligned::Same(x)),
                TVal::Same(x) => Some(Aligned::Mapped(self.eng.materialize(x)?)),
                TVal::Lit(_) => None,
            });
        }
        // Batched only through its mask: one argument must still be mapped.
        if self.k == 0
            && !aligned.iter().any(|a| matches!(a, Some(Aligned::Mapped(_))))
            && let Some(a) = aligned.iter_mut().find(|a| matches!(a, Some(Aligned::Same(_))))
            && let Some(Aligned::Same(x)) = *a
        {
            *a = Some(Aligned::Mapped(self.eng.materialize(x)?));
        }
        let reference = aligned.iter().find_map(|a| match a {
            Some(Aligned::Mapped(x)) => Some(*x),
            _ => None,
        });
        let scalars: SmallVec<[Option<ScalarTy>; 4]> = args
            .iter()
            .zip(&aligned)
            .map(|(s, a)| match (a, &self.slots[s.0 as usize]) {
                (Some(Aligned::Mapped(x) | Aligned::Same(x) | Aligned::Spread(x)), _) => {
                    self.eng.st.g.val_ty(*x).map(|t| t.scalar)
                }
                _ => None,
            })
            .collect();
        let mut built: SmallVec<[Arg; 4]> = SmallVec::new();
        for (i, (s, a)) in args.iter().zip(aligned).enumerate() {
            built.push(match a {
                Some(Aligned::Mapped(x)) => Arg::mapped(x),
                Some(Aligned::Same(x)) => Arg::same(x),
                Some(Aligned::Spread(x)) => {
                    let like = reference.ok_or(StageError::NothingToFollow)?;
                    Arg::mapped(self.eng.spread(x, like, self.k)?)
                }
                None => {
                    let TVal::Lit(text) = self.slots[s.0 as usize].clone() else { return Err(StageError::NotALiteral) };
                    let Some(t) = literal_type(prim, i, &scalars) else { return Err(StageError::UntypedLiteral(text)) };
                    let imm = Imm::parse(&text, t).map_err(StageError::Literal)?;
                    let c = self.eng.constant(imm)?;
                    Arg { sym: c, bcast: true }
                }
            });
        }
        let traps = op.traps() || (root && (n.mask.is_some() || self.eng.purity.node_may_trap(src, self.node)));
        let mask = if traps && op.maskable() { self.mask } else { None };
        let scope = self.eng.frame().out;
        let s = self.eng.st.build(scope, op, self.k + 1, &built, mask, target)?;
        Ok(self.push(TVal::Lifted(s)))
    }
}
