//! The higher-order rules (the strategies a rule file names): `flatten`
//! for `map`, `call` for `apply`, `branch`/`masked_branch` for `if`, `loop`
//! for `while`. Each first makes sure every lambda it calls is vectorized
//! (returning [`Step::Need`] otherwise, having built nothing but the
//! wrapper lambdas that will hold them), then builds.
//!
//! - `map l, xs` with batched lanes (nested data parallelism flattened as
//!   G. E. Blelloch and G. W. Sabot, "Compiling collection-oriented
//!   languages onto massively parallel computers", JPDC 8(2), 1990, and
//!   Blelloch's NESL do it; `docs/references.md`): the lanes' arrays are
//!   concatenated into one, `/l/` runs once over all their elements, and
//!   the result is partitioned by the lanes' lengths; arguments passed
//!   whole are repeated per element, a lane mask is spread to the elements,
//!   and two mapped arrays are asserted to have equal lengths lane by lane.
//! - `if c` with `c` the same in every lane stays an `if` over wrapper
//!   lambdas calling `/lt/` and `/le/`; with `c` batched both run and
//!   `select.1` picks per lane: unmasked when both branches are pure,
//!   otherwise each under its lanes' mask.
//! - `while` whose condition is the same in every lane (under the fixpoint
//!   pattern of [`crate::Uniformity`]) stays a loop, its condition anded
//!   with "some lane is active"; with a batched condition the loop carries
//!   a mask of running lanes, runs while any lane runs, runs the body under
//!   that mask and keeps the finished lanes' state with `select.1`.
//! - `map` with nothing batched stays a `map` over `/l/` vectorized as a
//!   per-element lambda, passed the frame's guard.

use super::engine::{B, Engine, LamDone, LamKey, Mode, R, Step, VSym};
use super::error::VectorizeErrorKind;
use crate::bits::Bits;
use crate::graph::{Arg, Sym};
use crate::ops::Op;
use crate::rules::{StageError, Strategy};
use crate::scalar::{BinaryOp, IntCC, ScalarTy, UnaryOp};
use crate::types::ValTy;

/// Values a callee's extra params receive.
#[derive(Copy, Clone, Default)]
struct Extras {
    mask: Option<Sym>,
    lanes: Option<Sym>,
    guard: Option<Sym>,
}

impl Engine<'_> {
    pub(super) fn strategy(&mut self, node: Sym, s: Strategy) -> R<Step> {
        match s {
            Strategy::Flatten => self.flatten(node),
            Strategy::Call => self.call(node),
            Strategy::Branch => self.branch(node, false),
            Strategy::MaskedBranch => self.branch(node, true),
            Strategy::Loop => self.repeat(node),
            Strategy::Project => Err(self.error(VectorizeErrorKind::ProjectMisused, Some(node))),
        }
    }

    fn key(&self, lam: Sym, scope: Sym, pattern: Bits, mode: Mode, force: Bits) -> LamKey {
        LamKey { lam, scope: Some(scope), pattern: pattern.normalized(), mode, force: force.normalized() }
    }

    fn vals(&self, syms: &[Sym]) -> Vec<VSym> {
        syms.iter().map(|&s| self.vsym(s)).collect()
    }

    fn wrappers(&mut self, n: usize) -> Vec<Sym> {
        if self.frame().wrappers.len() < n {
            let out = self.frame().out;
            let made: Vec<Sym> = (0..n).map(|_| self.st.g.add_lambda(out, &[])).collect();
            self.frames.last_mut().expect("a frame").wrappers = made;
        }
        self.frame().wrappers[..n].to_vec()
    }

    /// `apply d.out, args ++ extras` in `scope`, unpacked into results.
    fn apply_in(&mut self, scope: Sym, d: &LamDone, args: &[Sym], x: Extras) -> R<Vec<Sym>> {
        let mut all = vec![Arg::mapped(d.out)];
        all.extend(args.iter().map(|&a| Arg::mapped(a)));
        let missing = || self.error(VectorizeErrorKind::MissingExtra, None);
        if d.mode == Mode::Masked {
            all.push(Arg::mapped(x.mask.ok_or_else(missing)?));
        }
        if d.lanes_param {
            all.push(Arg::mapped(x.lanes.ok_or_else(missing)?));
        }
        let r = self.build_in(scope, Op::Apply, 0, &all, None, None)?;
        Ok(self.unpack(scope, r, d.nresults)?)
    }

    fn unpack(&mut self, scope: Sym, r: Sym, n: usize) -> B<Vec<Sym>> {
        if n == 1 {
            return Ok(vec![r]);
        }
        (0..n as u32).map(|j| self.build_in(scope, Op::Get(j), 0, &[Arg::mapped(r)], None, None)).collect()
    }

    /// The lanes a callee needs, from the current frame.
    fn frame_extras(&mut self, d: &[&LamDone]) -> R<Extras> {
        let mut x = Extras { mask: self.frame().mask, ..Extras::default() };
        if d.iter().any(|d| d.lanes_param) {
            x.lanes = Some(self.lanes()?);
        }
        Ok(x)
    }

    fn ty(&self, s: Sym) -> ValTy {
        self.st.g.val_ty(s).unwrap_or(ValTy::scalar(ScalarTy::I1))
    }

    /// `apply`.
    pub(super) fn call(&mut self, node: Sym) -> R<Step> {
        let args = self.src.args(node);
        let vals = self.vals(&args[1..]);
        let (out, mode) = (self.frame().out, self.frame().key.mode);
        let key = self.key(args[0], out, Bits::from_flags(vals.iter().map(|v| v.batched)), mode, Bits::new());
        let Some(d) = self.done(&key) else { return Ok(Step::Need(key)) };
        let x = self.frame_extras(&[&d])?;
        let syms: Vec<Sym> = vals.iter().map(|v| v.sym).collect();
        let outs = self.apply_in(out, &d, &syms, x)?;
        let parts = outs.iter().enumerate().map(|(j, &s)| VSym { sym: s, batched: d.results.contains(j) }).collect();
        self.set_tuple(node, parts);
        Ok(Step::Done)
    }

    /// A batched value needs a lane level: a per-element lambda has none.
    fn lanes_level(&self, node: Sym, mode: Mode) -> R<()> {
        if mode == Mode::Plain {
            return Err(self.error(VectorizeErrorKind::Build(StageError::BatchedInPlainLambda), Some(node)));
        }
        Ok(())
    }

    /// Adds to wrapper `w` params of `tys`: `n` values, then the extras
    /// `x` has (mask, lanes, guard, in that order); returns the values'
    /// params and the extras' params.
    fn wrapper_params(&mut self, w: Sym, tys: &[ValTy], n: usize, x: Extras) -> (Vec<Sym>, Extras) {
        let ps = self.params(w, tys);
        let (values, rest) = ps.split_at(n);
        let mut it = rest.iter().copied();
        let wx = Extras {
            mask: x.mask.and_then(|_| it.next()),
            lanes: x.lanes.and_then(|_| it.next()),
            guard: x.guard.and_then(|_| it.next()),
        };
        (values.to_vec(), wx)
    }

    /// Adds params for `types` to wrapper `w`.
    fn params(&mut self, w: Sym, types: &[ValTy]) -> Vec<Sym> {
        types.iter().map(|&t| self.st.g.add_param(w, t)).collect()
    }

    /// `if`.
    pub(super) fn branch(&mut self, node: Sym, always_mask: bool) -> R<Step> {
        let src = self.src;
        let args = src.args(node);
        let (lt, le) = (args[1], args[2]);
        let c = self.vsym(args[0]);
        let vals = self.vals(&args[3..]);
        let pattern = Bits::from_flags(vals.iter().map(|v| v.batched));
        let syms: Vec<Sym> = vals.iter().map(|v| v.sym).collect();
        let (out, mode) = (self.frame().out, self.frame().key.mode);
        let nres = src.data(node).ty.arity();
        if !c.batched {
            let mut join = self.uni.summary(lt, &pattern).results.clone();
            join.union_with(&self.uni.summary(le, &pattern).results);
            let w = self.wrappers(2);
            let kt = self.key(lt, w[0], pattern.clone(), mode, join.clone());
            let ke = self.key(le, w[1], pattern.clone(), mode, join.clone());
            let Some(dt) = self.done(&kt) else { return Ok(Step::Need(kt)) };
            let Some(de) = self.done(&ke) else { return Ok(Step::Need(ke)) };
            // Extra values both wrappers take: mask, lanes.
            let x = self.frame_extras(&[&dt, &de])?;
            let mut extra_vals = Vec::new();
            let mut extra_tys = Vec::new();
            for v in [x.mask, x.lanes, x.guard].into_iter().flatten() {
                extra_vals.push(v);
                extra_tys.push(self.ty(v));
            }
            let mut tys: Vec<ValTy> = syms.iter().map(|&s| self.ty(s)).collect();
            tys.extend(&extra_tys);
            for (wi, d) in w.iter().zip([&dt, &de]) {
                let (state, wx) = self.wrapper_params(*wi, &tys, syms.len(), x);
                let outs = self.apply_in(*wi, d, &state, wx)?;
                self.st.g.set_results(*wi, &outs);
            }
            let mut all = vec![Arg::mapped(c.sym), Arg::mapped(w[0]), Arg::mapped(w[1])];
            all.extend(syms.iter().chain(&extra_vals).map(|&s| Arg::mapped(s)));
            let r = self.build_in(out, Op::If, 0, &all, None, None)?;
            let outs = self.unpack(out, r, nres)?;
            let parts = outs.iter().enumerate().map(|(j, &s)| VSym { sym: s, batched: join.contains(j) }).collect();
            self.set_tuple(node, parts);
            return Ok(Step::Done);
        }
        self.lanes_level(node, mode)?;
        let pure = !always_mask && !self.purity.lambda_may_trap(src, lt) && !self.purity.lambda_may_trap(src, le);
        let cmode = if pure { Mode::Lanes } else { Mode::Masked };
        let kt = self.key(lt, out, pattern.clone(), cmode, Bits::new());
        let ke = self.key(le, out, pattern.clone(), cmode, Bits::new());
        let Some(dt) = self.done(&kt) else { return Ok(Step::Need(kt)) };
        let Some(de) = self.done(&ke) else { return Ok(Step::Need(ke)) };
        let mut x = self.frame_extras(&[&dt, &de])?;
        let (xt, xe) = if pure {
            (x, x)
        } else {
            let not_c = self.build(Op::Unary(UnaryOp::Not), 1, &[Arg::mapped(c.sym)], None)?;
            let (mt, me) = match self.frame().mask {
                Some(m) => (self.and(m, c.sym, 1)?, self.and(m, not_c, 1)?),
                None => (c.sym, not_c),
            };
            x.mask = Some(mt);
            let mut y = x;
            y.mask = Some(me);
            (x, y)
        };
        let t = self.apply_in(out, &dt, &syms, xt)?;
        let e = self.apply_in(out, &de, &syms, xe)?;
        let mut parts = Vec::with_capacity(nres);
        for j in 0..nres {
            let (mut a, mut b) =
                (Arg { sym: t[j], bcast: !dt.results.contains(j) }, Arg { sym: e[j], bcast: !de.results.contains(j) });
            if self.swap_branches {
                std::mem::swap(&mut a, &mut b);
            }
            let r = self.build(Op::Select, 1, &[Arg::mapped(c.sym), a, b], None)?;
            parts.push(VSym { sym: r, batched: true });
        }
        self.set_tuple(node, parts);
        Ok(Step::Done)
    }

    /// `while`.
    pub(super) fn repeat(&mut self, node: Sym) -> R<Step> {
        let src = self.src;
        let args = src.args(node);
        let (lc, lb) = (args[0], args[1]);
        let init = self.vals(&args[2..]);
        let n = init.len();
        let p0 = Bits::from_flags(init.iter().map(|v| v.batched));
        let (pattern, cond_batched) = self.uni.while_pattern(node, &p0);
        let (out, mode) = (self.frame().out, self.frame().key.mode);
        if !cond_batched {
            let w = self.wrappers(2);
            let kc = self.key(lc, w[0], pattern.clone(), mode, Bits::new());
            let kb = self.key(lb, w[1], pattern.clone(), mode, pattern.clone());
            let Some(dc) = self.done(&kc) else { return Ok(Step::Need(kc)) };
            let Some(db) = self.done(&kb) else { return Ok(Step::Need(kb)) };
            let state = self.initial_state(&init, &pattern)?;
            let mut x = self.frame_extras(&[&dc, &db])?;
            x.guard = self.guard()?;
            let mut extra_vals = Vec::new();
            for v in [x.mask, x.lanes, x.guard].into_iter().flatten() {
                extra_vals.push(v);
            }
            let tys: Vec<ValTy> = state.iter().chain(&extra_vals).map(|&s| self.ty(s)).collect();
            for (wi, d) in w.iter().zip([&dc, &db]) {
                let (st, wx) = self.wrapper_params(*wi, &tys, n, x);
                let outs = self.apply_in(*wi, d, &st, wx)?;
                if *wi == w[0] {
                    // Run only if some lane is active (an empty batch runs nothing).
                    let r = match wx.guard {
                        Some(g) => self.build_in(
                            *wi,
                            Op::Binary(BinaryOp::And),
                            0,
                            &[Arg::mapped(outs[0]), Arg::mapped(g)],
                            None,
                            None,
                        )?,
                        None => outs[0],
                    };
                    self.st.g.set_results(*wi, &[r]);
                } else {
                    let mut res = outs;
                    res.extend([wx.mask, wx.lanes, wx.guard].into_iter().flatten());
                    self.st.g.set_results(*wi, &res);
                }
            }
            let mut all = vec![Arg::mapped(w[0]), Arg::mapped(w[1])];
            all.extend(state.iter().chain(&extra_vals).map(|&s| Arg::mapped(s)));
            let r = self.build_in(out, Op::While, 0, &all, None, None)?;
            let outs = self.unpack(out, r, n + extra_vals.len())?;
            let parts = (0..n).map(|j| VSym { sym: outs[j], batched: pattern.contains(j) }).collect();
            self.set_tuple(node, parts);
            return Ok(Step::Done);
        }
        self.lanes_level(node, mode)?;
        let w = self.wrappers(2);
        let k0 = self.key(lc, out, pattern.clone(), mode, Bits::all(1));
        let kb = self.key(lb, w[1], pattern.clone(), Mode::Masked, pattern.clone());
        let kc = self.key(lc, w[1], pattern.clone(), Mode::Masked, Bits::all(1));
        let Some(d0) = self.done(&k0) else { return Ok(Step::Need(k0)) };
        let Some(db) = self.done(&kb) else { return Ok(Step::Need(kb)) };
        let Some(dc) = self.done(&kc) else { return Ok(Step::Need(kc)) };
        let state = self.initial_state(&init, &pattern)?;
        let x = self.frame_extras(&[&d0])?;
        let c0 = self.apply_in(out, &d0, &state, x)?[0];
        let m0 = match self.frame().mask {
            Some(m) => self.and(m, c0, 1)?,
            None => c0,
        };
        let mut tys: Vec<ValTy> = state.iter().map(|&s| self.ty(s)).collect();
        tys.push(ValTy::array(ScalarTy::I1, 1));
        // The condition wrapper: some lane still runs.
        let pc = self.params(w[0], &tys);
        let any = self.build_in(w[0], Op::Any, 0, &[Arg::mapped(pc[n])], None, None)?;
        self.st.g.set_results(w[0], &[any]);
        // The body wrapper: run the body under the mask, keep finished lanes.
        let pb = self.params(w[1], &tys);
        let (s, m) = (&pb[..n], pb[n]);
        let mx = Extras { mask: Some(m), ..Extras::default() };
        let next = self.apply_in(w[1], &db, s, mx)?;
        let mut s2 = Vec::with_capacity(n);
        for j in 0..n {
            s2.push(if !pattern.contains(j) {
                s[j]
            } else if self.run_finished_lanes {
                next[j]
            } else {
                let nj = Arg { sym: next[j], bcast: !db.results.contains(j) };
                self.build_in(w[1], Op::Select, 1, &[Arg::mapped(m), nj, Arg::mapped(s[j])], None, None)?
            });
        }
        let c = self.apply_in(w[1], &dc, &s2, mx)?[0];
        let m2 = self.build_in(w[1], Op::Binary(BinaryOp::And), 1, &[Arg::mapped(m), Arg::mapped(c)], None, None)?;
        let mut res = s2;
        res.push(m2);
        self.st.g.set_results(w[1], &res);
        let mut all = vec![Arg::mapped(w[0]), Arg::mapped(w[1])];
        all.extend(state.iter().chain([&m0]).map(|&s| Arg::mapped(s)));
        let r = self.build_in(out, Op::While, 0, &all, None, None)?;
        let outs = self.unpack(out, r, n + 1)?;
        let parts = (0..n).map(|j| VSym { sym: outs[j], batched: pattern.contains(j) }).collect();
        self.set_tuple(node, parts);
        Ok(Step::Done)
    }

    /// The initial state under the loop's pattern (broadcast where a
    /// uniform initial value must become batched).
    fn initial_state(&mut self, init: &[VSym], pattern: &Bits) -> B<Vec<Sym>> {
        init.iter()
            .enumerate()
            .map(|(j, v)| if pattern.contains(j) && !v.batched { self.materialize(v.sym) } else { Ok(v.sym) })
            .collect()
    }

    /// `map` with nothing batched: a `map` over a per-element lambda. If
    /// it may trap and no lane may be active, its mapped arrays are
    /// replaced by empty ones then, so it runs nothing.
    pub(super) fn uniform_map(&mut self, node: Sym) -> R<Step> {
        let src = self.src;
        let n = src.data(node);
        let args = src.args(node);
        let out = self.frame().out;
        let key = self.key(args[0], out, Bits::new(), Mode::Plain, Bits::new());
        let Some(d) = self.done(&key) else { return Ok(Step::Need(key)) };
        let guard = if self.purity.node_may_trap(src, node) { self.guard()? } else { None };
        let mut all = vec![Arg::mapped(d.out)];
        for (i, &a) in args.iter().enumerate().skip(1) {
            let mut x = self.vsym(a).sym;
            let whole = n.is_bcast(i);
            if let (Some(g), false) = (guard, whole) {
                let empty = crate::value::Value::zero(self.ty(x));
                let index = self.st.g.add_array_const(empty);
                let e = self.build(Op::Array(index), 0, &[], None)?;
                x = self.build(Op::Select, 0, &[Arg::mapped(g), Arg::mapped(x), Arg::mapped(e)], None)?;
            }
            all.push(Arg { sym: x, bcast: whole });
        }
        let r = self.build_in(out, Op::Map, 0, &all, None, None)?;
        self.st.stats.copied += 1;
        self.set(node, VSym { sym: r, batched: false });
        Ok(Step::Done)
    }

    /// `map` with batched lanes: flatten, apply once, partition.
    fn flatten(&mut self, node: Sym) -> R<Step> {
        let src = self.src;
        let n = src.data(node);
        let args = src.args(node);
        let (out, mode) = (self.frame().out, self.frame().key.mode);
        if mode == Mode::Plain {
            return Err(self.error(VectorizeErrorKind::BatchedMapInPlainLambda, Some(node)));
        }
        let mut vals = self.vals(&args[1..]);
        let whole: Vec<bool> = (1..args.len()).map(|i| n.is_bcast(i)).collect();
        // Under a mask, inactive lanes map over empty arrays: their mapped
        // values may be zeros of another length than the active lanes'.
        if let Some(m) = self.frame().mask {
            for (v, &w) in vals.iter_mut().zip(&whole) {
                if w {
                    continue;
                }
                let item = if v.batched { self.ty(v.sym).element().expect("an array") } else { self.ty(v.sym) };
                let index = self.st.g.add_array_const(crate::value::Value::zero(item));
                let empty = self.build(Op::Array(index), 0, &[], None)?;
                let x = Arg { sym: v.sym, bcast: !v.batched };
                let s = self.build(Op::Select, 1, &[Arg::mapped(m), x, Arg::same(empty)], None)?;
                *v = VSym { sym: s, batched: true };
            }
        }
        let inner = Bits::from_flags(vals.iter().zip(&whole).map(|(v, &w)| !w || v.batched));
        let key = self.key(args[0], out, inner, mode, Bits::all(1));
        let Some(d) = self.done(&key) else { return Ok(Step::Need(key)) };
        // The lanes' lengths, from the first mapped argument (batched if one is).
        let first = (0..vals.len()).filter(|&i| !whole[i]).min_by_key(|&i| !vals[i].batched);
        let Some(r) = first else {
            return Err(self.error(VectorizeErrorKind::UnmappedMap, Some(node)));
        };
        let lens_of = |e: &mut Self, i: usize| -> R<(Sym, bool)> {
            let v = vals[i];
            if v.batched {
                Ok((e.build(Op::Length, 1, &[Arg::mapped(v.sym)], None)?, true))
            } else {
                Ok((e.build(Op::Length, 0, &[Arg::mapped(v.sym)], None)?, false))
            }
        };
        let (mut lens, batched) = lens_of(self, r)?;
        if !batched {
            lens = self.materialize(lens)?;
        }
        let mut flats = Vec::with_capacity(vals.len());
        for (i, v) in vals.iter().enumerate() {
            flats.push(match (whole[i], v.batched) {
                (false, true) => self.build(Op::Concat, 0, &[Arg::mapped(v.sym)], None)?,
                (false, false) => {
                    let b = self.materialize(v.sym)?;
                    self.build(Op::Concat, 0, &[Arg::mapped(b)], None)?
                }
                (true, true) => {
                    let b = self.build(Op::Broadcast, 1, &[Arg::mapped(v.sym), Arg::mapped(lens)], None)?;
                    self.build(Op::Concat, 0, &[Arg::mapped(b)], None)?
                }
                (true, false) => v.sym,
            });
        }
        // Mapped arrays must have equal lengths in every lane.
        for i in (0..vals.len()).filter(|&i| !whole[i] && i != r) {
            let (li, b) = lens_of(self, i)?;
            let eq = self.build(Op::Setp(IntCC::Eq), 1, &[Arg::mapped(lens), Arg { sym: li, bcast: !b }], None)?;
            let mask = self.frame().mask;
            self.build(Op::Assert, 1, &[Arg::mapped(eq)], mask)?;
        }
        let mut x = Extras::default();
        if let Some(m) = self.frame().mask {
            let b = self.build(Op::Broadcast, 1, &[Arg::mapped(m), Arg::mapped(lens)], None)?;
            x.mask = Some(self.build(Op::Concat, 0, &[Arg::mapped(b)], None)?);
        }
        if d.lanes_param {
            x.lanes = Some(self.build(Op::Length, 0, &[Arg::mapped(flats[r])], None)?);
        }
        let res = self.apply_in(out, &d, &flats, x)?[0];
        let parts = self.build(Op::Partition, 0, &[Arg::mapped(res), Arg::mapped(lens)], None)?;
        self.set(node, VSym { sym: parts, batched: true });
        Ok(Step::Done)
    }
}
